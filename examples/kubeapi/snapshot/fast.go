package snapshot

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A million pods are most of a large snapshot's decoding, and
// encoding/json reads each twice (once to check its syntax, once to
// decode) and skips the fields not kept through its general machinery.
// fastPod (and fastNode) decodes the kept fields of a Pod (the pod type) in
// one pass, as encoding/json would, for the inputs it knows; on anything else (an
// error, a type mismatch, a key repeated or spelled in another case, a
// string with invalid UTF-8 or a surrogate escape, a null where
// encoding/json would call a method) it gives up and the item goes to
// encoding/json, which decodes it or words its error. FuzzFastPod and
// FuzzFastNode hold the two to the same result.

// lexer reads JSON values from data; a failed read sets bad, and every
// read after it fails too.
type lexer struct {
	data  []byte
	i     int
	bad   bool
	depth int
	buf   []byte // scratch for strings with escapes
}

// maxSkipDepth bounds the nesting skip follows (far below encoding/json's
// 10,000): deeper input is left to encoding/json.
const maxSkipDepth = 512

func (l *lexer) fail() { l.bad = true }

func (l *lexer) ws() {
	for l.i < len(l.data) {
		switch l.data[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (l *lexer) peek() byte {
	l.ws()
	if l.bad || l.i >= len(l.data) {
		return 0
	}
	return l.data[l.i]
}

// literal consumes word (true, false, null) when it comes next.
func (l *lexer) literal(word string) bool {
	if l.peek() != word[0] {
		return false
	}
	if len(l.data)-l.i < len(word) || string(l.data[l.i:l.i+len(word)]) != word {
		l.fail()
		return false
	}
	l.i += len(word)
	return true
}

// null consumes a null when it comes next.
func (l *lexer) null() bool { return l.literal("null") }

// object reads an object's members, calling member with each key as it
// is written (escapes undecoded); it returns false on null (nothing read).
// member must read the value.
func (l *lexer) object(member func(key []byte)) bool {
	return l.sequence('{', '}', func() {
		key, ok := l.rawString()
		if !ok || l.peek() != ':' {
			l.fail()
			return
		}
		l.i++
		member(key)
	})
}

// array reads an array's elements with elem; it returns false on null.
func (l *lexer) array(elem func()) bool { return l.sequence('[', ']', elem) }

// sequence reads what open and close enclose, each member or element
// with each; it returns false on null.
func (l *lexer) sequence(open, close byte, each func()) bool {
	if l.null() {
		return false
	}
	if l.peek() != open {
		l.fail()
		return false
	}
	l.i++
	if l.peek() == close {
		l.i++
		return true
	}
	for !l.bad {
		each()
		switch l.peek() {
		case ',':
			l.i++
		case close:
			l.i++
			return !l.bad
		default:
			l.fail()
		}
	}
	return false
}

// rawString reads a string and returns its bytes between the quotes,
// escapes as they are; it checks the string's syntax.
func (l *lexer) rawString() ([]byte, bool) {
	if l.peek() != '"' {
		return nil, false
	}
	start := l.i + 1
	for i := start; i < len(l.data); i++ {
		for i < len(l.data) && !stringStop[l.data[i]] {
			i++
		}
		if i == len(l.data) {
			break
		}
		c := l.data[i]
		switch {
		case c == '"':
			l.i = i + 1
			return l.data[start:i], true
		case c < 0x20:
			l.fail()
			return nil, false
		default: // a backslash
			i++
			if i >= len(l.data) {
				l.fail()
				return nil, false
			}
			switch l.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(l.data) {
					l.fail()
					return nil, false
				}
				for _, h := range l.data[i+1 : i+5] {
					if !isHex(h) {
						l.fail()
						return nil, false
					}
				}
				i += 4
			default:
				l.fail()
				return nil, false
			}
		}
	}
	l.fail()
	return nil, false
}

// stringStop marks the bytes a string's scan stops at: its end, an
// escape, a control character (a syntax error).
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str reads a string value into *into (null leaves it as it is, as
// encoding/json does).
func (l *lexer) str(into *string) {
	if l.null() {
		return
	}
	raw, ok := l.rawString()
	if !ok {
		l.fail()
		return
	}
	*into = l.unquote(raw)
}

// unquote decodes a string's escapes; it fails on what encoding/json
// would change (invalid UTF-8, surrogate escapes).
func (l *lexer) unquote(raw []byte) string {
	plain := true
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(raw)
	}
	if !utf8.Valid(raw) {
		l.fail()
		return ""
	}
	b := l.buf[:0]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			v, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
			if err != nil || v >= 0xd800 && v < 0xe000 {
				l.fail()
				return ""
			}
			b = utf8.AppendRune(b, rune(v))
			i += 4
		default: // " \ /
			b = append(b, raw[i])
		}
	}
	l.buf = b
	return string(b)
}

// number reads a number and returns its text.
func (l *lexer) number() []byte {
	l.ws()
	start, i := l.i, l.i
	d := l.data
	// digits moves i past one or more digits, or reports there are none.
	digits := func() bool {
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return true
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++ // no leading zeros
	} else if !digits() {
		l.fail()
		return nil
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			l.fail()
			return nil
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			l.fail()
			return nil
		}
	}
	l.i = i
	return d[start:i]
}

// integer reads a number into an integer of bits bits (a fraction, an
// exponent or an overflow fails, as they are errors to encoding/json).
func (l *lexer) integer(bits int) (int64, bool) {
	if l.null() {
		return 0, false
	}
	v, err := strconv.ParseInt(string(l.number()), 10, bits)
	if err != nil {
		l.fail()
		return 0, false
	}
	return v, true
}

func (l *lexer) int32Ptr(into **int32) {
	if v, ok := l.integer(32); ok {
		w := int32(v)
		*into = &w
	}
}

func (l *lexer) int64Ptr(into **int64) {
	if v, ok := l.integer(64); ok {
		*into = &v
	}
}

func (l *lexer) int32(into *int32) {
	if v, ok := l.integer(32); ok {
		*into = int32(v)
	}
}

func (l *lexer) boolPtr(into **bool) {
	switch {
	case l.literal("true"):
		v := true
		*into = &v
	case l.literal("false"):
		v := false
		*into = &v
	case l.null():
	default:
		l.fail()
	}
}

// skip reads any value, checking its syntax. Most of an item is skipped
// (managed fields, statuses, volumes): objects and arrays are walked here
// without the closures of object and array.
func (l *lexer) skip() {
	switch c := l.peek(); {
	case c == '{' || c == '[':
		if l.depth++; l.depth > maxSkipDepth {
			l.fail()
			return
		}
		l.skipIn(c)
		l.depth--
	case c == '"':
		if _, ok := l.rawString(); !ok {
			l.fail()
		}
	case c == 't':
		l.literal("true")
	case c == 'f':
		l.literal("false")
	case c == 'n':
		l.null()
	case c == '-' || '0' <= c && c <= '9':
		l.number()
	default:
		l.fail()
	}
}

// skipIn skips the members or elements of the object or array open
// begins, and its end.
func (l *lexer) skipIn(open byte) {
	end := byte(']')
	if open == '{' {
		end = '}'
	}
	l.i++
	if l.peek() == end {
		l.i++
		return
	}
	for !l.bad {
		if open == '{' {
			if _, ok := l.rawString(); !ok || l.peek() != ':' {
				l.fail()
				return
			}
			l.i++
		}
		l.skip()
		switch l.peek() {
		case ',':
			l.i++
		case end:
			l.i++
			return
		default:
			l.fail()
		}
	}
}

// raw skips a value and returns its text.
func (l *lexer) raw() []byte {
	l.ws()
	start := l.i
	l.skip()
	return l.data[start:l.i]
}

// kept is a kept field of a T: its JSON name, and how its value is read
// into a T.
type kept[T any] struct {
	name string
	read func(l *lexer, v *T)
}

// readObject reads an object into v, its kept fields through fs (null
// leaves v as it is). A kept field read twice (encoding/json merges or
// overwrites) fails, and so does a key that matches a kept field's name
// only without regard to case, or might once unescaped (encoding/json
// takes it); other keys are skipped.
func readObject[T any](l *lexer, v *T, fs []kept[T]) {
	var seen uint64
	l.object(func(key []byte) {
		for n := range fs {
			if string(key) == fs[n].name {
				if seen&(1<<n) != 0 {
					l.fail()
					return
				}
				seen |= 1 << n
				fs[n].read(l, v)
				return
			}
		}
		for _, c := range key {
			if c >= utf8.RuneSelf || c == '\\' {
				l.fail()
				return
			}
		}
		for n := range fs {
			if equalFoldASCII(key, fs[n].name) {
				l.fail()
				return
			}
		}
		l.skip()
	})
}

// objectOf returns the reader of objects with the kept fields fs.
func objectOf[T any](fs []kept[T]) func(*lexer, *T) {
	return func(l *lexer, v *T) { readObject(l, v, fs) }
}

// readList reads an array into *into, each element through elem (null
// leaves *into as it is; [] makes it empty, not nil, as encoding/json
// does).
func readList[T any](l *lexer, into *[]T, elem func(*lexer, *T)) {
	out := []T{}
	if l.array(func() {
		var zero T
		out = append(out, zero)
		elem(l, &out[len(out)-1]) // in place: a local would escape
	}) {
		*into = out
	}
}

func equalFoldASCII(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// stringMap reads a map of strings (labels, annotations, selectors).
func (l *lexer) stringMap(into *map[string]string) {
	m := map[string]string{}
	if !l.object(func(key []byte) {
		var v string
		if l.null() {
			// encoding/json stores the zero value for a null element
		} else {
			l.str(&v)
		}
		m[l.unquote(key)] = v
	}) {
		return
	}
	*into = m
}

// quantity reads a resource.Quantity as its UnmarshalJSON does (null is
// left to encoding/json).
func (l *lexer) quantity(into *resource.Quantity) {
	if l.peek() == 'n' {
		l.fail()
		return
	}
	if err := into.UnmarshalJSON(l.raw()); err != nil {
		l.fail()
	}
}

// resourceList reads a ResourceList.
func (l *lexer) resourceList(into *corev1.ResourceList) {
	m := corev1.ResourceList{}
	if !l.object(func(key []byte) {
		var q resource.Quantity
		l.quantity(&q)
		m[corev1.ResourceName(l.unquote(key))] = q
	}) {
		return
	}
	*into = m
}

// time reads a metav1.Time as its UnmarshalJSON does (null is left to
// encoding/json).
func (l *lexer) time(into *metav1.Time) {
	if l.peek() != '"' {
		l.fail()
		return
	}
	var s string
	l.str(&s)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		l.fail()
		return
	}
	into.Time = t.Local()
}

// into reads a value with encoding/json into v (a kept field of a type
// fastPod leaves to it: affinity, security context).
func (l *lexer) into(v any) {
	if err := json.Unmarshal(l.raw(), v); err != nil {
		l.fail()
	}
}

// The kept fields of each type, as lite.go names them.

var metaFields = []kept[objectMeta]{
	{"name", func(l *lexer, m *objectMeta) { l.str(&m.Name) }},
	{"namespace", func(l *lexer, m *objectMeta) { l.str(&m.Namespace) }},
	{"uid", func(l *lexer, m *objectMeta) { l.str((*string)(&m.UID)) }},
	{"resourceVersion", func(l *lexer, m *objectMeta) { l.str(&m.ResourceVersion) }},
	{"creationTimestamp", func(l *lexer, m *objectMeta) { l.time(&m.CreationTimestamp) }},
	{"deletionTimestamp", func(l *lexer, m *objectMeta) {
		var t metav1.Time
		l.time(&t)
		m.DeletionTimestamp = &t
	}},
	{"labels", func(l *lexer, m *objectMeta) { l.stringMap(&m.Labels) }},
	{"annotations", func(l *lexer, m *objectMeta) { l.stringMap(&m.Annotations) }},
	{"ownerReferences", func(l *lexer, m *objectMeta) { readList(l, &m.OwnerReferences, readOwner) }},
}

var readOwner = objectOf([]kept[metav1.OwnerReference]{
	{"apiVersion", func(l *lexer, o *metav1.OwnerReference) { l.str(&o.APIVersion) }},
	{"kind", func(l *lexer, o *metav1.OwnerReference) { l.str(&o.Kind) }},
	{"name", func(l *lexer, o *metav1.OwnerReference) { l.str(&o.Name) }},
	{"uid", func(l *lexer, o *metav1.OwnerReference) { l.str((*string)(&o.UID)) }},
	{"controller", func(l *lexer, o *metav1.OwnerReference) { l.boolPtr(&o.Controller) }},
	{"blockOwnerDeletion", func(l *lexer, o *metav1.OwnerReference) { l.boolPtr(&o.BlockOwnerDeletion) }},
})

var podFields = []kept[pod]{
	{"apiVersion", func(l *lexer, p *pod) { l.str(&p.APIVersion) }},
	{"kind", func(l *lexer, p *pod) { l.str(&p.Kind) }},
	{"metadata", func(l *lexer, p *pod) { readObject(l, &p.Metadata, metaFields) }},
	{"spec", func(l *lexer, p *pod) { readObject(l, &p.Spec, podSpecFields) }},
	{"status", func(l *lexer, p *pod) { readObject(l, &p.Status, podStatusFields) }},
}

var podSpecFields = []kept[podSpec]{
	{"nodeName", func(l *lexer, s *podSpec) { l.str(&s.NodeName) }},
	{"tolerations", func(l *lexer, s *podSpec) { readList(l, &s.Tolerations, readToleration) }},
	{"priority", func(l *lexer, s *podSpec) { l.int32Ptr(&s.Priority) }},
	{"priorityClassName", func(l *lexer, s *podSpec) { l.str(&s.PriorityClassName) }},
	{"terminationGracePeriodSeconds", func(l *lexer, s *podSpec) { l.int64Ptr(&s.TerminationGracePeriodSeconds) }},
	{"initContainers", func(l *lexer, s *podSpec) { readList(l, &s.InitContainers, readContainer) }},
	{"containers", func(l *lexer, s *podSpec) { readList(l, &s.Containers, readContainer) }},
	{"overhead", func(l *lexer, s *podSpec) { l.resourceList(&s.Overhead) }},
	{"resources", func(l *lexer, s *podSpec) { l.into(&s.Resources) }},
	{"nodeSelector", func(l *lexer, s *podSpec) { l.stringMap(&s.NodeSelector) }},
	{"affinity", func(l *lexer, s *podSpec) { l.into(&s.Affinity) }},
	{"os", func(l *lexer, s *podSpec) { l.into(&s.OS) }},
	{"securityContext", func(l *lexer, s *podSpec) { l.into(&s.SecurityContext) }},
}

var readToleration = objectOf([]kept[corev1.Toleration]{
	{"key", func(l *lexer, t *corev1.Toleration) { l.str(&t.Key) }},
	{"operator", func(l *lexer, t *corev1.Toleration) { l.str((*string)(&t.Operator)) }},
	{"value", func(l *lexer, t *corev1.Toleration) { l.str(&t.Value) }},
	{"effect", func(l *lexer, t *corev1.Toleration) { l.str((*string)(&t.Effect)) }},
	{"tolerationSeconds", func(l *lexer, t *corev1.Toleration) { l.int64Ptr(&t.TolerationSeconds) }},
})

var readContainer = objectOf([]kept[container]{
	{"name", func(l *lexer, c *container) { l.str(&c.Name) }},
	{"resources", func(l *lexer, c *container) { readObject(l, &c.Resources, resourcesFields) }},
	{"restartPolicy", func(l *lexer, c *container) {
		if !l.null() {
			var v string
			l.str(&v)
			p := corev1.ContainerRestartPolicy(v)
			c.RestartPolicy = &p
		}
	}},
	{"ports", func(l *lexer, c *container) { readList(l, &c.Ports, readPort) }},
})

var resourcesFields = []kept[corev1.ResourceRequirements]{
	{"limits", func(l *lexer, r *corev1.ResourceRequirements) { l.resourceList(&r.Limits) }},
	{"requests", func(l *lexer, r *corev1.ResourceRequirements) { l.resourceList(&r.Requests) }},
	{"claims", func(l *lexer, r *corev1.ResourceRequirements) { l.into(&r.Claims) }},
}

var readPort = objectOf([]kept[corev1.ContainerPort]{
	{"name", func(l *lexer, p *corev1.ContainerPort) { l.str(&p.Name) }},
	{"hostPort", func(l *lexer, p *corev1.ContainerPort) { l.int32(&p.HostPort) }},
	{"containerPort", func(l *lexer, p *corev1.ContainerPort) { l.int32(&p.ContainerPort) }},
	{"protocol", func(l *lexer, p *corev1.ContainerPort) { l.str((*string)(&p.Protocol)) }},
	{"hostIP", func(l *lexer, p *corev1.ContainerPort) { l.str(&p.HostIP) }},
})

var podStatusFields = []kept[podStatus]{
	{"phase", func(l *lexer, s *podStatus) { l.str((*string)(&s.Phase)) }},
	{"reason", func(l *lexer, s *podStatus) { l.str(&s.Reason) }},
	{"qosClass", func(l *lexer, s *podStatus) { l.str((*string)(&s.QOSClass)) }},
}

// The spec of a node, small, is left to encoding/json; its status's
// images and its managed fields, most of a node's text, are skipped.
var nodeFields = []kept[node]{
	{"apiVersion", func(l *lexer, n *node) { l.str(&n.APIVersion) }},
	{"kind", func(l *lexer, n *node) { l.str(&n.Kind) }},
	{"metadata", func(l *lexer, n *node) { readObject(l, &n.Metadata, metaFields) }},
	{"spec", func(l *lexer, n *node) { l.into(&n.Spec) }},
	{"status", func(l *lexer, n *node) { readObject(l, &n.Status, nodeStatusFields) }},
}

var nodeStatusFields = []kept[nodeStatus]{
	{"capacity", func(l *lexer, s *nodeStatus) { l.resourceList(&s.Capacity) }},
	{"allocatable", func(l *lexer, s *nodeStatus) { l.resourceList(&s.Allocatable) }},
	{"conditions", func(l *lexer, s *nodeStatus) { readList(l, &s.Conditions, readCondition) }},
	{"addresses", func(l *lexer, s *nodeStatus) { readList(l, &s.Addresses, readAddress) }},
}

var readCondition = objectOf([]kept[corev1.NodeCondition]{
	{"type", func(l *lexer, c *corev1.NodeCondition) { l.str((*string)(&c.Type)) }},
	{"status", func(l *lexer, c *corev1.NodeCondition) { l.str((*string)(&c.Status)) }},
	{"lastHeartbeatTime", func(l *lexer, c *corev1.NodeCondition) { l.time(&c.LastHeartbeatTime) }},
	{"lastTransitionTime", func(l *lexer, c *corev1.NodeCondition) { l.time(&c.LastTransitionTime) }},
	{"reason", func(l *lexer, c *corev1.NodeCondition) { l.str(&c.Reason) }},
	{"message", func(l *lexer, c *corev1.NodeCondition) { l.str(&c.Message) }},
})

var readAddress = objectOf([]kept[corev1.NodeAddress]{
	{"type", func(l *lexer, a *corev1.NodeAddress) { l.str((*string)(&a.Type)) }},
	{"address", func(l *lexer, a *corev1.NodeAddress) { l.str(&a.Address) }},
})

// fastPod decodes raw into p as encoding/json would, or returns false
// (then p is partly written and must be dropped).
func fastPod(raw []byte, p *pod) bool { return readWhole(raw, p, podFields) }

// fastNode decodes raw into n as encoding/json would, or returns false
// (then n is partly written and must be dropped).
func fastNode(raw []byte, n *node) bool { return readWhole(raw, n, nodeFields) }

// readWhole reads raw, one object and nothing after it, into v.
func readWhole[T any](raw []byte, v *T, fs []kept[T]) bool {
	l := &lexer{data: raw}
	readObject(l, v, fs)
	l.ws()
	return !l.bad && l.i == len(raw)
}

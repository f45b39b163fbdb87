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
	if l.null() {
		return false
	}
	if l.peek() != '{' {
		l.fail()
		return false
	}
	l.i++
	if l.peek() == '}' {
		l.i++
		return true
	}
	for !l.bad {
		key, ok := l.rawString()
		if !ok {
			l.fail()
			return false
		}
		if l.peek() != ':' {
			l.fail()
			return false
		}
		l.i++
		member(key)
		switch l.peek() {
		case ',':
			l.i++
		case '}':
			l.i++
			return !l.bad
		default:
			l.fail()
		}
	}
	return false
}

// array reads an array's elements with elem; it returns false on null.
func (l *lexer) array(elem func()) bool {
	if l.null() {
		return false
	}
	if l.peek() != '[' {
		l.fail()
		return false
	}
	l.i++
	if l.peek() == ']' {
		l.i++
		return true
	}
	for !l.bad {
		elem()
		switch l.peek() {
		case ',':
			l.i++
		case ']':
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
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		l.fail()
		return nil
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			l.fail()
			return nil
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			l.fail()
			return nil
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
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

// skip reads any value, checking its syntax.
func (l *lexer) skip() {
	switch c := l.peek(); {
	case c == '{':
		if l.depth++; l.depth > maxSkipDepth {
			l.fail()
			return
		}
		l.object(func([]byte) { l.skip() })
		l.depth--
	case c == '[':
		if l.depth++; l.depth > maxSkipDepth {
			l.fail()
			return
		}
		l.array(l.skip)
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

// raw skips a value and returns its text.
func (l *lexer) raw() []byte {
	l.ws()
	start := l.i
	l.skip()
	return l.data[start:l.i]
}

// fields tracks which of an object's kept keys were read: a key read
// twice (encoding/json merges or overwrites) or a key matching a kept one
// only without regard to case (encoding/json takes it) fails.
type fields struct {
	l     *lexer
	names []string
	seen  uint64
}

// first reports whether key, the kept field n, is read for the first time.
func (f *fields) first(n int) bool {
	if f.seen&(1<<n) != 0 {
		f.l.fail()
		return false
	}
	f.seen |= 1 << n
	return true
}

// other skips the value of key, no kept field's exact name; a key that
// may fold or unescape to a kept field's name fails.
func (f *fields) other(key []byte) {
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			f.l.fail()
			return
		}
	}
	for _, n := range f.names {
		if equalFoldASCII(key, n) {
			f.l.fail()
			return
		}
	}
	f.l.skip()
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

// member dispatches key to the kept field of that exact name (its index
// in names), or to other.
func (f *fields) member(key []byte, read func(n int)) {
	for n, name := range f.names {
		if string(key) == name {
			if f.first(n) {
				read(n)
			}
			return
		}
	}
	f.other(key)
}

// decodeObject reads an object whose kept keys are names, calling read
// with a kept key's index.
func (l *lexer) decodeObject(names []string, read func(n int)) bool {
	f := fields{l: l, names: names}
	return l.object(func(key []byte) { f.member(key, read) })
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

var (
	objectNames     = []string{"apiVersion", "kind", "metadata", "spec", "status"}
	metaNames       = []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "labels", "annotations", "ownerReferences"}
	ownerNames      = []string{"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"}
	specNames       = []string{"nodeName", "tolerations", "priority", "priorityClassName", "terminationGracePeriodSeconds", "initContainers", "containers", "overhead", "resources", "nodeSelector", "affinity", "os", "securityContext"}
	statusNames     = []string{"phase", "reason", "qosClass"}
	tolerationNames = []string{"key", "operator", "value", "effect", "tolerationSeconds"}
	containerNames  = []string{"name", "resources", "restartPolicy", "ports"}
	resourcesNames  = []string{"limits", "requests", "claims"}
	nodeStatusNames = []string{"capacity", "allocatable", "conditions", "addresses"}
	conditionNames  = []string{"type", "status", "lastHeartbeatTime", "lastTransitionTime", "reason", "message"}
	addressNames    = []string{"type", "address"}
	portNames       = []string{"name", "hostPort", "containerPort", "protocol", "hostIP"}
)

// fastPod decodes raw into p as encoding/json would, or returns false
// (then p is partly written and must be dropped).
func fastPod(raw []byte, p *pod) bool {
	l := &lexer{data: raw}
	l.decodeObject(objectNames, func(n int) {
		switch n {
		case 0:
			l.str(&p.APIVersion)
		case 1:
			l.str(&p.Kind)
		case 2:
			l.meta(&p.Metadata)
		case 3:
			l.podSpec(p)
		case 4:
			s := &p.Status
			l.decodeObject(statusNames, func(n int) {
				switch n {
				case 0:
					l.str((*string)(&s.Phase))
				case 1:
					l.str(&s.Reason)
				case 2:
					l.str((*string)(&s.QOSClass))
				}
			})
		}
	})
	l.ws()
	return !l.bad && l.i == len(raw)
}

// fastNode decodes raw into n as encoding/json would, or returns false
// (then n is partly written and must be dropped). The spec, small, is left
// to encoding/json; the status's images and the managed fields, most of a
// node's text, are skipped.
func fastNode(raw []byte, n *node) bool {
	l := &lexer{data: raw}
	l.decodeObject(objectNames, func(k int) {
		switch k {
		case 0:
			l.str(&n.APIVersion)
		case 1:
			l.str(&n.Kind)
		case 2:
			l.meta(&n.Metadata)
		case 3:
			l.into(&n.Spec)
		case 4:
			s := &n.Status
			l.decodeObject(nodeStatusNames, func(k int) {
				switch k {
				case 0:
					l.resourceList(&s.Capacity)
				case 1:
					l.resourceList(&s.Allocatable)
				case 2:
					conds := []corev1.NodeCondition{}
					if l.array(func() {
						var c corev1.NodeCondition
						l.decodeObject(conditionNames, func(k int) {
							switch k {
							case 0:
								l.str((*string)(&c.Type))
							case 1:
								l.str((*string)(&c.Status))
							case 2:
								l.time(&c.LastHeartbeatTime)
							case 3:
								l.time(&c.LastTransitionTime)
							case 4:
								l.str(&c.Reason)
							case 5:
								l.str(&c.Message)
							}
						})
						conds = append(conds, c)
					}) {
						s.Conditions = conds
					}
				case 3:
					addrs := []corev1.NodeAddress{}
					if l.array(func() {
						var a corev1.NodeAddress
						l.decodeObject(addressNames, func(k int) {
							switch k {
							case 0:
								l.str((*string)(&a.Type))
							case 1:
								l.str(&a.Address)
							}
						})
						addrs = append(addrs, a)
					}) {
						s.Addresses = addrs
					}
				}
			})
		}
	})
	l.ws()
	return !l.bad && l.i == len(raw)
}

func (l *lexer) meta(m *objectMeta) {
	l.decodeObject(metaNames, func(n int) {
		switch n {
		case 0:
			l.str(&m.Name)
		case 1:
			l.str(&m.Namespace)
		case 2:
			l.str((*string)(&m.UID))
		case 3:
			l.str(&m.ResourceVersion)
		case 4:
			l.time(&m.CreationTimestamp)
		case 5:
			var t metav1.Time
			l.time(&t)
			m.DeletionTimestamp = &t
		case 6:
			l.stringMap(&m.Labels)
		case 7:
			l.stringMap(&m.Annotations)
		case 8:
			refs := []metav1.OwnerReference{}
			if l.array(func() {
				var o metav1.OwnerReference
				l.decodeObject(ownerNames, func(n int) {
					switch n {
					case 0:
						l.str(&o.APIVersion)
					case 1:
						l.str(&o.Kind)
					case 2:
						l.str(&o.Name)
					case 3:
						l.str((*string)(&o.UID))
					case 4:
						l.boolPtr(&o.Controller)
					case 5:
						l.boolPtr(&o.BlockOwnerDeletion)
					}
				})
				refs = append(refs, o)
			}) {
				m.OwnerReferences = refs
			}
		}
	})
}

func (l *lexer) podSpec(p *pod) {
	s := &p.Spec
	l.decodeObject(specNames, func(n int) {
		switch n {
		case 0:
			l.str(&s.NodeName)
		case 1:
			tols := []corev1.Toleration{}
			if l.array(func() {
				var t corev1.Toleration
				l.decodeObject(tolerationNames, func(n int) {
					switch n {
					case 0:
						l.str(&t.Key)
					case 1:
						l.str((*string)(&t.Operator))
					case 2:
						l.str(&t.Value)
					case 3:
						l.str((*string)(&t.Effect))
					case 4:
						l.int64Ptr(&t.TolerationSeconds)
					}
				})
				tols = append(tols, t)
			}) {
				s.Tolerations = tols
			}
		case 2:
			l.int32Ptr(&s.Priority)
		case 3:
			l.str(&s.PriorityClassName)
		case 4:
			l.int64Ptr(&s.TerminationGracePeriodSeconds)
		case 5:
			l.containers(&s.InitContainers)
		case 6:
			l.containers(&s.Containers)
		case 7:
			l.resourceList(&s.Overhead)
		case 8:
			l.into(&s.Resources)
		case 9:
			l.stringMap(&s.NodeSelector)
		case 10:
			l.into(&s.Affinity)
		case 11:
			l.into(&s.OS)
		case 12:
			l.into(&s.SecurityContext)
		}
	})
}

func (l *lexer) containers(into *[]container) {
	cs := []container{}
	if !l.array(func() {
		var c container
		l.decodeObject(containerNames, func(n int) {
			switch n {
			case 0:
				l.str(&c.Name)
			case 1:
				l.resources(&c.Resources)
			case 2:
				if !l.null() {
					var v string
					l.str(&v)
					p := corev1.ContainerRestartPolicy(v)
					c.RestartPolicy = &p
				}
			case 3:
				ports := []corev1.ContainerPort{}
				if l.array(func() {
					var p corev1.ContainerPort
					l.decodeObject(portNames, func(n int) {
						switch n {
						case 0:
							l.str(&p.Name)
						case 1:
							l.int32(&p.HostPort)
						case 2:
							l.int32(&p.ContainerPort)
						case 3:
							l.str((*string)(&p.Protocol))
						case 4:
							l.str(&p.HostIP)
						}
					})
					ports = append(ports, p)
				}) {
					c.Ports = ports
				}
			}
		})
		cs = append(cs, c)
	}) {
		return
	}
	*into = cs
}

func (l *lexer) resources(r *corev1.ResourceRequirements) {
	l.decodeObject(resourcesNames, func(n int) {
		switch n {
		case 0:
			l.resourceList(&r.Limits)
		case 1:
			l.resourceList(&r.Requests)
		case 2:
			l.into(&r.Claims)
		}
	})
}

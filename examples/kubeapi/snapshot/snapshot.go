package snapshot

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/nodelife/nodelife/core"
)

// Snapshot holds the objects of a snapshot, each kind sorted by namespace
// and name, so that nothing downstream depends on the order of the input.
//
// Decode and Load keep of each Pod and Node the fields a replay and
// package kubeapi's converters read, and drop the rest to keep snapshots
// of 100,000 pods fast to read: metadata without managed fields; for pods,
// spec.nodeName, tolerations, priority, priorityClassName,
// terminationGracePeriodSeconds, the containers' and init containers'
// names, resources, restart policies and ports, overhead and pod-level
// resources, node selector, affinity, os and security context, and
// status.phase, reason and qosClass; for nodes, the whole
// spec and status.capacity, allocatable, conditions and addresses.
// Leases and priority classes are kept whole.
type Snapshot struct {
	// Nodes are the cluster's nodes.
	Nodes []*corev1.Node
	// Pods are the pods of every namespace.
	Pods []*corev1.Pod
	// Leases are the leases (kube-node-lease holds the node heartbeats).
	Leases []*coordinationv1.Lease
	// PriorityClasses are the priority classes, when the snapshot has them.
	PriorityClasses []*schedulingv1.PriorityClass
	// Refused counts the nodes and pods Decode and Load left out because
	// the API server would have refused them (a name that is not a DNS
	// subdomain, a negative quantity) or because a quantity is too large
	// to compute with; each has a warning naming its fields.
	Refused int

	// replayPods are the pods of a read with Options.ReplayOnly, as
	// Cluster converts them (Pods is empty then); in shares their values and
	// goes on to the nodes in Cluster.
	replayPods []core.Pod
	// replay holds them while the input is read, in chunks: a million
	// pods appended to one slice were copied four times over as it grew
	// (and each copy scanned by the collector); finish joins them once.
	replay podChunks
	in     *interner
}

// PodCount is how many pods the snapshot holds: len(Pods), or, read with
// Options.ReplayOnly, the pods kept for Cluster.
func (s *Snapshot) PodCount() int { return len(s.Pods) + len(s.replayPods) + s.replay.n }

// podChunkSize is the pods a chunk of podChunks holds (7.5 MiB of core.Pod).
const podChunkSize = 1 << 14

// podChunks is a list of pods kept in fixed-size chunks, so that
// appending never copies what is kept.
type podChunks struct {
	chunks [][]core.Pod
	n      int
}

func (c *podChunks) add(p core.Pod) {
	if k := len(c.chunks); k == 0 || len(c.chunks[k-1]) == podChunkSize {
		c.chunks = append(c.chunks, make([]core.Pod, 0, podChunkSize))
	}
	k := len(c.chunks) - 1
	c.chunks[k] = append(c.chunks[k], p)
	c.n++
}

func (c *podChunks) at(i int) *core.Pod { return &c.chunks[i/podChunkSize][i%podChunkSize] }

// truncate keeps the first n pods.
func (c *podChunks) truncate(n int) {
	for k := range c.chunks {
		lo := k * podChunkSize
		switch {
		case lo >= n:
			clear(c.chunks[k])
			c.chunks[k] = nil
		case lo+len(c.chunks[k]) > n:
			clear(c.chunks[k][n-lo:])
			c.chunks[k] = c.chunks[k][:n-lo]
		}
	}
	for len(c.chunks) > 0 && len(c.chunks[len(c.chunks)-1]) == 0 {
		c.chunks = c.chunks[:len(c.chunks)-1]
	}
	c.n = n
}

// join appends the pods to dst, emptying c chunk by chunk (each chunk is
// garbage once copied).
func (c *podChunks) join(dst []core.Pod) []core.Pod {
	dst = slices.Grow(dst, c.n)
	for k := range c.chunks {
		dst = append(dst, c.chunks[k]...)
		c.chunks[k] = nil
	}
	*c = podChunks{}
	return dst
}

// comparePods orders pods by namespace, then name.
func comparePods(a, b *core.Pod) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// sorted returns the pods sorted by namespace and name, those with the same
// ones in the order added (as a stable sort leaves them), emptying c. A
// million pods of 480 bytes are not moved about by the sort: their indexes
// are sorted, then each pod is copied once, to its place. Pods added in
// order (a List from the API server) are joined as they are.
func (c *podChunks) sorted() []core.Pod {
	inOrder := true
	for i := 1; i < c.n && inOrder; i++ {
		inOrder = comparePods(c.at(i-1), c.at(i)) <= 0
	}
	if inOrder {
		return c.join(nil)
	}
	idx := make([]int32, c.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		return cmp.Or(comparePods(c.at(int(a)), c.at(int(b))), cmp.Compare(a, b))
	})
	out := make([]core.Pod, c.n)
	for i, k := range idx {
		out[i] = *c.at(int(k))
	}
	*c = podChunks{}
	return out
}

// Warning is something skipped while reading: an unknown kind, say.
type Warning struct {
	// Source is the file (or the name given to Decode).
	Source string
	// Item is the index of the item in the List.
	Item int
	// Message says what was skipped and why.
	Message string
}

// String formats the warning as "source: item i: message", or "source:
// message" for one about no single item (Item -1).
func (w Warning) String() string {
	if w.Item < 0 {
		return fmt.Sprintf("%s: %s", w.Source, w.Message)
	}
	return fmt.Sprintf("%s: item %d: %s", w.Source, w.Item, w.Message)
}

// MaxWarnings bounds the warnings Decode and Load return: the first
// MaxWarnings, then one that counts the rest ("and 999980 more warnings").
const MaxWarnings = 20

// ErrInvalid is wrapped by every error about the input.
var ErrInvalid = errors.New("snapshot: invalid input")

// header is what every object and List starts with.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"metadata"`
}

// Decode reads one input: a List in JSON (kubectl get ... -o json), YAML
// (-o yaml, one document or many), kubectl cluster-info dump's output
// (Lists one after another, pod logs between them skipped), typed Lists
// whose items lack kind and apiVersion (taken from the List's), or any of
// these gzip-compressed. source names the input in errors and warnings.
// An item of a kind the replay does not use is skipped with a warning (a
// typed List of such a kind with one warning); an item that does not
// decode is an error naming the item, its kind and name, and the field. An
// input without a Node is an error (ErrNoNodes) saying what it held.
func Decode(data []byte, source string) (*Snapshot, []Warning, error) {
	r, _ := newReader(Options{}) // the zero Options are valid
	return r.finish(source, r.readFrom(bytes.NewReader(data), source))
}

// ErrNoNodes is wrapped (with ErrInvalid) when an input holds no Node: a
// replay of it would simulate nothing.
var ErrNoNodes = errors.New("no Node in it")

func (r *reader) needNodes(source string) error {
	s := r.s
	if len(s.Nodes) > 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %w (it has %s, %s, %s and %s; want the output of kubectl get nodes,pods,leases -A -o json)",
		ErrInvalid, source, ErrNoNodes, count(s.PodCount(), "pod"), count(len(s.Leases), "lease"),
		count(len(s.PriorityClasses), "priority class"), count(r.skipped, "skipped item"))
}

// count is "1 pod", "2 pods", "0 priority classes".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "s") {
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// keep adds a decoded item's object, or returns its error; a warning about
// it is counted, and kept among the first MaxWarnings.
func (r *reader) keep(d decoded, source string, item int) error {
	s := r.s
	if d.warning != "" {
		r.skipped++
		r.warn(Warning{Source: source, Item: item, Message: d.warning})
	}
	if !d.checked && (d.node != nil || d.pod != nil || d.lease != nil) {
		if s.in == nil {
			s.in = newInterner()
		}
		r.check(&d, s.in)
	}
	if d.err != nil {
		return d.err
	}
	kind, name, uid := d.identity()
	if len(d.refused) > 0 {
		s.Refused++
		r.warn(Warning{Source: source, Item: item, Message: refusal(kind, name, d.refused)})
		return nil
	}
	if uid != "" {
		if first := r.uids.first(s, uid); first != "" {
			s.Refused++
			r.warn(Warning{Source: source, Item: item, Message: fmt.Sprintf("%s %s left out: its metadata.uid %q is also %s's, and the API server gives every object a UID of its own", kind, name, uid, first)})
			return nil
		}
	}
	for _, note := range d.notes {
		r.warn(Warning{Source: source, Item: item, Message: note})
	}
	switch {
	case d.node != nil:
		s.Nodes = append(s.Nodes, d.node)
		r.uids.add(uid, uidNode, len(s.Nodes)-1)
	case d.replay:
		s.replay.add(d.sp)
		r.uids.add(uid, uidReplayPod, s.replay.n-1)
	case d.pod != nil:
		s.Pods = append(s.Pods, d.pod)
		r.uids.add(uid, uidPod, len(s.Pods)-1)
	case d.lease != nil:
		s.Leases = append(s.Leases, d.lease)
		r.uids.add(uid, uidLease, len(s.Leases)-1)
	case d.class != nil:
		s.PriorityClasses = append(s.PriorityClasses, d.class)
	default:
		return nil
	}
	r.objects++
	r.progress()
	return nil
}

// identity is the kind, the name (namespace/name when namespaced) and the
// UID of the node, pod or lease d holds.
func (d *decoded) identity() (kind, name, uid string) {
	switch {
	case d.node != nil:
		return "node", d.node.Name, string(d.node.UID)
	case d.replay:
		return "pod", d.sp.Namespace + "/" + d.sp.Name, d.sp.UID
	case d.pod != nil:
		return "pod", d.pod.Namespace + "/" + d.pod.Name, string(d.pod.UID)
	case d.lease != nil:
		return "lease", d.lease.Namespace + "/" + d.lease.Name, string(d.lease.UID)
	}
	return "", "", ""
}

// uidIndex finds the node, pod or lease kept with a UID: a hash of the UID
// to where the first object with it is kept (8 bytes an object, not the
// UIDs' 36), the UID itself compared there.
type uidIndex map[uint64]uidRef

type uidRef struct {
	kind  uint8 // uidNode, ...
	index int32
}

const (
	uidNode = iota + 1
	uidPod
	uidReplayPod
	uidLease
)

func uidHash(uid string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(uid); i++ {
		h = (h ^ uint64(uid[i])) * 1099511628211
	}
	return h
}

// first names the object kept in s with uid ("pod shop/a"), or is "".
func (x uidIndex) first(s *Snapshot, uid string) string {
	ref, ok := x[uidHash(uid)]
	if !ok {
		return ""
	}
	i := int(ref.index)
	switch {
	case ref.kind == uidNode && i < len(s.Nodes) && string(s.Nodes[i].UID) == uid:
		return "node " + s.Nodes[i].Name
	case ref.kind == uidPod && i < len(s.Pods) && string(s.Pods[i].UID) == uid:
		return "pod " + s.Pods[i].Namespace + "/" + s.Pods[i].Name
	case ref.kind == uidReplayPod && i < s.replay.n && s.replay.at(i).UID == uid:
		return "pod " + s.replay.at(i).Namespace + "/" + s.replay.at(i).Name
	case ref.kind == uidLease && i < len(s.Leases) && string(s.Leases[i].UID) == uid:
		return "lease " + s.Leases[i].Namespace + "/" + s.Leases[i].Name
	}
	return "" // another UID of the same hash, or an object a restore dropped
}

// add records where the object with uid is kept.
func (x uidIndex) add(uid string, kind uint8, index int) {
	if uid != "" {
		x[uidHash(uid)] = uidRef{kind, int32(index)}
	}
}

// check validates a decoded node, pod or lease (refused; notes for a
// lease kept), and converts a pod the read keeps in Cluster's form only
// (Options.ReplayOnly), its values shared through in. The decoding workers check their items, each with an
// interner of its own, so that this work is spread over the cores too.
func (r *reader) check(d *decoded, in *interner) {
	d.checked = true
	switch {
	case d.node != nil:
		d.refused = nodeErrors(d.node, d.raw)
	case d.pod != nil:
		d.refused = podErrors(d.pod, d.raw)
		if len(d.refused) == 0 && r.opts.ReplayOnly {
			d.sp, d.replay, d.pod = in.pod(d.pod), true, nil
		}
	case d.lease != nil:
		if d.refused = leaseErrors(d.lease); len(d.refused) == 0 {
			d.notes = leaseNotes(d.lease, d.raw)
		}
	}
}

// decoded is one item, decoded: one of the objects, a warning or an error.
type decoded struct {
	hold    bool // it needs the List's kind, not yet known
	node    *corev1.Node
	pod     *corev1.Pod
	lease   *coordinationv1.Lease
	class   *schedulingv1.PriorityClass
	warning string
	err     error

	raw []byte // the item's JSON, while its batch is read

	// set by check
	checked bool
	refused []string // what the API server would refuse in node, pod or lease
	notes   []string // warnings about a lease kept
	replay  bool     // the pod is kept as sp only (Options.ReplayOnly)
	sp      core.Pod
}

// decodeItem decodes item i of a List; known says whether defaultKind and
// defaultVersion, for an item without its own, are known (otherwise such
// an item is returned as one to hold).
func decodeItem(raw []byte, source string, i int, defaultKind, defaultVersion string, known bool) decoded {
	// Most items start with their apiVersion and kind (kubectl and the API
	// server print them first): decoded from those, an item whose decoding
	// confirms them (encoding/json takes a key's last value) is done
	// without reading its other top-level keys first.
	if apiVersion, kind, ok := itemKindFirst(raw); ok {
		var d decoded
		var gotVersion, gotKind string
		var err error
		switch apiVersion + "/" + kind {
		case "v1/Node":
			d.node, gotVersion, gotKind, err = decodeNode(raw)
		case "v1/Pod":
			d.pod, gotVersion, gotKind, err = decodePod(raw)
		default:
			err = errNotFast
		}
		if err == nil && gotVersion == apiVersion && gotKind == kind {
			return d
		}
	}
	return decodeItemFull(raw, source, i, defaultKind, defaultVersion, known)
}

// errNotFast sends an item to decodeItemFull.
var errNotFast = errors.New("not a Node or Pod")

// decodeItemFull is decodeItem reading every top-level key of the item
// for its apiVersion and kind (itemKind).
func decodeItemFull(raw []byte, source string, i int, defaultKind, defaultVersion string, known bool) (d decoded) {
	apiVersion, kind, ok := itemKind(raw)
	if ok && !known && (kind == "" || apiVersion == "") {
		d.hold = true
		return d
	}
	var h header
	if !ok {
		if err := json.Unmarshal(raw, &h); err != nil {
			d.err = fmt.Errorf("%w: %s: item %d: %s", ErrInvalid, source, i, jsonError(raw, err))
			return d
		}
		apiVersion, kind = h.APIVersion, h.Kind
	}
	if kind == "" {
		kind = defaultKind
	}
	if apiVersion == "" && kind == defaultKind {
		apiVersion = defaultVersion
	}
	var err error
	switch apiVersion + "/" + kind {
	case "v1/Node":
		d.node, _, _, err = decodeNode(raw)
	case "v1/Pod":
		d.pod, _, _, err = decodePod(raw)
	case "coordination.k8s.io/v1/Lease":
		d.lease, err = decodeInto[coordinationv1.Lease](raw)
	case "scheduling.k8s.io/v1/PriorityClass":
		d.class, err = decodeInto[schedulingv1.PriorityClass](raw)
	default:
		if herr := json.Unmarshal(raw, &h); herr != nil {
			d.err = fmt.Errorf("%w: %s: item %d: %s", ErrInvalid, source, i, jsonError(raw, herr))
			return d
		}
		d.warning = skippedItem(h, raw)
	}
	if err != nil {
		_ = json.Unmarshal(raw, &h) // for the name in the message, as far as it decodes
		what := kind
		if name := itemName(h, raw); name != "" {
			what += " " + name
		}
		d.err = fmt.Errorf("%w: %s: item %d (%s): %s", ErrInvalid, source, i, what, jsonError(raw, err))
	}
	return d
}

// skippedItem is the warning about an item of a kind the replay does not
// read: "kind ConfigMap (apiVersion "v1") shop/settings skipped: ...",
// each part as the item wrote it, or said missing.
func skippedItem(h header, raw []byte) string {
	var b strings.Builder
	if h.Kind == "" {
		b.WriteString("an item with no kind")
	} else {
		b.WriteString("kind " + h.Kind)
	}
	if h.APIVersion == "" {
		b.WriteString(" (no apiVersion)")
	} else {
		fmt.Fprintf(&b, " (apiVersion %q)", h.APIVersion)
	}
	if name := itemName(h, raw); name != "" {
		b.WriteString(" " + name)
	}
	b.WriteString(" skipped: the replay does not use it")
	return b.String()
}

// itemName is an item's namespace/name (objectName), found without
// decoding the item when it does not decode (nested too deep, say); "" if
// it has none.
func itemName(h header, raw []byte) string {
	if name := objectName(h); name != "" {
		return name
	}
	name := asWritten(jsonAt(raw, "metadata", "name"), "")
	if ns := asWritten(jsonAt(raw, "metadata", "namespace"), ""); ns != "" {
		return ns + "/" + name
	}
	return name
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset just after the JSON value starting at
// data[i] (a string, an object or array by bracket depth outside strings,
// or a literal up to the next delimiter), or -1 when it does not end. It
// does not validate the value.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		for j := i + 1; j < len(data); j++ {
			switch data[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := skipValue(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' && data[j] != ' ' && data[j] != '\n' && data[j] != '\t' && data[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// itemKindFirst finds an item's first apiVersion and kind keys, reading
// its top-level keys only until it has both; ok is false when it has not
// both (non-empty strings) by the end, or the item is not of that shape.
func itemKindFirst(item []byte) (apiVersion, kind string, ok bool) {
	topKinds(item, func(isKind bool, v string) bool {
		if isKind {
			kind = v
		} else {
			apiVersion = v
		}
		return apiVersion == "" || kind == ""
	})
	return apiVersion, kind, apiVersion != "" && kind != ""
}

// itemKind finds an item's apiVersion and kind without decoding the rest
// of it, the last value of each key as encoding/json takes it; ok is false
// when the item is not an object of that shape (its decoding then reports
// why).
func itemKind(item []byte) (apiVersion, kind string, ok bool) {
	ok = topKinds(item, func(isKind bool, v string) bool {
		if isKind {
			kind = v
		} else {
			apiVersion = v
		}
		return true
	})
	return apiVersion, kind, ok
}

// topKinds walks an item's top-level keys and calls found with the value
// of each kind key (isKind) or apiVersion key it finds, until found
// returns false. It reports false when the item is not an object of that
// shape or such a value is not a string.
func topKinds(item []byte, found func(isKind bool, v string) bool) bool {
	i := skipSpace(item, 0)
	if i >= len(item) || item[i] != '{' {
		return false
	}
	i = skipSpace(item, i+1)
	for i < len(item) && item[i] == '"' {
		end := skipValue(item, i)
		if end < 0 {
			return false
		}
		key := item[i+1 : end-1]
		i = skipSpace(item, end)
		if i >= len(item) || item[i] != ':' {
			return false
		}
		i = skipSpace(item, i+1)
		vend := skipValue(item, i)
		if vend < 0 {
			return false
		}
		if isKind := bytes.EqualFold(key, []byte("kind")); isKind || bytes.EqualFold(key, []byte("apiVersion")) {
			var v string
			if json.Unmarshal(item[i:vend], &v) != nil {
				return false
			}
			if !found(isKind, v) {
				return true
			}
		}
		i = skipSpace(item, vend)
		if i < len(item) && item[i] == ',' {
			i = skipSpace(item, i+1)
		}
	}
	return true
}

func decodeInto[T any](raw []byte) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}

func objectName(h header) string {
	if h.Metadata.Namespace != "" {
		return h.Metadata.Namespace + "/" + h.Metadata.Name
	}
	return h.Metadata.Name
}

// jsonError names the field of a type error and the line of a syntax error.
func jsonError(data []byte, err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("field %s: cannot use JSON %s as %s", te.Field, te.Value, te.Type)
	case errors.As(err, &se):
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, se)
	}
	return err.Error()
}

// Load reads a snapshot from a file (any input Decode reads; "-" is
// standard input), or from a directory: every *.json, *.yaml and *.yml
// file under it, gzip-compressed ones (*.gz) too, in path order, merged
// (kubectl cluster-info dump --output-directory writes nodes.json and
// <namespace>/pods.json, among files of other kinds that are skipped). An
// object that appears twice (the same kind, namespace and name) is
// reported by Validate. An input without a Node is an error (ErrNoNodes).
func Load(path string) (*Snapshot, []Warning, error) { return LoadWith(path, Options{}) }

// LoadWith is Load with options: a bound on the bytes read, a progress
// callback, pods kept only for a replay (Options.ReplayOnly). Options
// that cannot be used are an error wrapping ErrInvalidOptions.
func LoadWith(path string, o Options) (*Snapshot, []Warning, error) {
	r, err := newReader(o)
	if err != nil {
		return nil, nil, err
	}
	if path == "-" {
		return r.finish("standard input", r.readFrom(os.Stdin, "standard input"))
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	files := []string{path}
	if info.IsDir() {
		if files, err = inputFiles(path); err != nil {
			return nil, nil, err
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("%w: %s: no *.json or *.yaml file under the directory", ErrInvalid, path)
		}
	}
	for _, f := range files {
		if err := r.readFile(f); err != nil {
			return nil, r.result(), err
		}
	}
	return r.finish(path, nil)
}

// sniff checks the first meaningful byte of an input: after an optional
// UTF-8 byte order mark and white space, gzip's magic number or a byte
// that JSON or YAML may start with (no control byte).
func sniff(head []byte) error {
	if bytes.HasPrefix(head, gzipMagic) {
		return nil
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	i := skipSpace(head, 0)
	if i == len(head) {
		return nil // empty or blank so far: the reader decides
	}
	if c := head[i]; c < 0x20 || c == 0x7f {
		return fmt.Errorf("not JSON, YAML or gzip: byte 0x%02x at offset %d", c, i)
	}
	return nil
}

// inputFiles lists the snapshot files under dir, in path order.
func inputFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := strings.TrimSuffix(d.Name(), ".gz")
		if ext := filepath.Ext(name); ext == ".json" || ext == ".yaml" || ext == ".yml" {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// New makes a snapshot of objects read some other way (a live cluster's
// lists, say), sorted as Decode sorts them. The slices are kept, not
// copied.
func New(nodes []*corev1.Node, pods []*corev1.Pod, leases []*coordinationv1.Lease, classes []*schedulingv1.PriorityClass) *Snapshot {
	s := &Snapshot{Nodes: nodes, Pods: pods, Leases: leases, PriorityClasses: classes}
	s.sort()
	return s
}

// sort sorts the objects as Decode leaves them; the pods of a read with
// Options.ReplayOnly come sorted from podChunks.sorted.
func (s *Snapshot) sort() {
	slices.SortStableFunc(s.Nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.Pods, func(a, b *corev1.Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	slices.SortStableFunc(s.Leases, func(a, b *coordinationv1.Lease) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	slices.SortStableFunc(s.PriorityClasses, func(a, b *schedulingv1.PriorityClass) int { return strings.Compare(a.Name, b.Name) })
}

// Validate reports every problem the replay cannot work around, joined:
// an object twice, a node or pod without a name. A pod bound to a node the
// snapshot does not have (it happens for a while after a node is deleted)
// is not one: Orphans lists them, and the replay leaves them out.
func (s *Snapshot) Validate() error {
	var errs []error
	nodes := map[string]bool{}
	for i, n := range s.Nodes {
		switch {
		case n.Name == "":
			errs = append(errs, fmt.Errorf("%w: node %d has no metadata.name", ErrInvalid, i))
		case nodes[n.Name]:
			errs = append(errs, fmt.Errorf("%w: node %s appears twice", ErrInvalid, n.Name))
		}
		nodes[n.Name] = true
	}
	pods := map[string]bool{}
	check := func(i int, namespace, name string) {
		key := namespace + "/" + name
		switch {
		case name == "":
			errs = append(errs, fmt.Errorf("%w: pod %d in namespace %q has no metadata.name", ErrInvalid, i, namespace))
		case pods[key]:
			errs = append(errs, fmt.Errorf("%w: pod %s appears twice", ErrInvalid, key))
		}
		pods[key] = true
	}
	for i, p := range s.Pods {
		check(i, p.Namespace, p.Name)
	}
	if len(s.Pods) > 0 {
		for i, p := range s.replayPods {
			check(i, p.Namespace, p.Name)
		}
		return errors.Join(errs...)
	}
	// The pods of a read with Options.ReplayOnly (unexported, so never
	// reordered) are sorted: a pod twice is next to its twin. Checked
	// without a map of a million keys, in the same order, with the same
	// errors.
	for i := range s.replayPods {
		p := &s.replayPods[i]
		switch {
		case p.Name == "":
			errs = append(errs, fmt.Errorf("%w: pod %d in namespace %q has no metadata.name", ErrInvalid, i, p.Namespace))
		case i > 0 && s.replayPods[i-1].Namespace == p.Namespace && s.replayPods[i-1].Name == p.Name:
			errs = append(errs, fmt.Errorf("%w: pod %s appears twice", ErrInvalid, p.Namespace+"/"+p.Name))
		}
	}
	return errors.Join(errs...)
}

// Orphans returns the pods bound (spec.nodeName) to a node the snapshot
// does not have, in the snapshot's order.
func (s *Snapshot) Orphans() []*corev1.Pod {
	nodes := make(map[string]bool, len(s.Nodes))
	for _, n := range s.Nodes {
		nodes[n.Name] = true
	}
	var out []*corev1.Pod
	for _, p := range s.Pods {
		if p.Spec.NodeName != "" && !nodes[p.Spec.NodeName] {
			out = append(out, p)
		}
	}
	return out
}

// PodsOn returns the pods bound to each node, in the snapshot's order;
// pending pods (no spec.nodeName) are under "".
func (s *Snapshot) PodsOn() map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, p := range s.Pods {
		out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
	}
	return out
}

package snapshot

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
)

// Snapshot holds the objects of a snapshot, each kind sorted by namespace
// and name, so that nothing downstream depends on the order of the input.
type Snapshot struct {
	// Nodes are the cluster's nodes.
	Nodes []*corev1.Node
	// Pods are the pods of every namespace.
	Pods []*corev1.Pod
	// Leases are the leases (kube-node-lease holds the node heartbeats).
	Leases []*coordinationv1.Lease
	// PriorityClasses are the priority classes, when the snapshot has them.
	PriorityClasses []*schedulingv1.PriorityClass
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

// String formats the warning as "source: item i: message".
func (w Warning) String() string { return fmt.Sprintf("%s: item %d: %s", w.Source, w.Item, w.Message) }

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

// Decode reads one List. source names the input in errors and warnings.
// An item of a kind the replay does not use is skipped with a warning; an
// item that does not decode is an error naming the item, its kind and name,
// and the field.
func Decode(data []byte, source string) (*Snapshot, []Warning, error) {
	s := &Snapshot{}
	ws, err := s.add(data, source)
	if err != nil {
		return nil, ws, err
	}
	s.sort()
	return s, ws, nil
}

func (s *Snapshot) add(data []byte, source string) ([]Warning, error) {
	var list struct {
		header
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%w: %s: not JSON: %s", ErrInvalid, source, jsonError(data, err))
	}
	if list.Kind != "List" && !strings.HasSuffix(list.Kind, "List") {
		return nil, fmt.Errorf("%w: %s: kind %q is not a List; want the output of kubectl get nodes,pods,leases -A -o json", ErrInvalid, source, list.Kind)
	}
	var ws []Warning
	for i, raw := range list.Items {
		var h header
		if err := json.Unmarshal(raw, &h); err != nil {
			return ws, fmt.Errorf("%w: %s: item %d: %s", ErrInvalid, source, i, jsonError(raw, err))
		}
		what := fmt.Sprintf("%s: item %d (%s %s)", source, i, h.Kind, objectName(h))
		var err error
		switch gv := h.APIVersion + "/" + h.Kind; gv {
		case "v1/Node":
			err = decodeInto(raw, &s.Nodes)
		case "v1/Pod":
			err = decodeInto(raw, &s.Pods)
		case "coordination.k8s.io/v1/Lease":
			err = decodeInto(raw, &s.Leases)
		case "scheduling.k8s.io/v1/PriorityClass":
			err = decodeInto(raw, &s.PriorityClasses)
		default:
			ws = append(ws, Warning{Source: source, Item: i, Message: fmt.Sprintf("kind %s (apiVersion %q) %s skipped: the replay does not use it", h.Kind, h.APIVersion, objectName(h))})
			continue
		}
		if err != nil {
			return ws, fmt.Errorf("%w: %s: %s", ErrInvalid, what, jsonError(raw, err))
		}
	}
	return ws, nil
}

func decodeInto[T any](raw json.RawMessage, into *[]*T) error {
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	*into = append(*into, v)
	return nil
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

// Load reads a snapshot from a file, or from every *.json file of a
// directory in name order, merged. An object that appears twice (the same
// kind, namespace and name) is an error naming both places.
func Load(path string) (*Snapshot, []Warning, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	files := []string{path}
	if info.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.json")); err != nil {
			return nil, nil, err
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("%w: %s: no *.json file in the directory", ErrInvalid, path)
		}
		slices.Sort(files)
	}
	s := &Snapshot{}
	var ws []Warning
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, ws, err
		}
		w, err := s.add(data, f)
		ws = append(ws, w...)
		if err != nil {
			return nil, ws, err
		}
	}
	s.sort()
	return s, ws, nil
}

// New makes a snapshot of objects read some other way (a live cluster's
// lists, say), sorted as Decode sorts them. The slices are kept, not
// copied.
func New(nodes []*corev1.Node, pods []*corev1.Pod, leases []*coordinationv1.Lease, classes []*schedulingv1.PriorityClass) *Snapshot {
	s := &Snapshot{Nodes: nodes, Pods: pods, Leases: leases, PriorityClasses: classes}
	s.sort()
	return s
}

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
// an object twice, a pod bound (spec.nodeName) to a node the snapshot does
// not have, a node or pod without a name.
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
	for i, p := range s.Pods {
		key := p.Namespace + "/" + p.Name
		switch {
		case p.Name == "":
			errs = append(errs, fmt.Errorf("%w: pod %d in namespace %q has no metadata.name", ErrInvalid, i, p.Namespace))
		case pods[key]:
			errs = append(errs, fmt.Errorf("%w: pod %s appears twice", ErrInvalid, key))
		case p.Spec.NodeName != "" && !nodes[p.Spec.NodeName]:
			errs = append(errs, fmt.Errorf("%w: pod %s: spec.nodeName %q is not a node of the snapshot", ErrInvalid, key, p.Spec.NodeName))
		}
		pods[key] = true
	}
	return errors.Join(errs...)
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

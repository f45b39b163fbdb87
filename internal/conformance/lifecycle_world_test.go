package conformance

// The world both controllers live in: a fake clientset per side, written
// by the scenario's kubelets and users (the same intents applied to both)
// and by that side's controllers.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// intent is one thing a kubelet, a user or the scheduler does.
type intent struct {
	at   time.Time
	kind intentKind
	node string
	// node create and relabel
	uid    string
	labels map[string]string
	// cordon
	unschedulable bool
	// kubelet status: Ready, and which pressure condition is True
	ready    corev1.ConditionStatus
	pressure corev1.NodeConditionType
	// pods
	pod      string // namespace/name
	podUID   string
	tols     []corev1.Toleration
	podReady string // "True", "False" or "" (no Ready condition)
}

type intentKind int

const (
	intentNodeCreate intentKind = iota
	intentNodeDelete
	intentRelabel
	intentCordon
	intentStatus    // the kubelet posts its node status
	intentLease     // the kubelet renews its lease
	intentPodCreate // a pod is created bound to node
	intentPodDelete
	intentPodsReady  // the kubelet reports its pods Ready again
	intentRestart    // both controllers restart
	intentLeaseStall // both controllers' lease watches hang
	intentLeaseSync  // and resume: the writes held back arrive
)

func (k intentKind) String() string {
	return [...]string{"create node", "delete node", "relabel", "cordon", "status", "lease", "create pod", "delete pod", "pods ready", "restart",
		"lease cache stalls", "lease cache syncs"}[k]
}

func (in intent) String() string {
	switch in.kind {
	case intentStatus:
		s := fmt.Sprintf("status %s Ready=%s", in.node, in.ready)
		if in.pressure != "" {
			s += " " + string(in.pressure) + "=True"
		}
		return s
	case intentPodCreate:
		return fmt.Sprintf("create pod %s on %s (ready %q, tolerations %s)", in.pod, in.node, in.podReady, tolerationsString(in.tols))
	case intentPodDelete:
		return "delete pod " + in.pod
	case intentNodeCreate, intentRelabel:
		return fmt.Sprintf("%s %s %v", in.kind, in.node, in.labels)
	case intentCordon:
		return fmt.Sprintf("cordon %s %v", in.node, in.unschedulable)
	case intentRestart:
		return "restart"
	}
	return in.kind.String() + " " + in.node
}

func tolerationsString(tols []corev1.Toleration) string {
	var parts []string
	for _, t := range tols {
		s := t.Key + ":" + string(t.Operator) + ":" + string(t.Effect)
		if t.TolerationSeconds != nil {
			s += fmt.Sprintf("/%ds", *t.TolerationSeconds)
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

var (
	nodeGVR  = corev1.SchemeGroupVersion.WithResource("nodes")
	podGVR   = corev1.SchemeGroupVersion.WithResource("pods")
	leaseGVR = coordinationv1.SchemeGroupVersion.WithResource("leases")
)

func getNode(c *fake.Clientset, name string) *corev1.Node {
	o, err := c.Tracker().Get(nodeGVR, "", name)
	if err != nil {
		return nil
	}
	return o.(*corev1.Node)
}

func getPod(c *fake.Clientset, key string) *corev1.Pod {
	ns, name, _ := strings.Cut(key, "/")
	o, err := c.Tracker().Get(podGVR, ns, name)
	if err != nil {
		return nil
	}
	return o.(*corev1.Pod)
}

// kubeletConditions are the conditions a kubelet posts (NetworkUnavailable
// is the network plugin's).
var kubeletConditions = []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady}

// applyIntent carries out in on one side's clientset, as the real actor
// would on the object it reads: a kubelet keeps the controller's taints
// and moves a condition's transition time only when its status changes.
func applyIntent(c *fake.Clientset, in intent) {
	ctx := context.Background()
	now := metav1.NewTime(in.at)
	switch in.kind {
	case intentNodeCreate:
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: in.node, UID: types.UID(in.uid), Labels: in.labels, CreationTimestamp: now}}
		_, _ = c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	case intentNodeDelete:
		_ = c.CoreV1().Nodes().Delete(ctx, in.node, metav1.DeleteOptions{})
	case intentRelabel:
		if n := getNode(c, in.node); n != nil {
			n.Labels = in.labels
			_, _ = c.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		}
	case intentCordon:
		if n := getNode(c, in.node); n != nil {
			n.Spec.Unschedulable = in.unschedulable
			_, _ = c.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		}
	case intentStatus:
		n := getNode(c, in.node)
		if n == nil {
			return
		}
		for _, typ := range kubeletConditions {
			want, reason := corev1.ConditionFalse, "KubeletHasNo"+string(typ)
			switch {
			case typ == corev1.NodeReady && in.ready == corev1.ConditionTrue:
				want, reason = corev1.ConditionTrue, "KubeletReady"
			case typ == corev1.NodeReady:
				reason = "KubeletNotReady"
			case typ == in.pressure:
				want, reason = corev1.ConditionTrue, "KubeletHas"+string(typ)
			}
			i := slices.IndexFunc(n.Status.Conditions, func(x corev1.NodeCondition) bool { return x.Type == typ })
			if i < 0 {
				n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: typ})
				i = len(n.Status.Conditions) - 1
			}
			cond := &n.Status.Conditions[i]
			if cond.Status != want {
				cond.LastTransitionTime = now
			}
			cond.Status, cond.Reason, cond.Message, cond.LastHeartbeatTime = want, reason, "kubelet", now
		}
		_, _ = c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	case intentLease:
		renew := metav1.NewMicroTime(in.at)
		o, err := c.Tracker().Get(leaseGVR, corev1.NamespaceNodeLease, in.node)
		if err != nil {
			l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: in.node, Namespace: corev1.NamespaceNodeLease},
				Spec: coordinationv1.LeaseSpec{RenewTime: &renew}}
			_, _ = c.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, l, metav1.CreateOptions{})
			return
		}
		l := o.(*coordinationv1.Lease)
		l.Spec.RenewTime = &renew
		_, _ = c.CoordinationV1().Leases(corev1.NamespaceNodeLease).Update(ctx, l, metav1.UpdateOptions{})
	case intentPodCreate:
		ns, name, _ := strings.Cut(in.pod, "/")
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(in.podUID), CreationTimestamp: now},
			Spec: corev1.PodSpec{NodeName: in.node, Tolerations: in.tols}}
		if in.podReady != "" {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionStatus(in.podReady), LastTransitionTime: now}}
		}
		_, _ = c.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
	case intentPodDelete:
		ns, name, _ := strings.Cut(in.pod, "/")
		_ = c.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{})
	case intentPodsReady:
		l, _ := c.Tracker().List(podGVR, corev1.SchemeGroupVersion.WithKind("Pod"), "")
		for _, p := range l.(*corev1.PodList).Items {
			if p.Spec.NodeName != in.node {
				continue
			}
			for i := range p.Status.Conditions {
				if cond := &p.Status.Conditions[i]; cond.Type == corev1.PodReady && cond.Status != corev1.ConditionTrue {
					cond.Status, cond.LastTransitionTime = corev1.ConditionTrue, now
					_, _ = c.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, &p, metav1.UpdateOptions{})
				}
			}
		}
	}
}

// newAPIClient returns a fake clientset that stores objects as an API
// server does, through their JSON form: times keep whole seconds (a
// metav1.Time), microseconds in a lease (a metav1.MicroTime). The writer's
// own copy keeps what it had, as a real client's does.
func newAPIClient() *fake.Clientset {
	c := fake.NewSimpleClientset()
	react := k8stesting.ObjectReaction(c.Tracker())
	// Each lease write takes the next resource version, as an API server
	// gives them (the lease circuit breaker compares them); both sides'
	// clientsets get the same lease writes in the same order.
	leaseRV := 0
	stamp := func(o runtime.Object) runtime.Object {
		if l, ok := o.(*coordinationv1.Lease); ok {
			leaseRV++
			l.ResourceVersion = strconv.Itoa(leaseRV)
		}
		return o
	}
	c.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch act := a.(type) {
		case k8stesting.CreateActionImpl:
			act.Object = stamp(throughJSON(act.Object))
			return react(act)
		case k8stesting.UpdateActionImpl:
			act.Object = stamp(throughJSON(act.Object))
			return react(act)
		}
		return false, nil, nil
	})
	return c
}

// leaseCache is one side's model of its lease informer under a stall: the
// lease writes held back while the watch hangs, and the resource version
// of the last lease the cache took (its store's
// LastStoreSyncResourceVersion).
type leaseCache struct {
	stalled bool
	held    []k8stesting.Action
	rv      string
}

// hold reports whether a is a lease write to hold back, and holds it.
func (lc *leaseCache) hold(a k8stesting.Action) bool {
	if !lc.stalled || a.GetResource().Resource != "leases" {
		return false
	}
	lc.held = append(lc.held, a)
	return true
}

// release ends a stall and returns the writes held back, in order.
func (lc *leaseCache) release() []k8stesting.Action {
	lc.stalled = false
	out := lc.held
	lc.held = nil
	return out
}

// laterRV is the later of two resource versions (numbers; "" is none).
func laterRV(a, b string) string {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	if y > x {
		return b
	}
	return a
}

func throughJSON(o runtime.Object) runtime.Object {
	data, err := json.Marshal(o)
	if err != nil {
		return o
	}
	out := reflect.New(reflect.TypeOf(o).Elem()).Interface().(runtime.Object)
	if json.Unmarshal(data, out) != nil {
		return o
	}
	return out
}

// nodelifeSide is nodelife's controller over its own clientset, fed as an
// informer feeds the client-go controller.
type nodelifeSide struct {
	client  *fake.Clientset
	c       *nodelifecycle.Controller
	next    time.Time
	stepped bool
	// nodes and pods are the clientset's objects as of the last sync.
	nodes map[string]*corev1.Node
	pods  map[string]*corev1.Pod
	// skipBindMarking is a planted defect: the NotReady marking of pods
	// bound to a node that is not Ready is not written.
	skipBindMarking bool
	// stall is the lease cache's stall state; the side answers the lease
	// circuit breaker from its clientset (live) and stall.rv (cache).
	stall leaseCache
}

// LiveLease reads the node's lease from the clientset: the API server's.
func (s *nodelifeSide) LiveLease(node string) (string, bool, error) {
	o, err := s.client.Tracker().Get(leaseGVR, corev1.NamespaceNodeLease, node)
	if err != nil {
		return "", false, nil
	}
	return o.(*coordinationv1.Lease).ResourceVersion, true, nil
}

// CacheResourceVersion is the last lease resource version the side's
// lease cache took.
func (s *nodelifeSide) CacheResourceVersion() string { return s.stall.rv }

func newNodelifeSide(client *fake.Clientset, cfg nodelifecycle.Config) (*nodelifeSide, error) {
	c, err := nodelifecycle.New(cfg)
	if err != nil {
		return nil, err
	}
	s := &nodelifeSide{client: client, c: c, nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}}
	l, _ := client.Tracker().List(nodeGVR, corev1.SchemeGroupVersion.WithKind("Node"), "")
	for _, n := range l.(*corev1.NodeList).Items {
		c.UpsertNode(kubeapi.Node(&n))
		s.nodes[n.Name] = &n
	}
	ll, _ := client.Tracker().List(leaseGVR, coordinationv1.SchemeGroupVersion.WithKind("Lease"), "")
	for _, le := range ll.(*coordinationv1.LeaseList).Items {
		c.UpsertLease(kubeapi.LifecycleLease(&le))
		s.stall.rv = laterRV(s.stall.rv, le.ResourceVersion) // a list: the store takes the list's version
	}
	c.SetLiveLeases(s)
	pl, _ := client.Tracker().List(podGVR, corev1.SchemeGroupVersion.WithKind("Pod"), "")
	for _, p := range pl.(*corev1.PodList).Items {
		c.UpsertPod(kubeapi.Pod(&p))
		s.pods[p.Namespace+"/"+p.Name] = &p
	}
	client.ClearActions()
	return s, nil
}

// sync upserts what changed in the clientset since the last sync; it
// reports whether anything did.
func (s *nodelifeSide) sync() bool {
	actions := s.client.Actions()
	s.client.ClearActions()
	return s.apply(actions)
}

// apply upserts what the actions changed, lease writes held back while the
// lease cache is stalled.
func (s *nodelifeSide) apply(actions []k8stesting.Action) bool {
	did := false
	for _, a := range actions {
		if s.stall.hold(a) {
			continue
		}
		_, ns, name, ok := actionTarget(a)
		if !ok {
			continue
		}
		did = true
		if a.GetVerb() == "delete" {
			switch a.GetResource().Resource {
			case "nodes":
				s.c.DeleteNode(name)
				delete(s.nodes, name)
			case "pods":
				s.c.DeletePod(ns, name)
				delete(s.pods, ns+"/"+name)
			case "leases":
				s.c.DeleteLease(name)
			}
			continue
		}
		switch a.GetResource().Resource {
		case "nodes":
			if n := getNode(s.client, name); n != nil {
				s.c.UpsertNode(kubeapi.Node(n))
				s.nodes[name] = n
			} else {
				s.c.DeleteNode(name)
				delete(s.nodes, name)
			}
		case "pods":
			if p := getPod(s.client, ns+"/"+name); p != nil {
				s.c.UpsertPod(kubeapi.Pod(p))
				s.pods[ns+"/"+name] = p
			} else {
				s.c.DeletePod(ns, name)
				delete(s.pods, ns+"/"+name)
			}
		case "leases":
			if o, err := s.client.Tracker().Get(leaseGVR, ns, name); err == nil {
				s.c.UpsertLease(kubeapi.LifecycleLease(o.(*coordinationv1.Lease)))
				s.stall.rv = laterRV(s.stall.rv, o.(*coordinationv1.Lease).ResourceVersion) // the watch's last write
			} else {
				s.c.DeleteLease(name)
			}
		}
	}
	return did
}

// step runs the controller at now and writes its actions to the
// clientset, as the client-go controller does.
func (s *nodelifeSide) step(now time.Time) []nodelifecycle.Action {
	r := s.c.StepAll(now)
	s.next, s.stepped = r.Next, true
	ctx := context.Background()
	for _, a := range r.Actions {
		switch a.Kind {
		case nodelifecycle.KindNodeStatus:
			if n := getNode(s.client, a.Node); n != nil {
				n.Status.Conditions = kubeapi.FromConditions(a.Conditions)
				_, _ = s.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
			}
		case nodelifecycle.KindTaints:
			if n := getNode(s.client, a.Node); n != nil {
				n.Spec.Taints = kubeapi.FromTaints(taints.Apply(kubeapi.Taints(n.Spec.Taints), a.Add, a.Remove))
				_, _ = s.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			}
		case nodelifecycle.KindPodsNotReady:
			if s.skipBindMarking && a.Reason == nodelifecycle.ReasonBoundToNotReadyNode {
				continue
			}
			for _, ref := range a.Pods {
				p := getPod(s.client, ref.Key())
				if p == nil || string(p.UID) != ref.UID {
					continue
				}
				for i := range p.Status.Conditions {
					if cond := &p.Status.Conditions[i]; cond.Type == corev1.PodReady && cond.Status != corev1.ConditionFalse {
						cond.Status, cond.LastTransitionTime = corev1.ConditionFalse, metav1.NewTime(now)
						_, _ = s.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
					}
				}
			}
		case nodelifecycle.KindEvict:
			if p := getPod(s.client, a.Pod.Key()); p != nil && string(p.UID) == a.Pod.UID {
				_ = s.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
			}
		}
	}
	return r.Actions
}

// actionTarget returns the resource, namespace and name a write of the
// clientset's log touched; ok is false for reads.
func actionTarget(a k8stesting.Action) (resource, ns, name string, ok bool) {
	switch a.GetVerb() {
	case "get", "list", "watch":
		return "", "", "", false
	}
	switch a := a.(type) {
	case k8stesting.CreateAction: // an UpdateAction too: they have the same methods
		m := a.GetObject().(metav1.Object)
		ns, name = m.GetNamespace(), m.GetName()
	case k8stesting.PatchAction:
		ns, name = a.GetNamespace(), a.GetName()
	case k8stesting.DeleteAction:
		ns, name = a.GetNamespace(), a.GetName()
	default:
		return "", "", "", false
	}
	return a.GetResource().Resource, ns, name, true
}

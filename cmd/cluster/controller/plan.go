package controller

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/internal/apiutil"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/taints"
)

// Plan runs a fresh Engine over snap on a virtual clock from now to
// now+horizon and returns every action it would take, writing nothing:
// what this controller would do if it started now. A node that renews its
// lease on time (renewed within two renew intervals, a quarter of the
// lease's duration each, as the kubelet renews) is assumed to go on
// renewing it; one that has missed a renewal is assumed silent from now
// on. Nothing else changes but the controller's own writes, which are
// applied to a copy of snap.
func Plan(ctx context.Context, cfg Config, snap Snapshot, now time.Time, horizon time.Duration) ([]Action, error) {
	e, err := NewEngine(cfg)
	if err != nil {
		return nil, err
	}
	w := &memWriter{nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}}
	for _, n := range snap.Nodes {
		w.nodes[n.Name] = n.DeepCopy()
	}
	for _, p := range snap.Pods {
		w.pods[p.Namespace+"/"+p.Name] = p.DeepCopy()
	}
	leases := map[string]*coordinationv1.Lease{}
	type renewal struct {
		every time.Duration
		next  time.Time
	}
	live := map[string]*renewal{}
	for name, l := range snap.Leases {
		leases[name] = l.DeepCopy()
		if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds <= 0 {
			continue
		}
		every := time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second / 4
		last := l.Spec.RenewTime.Time
		if now.Sub(last) <= 2*every {
			next := last.Add(every)
			for next.Before(now) {
				next = next.Add(every)
			}
			live[name] = &renewal{every: every, next: next}
		}
	}
	var out []Action
	end := now.Add(horizon)
	t := now
	again := 0 // ticks in a row at the same instant
	for i := 0; i < 10_000_000 && !t.After(end); i++ {
		for name, r := range live {
			for !r.next.After(t) {
				l := leases[name].DeepCopy()
				rt := metav1.NewMicroTime(r.next)
				l.Spec.RenewTime = &rt
				l.ResourceVersion = "" // a renewal the engine has not seen
				leases[name] = l
				r.next = r.next.Add(r.every)
			}
		}
		next, err := e.Step(ctx, t, w.snapshot(leases), w, func(a Action) { out = append(out, a) })
		if err != nil {
			return out, err
		}
		for _, r := range live {
			if next.IsZero() || r.next.Before(next) {
				next = r.next
			}
		}
		switch {
		case next.After(t):
			again = 0
		case again < 10:
			// Work due now again (a tainting pass right after a monitor
			// pass): tick at the same instant, as Controller.Step is.
			again++
			next = t
		default:
			next = t.Add(eviction.NodeTaintPassPeriod)
			again = 0
		}
		t = next
	}
	return out, nil
}

// memWriter is the Writer of a dry run: it applies the writes to its
// copies of the objects.
type memWriter struct {
	nodes map[string]*corev1.Node
	pods  map[string]*corev1.Pod
}

func (w *memWriter) snapshot(leases map[string]*coordinationv1.Lease) Snapshot {
	s := Snapshot{Leases: leases}
	for _, n := range w.nodes {
		s.Nodes = append(s.Nodes, n)
	}
	for _, p := range w.pods {
		s.Pods = append(s.Pods, p)
	}
	return s // Step orders what it reads
}

// WriteNodeConditions implements Writer.
func (w *memWriter) WriteNodeConditions(_ context.Context, node *corev1.Node, conds []corev1.NodeCondition) (*corev1.Node, error) {
	n := w.nodes[node.Name]
	if n == nil {
		return nil, fmt.Errorf("node %s not found", node.Name)
	}
	n = n.DeepCopy()
	n.Status.Conditions = conds
	w.nodes[n.Name] = n
	return n, nil
}

// UpdateTaints implements Writer.
func (w *memWriter) UpdateTaints(_ context.Context, name string, add, remove []corev1.Taint) (*corev1.Node, error) {
	n := w.nodes[name]
	if n == nil {
		return nil, fmt.Errorf("node %s not found", name)
	}
	n = n.DeepCopy()
	n.Spec.Taints = kubeapi.FromTaints(taints.Apply(kubeapi.Taints(n.Spec.Taints), kubeapi.Taints(add), kubeapi.Taints(remove)))
	w.nodes[name] = n
	return n, nil
}

// MarkPodNotReady implements Writer.
func (w *memWriter) MarkPodNotReady(_ context.Context, pod *corev1.Pod, now time.Time) error {
	p := w.pods[pod.Namespace+"/"+pod.Name]
	if p == nil {
		return nil
	}
	p = p.DeepCopy()
	apiutil.MarkNotReady(p, now, corev1.PodReady)
	w.pods[pod.Namespace+"/"+pod.Name] = p
	return nil
}

// EvictPod implements Writer: the pod is marked as being deleted.
func (w *memWriter) EvictPod(_ context.Context, pod *corev1.Pod, _ core.PodCondition, now time.Time) error {
	p := w.pods[pod.Namespace+"/"+pod.Name]
	if p == nil {
		return nil
	}
	p = p.DeepCopy()
	t := metav1.NewTime(now)
	p.DeletionTimestamp = &t
	w.pods[pod.Namespace+"/"+pod.Name] = p
	return nil
}

package nodelifecycle

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// driveOffline steps c from scenarioStart to end at every Next and every
// 10 s, the kubelets of up renewing every 10 s throughout and those of
// down renewing at +0s, then not until back, when they post Ready again
// and renew every 10 s; it returns every action as a line.
func driveOffline(t *testing.T, c *Controller, down, up []string, back, end time.Duration) []string {
	t.Helper()
	var out []string
	for now := scenarioStart; !now.After(scenarioStart.Add(end)); {
		d := now.Sub(scenarioStart)
		if d == back {
			for _, n := range down {
				node, _ := c.Node(n)
				node.Conditions = readyAt(now)
				c.UpsertNode(node)
			}
		}
		if d%(10*time.Second) == 0 {
			for _, n := range up {
				c.UpsertLease(Lease{Node: n, RenewTime: now})
			}
			if d == 0 || d >= back {
				for _, n := range down {
					c.UpsertLease(Lease{Node: n, RenewTime: now})
				}
			}
		}
		r := c.StepAll(now)
		for _, a := range r.Actions {
			out = append(out, line(a))
		}
		next := scenarioStart.Add((d/(10*time.Second) + 1) * 10 * time.Second)
		if r.Next.Before(next) {
			next = r.Next
		}
		now = next
	}
	return out
}

// openYurtCluster is an edge pool e of 4 nodes (e-1 autonomous for ever,
// e-2 autonomous with a duration of 0s, which is for ever too; both edge
// workers) and a cloud pool c of 2, pools as zones, one pod per node with
// the tolerations the DefaultTolerationSeconds admission plugin gives
// (300 s each).
func openYurtCluster(t *testing.T, policy NodePolicy) *Controller {
	cfg := DefaultConfig()
	cfg.NodePolicy = policy
	c := newScenario(t, cfg)
	for _, n := range []string{"e-1", "e-2", "e-3", "e-4", "c-1", "c-2"} {
		node := core.Node{Name: n, Labels: zoneLabels(n[:1]), Conditions: readyAt(scenarioStart)}
		switch n {
		case "e-1":
			node.Labels[LabelOpenYurtEdgeWorker] = "true"
			node.Annotations = map[string]string{AnnotationOpenYurtAutonomy: "true"}
		case "e-2":
			node.Labels[LabelOpenYurtEdgeWorker] = "true"
			node.Annotations = map[string]string{AnnotationOpenYurtAutonomyDuration: "0s"}
		}
		c.UpsertNode(node)
		c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p-" + n, UID: "u-" + n, NodeName: n, Ready: true,
			Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)}))
	}
	return c
}

// The edge pool goes offline for 15 minutes (its kubelets renew at +0s and
// next at +15m0s, posting Ready). Worked out from v1.37's defaults: the
// pass at +55s is the first more than the 50 s grace period after +0s: the
// four nodes turn Unknown; the pool, 4 of 4 not ready (at least 55%), is
// fully disrupted, but the cloud pool is not, so the pool keeps tainting
// at 0.1 node/s: its bucket (burst 1) is full at +55s, then one token per
// 10 s: e-1 at +55s, e-2 at +1m5s, e-3 at +1m15s, e-4 at +1m25s (queued in
// name order). A pod tolerating unreachable for 300 s is evicted 300 s
// after the taint controller sees the taint: e-3's at +6m15s, e-4's at
// +6m25s. Under OpenYurt the autonomous nodes' pods are neither marked
// NotReady nor scheduled for eviction (bound for ever); without the
// policy, upstream's, they are: marked at +55s, evicted at +5m55s and
// +6m5s. At +15m0s the pool is back: taints off, the pool Normal.
func TestOpenYurtPoolOffline(t *testing.T) {
	common := func(marked []string, evictions ...string) []string {
		out := []string{
			"+0s Zone r/c Initial -> Normal, rate 0.1/s",
			"+0s Zone r/e Initial -> Normal, rate 0.1/s",
			"+55s NodeStatus e-1", "+55s NodeStatus e-2", "+55s NodeStatus e-3", "+55s NodeStatus e-4",
		}
		for _, n := range marked {
			out = append(out, "+55s PodsNotReady "+n)
		}
		out = append(out,
			"+55s Zone r/e Normal -> FullDisruption, rate 0.1/s",
			"+55s Taints e-1 +node.kubernetes.io/unreachable:NoSchedule",
			"+55s Taints e-2 +node.kubernetes.io/unreachable:NoSchedule",
			"+55s Taints e-3 +node.kubernetes.io/unreachable:NoSchedule",
			"+55s Taints e-4 +node.kubernetes.io/unreachable:NoSchedule")
		out = append(out, evictions...)
		for _, n := range []string{"e-1", "e-2", "e-3", "e-4"} {
			out = append(out, "+15m0s Taints "+n+" -node.kubernetes.io/unreachable:NoExecute")
		}
		out = append(out, "+15m0s Zone r/e FullDisruption -> Normal, rate 0.1/s")
		for _, n := range []string{"e-1", "e-2", "e-3", "e-4"} {
			out = append(out, "+15m0s Taints "+n+" -node.kubernetes.io/unreachable:NoSchedule")
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		policy    NodePolicy
		want      []string
		keptReady []string
	}{
		{"openyurt", OpenYurt{}, common([]string{"e-3", "e-4"},
			"+55s Taints e-1 +node.kubernetes.io/unreachable:NoExecute",
			"+1m5s Taints e-2 +node.kubernetes.io/unreachable:NoExecute",
			"+1m15s Taints e-3 +node.kubernetes.io/unreachable:NoExecute",
			"+1m15s Schedule ns/p-e-3 due +6m15s",
			"+1m25s Taints e-4 +node.kubernetes.io/unreachable:NoExecute",
			"+1m25s Schedule ns/p-e-4 due +6m25s",
			"+6m15s Evict ns/p-e-3 "+eviction.TaintManagerEvictionReason,
			"+6m25s Evict ns/p-e-4 "+eviction.TaintManagerEvictionReason), []string{"p-e-1", "p-e-2"}},
		{"upstream", nil, common([]string{"e-1", "e-2", "e-3", "e-4"},
			"+55s Taints e-1 +node.kubernetes.io/unreachable:NoExecute",
			"+55s Schedule ns/p-e-1 due +5m55s",
			"+1m5s Taints e-2 +node.kubernetes.io/unreachable:NoExecute",
			"+1m5s Schedule ns/p-e-2 due +6m5s",
			"+1m15s Taints e-3 +node.kubernetes.io/unreachable:NoExecute",
			"+1m15s Schedule ns/p-e-3 due +6m15s",
			"+1m25s Taints e-4 +node.kubernetes.io/unreachable:NoExecute",
			"+1m25s Schedule ns/p-e-4 due +6m25s",
			"+5m55s Evict ns/p-e-1 "+eviction.TaintManagerEvictionReason,
			"+6m5s Evict ns/p-e-2 "+eviction.TaintManagerEvictionReason,
			"+6m15s Evict ns/p-e-3 "+eviction.TaintManagerEvictionReason,
			"+6m25s Evict ns/p-e-4 "+eviction.TaintManagerEvictionReason), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := openYurtCluster(t, tc.policy)
			got := driveOffline(t, c, []string{"e-1", "e-2", "e-3", "e-4"}, []string{"c-1", "c-2"}, 15*time.Minute, 16*time.Minute)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("actions (-want +got):\n%s", diff)
			}
			for _, name := range tc.keptReady {
				if p, _ := c.Pod("ns", name); !p.Ready || p.Terminating {
					t.Errorf("%s: %+v, want Ready and running", name, p)
				}
			}
		})
	}
}

// An edge node with node.openyurt.io/autonomy-duration 100s: its kubelet
// stops after +0s, it turns Unknown at +55s and is tainted NoExecute at
// once (its zone's bucket is full); its pod, which tolerates unreachable
// for 300 s, is bound for 100 s: due at +55s + 100s = +2m35s, and never
// marked NotReady.
func TestOpenYurtDurationBinds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NodePolicy = OpenYurt{}
	c := newScenario(t, cfg)
	c.UpsertNode(core.Node{Name: "e-1", Labels: map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: "e", LabelOpenYurtEdgeWorker: "true"},
		Annotations: map[string]string{AnnotationOpenYurtAutonomyDuration: "100s"}, Conditions: readyAt(scenarioStart)})
	c.UpsertNode(core.Node{Name: "c-1", Labels: zoneLabels("c"), Conditions: readyAt(scenarioStart)})
	c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "e-1", Ready: true, Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)}))
	got := drive(t, c, map[string]time.Duration{"e-1": 0, "c-1": -1}, 4*time.Minute)
	want := []string{
		"+0s Zone r/c Initial -> Normal, rate 0.1/s",
		"+0s Zone r/e Initial -> Normal, rate 0.1/s",
		"+55s NodeStatus e-1",
		"+55s Zone r/e Normal -> FullDisruption, rate 0.1/s",
		"+55s Taints e-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+55s Taints e-1 +node.kubernetes.io/unreachable:NoExecute",
		"+55s Schedule ns/p due +2m35s",
		"+2m35s Evict ns/p " + eviction.TaintManagerEvictionReason,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
}

// A node with NoExecuteExempt is never tainted NoExecute: x-1's kubelet
// stops after +0s, it turns Unknown at +55s, its pods are marked, it gets
// the unreachable NoSchedule taint, but no NoExecute taint, and its pod,
// which tolerates that for 60 s, is never scheduled for eviction. Given
// the NoExecute taint by someone else, x-1 loses it at the next pass. Its
// Ready, its NoSchedule taint and its zone count stay upstream's: with
// ExcludeFromDisruption too on the other node of the zone, the zone counts
// only x-1 and goes fully disrupted.
func TestNodeRulesExemptAndExcluded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NodePolicy = NodePolicyFunc(func(n *core.Node) NodeRules {
		return NodeRules{NoExecuteExempt: n.Name == "x-1", ExcludeFromDisruption: n.Name == "x-2"}
	})
	c := newScenario(t, cfg)
	c.UpsertNode(core.Node{Name: "x-1", Labels: zoneLabels("x"), Conditions: readyAt(scenarioStart)})
	c.UpsertNode(core.Node{Name: "x-2", Labels: zoneLabels("x"), Conditions: readyAt(scenarioStart)})
	c.UpsertNode(core.Node{Name: "y-1", Labels: zoneLabels("y"), Conditions: readyAt(scenarioStart)})
	sixty := int64(60)
	c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "x-1", Ready: true,
		Tolerations: []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &sixty}}}))
	got := drive(t, c, map[string]time.Duration{"x-1": 0, "x-2": -1, "y-1": -1}, 5*time.Minute)
	want := []string{
		"+0s Zone r/x Initial -> Normal, rate 0.1/s",
		"+0s Zone r/y Initial -> Normal, rate 0.1/s",
		"+55s NodeStatus x-1",
		"+55s PodsNotReady x-1",
		"+55s Zone r/x Normal -> FullDisruption, rate 0.1/s",
		"+55s Taints x-1 +node.kubernetes.io/unreachable:NoSchedule",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
	// Given the NoExecute taint by someone else, x-1 loses it.
	n, _ := c.Node("x-1")
	n.Taints = append(slices.Clone(n.Taints), taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute, TimeAdded: scenarioStart})
	c.UpsertNode(n)
	var lines []string
	for _, a := range c.StepAll(scenarioStart.Add(5*time.Minute + 5*time.Second)).Actions {
		lines = append(lines, line(a))
	}
	// The Step's NoExecute plan reads the node's taints as the pass's
	// write leaves them: the pod is not scheduled at all.
	if diff := cmp.Diff([]string{"+5m5s Taints x-1 -node.kubernetes.io/unreachable:NoExecute"}, lines); diff != "" {
		t.Fatalf("exempt node with the taint (-want +got):\n%s", diff)
	}
}

// KeepPodsReady also covers a pod bound to the node while it is not
// Ready (upstream marks it at once).
func TestNodeRulesKeepPodsReadyOnBind(t *testing.T) {
	for _, keep := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.NodePolicy = NodePolicyFunc(func(*core.Node) NodeRules { return NodeRules{KeepPodsReady: keep} })
		c := newScenario(t, cfg)
		c.UpsertNode(core.Node{Name: "n", Labels: zoneLabels("a"), Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.False,
			LastHeartbeatTime: scenarioStart, LastTransitionTime: scenarioStart}}})
		c.UpsertLease(Lease{Node: "n", RenewTime: scenarioStart})
		c.StepAll(scenarioStart)
		c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "n", Ready: true,
			Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)}))
		marked := false
		for _, a := range c.StepAll(scenarioStart.Add(time.Second)).Actions {
			marked = marked || (a.Kind == KindPodsNotReady && a.Reason == ReasonBoundToNotReadyNode)
		}
		if marked == keep {
			t.Errorf("KeepPodsReady %v: marked %v", keep, marked)
		}
	}
}

// A refused eviction is not retried: the pod stays running in the view;
// a change of its tolerations plans it again (and here evicts it at once).
// A refused PodsNotReady leaves the pods Ready and is not asked again. A
// taint write cannot be refused.
func TestRefused(t *testing.T) {
	c := newScenario(t, DefaultConfig())
	c.UpsertNode(core.Node{Name: "n", Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart),
		Taints: []taints.Taint{{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoExecute, TimeAdded: scenarioStart}}})
	c.UpsertLease(Lease{Node: "n", RenewTime: scenarioStart})
	pod := corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "n", Ready: true})
	c.UpsertPod(pod)
	r := c.Step(scenarioStart)
	var evict Action
	for ; ; r = c.Step(scenarioStart) {
		for _, a := range r.Actions {
			if a.Kind == KindEvict {
				evict = a
			}
			if a.Kind == KindTaints {
				if err := c.Refused(a); !errors.Is(err, ErrNotRefusable) {
					t.Fatalf("refusing a taint write: %v", err)
				}
			}
		}
		if evict.Kind == KindEvict || r.Next.After(scenarioStart) {
			break
		}
	}
	if evict.Kind != KindEvict {
		t.Fatal("no eviction of the untolerating pod")
	}
	if err := c.Refused(evict); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{time.Second, 10 * time.Second, time.Minute} {
		for _, a := range c.StepAll(scenarioStart.Add(at)).Actions {
			if a.Kind == KindEvict {
				t.Fatalf("+%v: refused eviction retried: %v", at, a)
			}
		}
	}
	if p, _ := c.Pod("ns", "p"); p.Terminating {
		t.Fatal("refused pod terminating in the view")
	}
	// Another pod on the node plans the node again: the refused pod is
	// left out, the new one (tolerating nothing) evicted.
	c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "q", UID: "uq", NodeName: "n", Ready: true}))
	var evicted []string
	for _, a := range c.StepAll(scenarioStart.Add(90 * time.Second)).Actions {
		if a.Kind == KindEvict {
			evicted = append(evicted, a.Pod.Name)
		}
	}
	if !slices.Equal(evicted, []string{"q"}) {
		t.Fatalf("evicted %v after a new pod, want [q]", evicted)
	}
	if err := c.Refused(evict); !errors.Is(err, ErrNotPending) {
		t.Fatalf("refusing an old action: %v", err)
	}
	pod.Tolerations = []taints.Toleration{{Key: "other", Operator: taints.TolerationOpExists}}
	c.UpsertPod(pod)
	again := false
	for _, a := range c.StepAll(scenarioStart.Add(2 * time.Minute)).Actions {
		again = again || (a.Kind == KindEvict && a.Pod.Name == "p")
	}
	if !again {
		t.Fatal("a changed pod is not planned again")
	}
}

func TestRefusedPodsNotReady(t *testing.T) {
	c := newScenario(t, DefaultConfig())
	c.UpsertNode(core.Node{Name: "n", Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart)})
	c.UpsertNode(core.Node{Name: "m", Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart)})
	c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "n", Ready: true, Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)}))
	marks := 0
	for now := scenarioStart; now.Before(scenarioStart.Add(3 * time.Minute)); now = now.Add(5 * time.Second) {
		c.UpsertLease(Lease{Node: "m", RenewTime: now})
		if now.Equal(scenarioStart) {
			c.UpsertLease(Lease{Node: "n", RenewTime: now})
		}
		for r := c.Step(now); ; r = c.Step(now) {
			for _, a := range r.Actions {
				if a.Kind == KindPodsNotReady {
					marks++
					if err := c.Refused(a); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !r.Next.Equal(now) {
				break
			}
		}
	}
	if p, _ := c.Pod("ns", "p"); marks != 1 || !p.Ready {
		t.Fatalf("marked %d times (want 1, refused); pod %+v", marks, p)
	}
}

// OpenYurt's pod binding controller's table, row by row:
// openyurtio/openyurt pkg/yurtmanager/controller/yurtcoordinator/podbinding/
// pod_binding_controller_test.go, TestReconcile (at fbefb6ba). Its
// resultCount (updates made) is whether OpenYurtBindPod rewrites the pod.
// Upstream's test compares the expected tolerations with themselves; here
// they are compared with the result.
func TestOpenYurtBindPodReconcile(t *testing.T) {
	const src = "openyurt pod_binding_controller_test.go TestReconcile"
	s300, s100 := int64(300), int64(100)
	tols := func(s *int64) []taints.Toleration {
		return []taints.Toleration{
			{Key: taints.TaintNodeNotReady, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: s},
			{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: s},
		}
	}
	originals := func(v string) map[string]string {
		return map[string]string{AnnotationOpenYurtOriginalNotReady: v, AnnotationOpenYurtOriginalUnreachable: v}
	}
	edge := func(annotations map[string]string) *core.Node {
		return &core.Node{Name: "node1", Labels: map[string]string{LabelOpenYurtEdgeWorker: "true"}, Annotations: annotations}
	}
	pod := func(annotations map[string]string, s *int64) core.Pod {
		return core.Pod{Namespace: "default", Name: "pod1", NodeName: "node1", Annotations: annotations, Tolerations: tols(s)}
	}
	rows := []struct {
		name        string
		pod         core.Pod
		node        *core.Node
		want        core.Pod
		resultCount int
	}{
		{"update pod toleration seconds as node autonomy setting", pod(nil, &s300),
			edge(map[string]string{"node.openyurt.io/autonomy-duration": "100s"}), pod(originals("300"), &s100), 1},
		{"update pod toleration seconds with node autonomy duration is 0", pod(nil, &s300),
			edge(map[string]string{"node.openyurt.io/autonomy-duration": "0s"}), pod(originals("300"), nil), 1},
		{"restore pod toleration seconds as node autonomy setting", pod(originals("100"), &s300),
			edge(nil), pod(originals("100"), &s100), 1},
		{"pod toleration seconds is not changed with invalid duration", pod(originals("300"), &s300),
			&core.Node{Name: "node1", Annotations: map[string]string{"node.openyurt.io/autonomy-duration": "invalid duration"}}, pod(originals("300"), &s300), 0},
		{"pod related node is not found", pod(originals("300"), &s300), nil, pod(originals("300"), &s300), 0},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			in := r.pod
			inAnn, inTols := maps.Clone(in.Annotations), slices.Clone(in.Tolerations)
			got, changed := OpenYurtBindPod(r.node, in)
			if changed != (r.resultCount == 1) {
				t.Errorf("%s: rewritten %v, want %d updates", src, changed, r.resultCount)
			}
			if !maps.Equal(got.Annotations, r.want.Annotations) {
				t.Errorf("%s: annotations %v, want %v", src, got.Annotations, r.want.Annotations)
			}
			if !slices.EqualFunc(got.Tolerations, r.want.Tolerations, taints.Toleration.Equal) {
				t.Errorf("%s: tolerations %v, want %v", src, got.Tolerations, r.want.Tolerations)
			}
			if !maps.Equal(in.Annotations, inAnn) || !slices.EqualFunc(in.Tolerations, inTols, func(a, b taints.Toleration) bool { return a == b }) {
				t.Errorf("%s: the input pod was modified", src)
			}
		})
	}
	// The controller's watches skip DaemonSet and mirror pods (its
	// isDaemonSetPodOrStaticPod), and a toleration without seconds keeps
	// no annotation (upstream's reconcile would panic on it).
	ds := pod(nil, &s300)
	ds.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "d"}}
	mirror := pod(map[string]string{core.ConfigMirrorAnnotation: "x"}, &s300)
	auto := edge(map[string]string{AnnotationOpenYurtAutonomy: "true"})
	for _, p := range []core.Pod{ds, mirror} {
		if _, changed := OpenYurtBindPod(auto, p); changed {
			t.Errorf("%s rewritten", p.Name)
		}
	}
	forever := pod(nil, nil)
	forever.Tolerations[0].TolerationSeconds = &s300
	got, changed := OpenYurtBindPod(auto, forever)
	if !changed || !maps.Equal(got.Annotations, map[string]string{AnnotationOpenYurtOriginalNotReady: "300"}) || got.Tolerations[0].TolerationSeconds != nil {
		t.Errorf("forever toleration: %v %v", got.Annotations, got.Tolerations)
	}
}

// The OpenYurt policy's rules from its three annotations and the edge
// label.
func TestOpenYurtRules(t *testing.T) {
	s := func(v int64) *int64 { return &v }
	for _, r := range []struct {
		labels, annotations map[string]string
		want                NodeRules
	}{
		{nil, nil, NodeRules{}},
		{nil, map[string]string{AnnotationOpenYurtAutonomy: "true"}, NodeRules{KeepPodsReady: true}},
		{nil, map[string]string{AnnotationOpenYurtAutonomy: "false"}, NodeRules{}},
		{nil, map[string]string{AnnotationOpenYurtBinding: "true"}, NodeRules{KeepPodsReady: true}},
		{map[string]string{LabelOpenYurtEdgeWorker: "true"}, map[string]string{AnnotationOpenYurtBinding: "true"}, NodeRules{KeepPodsReady: true, Bind: true}},
		{map[string]string{LabelOpenYurtEdgeWorker: "true"}, map[string]string{AnnotationOpenYurtAutonomyDuration: "90s"}, NodeRules{KeepPodsReady: true, Bind: true, BindSeconds: s(90)}},
		{map[string]string{LabelOpenYurtEdgeWorker: "true"}, map[string]string{AnnotationOpenYurtAutonomyDuration: "1.5s"}, NodeRules{KeepPodsReady: true, Bind: true, BindSeconds: s(1)}},
		{map[string]string{LabelOpenYurtEdgeWorker: "true"}, map[string]string{AnnotationOpenYurtAutonomyDuration: "-1m"}, NodeRules{KeepPodsReady: true, Bind: true}},
		// Any duration, even one that does not parse, keeps pods Ready
		// (IsPodBoundenToNode); the pod binding reads no autonomy from it.
		{map[string]string{LabelOpenYurtEdgeWorker: "true"}, map[string]string{AnnotationOpenYurtAutonomyDuration: "soon"}, NodeRules{KeepPodsReady: true}},
		{map[string]string{LabelOpenYurtEdgeWorker: "false"}, map[string]string{AnnotationOpenYurtAutonomyDuration: "90s"}, NodeRules{KeepPodsReady: true}},
	} {
		got := OpenYurt{}.NodeRules(&core.Node{Labels: r.labels, Annotations: r.annotations})
		if !sameRules(got, r.want) || got.Bind != r.want.Bind {
			t.Errorf("%v %v: %+v, want %+v", r.labels, r.annotations, got, r.want)
		}
	}
}

// A refused eviction is planned again when the node's NoExecute taints
// change.
func TestRefusedNodeTaintsChange(t *testing.T) {
	c := newScenario(t, DefaultConfig())
	node := core.Node{Name: "n", Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart),
		Taints: []taints.Taint{{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoExecute, TimeAdded: scenarioStart}}}
	c.UpsertNode(node)
	c.UpsertLease(Lease{Node: "n", RenewTime: scenarioStart})
	c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "n", Ready: true}))
	evictions := func(at time.Duration, refuse bool) int {
		n := 0
		now := scenarioStart.Add(at)
		for r := c.Step(now); ; r = c.Step(now) {
			for _, a := range r.Actions {
				if a.Kind == KindEvict {
					n++
					if refuse {
						if err := c.Refused(a); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if !r.Next.Equal(now) {
				return n
			}
		}
	}
	if n := evictions(0, true); n != 1 {
		t.Fatalf("%d evictions at +0s, want 1 (refused)", n)
	}
	if n := evictions(time.Minute, true); n != 0 {
		t.Fatalf("%d evictions at +1m0s, want none", n)
	}
	node.Taints = append(slices.Clone(node.Taints), taints.Taint{Key: "maintenance", Effect: taints.TaintEffectNoExecute, TimeAdded: scenarioStart.Add(time.Minute)})
	c.UpsertNode(node)
	if n := evictions(2*time.Minute, false); n != 1 {
		t.Fatalf("%d evictions after the node's taints changed, want 1", n)
	}
}

// Node pools as zones with a rate of their own: OpenYurt{PoolsAsZones}
// reads apps.openyurt.io/nodepool; pool "edge" taints at 1 node/s
// (Config.Zones), the rest at 0.1. Four edge nodes lose their kubelets
// after +0s: Unknown at +55s, the pool fully disrupted (the cloud pool is
// not), its bucket full at +55s and a token each second after: tainted at
// +55s, +56s, +57s, +58s (at the default rate, 10 s apart). Their zone
// key is the pool's name, as KindZone prints it.
func TestPoolsAsZonesWithOwnRate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NodePolicy = OpenYurt{PoolsAsZones: true}
	one := 1.0
	cfg.Zones = []eviction.ZoneOverride{{Zone: "edge", NodeEvictionRate: &one}}
	c := newScenario(t, cfg)
	renew := map[string]time.Duration{}
	for _, n := range []string{"e-1", "e-2", "e-3", "e-4", "c-1"} {
		pool := "edge"
		renew[n] = 0
		if n == "c-1" {
			pool, renew[n] = "cloud", -1
		}
		// The topology labels say otherwise: the pool wins.
		c.UpsertNode(core.Node{Name: n, Labels: map[string]string{eviction.LabelTopologyZone: "z", LabelOpenYurtNodePool: pool}, Conditions: readyAt(scenarioStart)})
	}
	var got []string
	for _, l := range drive(t, c, renew, 70*time.Second) {
		if !strings.Contains(l, "NodeStatus") && !strings.Contains(l, "NoSchedule") && !strings.Contains(l, "PodsNotReady") {
			got = append(got, l)
		}
	}
	want := []string{
		"+0s Zone cloud Initial -> Normal, rate 0.1/s",
		"+0s Zone edge Initial -> Normal, rate 1/s",
		"+55s Zone edge Normal -> FullDisruption, rate 1/s",
		"+55s Taints e-1 +node.kubernetes.io/unreachable:NoExecute",
		"+56s Taints e-2 +node.kubernetes.io/unreachable:NoExecute",
		"+57s Taints e-3 +node.kubernetes.io/unreachable:NoExecute",
		"+58s Taints e-4 +node.kubernetes.io/unreachable:NoExecute",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
}

// The modes over the OpenYurt cluster's outage without a policy
// (upstream's lines in TestOpenYurtPoolOffline): NoTaintEviction keeps
// every taint and mark but schedules and evicts nothing; NoScheduleOnly
// keeps the marks and the NoSchedule taints but taints nothing NoExecute,
// so nothing is scheduled either.
func TestModes(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		drop func(line string) bool // the lines of upstream's run the mode removes
	}{
		{"NoTaintEviction", func(c *Config) { c.NoTaintEviction = true }, func(l string) bool {
			return strings.Contains(l, " Schedule ") || strings.Contains(l, " Evict ")
		}},
		{"NoScheduleOnly", func(c *Config) { c.NoScheduleOnly = true }, func(l string) bool {
			return strings.Contains(l, "NoExecute") || strings.Contains(l, " Schedule ") || strings.Contains(l, " Evict ")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := openYurtCluster(t, nil)
			want := slices.DeleteFunc(driveOffline(t, up, []string{"e-1", "e-2", "e-3", "e-4"}, []string{"c-1", "c-2"}, 15*time.Minute, 16*time.Minute), tc.drop)
			cfg := DefaultConfig()
			tc.set(&cfg)
			c := newScenario(t, cfg)
			for _, n := range []string{"e-1", "e-2", "e-3", "e-4", "c-1", "c-2"} {
				c.UpsertNode(core.Node{Name: n, Labels: zoneLabels(n[:1]), Conditions: readyAt(scenarioStart)})
				c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p-" + n, UID: "u-" + n, NodeName: n, Ready: true,
					Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)}))
			}
			got := driveOffline(t, c, []string{"e-1", "e-2", "e-3", "e-4"}, []string{"c-1", "c-2"}, 15*time.Minute, 16*time.Minute)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("actions (-want +got):\n%s", diff)
			}
			if len(want) < 15 {
				t.Fatalf("only %d lines: the comparison proves little", len(want))
			}
		})
	}
}

// HeartbeatLease: a delegate renews e-1's lease on its behalf after its
// kubelet stops at +0s. Upstream takes the delegate's renewals as
// heartbeats and e-1 stays healthy; with a filter that refuses them, e-1
// turns Unknown at +55s as with no lease at all.
func TestHeartbeatLeaseFilter(t *testing.T) {
	for _, filter := range []bool{false, true} {
		cfg := DefaultConfig()
		if filter {
			cfg.HeartbeatLease = func(l Lease) bool { return l.HolderIdentity != "delegate" }
		}
		c := newScenario(t, cfg)
		c.UpsertNode(core.Node{Name: "e-1", Labels: zoneLabels("e"), Conditions: readyAt(scenarioStart)})
		c.UpsertNode(core.Node{Name: "c-1", Labels: zoneLabels("c"), Conditions: readyAt(scenarioStart)})
		unknown := ""
		for d := time.Duration(0); d <= 2*time.Minute; d += 5 * time.Second {
			now := scenarioStart.Add(d)
			if d%(10*time.Second) == 0 {
				c.UpsertLease(Lease{Node: "c-1", RenewTime: now, HolderIdentity: "c-1"})
				holder := "e-1"
				if d > 0 {
					holder = "delegate"
				}
				c.UpsertLease(Lease{Node: "e-1", RenewTime: now, HolderIdentity: holder})
			}
			for _, a := range c.StepAll(now).Actions {
				if a.Kind == KindNodeStatus && unknown == "" {
					unknown = line(a)
				}
			}
		}
		want := ""
		if filter {
			want = "+55s NodeStatus e-1"
		}
		if unknown != want {
			t.Errorf("filter %v: %q, want %q", filter, unknown, want)
		}
	}
}

package kubeapi

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/taints"
)

// manifest is one decoded YAML document.
type manifest struct {
	typ metav1.TypeMeta
	obj any
}

// load decodes every document of a testdata file into its typed object.
func load(t testing.TB, name string) []manifest {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var out []manifest
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%s: %v", name, err)
		}
		var typ metav1.TypeMeta
		if err := json.Unmarshal(raw, &typ); err != nil {
			t.Fatal(err)
		}
		var obj any
		switch typ.Kind {
		case "Node":
			obj = &corev1.Node{}
		case "Pod":
			obj = &corev1.Pod{}
		case "Deployment":
			obj = &appsv1.Deployment{}
		case "ReplicaSet":
			obj = &appsv1.ReplicaSet{}
		default:
			t.Fatalf("%s: unexpected kind %q", name, typ.Kind)
		}
		if err := json.Unmarshal(raw, obj); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, manifest{typ, obj})
	}
}

func node(t testing.TB) *corev1.Node { return load(t, "node.yaml")[0].obj.(*corev1.Node) }

func TestNodeRoundTrips(t *testing.T) {
	n := node(t)
	if got := FromTaints(Taints(n.Spec.Taints)); !equality.Semantic.DeepEqual(got, n.Spec.Taints) {
		t.Errorf("taints: %+v, want %+v", got, n.Spec.Taints)
	}
	if got := FromConditions(Conditions(n.Status.Conditions)); !equality.Semantic.DeepEqual(got, n.Status.Conditions) {
		t.Errorf("conditions: %+v, want %+v", got, n.Status.Conditions)
	}
	// A NoExecute taint with its timeAdded, and nil slices, survive too.
	added := metav1.NewTime(time.Date(2026, 3, 1, 12, 1, 50, 0, time.UTC))
	ts := []corev1.Taint{{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}}
	if got := FromTaints(Taints(ts)); !equality.Semantic.DeepEqual(got, ts) || FromTaints(Taints(nil)) != nil || FromConditions(Conditions(nil)) != nil {
		t.Errorf("timeAdded or nil lost: %+v", got)
	}
}

// The kubelet's setters, fed the healthy inputs, keep the manifest's
// conditions as they are (same reasons and messages, down to the letter)
// and only move the heartbeats: nodelife's strings are upstream's.
func TestKubeletSettersMatchARealNode(t *testing.T) {
	n := node(t)
	conds := Conditions(n.Status.Conditions)
	now := time.Date(2026, 3, 1, 12, 0, 50, 0, time.UTC)
	in := conditions.KubeletInput{Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods"}}}
	got, events := conditions.SetKubeletConditions(now, conds, in)
	if len(events) != 0 {
		t.Errorf("events %v for an unchanged node", events)
	}
	want := append([]corev1.NodeCondition(nil), n.Status.Conditions...)
	for i := range want {
		want[i].LastHeartbeatTime = metav1.NewTime(now)
	}
	if out := FromConditions(got); !equality.Semantic.DeepEqual(out, want) {
		t.Errorf("got %+v\nwant %+v", out, want)
	}
}

// The node's lease was last renewed at 12:00:45; at 12:01:40 (55s later,
// past the 50s grace period) the monitor rewrites Ready and the three
// pressure conditions to Unknown with reason NodeStatusUnknown, message
// "Kubelet stopped posting node status.", transition time now and the
// heartbeats kept; the condition taint is then unreachable:NoSchedule; the
// zone key comes from the topology labels.
func TestMonitorOnARealNode(t *testing.T) {
	n := node(t)
	renew := metav1.NewMicroTime(time.Date(2026, 3, 1, 12, 0, 45, 0, time.UTC))
	l := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &renew}}
	mon, err := conditions.NewMonitor(conditions.DefaultMonitorConfig())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 45, 0, time.UTC)
	mon.Step(t0, []conditions.NodeObservation{MonitorNode(n, l)})
	now := t0.Add(55 * time.Second)
	ups := mon.Step(now, []conditions.NodeObservation{MonitorNode(n, l)})
	if len(ups) != 1 || !ups[0].Health.Write {
		t.Fatalf("updates %+v", ups)
	}
	n.Status.Conditions = FromConditions(ups[0].Health.Conditions)
	for _, c := range n.Status.Conditions {
		if c.Status != corev1.ConditionUnknown || c.Reason != "NodeStatusUnknown" || c.Message != "Kubelet stopped posting node status." ||
			!c.LastTransitionTime.Time.Equal(now) || !c.LastHeartbeatTime.Time.Equal(time.Date(2026, 3, 1, 12, 0, 40, 0, time.UTC)) {
			t.Errorf("condition %+v", c)
		}
	}
	add, _ := taints.ReconcileConditionTaints(now, Taints(n.Spec.Taints), Conditions(n.Status.Conditions), n.Spec.Unschedulable)
	n.Spec.Taints = FromTaints(taints.Apply(Taints(n.Spec.Taints), add, nil))
	if len(n.Spec.Taints) != 2 || n.Spec.Taints[1].Key != "node.kubernetes.io/unreachable" || n.Spec.Taints[1].Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("taints %+v", n.Spec.Taints)
	}
	z := ZoneNode(n)
	if eviction.ZoneName(z.Zone) != "eu-west-1/eu-west-1b" || z.Ready != conditions.Unknown || z.Excluded {
		t.Errorf("zone node %+v (%s)", z, eviction.ZoneName(z.Zone))
	}
	if tn := TaintNode(n); tn.UID != "6f1c3a2e-8d4b-4f7a-9c2e-1b3d5f7a9c0e" || len(tn.Taints) != 2 {
		t.Errorf("taint node %+v", tn)
	}
}

// The DaemonSet pod's tolerations, after its template's own, are exactly
// the DaemonSet controller's for a hostNetwork pod; so it rides out an
// unreachable node forever.
func TestDaemonSetPod(t *testing.T) {
	p := load(t, "daemonset-pod.yaml")[0].obj.(*corev1.Pod)
	tols := Tolerations(p.Spec.Tolerations)
	want := taints.DaemonSetTolerations(true)
	if len(tols) != 1+len(want) {
		t.Fatalf("%d tolerations", len(tols))
	}
	for i, w := range want {
		if !tols[1+i].Equal(w) {
			t.Errorf("toleration %d: %+v, want %+v", 1+i, tols[1+i], w)
		}
	}
	if got := FromTolerations(tols); !equality.Semantic.DeepEqual(got, p.Spec.Tolerations) {
		t.Errorf("round trip: %+v", got)
	}
	now := time.Date(2026, 3, 1, 12, 2, 0, 0, time.UTC)
	unreachable := []taints.Taint{{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute, TimeAdded: now}}
	if d := (eviction.NoExecuteConfig{}).Plan(now, unreachable, Pod(p), nil); d.Reason != eviction.ReasonToleratedForever {
		t.Errorf("decision %+v", d)
	}
	// system-node-critical: the shutdown manager puts it in the last phase.
	sp := Pod(p)
	if *sp.Priority != 2000001000 || sp.PriorityClassName != "system-node-critical" || *sp.TerminationGracePeriodSeconds != 30 ||
		sp.Phase != core.PodRunning || sp.Key() != "logging/fluent-bit-7xk2p" {
		t.Errorf("shutdown pod %+v", sp)
	}
	cp := Pod(p)
	if !cp.IsCritical() || cgroup.PodQOS(cp, cgroup.QOSOptions{}) != core.PodQOSBurstable {
		t.Errorf("cgroup pod %+v", cp)
	}
}

// The chain's pods carry the admission plugin's 300s tolerations: a pod
// on a node tainted unreachable at 12:02 is deleted at 12:07. Deleting the
// Deployment in the foreground takes four collector rounds: the
// ReplicaSet is marked, the pods go, then the ReplicaSet, then the
// Deployment; the metadata round-trips through the collector's objects.
func TestDeploymentChain(t *testing.T) {
	ms := load(t, "deployment-chain.yaml")
	var objs []gc.Object
	for _, m := range ms {
		meta := m.obj.(metav1.Object)
		o := Object(m.typ, meta)
		objs = append(objs, o)
		// Round trip: write the collector's view back into a copy.
		var back metav1.ObjectMeta
		ApplyObject(o, &back)
		if !equality.Semantic.DeepEqual(back.OwnerReferences, meta.GetOwnerReferences()) || !equality.Semantic.DeepEqual(back.Finalizers, meta.GetFinalizers()) ||
			back.DeletionTimestamp != nil || o.APIVersion != m.typ.APIVersion || o.Kind != m.typ.Kind || o.Name != meta.GetName() ||
			o.Namespace != meta.GetNamespace() || o.UID != meta.GetUID() || o.ResourceVersion != meta.GetResourceVersion() {
			t.Errorf("%s %s: metadata lost: %+v", m.typ.Kind, meta.GetName(), o)
		}
	}
	if len(objs) != 4 {
		t.Fatalf("%d objects", len(objs))
	}
	res, err := gc.PlanCascade(objs, objs[0].UID, metav1.DeletePropagationForeground, gc.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 4 || len(res.Remaining) != 0 {
		t.Errorf("rounds %d, remaining %v", res.Rounds, res.Remaining)
	}

	pod := ms[2].obj.(*corev1.Pod)
	now := time.Date(2026, 3, 1, 12, 2, 0, 0, time.UTC)
	unreachable := []taints.Taint{{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute, TimeAdded: now}}
	d := (eviction.NoExecuteConfig{}).Plan(now, unreachable, Pod(pod), nil)
	if d.Action != eviction.NoExecuteSchedule || !d.At.Equal(now.Add(5*time.Minute)) {
		t.Errorf("decision %+v", d)
	}
	// 250m/1Gi requested, 500m/2Gi limit: Burstable, as the API says.
	if q := cgroup.PodQOS(Pod(pod), cgroup.QOSOptions{}); string(q) != string(pod.Status.QOSClass) {
		t.Errorf("QoS %s, the API says %s", q, pod.Status.QOSClass)
	}
	if q := cgroup.PodQOS(Pod(ms[3].obj.(*corev1.Pod)), cgroup.QOSOptions{}); q != core.PodQOSBestEffort {
		t.Errorf("QoS %s", q)
	}
}

// A pod with only pod-level resources (spec.resources, k8s.io/api v0.32+)
// and containers without any: requests equal to limits for cpu and memory
// make it Guaranteed under PodLevelResources (the zero QOSOptions, as
// upstream v1.36), BestEffort with the gate off.
func TestPodLevelResources(t *testing.T) {
	q := func(s string) resource.Quantity { return resource.MustParse(s) }
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u"}, Spec: corev1.PodSpec{
		Resources:  &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("1"), "memory": q("1Gi")}, Limits: corev1.ResourceList{"cpu": q("1"), "memory": q("1Gi")}},
		Containers: []corev1.Container{{Name: "c"}},
	}}
	cp := Pod(pod)
	if cp.Resources == nil || !cp.Resources.Limits["memory"].Equal(q("1Gi")) || !cp.Resources.Requests["cpu"].Equal(q("1")) {
		t.Fatalf("pod-level resources lost: %+v", cp.Resources)
	}
	if got := cgroup.PodQOS(cp, cgroup.QOSOptions{}); got != core.PodQOSGuaranteed {
		t.Errorf("QoS with PodLevelResources %s, want Guaranteed", got)
	}
	if got := cgroup.PodQOS(cp, cgroup.QOSOptions{DisablePodLevelResources: true}); got != core.PodQOSBestEffort {
		t.Errorf("QoS without PodLevelResources %s, want BestEffort", got)
	}
	pod.Spec.Resources = nil
	if Pod(pod).Resources != nil {
		t.Error("no spec.resources must give nil Resources")
	}
}

// Pod converts spec.volumes with the source each sets; an emptyDir keeps
// its medium and size limit, and the local ones are those the eviction
// manager counts toward a pod's disk use.
func TestPodVolumes(t *testing.T) {
	limit := resource.MustParse("1Gi")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &limit}}},
		{Name: "shm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}},
		{Name: "token", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
		{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}},
	}}}
	vs := Pod(pod).Volumes
	want := []struct {
		name   string
		source core.VolumeSource
		local  bool
	}{
		{"scratch", core.VolumeEmptyDir, true}, {"shm", core.VolumeEmptyDir, false}, {"config", core.VolumeConfigMap, true},
		{"host", core.VolumeHostPath, false}, {"token", "secret", false}, {"data", "persistentVolumeClaim", false},
	}
	if len(vs) != len(want) {
		t.Fatalf("%d volumes, want %d: %+v", len(vs), len(want), vs)
	}
	for i, w := range want {
		if vs[i].Name != w.name || vs[i].Source != w.source || vs[i].LocalEphemeral() != w.local {
			t.Errorf("volume %d: %+v (local %v), want %s %s local %v", i, vs[i], vs[i].LocalEphemeral(), w.name, w.source, w.local)
		}
	}
	if e := vs[0].EmptyDir; e == nil || e.SizeLimit == nil || !e.SizeLimit.Equal(limit) {
		t.Errorf("emptyDir size limit lost: %+v", vs[0].EmptyDir)
	}
	if e := vs[1].EmptyDir; e == nil || e.Medium != core.StorageMediumMemory {
		t.Errorf("emptyDir medium lost: %+v", vs[1].EmptyDir)
	}
	limit.Set(5)
	if vs[0].EmptyDir.SizeLimit.Equal(limit) {
		t.Error("the size limit is shared with the input, not copied")
	}
}

// Pod converts what the kubelet's pod sync reads: the restart policy, host
// network, each container's image and probes, and the ephemeral
// containers; the converted pod drives cri's restart rule.
func TestPodSyncFields(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u"}, Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever, HostNetwork: true,
		InitContainers:      []corev1.Container{{Name: "proxy", Image: "envoy:1", RestartPolicy: &always, StartupProbe: probe}},
		Containers:          []corev1.Container{{Name: "app", Image: "nginx:1", LivenessProbe: probe}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}},
	}}
	cp := Pod(pod)
	if cp.RestartPolicy != core.RestartPolicyNever || !cp.HostNetwork {
		t.Errorf("restart policy %q, host network %v; want Never, true", cp.RestartPolicy, cp.HostNetwork)
	}
	if c := cp.InitContainers[0]; c.Image != "envoy:1" || c.RestartPolicy != core.ContainerRestartPolicyAlways || !c.HasStartupProbe || c.HasLivenessProbe {
		t.Errorf("init container %+v", c)
	}
	if c := cp.Containers[0]; c.Image != "nginx:1" || c.HasStartupProbe || !c.HasLivenessProbe {
		t.Errorf("container %+v", c)
	}
	if len(cp.EphemeralContainers) != 1 || cp.EphemeralContainers[0].Name != "debug" || cp.EphemeralContainers[0].Image != "busybox" {
		t.Errorf("ephemeral containers %+v", cp.EphemeralContainers)
	}
	// restartPolicy Never: an exited container is not started again; with
	// the API default (Always) it is.
	exited := &cri.ContainerStatus{Name: "app", State: cri.ContainerExited, ExitCode: 1}
	if cri.ShouldRestart(cp, exited) {
		t.Error("an exited container of a Never pod would be restarted")
	}
	pod.Spec.RestartPolicy = ""
	if !cri.ShouldRestart(Pod(pod), exited) {
		t.Error("an exited container of a pod with the default restart policy would not be restarted")
	}
}

// A node lease as the kubelet writes it, and a leader-election lease with
// every spec field, survive Lease and ApplyLease; ApplyLease keeps the
// metadata an update needs.
func TestLeaseRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
	holder, dur, trans := "controller-a", int32(15), int32(3)
	in := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "nodelife", ResourceVersion: "42", UID: "u1",
			Labels: map[string]string{"a": "b"}, OwnerReferences: []metav1.OwnerReference{lease.NodeOwnerReference("n1", "node-uid")}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, LeaseTransitions: &trans,
			AcquireTime: &metav1.MicroTime{Time: at}, RenewTime: &metav1.MicroTime{Time: at.Add(2 * time.Second)}},
	}
	l := Lease(in)
	if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].UID != "node-uid" || l.Holder() != holder || *l.LeaseDurationSeconds != 15 || *l.LeaseTransitions != 3 || !l.RenewTime.Equal(at.Add(2*time.Second)) || !l.AcquireTime.Equal(at) {
		t.Fatalf("Lease: %+v", l)
	}
	rec := lease.RecordFromLease(l)
	if rec.HolderIdentity != holder || rec.LeaderTransitions != 3 || rec.LeaseDurationSeconds != 15 {
		t.Errorf("record %+v", rec)
	}
	out := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "42", UID: "u1"}}
	ApplyLease(l, out)
	if !equality.Semantic.DeepEqual(in, out) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
	*l.HolderIdentity = "changed"
	if *out.Spec.HolderIdentity != holder {
		t.Error("ApplyLease shares the holder pointer with its input")
	}
	empty := Lease(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-node-lease", Name: "n1"}})
	if empty.HolderIdentity != nil || empty.RenewTime != nil || empty.Name != "n1" {
		t.Errorf("empty lease %+v", empty)
	}
}

// A pod mid-resize: the Infeasible condition, a container's allocated and
// actuated resources, a container whose status reports none (left out),
// and the pod-level values; a pod whose status reports nothing has no
// resize status.
func TestResizeStatus(t *testing.T) {
	cpu := func(v string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}
	}
	p := &corev1.Pod{Status: corev1.PodStatus{
		Conditions: []corev1.PodCondition{{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: corev1.PodReasonInfeasible}},
		ContainerStatuses: []corev1.ContainerStatus{
			{Name: "a", AllocatedResources: cpu("1"), Resources: &corev1.ResourceRequirements{Requests: cpu("2"), Limits: cpu("3")}},
			{Name: "b"},
		},
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "s", AllocatedResources: cpu("500m")}},
		AllocatedResources:    cpu("4"),
		Resources:             &corev1.ResourceRequirements{Limits: cpu("5")},
	}}
	st, ok := ResizeStatus(p)
	if !ok || !st.Infeasible || len(st.Containers) != 2 {
		t.Fatalf("ResizeStatus = %+v, %v; want Infeasible with the statuses of a and s", st, ok)
	}
	a, s := st.Containers[0], st.Containers[1]
	if a.Name != "a" || a.Allocated.MilliCPU() != 1000 || a.Actuated == nil || a.Actuated.Requests.MilliCPU() != 2000 || a.Actuated.Limits.MilliCPU() != 3000 {
		t.Errorf("container a: %+v", a)
	}
	if s.Name != "s" || s.Allocated.MilliCPU() != 500 || s.Actuated != nil {
		t.Errorf("init container s: %+v", s)
	}
	if st.Allocated.MilliCPU() != 4000 || st.Actuated == nil || st.Actuated.Requests != nil || st.Actuated.Limits.MilliCPU() != 5000 {
		t.Errorf("pod level: allocated %v, actuated %+v", st.Allocated, st.Actuated)
	}
	if _, ok := ResizeStatus(&corev1.Pod{}); ok {
		t.Error("a pod without status: ok = true")
	}
	if ap := Pod(p); ap.Resize == nil || !ap.Resize.Infeasible {
		t.Errorf("Pod: Resize = %+v", ap.Resize)
	}
}

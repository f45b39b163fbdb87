package pressure

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// TestEvictionMessage pins evictionMessage: the starved resource, the
// first threshold on it with an observation, the containers above their
// request (regular and init, matched by name), and the annotations.
func TestEvictionMessage(t *testing.T) {
	nodefs10 := Threshold{Signal: SignalNodeFsAvailable, Operator: OpLessThan, Value: ThresholdValue{Percentage: float32(10) / 100}}
	inodes := Threshold{Signal: SignalNodeFsInodesFree, Operator: OpLessThan, Value: ThresholdValue{Quantity: q("2k")}}
	mem := Threshold{Signal: SignalMemoryAvailable, Operator: OpLessThan, Value: ThresholdValue{Quantity: q("100Mi")}}
	pod := core.Pod{Name: "web",
		Containers:     []core.Container{ctr("app", "100Mi", "1Gi"), ctr("idle", "1Gi", "")},
		InitContainers: []core.Container{{Name: "proxy", RestartPolicy: core.ContainerRestartPolicyAlways}}}
	st := &PodStats{Containers: []ContainerStats{
		{Name: "app", WorkingSetBytes: u64(300 * mi), Rootfs: &FsUsage{UsedBytes: u64(gi)}, Logs: &FsUsage{UsedBytes: u64(512 * mi)}},
		{Name: "idle", WorkingSetBytes: u64(10 * mi)},
		{Name: "proxy", WorkingSetBytes: u64(20 * mi), Rootfs: &FsUsage{UsedBytes: u64(mi)}}, // no logs reading: no disk usage
		{Name: "debugger", WorkingSetBytes: u64(gi)},                                         // ephemeral: not in the spec
	}}
	obs := Observations{
		SignalMemoryAvailable:  {Available: 50 * mi, Capacity: 4 * gi},
		SignalNodeFsAvailable:  {Available: gi, Capacity: 10 * gi},
		SignalNodeFsInodesFree: {Available: 1000, Capacity: 100000},
	}
	for _, tc := range []struct {
		name string
		res  Resource
		ths  []Threshold
		msg  string
		ann  map[string]string
	}{
		{"memory", ResourceMemory, []Threshold{nodefs10, mem},
			"The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " +
				"Container app was using 300Mi, request is 100Mi, has larger consumption of memory. " +
				"Container proxy was using 20Mi, request is 0, has larger consumption of memory. ",
			map[string]string{"offending_containers": "app,proxy", "offending_containers_usage": "300Mi,20Mi", "starved_resource": "memory"}},
		// 10% of 10Gi = int64(10737418240 * float64(float32(0.1))) = 1073741840,
		// not a multiple of 1024, so it prints in decimal.
		{"disk", ResourceEphemeralStorage, []Threshold{mem, nodefs10},
			"The node was low on resource: ephemeral-storage. Threshold quantity: 1073741840, available: 1Gi. " +
				"Container app was using 1536Mi, request is 1Gi, has larger consumption of ephemeral-storage. ",
			map[string]string{"offending_containers": "app", "offending_containers_usage": "1536Mi", "starved_resource": "ephemeral-storage"}},
		// Inode amounts print with decimal suffixes; containers are not blamed.
		{"inodes", ResourceInodes, []Threshold{inodes},
			"The node was low on resource: inodes. Threshold quantity: 2k, available: 1k. ",
			map[string]string{"offending_containers": "", "offending_containers_usage": "", "starved_resource": "inodes"}},
		// No observation for the threshold: no quantity part.
		{"no observation", ResourcePIDs, []Threshold{{Signal: SignalPIDAvailable, Operator: OpLessThan, Value: ThresholdValue{Quantity: q("10")}}},
			"The node was low on resource: pids. ",
			map[string]string{"offending_containers": "", "offending_containers_usage": "", "starved_resource": "pids"}},
	} {
		msg, ann := evictionMessage(tc.res, &pod, st, tc.ths, obs)
		if msg != tc.msg {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, msg, tc.msg)
		}
		if diff := cmp.Diff(tc.ann, ann); diff != "" {
			t.Errorf("%s annotations: %s", tc.name, diff)
		}
	}
	// No stats: no container part and no annotations.
	msg, ann := evictionMessage(ResourceMemory, &core.Pod{Name: "x"}, nil, []Threshold{mem}, obs)
	if msg != "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " || len(ann) != 0 {
		t.Errorf("%q %v", msg, ann)
	}
	// Pod-level resources add a pod part.
	pl := core.Pod{Name: "pl", Resources: &core.ResourceRequirements{Requests: rl("256Mi", "")}}
	plStats := &PodStats{WorkingSetBytes: u64(300 * mi)}
	msg, ann = evictionMessage(ResourceMemory, &pl, plStats, []Threshold{mem}, obs)
	if msg != "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Pod pl was using 300Mi, request is 256Mi, has larger consumption of memory. " ||
		ann["offending_pod"] != "pl" || ann["offending_pod_usage"] != "300Mi" {
		t.Errorf("%q %v", msg, ann)
	}
	// Pod-level limits without a pod-level memory request: sized at pod
	// level, but upstream writes the pod part only for a memory request.
	pl.Resources = &core.ResourceRequirements{Limits: rl("256Mi", "")}
	msg, ann = evictionMessage(ResourceMemory, &pl, plStats, []Threshold{mem}, obs)
	if msg != "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " || ann["offending_pod"] != "" {
		t.Errorf("pod-level limits only: %q %v", msg, ann)
	}
}

// TestEvictionStatus pins the status the manager writes: Failed, Evicted,
// the message, and DisruptionTarget / TerminationByKubelet.
func TestEvictionStatus(t *testing.T) {
	m, _ := NewManager(DefaultConfig())
	r := step(m, Observations{SignalMemoryAvailable: {Available: 50 * mi, Capacity: 4 * gi}}, []tp{memPod("a", 0, "", gi)}, t0)
	e := r.Decision.Evict
	msg := "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container c was using 1Gi, request is 0, has larger consumption of memory. "
	want := PodStatus{Phase: "Failed", Reason: "Evicted", Message: msg,
		Conditions: []core.PodCondition{{Type: core.DisruptionTarget, Status: conditions.True, Reason: "TerminationByKubelet", Message: msg}}}
	if diff := cmp.Diff(want, e.Status); diff != "" {
		t.Fatal(diff)
	}
	if e.Event != (Event{Type: "Warning", Reason: "Evicted", Message: msg}) || !e.Hard || e.GracePeriodSeconds != 1 || !IsEvicted(e.Status.Phase, e.Status.Reason) {
		t.Fatalf("%+v", e)
	}
	if IsEvicted("Failed", "OOMKilled") || IsEvicted("Running", "Evicted") {
		t.Fatal("IsEvicted")
	}
}

// TestAdmit pins the eviction admit handler.
func TestAdmit(t *testing.T) {
	mp := conditions.MemoryPressure
	dp := conditions.DiskPressure
	pp := conditions.PIDPressure
	be := core.Pod{Name: "be", QOSClass: "BestEffort"}
	beTol := core.Pod{Name: "be-tol", QOSClass: "BestEffort", Tolerations: []taints.Toleration{{Key: "node.kubernetes.io/memory-pressure", Operator: "Exists", Effect: "NoSchedule"}}}
	beOther := core.Pod{Name: "be-disk", QOSClass: "BestEffort", Tolerations: []taints.Toleration{{Key: "node.kubernetes.io/disk-pressure", Operator: "Exists"}}}
	burst := core.Pod{Name: "burst", QOSClass: "Burstable"}
	crit := core.Pod{Name: "crit", QOSClass: "BestEffort", Priority: i32(2000001000)}
	static := core.Pod{Name: "static", QOSClass: "BestEffort", Annotations: map[string]string{core.ConfigSourceAnnotation: core.SourceFile}}
	reject := func(msg string) AdmitResult { return AdmitResult{Reason: "Evicted", Message: msg} }
	admit := AdmitResult{Admit: true}
	for _, tc := range []struct {
		conds []conditions.Type
		pod   core.Pod
		want  AdmitResult
	}{
		{nil, be, admit},
		{[]conditions.Type{mp}, burst, admit},
		{[]conditions.Type{mp}, be, reject("The node had condition: [MemoryPressure]. ")},
		{[]conditions.Type{mp}, beTol, admit},
		{[]conditions.Type{mp}, beOther, reject("The node had condition: [MemoryPressure]. ")},
		{[]conditions.Type{mp}, crit, admit},
		{[]conditions.Type{dp}, burst, reject("The node had condition: [DiskPressure]. ")},
		{[]conditions.Type{dp}, beTol, reject("The node had condition: [DiskPressure]. ")},
		{[]conditions.Type{mp, dp}, burst, reject("The node had condition: [MemoryPressure DiskPressure]. ")},
		{[]conditions.Type{pp}, static, admit},
		{[]conditions.Type{pp}, burst, reject("The node had condition: [PIDPressure]. ")},
	} {
		if got := Admit(tc.conds, &tc.pod); got != tc.want {
			t.Errorf("%v %s: %+v", tc.conds, tc.pod.Name, got)
		}
	}
}

// TestLocalStorageEviction pins localStorageEviction: emptyDir limit, then
// the pod's ephemeral-storage limit, then a container's (rootfs counted
// only without a dedicated imagefs); several pods in one step; critical
// and stat-less pods skipped; no threshold needed.
func TestLocalStorageEviction(t *testing.T) {
	sized := func(name, limit string) core.Volume {
		return core.Volume{Name: name, Source: core.VolumeEmptyDir, EmptyDir: &core.EmptyDirVolumeSource{SizeLimit: q(limit)}}
	}
	limited := func(name, limit string) core.Container {
		return core.Container{Name: name, Resources: core.ResourceRequirements{Limits: rl("", limit)}}
	}
	emptyDir := tp{core.Pod{Name: "emptydir", UID: "emptydir", Volumes: []core.Volume{sized("scratch", "1Gi")}},
		&PodStats{Volumes: []VolumeStats{{Name: "scratch", FsUsage: FsUsage{UsedBytes: u64(gi + 1)}}}}}
	// An emptyDir in memory is limited the same way (upstream checks every
	// emptyDir's sizeLimit, whatever its medium).
	memDir := emptyDir
	memDir.Name, memDir.UID = "memdir", "memdir"
	memDir.Volumes = []core.Volume{sized("scratch", "1Gi")}
	memDir.Volumes[0].EmptyDir.Medium = core.StorageMediumMemory
	podLimit := tp{core.Pod{Name: "podlimit", UID: "podlimit", Containers: []core.Container{limited("a", "1Gi"), limited("b", "512Mi")}},
		&PodStats{EphemeralStorageUsedBytes: u64(2 * gi)}}
	rootfs := tp{core.Pod{Name: "rootfs", UID: "rootfs", Containers: []core.Container{limited("a", "1Gi")}},
		&PodStats{EphemeralStorageUsedBytes: u64(gi), Containers: []ContainerStats{{Name: "a", Rootfs: &FsUsage{UsedBytes: u64(gi)}, Logs: &FsUsage{UsedBytes: u64(1)}}}}}
	atLimit := tp{core.Pod{Name: "atlimit", UID: "atlimit", Volumes: []core.Volume{sized("scratch", "1Gi")}},
		&PodStats{Volumes: []VolumeStats{{Name: "scratch", FsUsage: FsUsage{UsedBytes: u64(gi)}}}}}
	crit := emptyDir
	crit.Name, crit.UID, crit.Annotations = "mirror", "mirror", map[string]string{core.ConfigMirrorAnnotation: "x"}
	noStats := tp{Pod: core.Pod{Name: "nostats", UID: "nostats", Volumes: emptyDir.Volumes}}
	pods := []tp{emptyDir, atLimit, podLimit, crit, noStats, memDir, rootfs}

	m, _ := NewManager(Config{LocalStorageCapacityIsolation: true, PressureTransitionPeriod: time.Minute})
	r := step(m, nil, pods, t0)
	var got []string
	for _, e := range r.Decision.LocalStorage {
		if e.GracePeriodSeconds != 1 || e.Status.Reason != "Evicted" || len(e.Status.Conditions) != 0 {
			t.Errorf("%+v", e)
		}
		got = append(got, e.Pod.Name+": "+e.Status.Message)
	}
	want := []string{
		`emptydir: Usage of EmptyDir volume "scratch" exceeds the limit "1Gi". `,
		`podlimit: Pod ephemeral local storage usage exceeds the total limit of containers 1536Mi. `,
		`memdir: Usage of EmptyDir volume "scratch" exceeds the limit "1Gi". `,
		`rootfs: Container a exceeded its local ephemeral storage limit "1Gi". `,
	}
	if r.Decision.Kind != DecideLocalStorage || r.Decision.Reason != DecisionLocalStorageLimits || !cmp.Equal(want, got) {
		t.Fatalf("%v\n%s", r.Decision.Kind, cmp.Diff(want, got))
	}
	// With a dedicated imagefs the rootfs is not counted (kubernetes#139339).
	m, _ = NewManager(Config{LocalStorageCapacityIsolation: true, Layout: LayoutImageFs, PressureTransitionPeriod: time.Minute})
	if r := step(m, nil, []tp{rootfs}, t0); r.Decision.Kind != DecideNothing {
		t.Fatalf("%+v", r.Decision)
	}
}

package nodelife_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife"
	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// One value runs every package as its release: each subtest drives one
// package from ProfileFor(v1.36) and ProfileFor(v1.37) on an input where
// the two releases decide differently, with both outcomes worked by hand
// (from reference/upstream-1.37.md and the package's own test of the same
// rule, named in each comment).
func TestProfileBothSides(t *testing.T) {
	p36, p37 := nodelife.ProfileFor(release.V1_36), nodelife.ProfileFor(release.V1_37)
	if p36.Release != release.V1_36 || p37.Release != release.V1_37 {
		t.Fatalf("Release = %v, %v", p36.Release, p37.Release)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gi := uint64(1 << 30)

	// The lease circuit breaker (nodelifecycle's breaker_test): node a-1's
	// cached lease was renewed at +0s (version 5), and the API server has
	// a newer one (version 9) that the cache (at version 7) has not seen.
	// At +55s, the first pass past the 50 s grace period, v1.36 trusts the
	// cache and marks a-1 Unknown (a NodeStatus action); v1.37 reads the
	// live lease, holds a-1 and writes no status.
	t.Run("nodelifecycle", func(t *testing.T) {
		for _, c := range []struct {
			p            nodelife.Profile
			status, hold bool
		}{{p36, true, false}, {p37, false, true}} {
			ctrl, err := nodelifecycle.New(c.p.NodeLifecycle)
			if err != nil {
				t.Fatal(err)
			}
			ctrl.SetLiveLeases(staleLeaseCache{})
			ctrl.UpsertNode(core.Node{Name: "a-1", Labels: map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: "a"},
				Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: t0, LastTransitionTime: t0}}})
			ctrl.UpsertLease(nodelifecycle.Lease{Node: "a-1", RenewTime: t0, ResourceVersion: "5"})
			var status, hold bool
			for d := time.Duration(0); d <= 55*time.Second; d += 5 * time.Second {
				for _, a := range ctrl.StepAll(t0.Add(d)).Actions {
					status = status || a.Kind == nodelifecycle.KindNodeStatus && a.Node == "a-1"
					hold = hold || a.Kind == nodelifecycle.KindHold && a.Node == "a-1"
				}
			}
			if status != c.status || hold != c.hold {
				t.Errorf("%v: a-1's status written %v, held %v; want %v, %v", c.p.Release, status, hold, c.status, c.hold)
			}
		}
	})

	// HugepageAwareEviction (pressure's release_test): 4Gi available and
	// 1Gi working set on a node with 3Gi of huge pages. v1.37 reads
	// memory.available as 4Gi - 3Gi = 1Gi of 2Gi; v1.36 as 4Gi of 5Gi.
	t.Run("eviction/pressure", func(t *testing.T) {
		stats := pressure.NodeStats{Memory: &pressure.MemoryStats{Time: t0, AvailableBytes: &[]uint64{4 * gi}[0], WorkingSetBytes: &gi},
			HugePagesCapacityBytes: 3 * gi}
		for _, c := range []struct {
			p                   nodelife.Profile
			available, capacity int64
		}{{p36, 4 << 30, 5 << 30}, {p37, 1 << 30, 2 << 30}} {
			m := c.p.Pressure.Observe(stats)[pressure.SignalMemoryAvailable]
			if m.Available != c.available || m.Capacity != c.capacity {
				t.Errorf("%v: memory.available %d of %d, want %d of %d", c.p.Release, m.Available, m.Capacity, c.available, c.capacity)
			}
		}
	})

	// The QoS class (cgroup's qos_test, "init containers whose mismatches
	// cancel out"): init container i2 asks no cpu and is limited to 250m,
	// i1 asks 500m and is limited to 250m, memory equal. v1.36 sums cpu to
	// 500m/500m, Guaranteed; v1.37 finds i2's cpu 0/250m, Burstable. Every
	// field that carries the QoS rules gives the same class.
	t.Run("cgroup QoS", func(t *testing.T) {
		one := resource.MustParse("1")
		pod := core.Pod{InitContainers: []core.Container{
			{Name: "i2", Resources: core.ResourceRequirements{Requests: core.ResourceList{core.ResourceMemory: one},
				Limits: core.ResourceList{core.ResourceCPU: resource.MustParse("250m"), core.ResourceMemory: one}}},
			{Name: "i1", Resources: core.ResourceRequirements{Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("500m"), core.ResourceMemory: one},
				Limits: core.ResourceList{core.ResourceCPU: resource.MustParse("250m"), core.ResourceMemory: one}}}}}
		for _, c := range []struct {
			p    nodelife.Profile
			want core.PodQOSClass
		}{{p36, core.PodQOSGuaranteed}, {p37, core.PodQOSBurstable}} {
			for name, o := range map[string]cgroup.QOSOptions{"QOS": c.p.QOS, "PodCgroup": c.p.PodCgroup.QOSOptions,
				"QOSCgroups": c.p.QOSCgroups.QOSOptions, "Admission": c.p.Admission.QOSOptions, "CPUManager": c.p.CPUManager.QOS} {
				if got := cgroup.ComputeQOS(pod, o); got != c.want {
					t.Errorf("%v: ComputeQOS with %s = %s, want %s", c.p.Release, name, got, c.want)
				}
			}
		}
	})

	// Declared limits (cgroup's TestResourceConfigForPodSidecarDeclaresLimits):
	// sidecar "proxy" limited to 500m and 256Mi, then init container
	// "migrate" without limits, then "app" limited to 1 cpu and 1Gi.
	// v1.36 counts migrate as declared through the sidecar before it: cpu
	// quota (500m + 1) * 100ms = 150000us, memory 256Mi + 1Gi =
	// 1342177280; v1.37 finds migrate without limits: neither.
	t.Run("cgroup pod cgroup", func(t *testing.T) {
		rl := func(cpu, mem string) core.ResourceList {
			l := core.ResourceList{core.ResourceCPU: resource.MustParse(cpu)}
			if mem != "" {
				l[core.ResourceMemory] = resource.MustParse(mem)
			}
			return l
		}
		pod := core.Pod{UID: "p",
			InitContainers: []core.Container{
				{Name: "proxy", RestartPolicy: core.ContainerRestartPolicyAlways, Resources: core.ResourceRequirements{Requests: rl("100m", ""), Limits: rl("500m", "256Mi")}},
				{Name: "migrate"}},
			Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: rl("100m", "128Mi"), Limits: rl("1", "1Gi")}}}}
		got36 := cgroup.ResourceConfigForPod(pod, p36.PodCgroup)
		if got36.CPUQuota == nil || *got36.CPUQuota != 150000 || got36.Memory == nil || *got36.Memory != 1342177280 {
			t.Errorf("1.36: quota %v, memory %v; want 150000, 1342177280", ptr(got36.CPUQuota), ptr(got36.Memory))
		}
		if got37 := cgroup.ResourceConfigForPod(pod, p37.PodCgroup); got37.CPUQuota != nil || got37.Memory != nil {
			t.Errorf("1.37: quota %v, memory %v; want neither", ptr(got37.CPUQuota), ptr(got37.Memory))
		}
	})

	// The QoS cgroups at the kubelet's start on cgroup v2: v1.37 (MemoryQoS
	// on, ReservationNone) resets the protection an earlier configuration
	// left, kubepods memory.min and memory.low and burstable memory.low to
	// 0; v1.36 (MemoryQoS off, the resets written at every update) writes
	// none at start.
	t.Run("cgroup QoS cgroups", func(t *testing.T) {
		for _, c := range []struct {
			p               nodelife.Profile
			root, burstable int
		}{{p36, 0, 0}, {p37, 2, 1}} {
			o := c.p.QOSCgroups
			o.CgroupV2 = true
			got := cgroup.QOSStartConfigs(o)
			if len(got.Root.Unified) != c.root || len(got.Burstable.Unified) != c.burstable {
				t.Errorf("%v: start writes %v on kubepods, %v on burstable; want %d and %d files", c.p.Release, got.Root.Unified, got.Burstable.Unified, c.root, c.burstable)
			}
			for f, v := range got.Root.Unified {
				if v != "0" {
					t.Errorf("%v: kubepods %s = %q, want 0", c.p.Release, f, v)
				}
			}
		}
	})

	// memory.high of a Burstable container asking 100Mi, limited to
	// 200Mi: v1.36's throttling factor 0.9 gives floor((100Mi + 0.9 *
	// 100Mi) / 4Ki) * 4Ki = 199229440; v1.37 has no factor and writes
	// none.
	t.Run("cgroup MemoryQoS", func(t *testing.T) {
		if got := p36.MemoryQoS.Container(core.PodQOSBurstable, 100<<20, 200<<20, 0); got.High != 199229440 {
			t.Errorf("1.36: memory.high %d (%s), want 199229440", got.High, got.HighSkipped)
		}
		if got := p37.MemoryQoS.Container(core.PodQOSBurstable, 100<<20, 200<<20, 0); got.High != 0 || got.HighSkipped == "" {
			t.Errorf("1.37: memory.high %d (%q), want none, skipped", got.High, got.HighSkipped)
		}
	})

	// Init containers and the sandbox (cri's TestInitContainersCurrentSandbox):
	// the init container's status was garbage-collected and the regular
	// containers of the one ready sandbox exited. v1.37 counts the pod
	// initialized (a regular container in the current sandbox, any state)
	// and restarts foo, bar and baz; v1.36 (an exited one does not count)
	// runs init0 again.
	t.Run("cri", func(t *testing.T) {
		spec := func(name string) core.Container { return core.Container{Name: name, Image: name + ":v1"} }
		pod := core.Pod{Name: "web", Namespace: "default", UID: "uid-1",
			InitContainers: []core.Container{spec("init0")}, Containers: []core.Container{spec("foo"), spec("bar"), spec("baz")}}
		st := cri.PodStatus{Sandboxes: []cri.SandboxStatus{{ID: "sb1", State: cri.SandboxReady, CreatedAt: t0, Network: &cri.SandboxNetwork{IP: "10.0.0.5"}}}}
		for _, name := range []string{"foo", "bar", "baz"} {
			st.Containers = append(st.Containers, cri.ContainerStatus{ID: name + "-10", Name: name, State: cri.ContainerExited,
				CreatedAt: t0.Add(10 * time.Second), FinishedAt: t0.Add(15 * time.Second), Hash: cri.HashContainer(name, name+":v1")})
		}
		names := func(s []cri.ContainerStart) (out []string) {
			for _, c := range s {
				out = append(out, c.Name)
			}
			return out
		}
		a36, err := cri.ComputePodActions(pod, st, p36.PodSync)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(a36.InitContainersToStart); len(got) != 1 || got[0] != "init0" || len(a36.ContainersToStart) != 0 {
			t.Errorf("1.36: init %v, start %v; want init0 alone", got, names(a36.ContainersToStart))
		}
		a37, err := cri.ComputePodActions(pod, st, p37.PodSync)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(a37.ContainersToStart); len(got) != 3 || len(a37.InitContainersToStart) != 0 {
			t.Errorf("1.37: init %v, start %v; want foo, bar and baz", names(a37.InitContainersToStart), got)
		}
	})

	// A pod mid-resize (admission's TestAdmitCountsResizeStatus) on a
	// 4-cpu node: container a shrinks from 2 cpus to 1, b grows from 1 to
	// 2, allocated, not actuated. v1.37 counts the larger of the sums, 3,
	// and admits a new pod asking 1; v1.36 counts the larger per
	// container, 2 + 2 = 4, and refuses it (OutOfcpu).
	t.Run("admission", func(t *testing.T) {
		cpus := func(v string) core.ResourceList { return core.ResourceList{core.ResourceCPU: resource.MustParse(v)} }
		resized := &core.Pod{Namespace: "ns", Name: "resized", UID: "resized",
			Containers: []core.Container{{Name: "a", Resources: core.ResourceRequirements{Requests: cpus("1")}},
				{Name: "b", Resources: core.ResourceRequirements{Requests: cpus("2")}}},
			Resize: &core.ResizeStatus{Containers: []core.ContainerResizeStatus{
				{Name: "a", Allocated: cpus("1"), Actuated: &core.ResourceRequirements{Requests: cpus("2")}},
				{Name: "b", Allocated: cpus("2"), Actuated: &core.ResourceRequirements{Requests: cpus("1")}}}}}
		node := core.Node{Name: "n", Allocatable: core.ResourceList{core.ResourceCPU: resource.MustParse("4"), core.ResourcePods: resource.MustParse("110")}}
		newPod := &core.Pod{Namespace: "ns", Name: "new", UID: "new", Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: cpus("1")}}}}
		for _, c := range []struct {
			p      nodelife.Profile
			admit  bool
			reason string
		}{{p36, false, "OutOfcpu"}, {p37, true, ""}} {
			if d := admission.NewNodeInfo(node, c.p.Admission, resized).Admit(newPod); d.Admit != c.admit || d.Reason != c.reason {
				t.Errorf("%v: Admit %v %q, want %v %q", c.p.Release, d.Admit, d.Reason, c.admit, c.reason)
			}
		}
	})

	// A restarted kubelet with full-pcpus-only (topology/cpu's
	// TestCheckpointedContainerBeforeSMTCheck): the checkpoint gives
	// container app 3 CPUs (2, 4, 8) on a machine of 2 threads a core.
	// v1.37 finds it in the state first and keeps them; v1.36 checks
	// first and refuses 3 CPUs (SMTAlignmentError).
	t.Run("topology/cpu", func(t *testing.T) {
		var nodes []cpu.NUMANode
		for socket := 0; socket < 2; socket++ {
			n := cpu.NUMANode{ID: socket}
			for c := 0; c < 3; c++ {
				n.Cores = append(n.Cores, cpu.Core{ID: c, SocketID: socket, Threads: []int{2*c + socket, 2*c + socket + 6}})
			}
			nodes = append(nodes, n)
		}
		topo, err := cpu.Discover(12, 2, nodes)
		if err != nil {
			t.Fatal(err)
		}
		m, err := cpu.NewMachine(topo)
		if err != nil {
			t.Fatal(err)
		}
		three := core.ResourceList{core.ResourceCPU: resource.MustParse("3"), core.ResourceMemory: resource.MustParse("1Gi")}
		pod := core.Pod{UID: "pod-1", Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: three, Limits: three}}}}
		held, _ := cpuset.Parse("2,4,8")
		shared, _ := cpuset.Parse("0-1,3,5-7,9-11")
		for _, c := range []struct {
			p    nodelife.Profile
			keep bool
		}{{p36, false}, {p37, true}} {
			cfg := c.p.CPUManager
			cfg.Machine, cfg.NumReserved, cfg.Options = m, 1, cpu.Options{FullPCPUsOnly: true}
			s, err := cpu.NewStatic(cfg)
			if err == nil {
				err = s.Start(checkpoint.CPUState{PolicyName: cpu.PolicyName, DefaultCPUSet: shared, Entries: map[string]map[string]cpuset.CPUSet{"pod-1": {"app": held}}})
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Allocate(pod, "app", topology.Hint{Any: true})
			var smt cpu.SMTAlignmentError
			if c.keep && (err != nil || !got.Equals(held)) || !c.keep && !errors.As(err, &smt) {
				t.Errorf("%v: app gets %v, %v", c.p.Release, got, err)
			}
		}
	})

	// The checkpoint files: v1.37 writes CPU state as V4 and memory state
	// as V3 and no longer reads a V1 cpu_manager_state file (entries by
	// container ID); v1.36 writes V2 and V1 and migrates the V1 file.
	t.Run("topology/checkpoint", func(t *testing.T) {
		if p36.CPUCheckpoint != checkpoint.CPUFormatV2 || p36.MemoryCheckpoint != checkpoint.MemoryFormatV1 ||
			p37.CPUCheckpoint != checkpoint.CPUFormatV4 || p37.MemoryCheckpoint != checkpoint.MemoryFormatV3 {
			t.Errorf("formats: 1.36 %v, %v; 1.37 %v, %v", p36.CPUCheckpoint, p36.MemoryCheckpoint, p37.CPUCheckpoint, p37.MemoryCheckpoint)
		}
		pool, _ := cpuset.Parse("0-1")
		held, _ := cpuset.Parse("2-3")
		data, err := checkpoint.MarshalCPUV1("static", pool, map[string]cpuset.CPUSet{"containerd://abc": held})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			p    nodelife.Profile
			read bool
		}{{p36, true}, {p37, false}} {
			o := c.p.CPUCheckpointRead
			o.PolicyName = "static"
			o.InitialContainers = map[string]checkpoint.ContainerRef{"containerd://abc": {PodUID: "pod-1", Container: "app"}}
			s, _, err := checkpoint.ReadCPU(data, o)
			if read := err == nil && s.Entries["pod-1"]["app"].Equals(held); read != c.read {
				t.Errorf("%v: read the V1 file %v (%v), want %v", c.p.Release, read, err, c.read)
			}
		}
	})
}

// staleLeaseCache is an API server whose every lease is at version 9 and
// a lease cache at version 7.
type staleLeaseCache struct{}

func (staleLeaseCache) LiveLease(string) (string, bool, error) { return "9", true, nil }
func (staleLeaseCache) CacheResourceVersion() string           { return "7" }

func ptr[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// ProfileFor(release.Current) is every package's default.
func TestProfileCurrentIsDefaults(t *testing.T) {
	p := nodelife.ProfileFor(release.Current)
	if !reflect.DeepEqual(p.NodeLifecycle, nodelifecycle.DefaultConfig()) {
		t.Errorf("NodeLifecycle %+v, want DefaultConfig", p.NodeLifecycle)
	}
	if p.QOS != (cgroup.QOSOptions{}) || p.Admission != (admission.Options{}) || p.PodSync != (cri.SyncOptions{}) {
		t.Errorf("QOS %+v, Admission %+v, PodSync %+v: want the zero values, v1.37's", p.QOS, p.Admission, p.PodSync)
	}
	if p.MemoryQoS != cgroup.DefaultMemoryQoSConfig() {
		t.Errorf("MemoryQoS %+v, want DefaultMemoryQoSConfig", p.MemoryQoS)
	}
	if got := nodelife.ProfileFor(release.Current + 5); got.Release != release.Current {
		t.Errorf("a release after Current: %v, want it clamped to %v", got.Release, release.Current)
	}
}

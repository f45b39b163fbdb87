package cgroup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
)

// Cases after upstream's pkg/apis/core/v1/helper/qos tests (reference
// §1.7), each worked out under v1.37's per-container rule (want) and
// v1.36's summed one (want136, QOSOptionsFor(release.V1_36) with the
// case's gate switches), as upstream-1.37.md describes the change.
func TestComputeQOS(t *testing.T) {
	guaranteed := rl("cpu", "100m", "memory", "100Mi")
	for _, c := range []struct {
		name          string
		pod           core.Pod
		opts          QOSOptions
		want, want136 core.PodQOSClass
	}{
		{"no resources", core.Pod{Containers: []core.Container{ctr("a", nil, nil)}}, QOSOptions{}, core.PodQOSBestEffort, core.PodQOSBestEffort},
		{"no containers", core.Pod{}, QOSOptions{}, core.PodQOSBestEffort, core.PodQOSBestEffort},
		{"zero quantities", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "0"), rl("memory", "0"))}}, QOSOptions{}, core.PodQOSBestEffort, core.PodQOSBestEffort},
		{"only ephemeral-storage", core.Pod{Containers: []core.Container{ctr("a", rl("ephemeral-storage", "1Gi"), nil)}}, QOSOptions{}, core.PodQOSBestEffort, core.PodQOSBestEffort},
		{"requests equal limits", core.Pod{Containers: []core.Container{ctr("a", guaranteed, guaranteed), ctr("b", guaranteed, guaranteed)}}, QOSOptions{}, core.PodQOSGuaranteed, core.PodQOSGuaranteed},
		{"hugepages are ignored", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "1", "memory", "1Gi", "hugepages-2Mi", "4Mi"), rl("cpu", "1", "memory", "1Gi", "hugepages-2Mi", "4Mi"))}}, QOSOptions{}, core.PodQOSGuaranteed, core.PodQOSGuaranteed},
		// 1.36 summed: cpu 300m/300m and memory 300Mi/300Mi, Guaranteed; 1.37
		// finds container a's cpu 100m/200m Burstable.
		{"mismatches that cancel out in the sums", core.Pod{Containers: []core.Container{
			ctr("a", rl("cpu", "100m", "memory", "200Mi"), rl("cpu", "200m", "memory", "100Mi")),
			ctr("b", rl("cpu", "200m", "memory", "100Mi"), rl("cpu", "100m", "memory", "200Mi"))}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSGuaranteed},
		{"the reference's A cpu 1/2, B cpu 2/1", core.Pod{Containers: []core.Container{
			ctr("a", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "2", "memory", "1Gi")),
			ctr("b", rl("cpu", "2", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSGuaranteed},
		// Found by the property test in CI: 1.36 sums the init containers'
		// cpu to 500m requested, 500m limited; 1.37 finds i2's cpu 0/250m
		// Burstable.
		{"init containers whose mismatches cancel out", core.Pod{InitContainers: []core.Container{
			ctr("i2", rl("memory", "1"), rl("cpu", "250m", "memory", "1")),
			ctr("i1", rl("cpu", "500m", "memory", "1"), rl("cpu", "250m", "memory", "1"))}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSGuaranteed},
		{"requests below limits", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "100Mi"), rl("cpu", "200m", "memory", "100Mi"))}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"memory request below limit", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "2Gi"))}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"requests only", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "100m"), nil)}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"one container without limits", core.Pod{Containers: []core.Container{ctr("a", guaranteed, guaranteed), ctr("b", nil, nil)}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"cpu limit only", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "100m"), rl("cpu", "100m"))}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"limits without requests, not defaulted", core.Pod{Containers: []core.Container{ctr("a", nil, guaranteed)}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"best-effort init container", core.Pod{InitContainers: []core.Container{ctr("i", nil, nil)}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"guaranteed init container", core.Pod{InitContainers: []core.Container{ctr("i", guaranteed, guaranteed)}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{}, core.PodQOSGuaranteed, core.PodQOSGuaranteed},
		{"init container with a cpu limit only", core.Pod{InitContainers: []core.Container{ctr("i", nil, rl("cpu", "1"))}, Containers: []core.Container{ctr("a", nil, nil)}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		{"pod-level resources decide", core.Pod{Resources: &core.ResourceRequirements{Requests: guaranteed, Limits: guaranteed}, Containers: []core.Container{ctr("a", nil, nil)}}, QOSOptions{}, core.PodQOSGuaranteed, core.PodQOSGuaranteed},
		{"pod-level resources ignored with the gate off", core.Pod{Resources: &core.ResourceRequirements{Requests: guaranteed, Limits: guaranteed}, Containers: []core.Container{ctr("a", nil, nil)}}, QOSOptions{DisablePodLevelResources: true}, core.PodQOSBestEffort, core.PodQOSBestEffort},
		{"pod-level memory limit only", core.Pod{Resources: &core.ResourceRequirements{Limits: rl("memory", "1Gi")}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{}, core.PodQOSBurstable, core.PodQOSBurstable},
		// v1.36.3 looks only at spec.resources once it is set, even empty;
		// v1.37 (PodLevelResourcesFixKubeletQOSClass) only when it sets cpu,
		// memory or huge pages.
		{"empty pod-level resources", core.Pod{Resources: &core.ResourceRequirements{}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{}, core.PodQOSGuaranteed, core.PodQOSBestEffort},
		{"empty pod-level resources, fix gate off", core.Pod{Resources: &core.ResourceRequirements{}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{DisablePodLevelResourcesFixKubeletQOSClass: true}, core.PodQOSBestEffort, core.PodQOSBestEffort},
		{"pod-level ephemeral-storage only", core.Pod{Resources: &core.ResourceRequirements{Requests: rl("ephemeral-storage", "1Gi")}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{}, core.PodQOSGuaranteed, core.PodQOSBestEffort},
		{"pod-level huge pages only", core.Pod{Resources: &core.ResourceRequirements{Limits: rl("hugepages-2Mi", "4Mi")}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{}, core.PodQOSBestEffort, core.PodQOSBestEffort},
		{"empty pod-level resources, gate off: the containers", core.Pod{Resources: &core.ResourceRequirements{}, Containers: []core.Container{ctr("a", guaranteed, guaranteed)}}, QOSOptions{DisablePodLevelResources: true}, core.PodQOSGuaranteed, core.PodQOSGuaranteed},
	} {
		if got := ComputeQOS(c.pod, c.opts); got != c.want {
			t.Errorf("%s: ComputeQOS = %s, want %s (v1.37)", c.name, got, c.want)
		}
		old := QOSOptionsFor(release.V1_36)
		old.DisablePodLevelResources = old.DisablePodLevelResources || c.opts.DisablePodLevelResources
		if got := ComputeQOS(c.pod, old); got != c.want136 {
			t.Errorf("%s: ComputeQOS = %s, want %s (v1.36)", c.name, got, c.want136)
		}
	}
}

func TestQOSOptionsFor(t *testing.T) {
	for _, c := range []struct {
		v    release.Version
		want QOSOptions
	}{
		{release.V1_33, QOSOptions{DisablePodLevelResources: true, DisablePodLevelResourcesFixKubeletQOSClass: true, SumContainersQOS: true,
			DisableInPlacePodLevelResourcesVerticalScaling: true, ResizePerContainer: true}},
		{release.V1_34, QOSOptions{DisablePodLevelResourcesFixKubeletQOSClass: true, SumContainersQOS: true,
			DisableInPlacePodLevelResourcesVerticalScaling: true, ResizePerContainer: true}},
		{release.V1_35, QOSOptions{DisablePodLevelResourcesFixKubeletQOSClass: true, SumContainersQOS: true,
			DisableInPlacePodLevelResourcesVerticalScaling: true, ResizePerContainer: true}},
		{release.V1_36, QOSOptions{DisablePodLevelResourcesFixKubeletQOSClass: true, SumContainersQOS: true, ResizePerContainer: true}},
		{release.V1_37, QOSOptions{}},
	} {
		if got := QOSOptionsFor(c.v); got != c.want {
			t.Errorf("QOSOptionsFor(%v) = %+v, want %+v", c.v, got, c.want)
		}
	}
}

func TestPodQOSUsesStatus(t *testing.T) {
	p := core.Pod{QOSClass: core.PodQOSBurstable, Containers: []core.Container{ctr("a", nil, nil)}}
	if got := PodQOS(p, QOSOptions{}); got != core.PodQOSBurstable {
		t.Errorf("PodQOS = %s, want the status value", got)
	}
	p.QOSClass = ""
	if got := PodQOS(p, QOSOptions{}); got != core.PodQOSBestEffort {
		t.Errorf("PodQOS = %s", got)
	}
}

func TestDefaultRequests(t *testing.T) {
	p := core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "50m"), rl("cpu", "100m", "memory", "1Gi"))},
		Resources: &core.ResourceRequirements{Limits: rl("memory", "2Gi")}}
	d := DefaultRequests(p)
	if got := d.Containers[0].Resources.Requests; got.MilliCPU() != 50 || got.Memory() != 1<<30 {
		t.Errorf("defaulted requests = %v", got)
	}
	if d.Resources.Requests.Memory() != 2<<30 {
		t.Errorf("pod-level requests = %v", d.Resources.Requests)
	}
	if _, ok := p.Containers[0].Resources.Requests[core.ResourceMemory]; ok {
		t.Error("input modified")
	}
	g := DefaultRequests(core.Pod{Containers: []core.Container{ctr("a", nil, rl("cpu", "1", "memory", "1Gi"))}})
	if ComputeQOS(g, QOSOptions{}) != core.PodQOSGuaranteed {
		t.Error("limits-only pod is Guaranteed after defaulting")
	}
}

func TestPodRequests(t *testing.T) {
	for _, c := range []struct {
		name     string
		pod      core.Pod
		opts     QOSOptions
		cpu, mem int64
	}{
		{"containers are summed", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "100m"), nil), ctr("b", rl("cpu", "200m", "memory", "1Gi"), nil)}}, QOSOptions{}, 300, 1 << 30},
		{"a larger init container wins", core.Pod{InitContainers: []core.Container{ctr("i", rl("cpu", "500m"), nil)},
			Containers: []core.Container{ctr("a", rl("cpu", "300m"), nil)}}, QOSOptions{}, 500, 0},
		{"a sidecar adds to the containers", core.Pod{InitContainers: []core.Container{
			{Name: "s", RestartPolicy: "Always", Resources: core.ResourceRequirements{Requests: rl("cpu", "100m")}},
			ctr("i", rl("cpu", "200m"), nil)},
			Containers: []core.Container{ctr("a", rl("cpu", "300m"), nil)}}, QOSOptions{}, 400, 0},
		{"an init container runs beside earlier sidecars", core.Pod{InitContainers: []core.Container{
			{Name: "s", RestartPolicy: "Always", Resources: core.ResourceRequirements{Requests: rl("cpu", "100m")}},
			ctr("i", rl("cpu", "500m"), nil)},
			Containers: []core.Container{ctr("a", rl("cpu", "300m"), nil)}}, QOSOptions{}, 600, 0},
		{"an init container before the sidecar does not", core.Pod{InitContainers: []core.Container{
			ctr("i", rl("cpu", "450m"), nil),
			{Name: "s", RestartPolicy: "Always", Resources: core.ResourceRequirements{Requests: rl("cpu", "100m")}}},
			Containers: []core.Container{ctr("a", rl("cpu", "300m"), nil)}}, QOSOptions{}, 450, 0},
		{"overhead is added", core.Pod{Overhead: rl("cpu", "50m", "memory", "10Mi"), Containers: []core.Container{ctr("a", rl("cpu", "100m"), nil)}}, QOSOptions{}, 150, 10 << 20},
		{"pod-level requests replace cpu and memory", core.Pod{Resources: &core.ResourceRequirements{Requests: rl("cpu", "1")}, Overhead: rl("cpu", "50m"),
			Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "1Gi"), nil)}}, QOSOptions{}, 1050, 1 << 30},
	} {
		got := PodRequests(c.pod, c.opts)
		if got.MilliCPU() != c.cpu || got.Memory() != c.mem {
			t.Errorf("%s: cpu %dm memory %d, want %dm %d", c.name, got.MilliCPU(), got.Memory(), c.cpu, c.mem)
		}
	}
}

func TestPodLimitsOverheadOnlyOnSetLimits(t *testing.T) {
	p := core.Pod{Overhead: rl("cpu", "50m", "memory", "100Mi"), Containers: []core.Container{ctr("a", nil, rl("memory", "1Gi"))}}
	got := PodLimits(p, QOSOptions{})
	if _, ok := got[core.ResourceCPU]; ok || got.Memory() != 1<<30+100<<20 {
		t.Errorf("limits = %v", got)
	}
}

func TestResourceConfigForPod(t *testing.T) {
	period := PodConfigOptions{CPUPeriod: 100000}
	g := rl("cpu", "250m", "memory", "512Mi")
	for _, c := range []struct {
		name string
		pod  core.Pod
		opts PodConfigOptions
		want ResourceConfig
	}{
		{"Guaranteed", core.Pod{Containers: []core.Container{ctr("a", g, g)}}, period,
			ResourceConfig{CPUShares: u64(256), CPUQuota: i64(25000), CPUPeriod: u64(100000), Memory: i64(512 << 20), HugePageLimit: map[int64]int64{}}},
		{"Guaranteed without CFS quota", core.Pod{Containers: []core.Container{ctr("a", g, g)}}, PodConfigOptions{CPUPeriod: 100000, DisableCPUQuota: true},
			ResourceConfig{CPUShares: u64(256), CPUQuota: i64(-1), CPUPeriod: u64(100000), Memory: i64(512 << 20), HugePageLimit: map[int64]int64{}}},
		{"Burstable with every limit declared", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "100Mi"), rl("cpu", "200m", "memory", "200Mi"))}}, period,
			ResourceConfig{CPUShares: u64(102), CPUQuota: i64(20000), CPUPeriod: u64(100000), Memory: i64(200 << 20), HugePageLimit: map[int64]int64{}}},
		{"Burstable without a memory limit", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "100Mi"), rl("cpu", "200m"))}}, period,
			ResourceConfig{CPUShares: u64(102), CPUQuota: i64(20000), CPUPeriod: u64(100000), HugePageLimit: map[int64]int64{}}},
		{"Burstable with one container lacking a cpu limit", core.Pod{Containers: []core.Container{
			ctr("a", rl("cpu", "100m"), rl("cpu", "200m", "memory", "1Gi")), ctr("b", rl("cpu", "100m"), rl("memory", "1Gi"))}}, period,
			ResourceConfig{CPUShares: u64(204), Memory: i64(2 << 30), HugePageLimit: map[int64]int64{}}},
		{"init containers count as containers", core.Pod{InitContainers: []core.Container{ctr("i", nil, nil)},
			Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "1Gi"), rl("cpu", "100m", "memory", "1Gi"))}}, period,
			ResourceConfig{CPUShares: u64(102), HugePageLimit: map[int64]int64{}}},
		{"pod-level limits count as declared", core.Pod{Resources: &core.ResourceRequirements{Limits: rl("cpu", "1", "memory", "1Gi")},
			Containers: []core.Container{ctr("a", rl("cpu", "100m"), nil)}}, PodConfigOptions{CPUPeriod: 100000, QOSOptions: QOSOptions{}},
			ResourceConfig{CPUShares: u64(102), CPUQuota: i64(100000), CPUPeriod: u64(100000), Memory: i64(1 << 30), HugePageLimit: map[int64]int64{}}},
		{"BestEffort", core.Pod{Containers: []core.Container{ctr("a", nil, nil)}}, period,
			ResourceConfig{CPUShares: u64(2), HugePageLimit: map[int64]int64{}}},
		{"huge pages", core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "1", "memory", "1Gi", "hugepages-2Mi", "4Mi", "hugepages-1Gi", "1Gi"), rl("cpu", "1", "memory", "1Gi", "hugepages-2Mi", "4Mi", "hugepages-1Gi", "1Gi"))}}, period,
			ResourceConfig{CPUShares: u64(1024), CPUQuota: i64(100000), CPUPeriod: u64(100000), Memory: i64(1 << 30), HugePageLimit: map[int64]int64{2 << 20: 4 << 20, 1 << 30: 1 << 30}}},
		{"a custom period is used as given", core.Pod{Containers: []core.Container{ctr("a", g, g)}}, PodConfigOptions{CPUPeriod: 50000},
			ResourceConfig{CPUShares: u64(256), CPUQuota: i64(12500), CPUPeriod: u64(50000), Memory: i64(512 << 20), HugePageLimit: map[int64]int64{}}},
	} {
		got := ResourceConfigForPod(c.pod, c.opts)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestResourceConfigForPodMemoryQoS(t *testing.T) {
	burst := core.Pod{Containers: []core.Container{ctr("a", rl("memory", "100Mi"), rl("memory", "200Mi"))}}
	guar := core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}}
	best := core.Pod{Containers: []core.Container{ctr("a", nil, nil)}}
	for _, c := range []struct {
		policy ReservationPolicy
		pod    core.Pod
		want   map[string]string
	}{
		{ReservationLegacyMin, burst, map[string]string{"memory.min": "104857600"}},
		{ReservationLegacyMin, guar, map[string]string{"memory.min": "1073741824"}},
		{ReservationLegacyMin, best, nil},
		{ReservationTiered, burst, map[string]string{"memory.low": "104857600"}},
		{ReservationTiered, guar, map[string]string{"memory.min": "1073741824"}},
		{ReservationTiered, best, nil},
		{ReservationNone, burst, nil},
		{ReservationNone, guar, nil},
	} {
		cfg := DefaultMemoryQoSConfig()
		cfg.Policy = c.policy
		got := ResourceConfigForPod(c.pod, PodConfigOptions{CPUPeriod: 100000, MemoryQoS: &cfg})
		if diff := cmp.Diff(c.want, got.Unified); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.policy, ComputeQOS(c.pod, QOSOptions{}), diff)
		}
	}
}

func TestQOSConfigs(t *testing.T) {
	pods := []core.Pod{
		{UID: "g", Containers: []core.Container{ctr("a", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}},
		{UID: "b1", Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "512Mi"), nil)}},
		{UID: "b2", Containers: []core.Container{ctr("a", rl("cpu", "250m"), nil)}},
		{UID: "be", Containers: []core.Container{ctr("a", nil, nil)}},
	}
	got := QOSConfigs(pods, QOSConfigOptions{})
	want := QOSCgroupConfigs{Burstable: ResourceConfig{CPUShares: u64(358)}, BestEffort: ResourceConfig{CPUShares: u64(2)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plain (-want +got):\n%s", diff)
	}

	// qosReserved memory=50% on 8Gi allocatable: burstable limit
	// 8Gi - 1Gi/2, besteffort that - 512Mi/2.
	got = QOSConfigs(pods, QOSConfigOptions{Allocatable: rl("memory", "8Gi"), QOSReservedMemoryPercent: 50, HugePageSizes: []int64{2 << 20}})
	want = QOSCgroupConfigs{
		Burstable:  ResourceConfig{CPUShares: u64(358), Memory: i64(8053063680), HugePageLimit: map[int64]int64{2 << 20: 1 << 62}},
		BestEffort: ResourceConfig{CPUShares: u64(2), Memory: i64(7784628224), HugePageLimit: map[int64]int64{2 << 20: 1 << 62}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reserved (-want +got):\n%s", diff)
	}
	// Unknown allocatable: no limits, as upstream skips.
	if got := QOSConfigs(pods, QOSConfigOptions{QOSReservedMemoryPercent: 50}); got.Burstable.Memory != nil {
		t.Error("limits without allocatable memory")
	}

	legacy := DefaultMemoryQoSConfig()
	legacy.Policy = ReservationLegacyMin
	got = QOSConfigs(pods, QOSConfigOptions{MemoryQoS: &legacy})
	if diff := cmp.Diff(map[string]string{"memory.min": "1610612736"}, got.Root.Unified); diff != "" {
		t.Errorf("legacy root: %s", diff)
	}
	if diff := cmp.Diff(map[string]string{"memory.min": "536870912"}, got.Burstable.Unified); diff != "" {
		t.Errorf("legacy burstable: %s", diff)
	}
}

// MemoryQoS at the QoS level, as upstream's setMemoryQoS
// (pkg/kubelet/cm/qos_container_manager_linux.go). v1.37:
// TieredReservation writes kubepods memory.min = G + B, kubepods
// memory.low = B and burstable memory.low = B, zeros included; any other
// policy writes nothing on update (its zeros are written once at the
// start, QOSStartConfigs). v1.36.3: Tiered writes no kubepods memory.low,
// and any other policy writes kubepods memory.min = 0 and burstable
// memory.low = 0 on every update (kubernetes#137584). G and B are the
// summed memory requests of the Guaranteed and Burstable pods; BestEffort
// gets nothing.
func TestQOSConfigsMemoryQoS(t *testing.T) {
	g := core.Pod{UID: "g", Containers: []core.Container{ctr("a", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}}
	b1 := core.Pod{UID: "b1", Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "512Mi"), nil)}}
	b2 := core.Pod{UID: "b2", Containers: []core.Container{ctr("a", rl("cpu", "250m"), nil)}} // no memory request
	be := core.Pod{UID: "be", Containers: []core.Container{ctr("a", nil, nil)}}
	m := func(kv ...string) map[string]string {
		out := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name            string
		v               release.Version
		policy          ReservationPolicy
		pods            []core.Pod
		root, burstable map[string]string
	}{
		{"v1.37 tiered: G 1Gi, B 512Mi", release.V1_37, ReservationTiered, []core.Pod{g, b1, b2, be}, m("memory.min", "1610612736", "memory.low", "536870912"), m("memory.low", "536870912")},
		{"v1.37 tiered: no pods", release.V1_37, ReservationTiered, nil, m("memory.min", "0", "memory.low", "0"), m("memory.low", "0")},
		{"v1.37 tiered: Guaranteed only", release.V1_37, ReservationTiered, []core.Pod{g}, m("memory.min", "1073741824", "memory.low", "0"), m("memory.low", "0")},
		{"v1.37 none: nothing on update", release.V1_37, ReservationNone, []core.Pod{g, b1}, nil, nil},
		{"v1.36 tiered: G 1Gi, B 512Mi", release.V1_36, ReservationTiered, []core.Pod{g, b1, b2, be}, m("memory.min", "1610612736"), m("memory.low", "536870912")},
		{"v1.36 tiered: no pods", release.V1_36, ReservationTiered, nil, m("memory.min", "0"), m("memory.low", "0")},
		{"v1.36 tiered: BestEffort only", release.V1_36, ReservationTiered, []core.Pod{be}, m("memory.min", "0"), m("memory.low", "0")},
		{"v1.36 tiered: Burstable without memory requests", release.V1_36, ReservationTiered, []core.Pod{b2}, m("memory.min", "0"), m("memory.low", "0")},
		{"v1.36 tiered: Guaranteed only", release.V1_36, ReservationTiered, []core.Pod{g}, m("memory.min", "1073741824"), m("memory.low", "0")},
		{"v1.36 none: zeros whatever the pods", release.V1_36, ReservationNone, []core.Pod{g, b1}, m("memory.min", "0"), m("memory.low", "0")},
		{"v1.36 none: no pods", release.V1_36, ReservationNone, nil, m("memory.min", "0"), m("memory.low", "0")},
		{"legacy (before 1.36): memory.min, non-zero only", release.V1_35, ReservationLegacyMin, []core.Pod{g, b1, b2, be}, m("memory.min", "1610612736"), m("memory.min", "536870912")},
		{"legacy: Guaranteed only", release.V1_35, ReservationLegacyMin, []core.Pod{g}, m("memory.min", "1073741824"), nil},
		{"legacy: no pods", release.V1_35, ReservationLegacyMin, nil, nil, nil},
	}
	for _, c := range cases {
		opts := QOSConfigOptionsFor(c.v)
		cfg := MemoryQoSConfigFor(c.v)
		cfg.Policy = c.policy
		opts.MemoryQoS = &cfg
		got := QOSConfigs(c.pods, opts)
		if diff := cmp.Diff(c.root, got.Root.Unified); diff != "" {
			t.Errorf("%s: kubepods (-want +got):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(c.burstable, got.Burstable.Unified); diff != "" {
			t.Errorf("%s: burstable (-want +got):\n%s", c.name, diff)
		}
		if got.BestEffort.Unified != nil {
			t.Errorf("%s: besteffort %v", c.name, got.BestEffort.Unified)
		}
	}
	// Without MemoryQoS (the feature off) nothing is written.
	if got := QOSConfigs([]core.Pod{g, b1}, QOSConfigOptions{}); got.Root.Unified != nil || got.Burstable.Unified != nil {
		t.Error("protection written without MemoryQoS")
	}
}

// The kubelet's start (v1.37's qosContainerManager.Start): on cgroup v2,
// with MemoryQoS off or a policy other than TieredReservation, burstable
// memory.low = 0 and kubepods memory.min = memory.low = 0; besteffort
// shares 2 and huge pages unbounded in every case. v1.36 reset nothing at
// the start (its zeros came with every update).
func TestQOSStartConfigs(t *testing.T) {
	tiered := DefaultMemoryQoSConfig()
	tiered.Policy = ReservationTiered
	none := DefaultMemoryQoSConfig()
	reset := QOSCgroupConfigs{
		Root:       ResourceConfig{Unified: map[string]string{"memory.min": "0", "memory.low": "0"}},
		Burstable:  ResourceConfig{Unified: map[string]string{"memory.low": "0"}, HugePageLimit: map[int64]int64{2 << 20: 1 << 62}},
		BestEffort: ResourceConfig{CPUShares: u64(2), HugePageLimit: map[int64]int64{2 << 20: 1 << 62}},
	}
	plain := QOSCgroupConfigs{
		Burstable:  ResourceConfig{HugePageLimit: map[int64]int64{2 << 20: 1 << 62}},
		BestEffort: ResourceConfig{CPUShares: u64(2), HugePageLimit: map[int64]int64{2 << 20: 1 << 62}},
	}
	for _, c := range []struct {
		name string
		v    release.Version
		v2   bool
		mqos *MemoryQoSConfig
		want QOSCgroupConfigs
	}{
		{"v1.37, v2, MemoryQoS off", release.V1_37, true, nil, reset},
		{"v1.37, v2, policy None", release.V1_37, true, &none, reset},
		{"v1.37, v2, tiered", release.V1_37, true, &tiered, plain},
		{"v1.37, v1", release.V1_37, false, nil, plain},
		{"v1.36, v2, MemoryQoS off", release.V1_36, true, nil, plain},
		{"v1.36, v2, policy None", release.V1_36, true, &none, plain},
	} {
		opts := QOSConfigOptionsFor(c.v)
		opts.CgroupV2, opts.MemoryQoS, opts.HugePageSizes = c.v2, c.mqos, []int64{2 << 20}
		if diff := cmp.Diff(c.want, QOSStartConfigs(opts)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// kubernetes#125409: the kubepods weight grows with the node; 64 CPUs of
// allocatable give 65536 shares, linear weight 2500 against system.slice's
// 100.
func TestNodeAllocatableConfig(t *testing.T) {
	got := NodeAllocatableConfig(rl("cpu", "64", "memory", "128Gi", "pid", "4096", "hugepages-2Mi", "1Gi"))
	want := ResourceConfig{CPUShares: u64(65536), Memory: i64(128 << 30), PidsLimit: i64(4096), HugePageLimit: map[int64]int64{2 << 20: 1 << 30}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if w := WeightLinear.Weight(*got.CPUShares); w != 2500 {
		t.Errorf("weight = %d, want 2500", w)
	}
}

// Capacity and Allocatable (seeds): allocatable = capacity - kube-reserved
// - system-reserved - hard eviction thresholds, floored at zero.
func TestNodeAllocatable(t *testing.T) {
	hundredMi := resource.MustParse("100Mi")
	got := NodeAllocatable(
		rl("cpu", "4", "memory", "16Gi", "ephemeral-storage", "100Gi", "pods", "110"),
		rl("cpu", "100m", "memory", "1Gi"),
		rl("cpu", "100m", "memory", "500Mi", "pods", "200"),
		[]EvictionReservation{{Resource: core.ResourceMemory, Quantity: &hundredMi}, {Resource: core.ResourceEphemeralStorage, Percentage: 0.1}},
	)
	if got.MilliCPU() != 3800 {
		t.Errorf("cpu = %dm", got.MilliCPU())
	}
	if got.Memory() != 15476981760 {
		t.Errorf("memory = %d", got.Memory())
	}
	// 10% as float32 (0.10000000149011612) of 100Gi: 10737418400 reserved.
	if q := got[core.ResourceEphemeralStorage]; q.Value() != 96636764000 {
		t.Errorf("ephemeral-storage = %d", q.Value())
	}
	if q := got[core.ResourcePods]; q.Value() != 0 {
		t.Errorf("pods = %d, want 0 (floored)", q.Value())
	}
}

func TestFit(t *testing.T) {
	alloc := rl("cpu", "1", "memory", "1Gi", "pods", "2")
	existing := []core.ResourceList{rl("cpu", "600m"), rl("cpu", "300m", "memory", "512Mi")}
	got := Fit(alloc, existing, rl("cpu", "200m", "memory", "256Mi"))
	if len(got) != 2 || got[0].Resource != core.ResourceCPU || got[1].Resource != core.ResourcePods {
		t.Fatalf("Fit = %+v", got)
	}
	if got[0].Used.MilliValue() != 900 || got[0].Requested.MilliValue() != 200 || got[0].Allocatable.MilliValue() != 1000 {
		t.Errorf("cpu = %+v", got[0])
	}
	if got := Fit(rl("cpu", "1", "memory", "1Gi", "pods", "3"), existing, rl("cpu", "100m", "memory", "512Mi")); len(got) != 0 {
		t.Errorf("exact fit = %+v", got)
	}
	if got := Fit(rl("cpu", "1"), nil, rl("nvidia.com/gpu", "1")); len(got) != 1 || got[0].Resource != "nvidia.com/gpu" {
		t.Errorf("missing resource = %+v", got)
	}
}

func TestPodConfigOptions(t *testing.T) {
	g := rl("cpu", "250m", "memory", "512Mi")
	rc := ResourceConfigForPod(core.Pod{Containers: []core.Container{ctr("a", g, g)}}, PodConfigOptions{})
	if *rc.CPUPeriod != 100000 || *rc.CPUQuota != 25000 {
		t.Errorf("zero options: period %d quota %d, want the 100ms default", *rc.CPUPeriod, *rc.CPUQuota)
	}
	if err := (PodConfigOptions{}).Validate(); err != nil {
		t.Errorf("zero options: %v", err)
	}
	bad := MemoryQoSConfig{ThrottlingFactor: -0.5, PageSize: 4096}
	err := PodConfigOptions{CPUPeriod: 500, MemoryQoS: &bad}.Validate()
	for _, want := range []string{"CPUPeriod 500us is outside 1000..1000000", "ThrottlingFactor -0.5 is not in (0, 1]"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}

// "Every container declares a cpu / memory limit" for a Burstable pod's
// quota and memory limit. Upstream v1.36.3's ResourceConfigForPod
// (pkg/kubelet/cm/helpers_linux.go) decided it from what component-helpers'
// AggregateContainerLimits passed to its ContainerFn: for a regular init
// container, its own limits plus those of the sidecars declared before it;
// for a sidecar, its own plus the earlier sidecars'. So an init container
// without limits that follows a sidecar with them counted as declared.
// v1.37 reads each init and regular container's own limits: "migrate" has
// none, so nothing is declared. By hand (v1.36): limits = app (1 cpu, 1Gi)
// + sidecar (500m, 256Mi) = 1500m, 1280Mi, above the init peak (500m,
// 256Mi): quota 150000 of a 100000 period, memory 1342177280; requests
// 100m + 100m = 200m give 204 shares in both.
func TestResourceConfigForPodSidecarDeclaresLimits(t *testing.T) {
	p := core.Pod{UID: "p",
		InitContainers: []core.Container{
			{Name: "proxy", RestartPolicy: core.ContainerRestartPolicyAlways, Resources: core.ResourceRequirements{Requests: rl("cpu", "100m"), Limits: rl("cpu", "500m", "memory", "256Mi")}},
			{Name: "migrate"},
		},
		Containers: []core.Container{ctr("app", rl("cpu", "100m", "memory", "128Mi"), rl("cpu", "1", "memory", "1Gi"))},
	}
	v136 := PodConfigOptionsFor(release.V1_36)
	got := ResourceConfigForPod(p, v136)
	want := ResourceConfig{CPUShares: u64(204), CPUQuota: i64(150000), CPUPeriod: u64(100000), Memory: i64(1342177280), HugePageLimit: map[int64]int64{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("v1.36 (-want +got):\n%s", diff)
	}
	got = ResourceConfigForPod(p, PodConfigOptions{})
	want = ResourceConfig{CPUShares: u64(204), HugePageLimit: map[int64]int64{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("v1.37 (-want +got):\n%s", diff)
	}
	// The same init container before the sidecar sees no sidecar: not
	// declared in either release, so neither quota nor memory limit.
	p.InitContainers[0], p.InitContainers[1] = p.InitContainers[1], p.InitContainers[0]
	for _, opts := range []PodConfigOptions{v136, {}} {
		if got = ResourceConfigForPod(p, opts); got.CPUQuota != nil || got.Memory != nil {
			t.Errorf("init container before the sidecar: quota %v memory %v", got.CPUQuota, got.Memory)
		}
	}
	// With limits of its own, "migrate" declares in both releases.
	p.InitContainers[0].Resources.Limits = rl("cpu", "200m", "memory", "64Mi")
	for _, opts := range []PodConfigOptions{v136, {}} {
		if got = ResourceConfigForPod(p, opts); got.CPUQuota == nil || *got.CPUQuota != 150000 || got.Memory == nil || *got.Memory != 1342177280 {
			t.Errorf("every container with limits: quota %v memory %v", got.CPUQuota, got.Memory)
		}
	}
}

func TestCgroupPresets(t *testing.T) {
	if got := PodConfigOptionsFor(release.V1_36); got.MemoryQoS != nil || !got.DeclaredFromAggregatedLimits || !got.SumContainersQOS {
		t.Errorf("PodConfigOptionsFor(1.36) = %+v", got)
	}
	got := PodConfigOptionsFor(release.V1_37)
	if got.MemoryQoS == nil || *got.MemoryQoS != DefaultMemoryQoSConfig() || got.DeclaredFromAggregatedLimits || got.QOSOptions != (QOSOptions{}) {
		t.Errorf("PodConfigOptionsFor(1.37) = %+v", got)
	}
	if d := DefaultMemoryQoSConfig(); d.ThrottlingFactor != 0 || d.Policy != ReservationNone || d.PageSize != 4096 || d.NoKubepodsLow || d.SkipBestEffortHigh {
		t.Errorf("DefaultMemoryQoSConfig = %+v", d)
	}
	want136 := MemoryQoSConfig{ThrottlingFactor: 0.9, PageSize: 4096, Policy: ReservationNone, SkipBestEffortHigh: true,
		ContainerHighUnderPodLimit: true, NoPodMemoryHigh: true, NoKubepodsLow: true}
	if got := MemoryQoSConfigFor(release.V1_36); got != want136 {
		t.Errorf("MemoryQoSConfigFor(1.36) = %+v", got)
	}
	if got := MemoryQoSConfigFor(release.V1_27); got.Policy != ReservationLegacyMin || got.ThrottlingFactor != 0.9 {
		t.Errorf("MemoryQoSConfigFor(1.27) = %+v", got)
	}
	if o := QOSConfigOptionsFor(release.V1_36); !o.ResetOnUpdate || o.MemoryQoS != nil {
		t.Errorf("QOSConfigOptionsFor(1.36) = %+v", o)
	}
}

// A huge-page size with an absurd decimal exponent is skipped at once
// (apimachinery's parse of "1e-2000000000" does not end), the others kept:
// 2Mi pages, 2 of them.
func TestHugePageLimitsAbsurdSize(t *testing.T) {
	got := HugePageLimits(rl("hugepages-2Mi", "4Mi", "hugepages-1e-2000000000", "1Gi", "hugepages-10E0020000000000000", "1Gi"))
	if want := map[int64]int64{2 << 20: 4 << 20}; !cmp.Equal(got, want) {
		t.Errorf("HugePageLimits = %v, want %v", got, want)
	}
}

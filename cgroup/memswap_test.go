package cgroup

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
)

// KEP-2570 memory.high = floor((req + factor*(lim - req)) / page) * page,
// worked by hand, under v1.37's rules with memoryThrottlingFactor set to
// 0.9 (its default before 1.37; unset since).
func TestMemoryQoSContainer(t *testing.T) {
	const mi = 1 << 20
	cfg := DefaultMemoryQoSConfig()
	cfg.ThrottlingFactor = 0.9
	legacyMin := cfg
	legacyMin.Policy = ReservationLegacyMin
	tiered := cfg
	tiered.Policy = ReservationTiered
	oldSkip := cfg
	oldSkip.SkipBestEffortHigh = true
	arm := cfg
	arm.PageSize = 65536
	alpha := cfg
	alpha.ThrottlingFactor = 0.8
	for _, c := range []struct {
		name       string
		cfg        MemoryQoSConfig
		class      core.PodQOSClass
		req, lim   int64
		alloc      int64
		min, low   int64
		reset      bool
		high       int64
		highReason string
	}{
		// 100Mi + 0.9*100Mi = 199229440, a multiple of 4096. ReservationNone
		// protects nothing and resets memory.min and memory.low.
		{"burstable", cfg, core.PodQOSBurstable, 100 * mi, 200 * mi, 8 << 30, 0, 0, true, 199229440, ""},
		{"burstable, legacy min", legacyMin, core.PodQOSBurstable, 100 * mi, 200 * mi, 8 << 30, 100 * mi, 0, false, 199229440, ""},
		{"burstable, tiered", tiered, core.PodQOSBurstable, 100 * mi, 200 * mi, 8 << 30, 0, 100 * mi, false, 199229440, ""},
		// 1000 + 0.9*(5000-1000) = 4600 -> 4096.
		{"rounded down to the page", cfg, core.PodQOSBurstable, 1000, 5000, 0, 0, 0, true, 4096, ""},
		// Same with 64 KiB pages: 4600 < 65536 -> 0, not written.
		{"arm64 pages", arm, core.PodQOSBurstable, 1000, 5000, 0, 0, 0, true, 0, "memory.high would not be above the request"},
		// No limit: allocatable 8Gi takes its place: 100Mi + 0.9*(8Gi-100Mi) = 7741426892.8 -> 7741423616.
		{"no limit", cfg, core.PodQOSBurstable, 100 * mi, 0, 8 << 30, 0, 0, true, 7741423616, ""},
		{"no limit, no allocatable", cfg, core.PodQOSBurstable, 100 * mi, 0, 0, 0, 0, true, 0, "no limit and no allocatable memory"},
		{"guaranteed", cfg, core.PodQOSGuaranteed, 1 << 30, 1 << 30, 8 << 30, 0, 0, true, 0, "request equals limit"},
		{"guaranteed, tiered", tiered, core.PodQOSGuaranteed, 1 << 30, 1 << 30, 8 << 30, 1 << 30, 0, false, 0, "request equals limit"},
		// kubernetes#138139: BestEffort gets floor(0.9*8Gi/4096)*4096.
		{"best effort", cfg, core.PodQOSBestEffort, 0, 0, 8 << 30, 0, 0, true, 7730937856, ""},
		// Tiered protects no request of 0: both files reset.
		{"best effort, tiered", tiered, core.PodQOSBestEffort, 0, 0, 8 << 30, 0, 0, true, 7730937856, ""},
		// Before #138139 (kubernetes#137685) BestEffort was skipped.
		{"best effort, before #138139", oldSkip, core.PodQOSBestEffort, 0, 0, 8 << 30, 0, 0, true, 0, "request equals limit"},
		// The alpha factor 0.8: 100Mi + 0.8*100Mi = 188743680.
		{"alpha factor", alpha, core.PodQOSBurstable, 100 * mi, 200 * mi, 0, 0, 0, true, 188743680, ""},
		// No factor (the 1.37 default): no memory.high at all.
		{"no factor", DefaultMemoryQoSConfig(), core.PodQOSBurstable, 100 * mi, 200 * mi, 8 << 30, 0, 0, true, 0, "no memory throttling factor"},
	} {
		got := c.cfg.Container(c.class, c.req, c.lim, c.alloc)
		want := MemoryValues{Min: c.min, Low: c.low, ResetProtection: c.reset, High: c.high, HighSkipped: c.highReason}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	v := legacyMin.Container(core.PodQOSBurstable, 100*mi, 200*mi, 0)
	if diff := cmp.Diff(map[string]string{"memory.min": "104857600", "memory.high": "199229440"}, v.Unified()); diff != "" {
		t.Errorf("Unified: %s", diff)
	}
	v = cfg.Container(core.PodQOSBurstable, 100*mi, 200*mi, 0)
	if diff := cmp.Diff(map[string]string{"memory.min": "0", "memory.low": "0", "memory.high": "199229440"}, v.Unified()); diff != "" {
		t.Errorf("Unified with the reset: %s", diff)
	}
}

// The container files across releases (upstream v1.36.3 and v1.37.2
// generateLinuxContainerResources), worked from upstream-1.37.md: v1.36
// defaults to factor 0.9 and skips memory.high whenever request == limit
// (BestEffort too); v1.37 has no factor by default, so no memory.high,
// and with the gate off writes memory.high=max on cgroup v2.
func TestMemoryQoSContainerReleases(t *testing.T) {
	const mi = 1 << 20
	v136, v137 := MemoryQoSConfigFor(release.V1_36), MemoryQoSConfigFor(release.V1_37)
	for _, c := range []struct {
		name     string
		cfg      MemoryQoSConfig
		class    core.PodQOSClass
		req, lim int64
		want     map[string]string
	}{
		{"v1.36 burstable", v136, core.PodQOSBurstable, 100 * mi, 200 * mi, map[string]string{"memory.min": "0", "memory.low": "0", "memory.high": "199229440"}},
		{"v1.37 burstable", v137, core.PodQOSBurstable, 100 * mi, 200 * mi, map[string]string{"memory.min": "0", "memory.low": "0"}},
		{"v1.36 best effort", v136, core.PodQOSBestEffort, 0, 0, map[string]string{"memory.min": "0", "memory.low": "0"}},
		{"v1.37 best effort", v137, core.PodQOSBestEffort, 0, 0, map[string]string{"memory.min": "0", "memory.low": "0"}},
		{"v1.35 burstable (legacy memory.min)", MemoryQoSConfigFor(release.V1_35), core.PodQOSBurstable, 100 * mi, 200 * mi, map[string]string{"memory.min": "104857600", "memory.high": "199229440"}},
	} {
		if diff := cmp.Diff(c.want, c.cfg.Container(c.class, c.req, c.lim, 8<<30).Unified()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	for _, c := range []struct {
		v2   bool
		v    release.Version
		want map[string]string
	}{{true, release.V1_37, map[string]string{"memory.high": "max"}}, {false, release.V1_37, map[string]string{}}, {true, release.V1_36, map[string]string{}}} {
		if diff := cmp.Diff(c.want, ContainerWithoutMemoryQoS(c.v2, c.v).Unified()); diff != "" {
			t.Errorf("gate off, cgroup v2 %v, %v (-want +got):\n%s", c.v2, c.v, diff)
		}
	}
}

// Pod-level resources (v1.37): a container without a memory limit in a
// pod with a pod-level memory limit gets no memory.high of its own, the
// pod cgroup gets one. Pod: spec.resources limits memory 1Gi, requests
// memory 512Mi; container "app" requests 256Mi, no limit; "side" requests
// and limits 256Mi. Factor 0.9, 4 KiB pages:
//
//   - app: v1.37 skipped; v1.36 (ContainerHighUnderPodLimit) from
//     allocatable 8Gi: 256Mi + 0.9*(8Gi - 256Mi) = 7757784678.4 ->
//     7757783040;
//   - the pod cgroup: request 512Mi, limit 1Gi: 512Mi + 0.9*512Mi =
//     1020054732.8 -> 1020051456; none with NoPodMemoryHigh (v1.36) or
//     without a factor (v1.37's default).
func TestMemoryQoSPodLevel(t *testing.T) {
	p := core.Pod{Resources: &core.ResourceRequirements{Requests: rl("memory", "512Mi"), Limits: rl("memory", "1Gi")},
		Containers: []core.Container{ctr("app", rl("memory", "256Mi"), nil), ctr("side", rl("memory", "256Mi"), rl("memory", "256Mi"))}}
	with := DefaultMemoryQoSConfig()
	with.ThrottlingFactor = 0.9
	old := MemoryQoSConfigFor(release.V1_36)
	if v := with.ContainerInPod(p, "app", QOSOptions{}, 8<<30); v.High != 0 || v.HighSkipped == "" {
		t.Errorf("v1.37 with a factor: app gets %+v, want no memory.high", v)
	}
	if v := old.ContainerInPod(p, "app", QOSOptionsFor(release.V1_36), 8<<30); v.High != 7757783040 {
		t.Errorf("v1.36: app memory.high = %d, want 7757783040", v.High)
	}
	if v := with.ContainerInPod(p, "nobody", QOSOptions{}, 8<<30); v != (MemoryValues{}) {
		t.Errorf("unknown container: %+v", v)
	}
	for _, c := range []struct {
		name string
		cfg  MemoryQoSConfig
		opts QOSOptions
		want int64
	}{
		{"v1.37 with a factor", with, QOSOptions{}, 1020051456},
		{"v1.37 default (no factor)", DefaultMemoryQoSConfig(), QOSOptions{}, 0},
		{"v1.36", old, QOSOptionsFor(release.V1_36), 0},
		{"v1.37, PodLevelResources off", with, QOSOptions{DisablePodLevelResources: true}, 0},
	} {
		if got := c.cfg.PodMemoryHigh(p, c.opts); got != c.want {
			t.Errorf("%s: pod memory.high = %d, want %d", c.name, got, c.want)
		}
		rc := ResourceConfigForPod(p, PodConfigOptions{QOSOptions: c.opts, MemoryQoS: &c.cfg})
		if got := rc.Unified[MemoryHighFile]; (got != "") != (c.want != 0) {
			t.Errorf("%s: ResourceConfigForPod memory.high %q", c.name, got)
		}
	}
	// Declared by every container, not at the pod level: pod-level cpu only.
	q := core.Pod{Resources: &core.ResourceRequirements{Limits: rl("cpu", "1")},
		Containers: []core.Container{ctr("a", rl("memory", "100Mi"), rl("memory", "200Mi"))}}
	// 100Mi + 0.9*100Mi = 199229440.
	if got := with.PodMemoryHigh(q, QOSOptions{}); got != 199229440 {
		t.Errorf("declared by the containers: %d, want 199229440", got)
	}
	q.Containers = append(q.Containers, ctr("b", nil, nil))
	if got := with.PodMemoryHigh(q, QOSOptions{}); got != 0 {
		t.Errorf("a container without a memory limit, none at the pod level: %d, want 0", got)
	}
}

// A config that does not validate writes nothing rather than a
// memory.high above the limit.
func TestMemoryQoSInvalidConfigWritesNothing(t *testing.T) {
	v := MemoryQoSConfig{ThrottlingFactor: 2, PageSize: 4096, Policy: ReservationLegacyMin}.Container(core.PodQOSBurstable, 100, 200, 0)
	if v.Min != 0 || v.High != 0 || !strings.Contains(v.HighSkipped, "ThrottlingFactor 2 is not in (0, 1]") {
		t.Errorf("got %+v", v)
	}
	v = MemoryQoSConfig{ThrottlingFactor: 0.9, PageSize: 0}.Container(core.PodQOSBurstable, 100, 200, 0)
	if v.High != 0 || !strings.Contains(v.HighSkipped, "PageSize 0 is not positive") {
		t.Errorf("page size 0: %+v", v)
	}
}

func TestMemoryQoSValidate(t *testing.T) {
	if err := DefaultMemoryQoSConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	err := MemoryQoSConfig{ThrottlingFactor: 1.5, PageSize: 0, Policy: 7}.Validate()
	for _, want := range []string{"ThrottlingFactor 1.5 is not in (0, 1]", "PageSize 0 is not positive", "unknown Policy ReservationPolicy(7)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	if err := (MemoryQoSConfig{ThrottlingFactor: 1, PageSize: 4096}).Validate(); err != nil {
		t.Errorf("factor 1 is valid: %v", err)
	}
}

func TestSwapLimit(t *testing.T) {
	// The worked numbers: 40Gi of memory, 5Gi of swap, 1Gi request.
	if got, err := SwapLimit(1<<30, 40<<30, 5<<30); err != nil || got != 134217728 {
		t.Errorf("SwapLimit = %d, %v; want 134217728", got, err)
	}
	// Truncation: 1 byte of 3 with 2 of swap is 0.666 -> 0.
	if got, _ := SwapLimit(1, 3, 2); got != 0 {
		t.Errorf("truncation: %d", got)
	}
	if got, _ := SwapLimit(3, 3, 7); got != 7 {
		t.Errorf("whole node: %d", got)
	}
	for _, c := range []struct{ req, mem, swap int64 }{{1, 0, 1}, {1, -1, 1}, {2, 1, 1}, {-1, 1, 1}, {1, 1, -1}} {
		if _, err := SwapLimit(c.req, c.mem, c.swap); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("SwapLimit(%d, %d, %d) err = %v", c.req, c.mem, c.swap, err)
		}
	}
}

// KEP-2400 eligibility, each refusal with its reason, in upstream's order.
func TestContainerSwap(t *testing.T) {
	burstable := core.Pod{Containers: []core.Container{ctr("app", rl("memory", "1Gi"), rl("memory", "2Gi"))}}
	cfg := SwapConfig{Behavior: LimitedSwap, Version: V2, Controller: true, NodeMemory: 40 << 30, NodeSwap: 5 << 30}
	d, err := ContainerSwap(burstable, burstable.Containers[0], cfg, QOSOptions{})
	if err != nil || d.Reason != SwapGranted || d.Behavior != LimitedSwap || d.Limit != 134217728 || d.SwapMax != "134217728" || d.MemorySwapLimit != nil {
		t.Fatalf("granted: %+v %v", d, err)
	}
	if d.Message != "LimitedSwap: request 1073741824 of node memory 42949672960 gives 134217728 bytes of the node's 5368709120 swap" {
		t.Errorf("message %q", d.Message)
	}

	guaranteed := core.Pod{Containers: []core.Container{ctr("app", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}}
	equal := core.Pod{Containers: []core.Container{ctr("app", rl("memory", "1Gi"), rl("memory", "1Gi")), ctr("b", rl("cpu", "1"), nil)}}
	nomem := core.Pod{Containers: []core.Container{ctr("app", rl("cpu", "1"), nil)}}
	critical := burstable
	prio := core.SystemCriticalPriority
	critical.Priority = &prio
	static := burstable
	static.Annotations = map[string]string{core.ConfigSourceAnnotation: core.SourceFile}
	big := core.Pod{Containers: []core.Container{ctr("app", rl("memory", "50Gi"), nil)}}
	for _, c := range []struct {
		name   string
		pod    core.Pod
		edit   func(*SwapConfig)
		reason SwapReason
		max    string
		v1     *int64
	}{
		{"NoSwap", burstable, func(c *SwapConfig) { c.Behavior = NoSwap }, SwapNotConfigured, "0", nil},
		{"empty behavior is NoSwap", burstable, func(c *SwapConfig) { c.Behavior = "" }, SwapNotConfigured, "0", nil},
		{"no controller: nothing written", burstable, func(c *SwapConfig) { c.Controller = false }, SwapNoController, "", nil},
		{"cgroup v1: memsw = memory limit", burstable, func(c *SwapConfig) { c.Version = V1 }, SwapCgroupV1, "", i64(2 << 30)},
		{"hybrid counts as v1", burstable, func(c *SwapConfig) { c.Version = Hybrid }, SwapCgroupV1, "", i64(2 << 30)},
		{"critical priority", critical, nil, SwapCriticalPod, "0", nil},
		{"static pod", static, nil, SwapCriticalPod, "0", nil},
		{"guaranteed", guaranteed, nil, SwapNotBurstable, "0", nil},
		{"best effort", core.Pod{Containers: []core.Container{ctr("app", nil, nil)}}, nil, SwapNotBurstable, "0", nil},
		{"no memory request", nomem, nil, SwapNoMemoryRequest, "0", nil},
		{"request equals limit in a Burstable pod", equal, nil, SwapRequestEqualsLimit, "0", nil},
		{"request above node memory", big, nil, SwapInvalidCapacity, "0", nil},
		{"node memory unknown", burstable, func(c *SwapConfig) { c.NodeMemory = 0 }, SwapInvalidCapacity, "0", nil},
	} {
		cf := cfg
		if c.edit != nil {
			c.edit(&cf)
		}
		d, err := ContainerSwap(c.pod, c.pod.Containers[0], cf, QOSOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d.Reason != c.reason || d.SwapMax != c.max || d.Limit != 0 || !cmp.Equal(d.MemorySwapLimit, c.v1) || d.Message == "" {
			t.Errorf("%s: %+v, want reason %v swap.max %q", c.name, d, c.reason, c.max)
		}
		if d.Behavior != NoSwap {
			t.Errorf("%s: behavior %v", c.name, d.Behavior)
		}
	}
	if _, err := ContainerSwap(burstable, burstable.Containers[0], SwapConfig{Behavior: UnlimitedSwap}, QOSOptions{}); err == nil || !strings.Contains(err.Error(), "kubernetes#122745") {
		t.Errorf("UnlimitedSwap: %v", err)
	}
	if _, err := ContainerSwap(burstable, burstable.Containers[0], SwapConfig{Behavior: "Some"}, QOSOptions{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("unknown behavior: %v", err)
	}
}

// The seeds' alpha behaviour (1.22): memory+swap capped at the memory
// limit (v1: any mix; v2: no swap), or unlimited.
func TestContainerSwapLegacy(t *testing.T) {
	g := core.Pod{Containers: []core.Container{ctr("app", rl("memory", "1Gi"), rl("memory", "1Gi"))}}
	for _, c := range []struct {
		behavior SwapBehavior
		version  Version
		want     SwapDecision
	}{
		{"", V1, SwapDecision{Behavior: LimitedSwap, Reason: SwapLegacy, MemorySwapLimit: i64(1 << 30)}},
		{LimitedSwap, V2, SwapDecision{Behavior: LimitedSwap, Reason: SwapLegacy, MemorySwapLimit: i64(1 << 30), SwapMax: "0"}},
		{UnlimitedSwap, V1, SwapDecision{Behavior: UnlimitedSwap, Limit: -1, Reason: SwapLegacy, MemorySwapLimit: i64(-1)}},
		{UnlimitedSwap, V2, SwapDecision{Behavior: UnlimitedSwap, Limit: -1, Reason: SwapLegacy, MemorySwapLimit: i64(-1), SwapMax: "max"}},
	} {
		d, err := ContainerSwap(g, g.Containers[0], SwapConfig{Behavior: c.behavior, Version: c.version, Legacy: true}, QOSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d.Message = ""
		if diff := cmp.Diff(c.want, d); diff != "" {
			t.Errorf("%q %v (-want +got):\n%s", c.behavior, c.version, diff)
		}
	}
	if _, err := ContainerSwap(g, g.Containers[0], SwapConfig{Behavior: NoSwap, Legacy: true}, QOSOptions{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("NoSwap under Legacy: %v", err)
	}
}

package pressure_test

import (
	"fmt"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"k8s.io/apimachinery/pkg/api/resource"
)

func u64(v uint64) *uint64 { return &v }

func ExampleParseThresholdConfig() {
	hard, _ := pressure.ParseThresholdFlag("memory.available<500Mi,nodefs.available<10%,imagefs.available<0%")
	soft, _ := pressure.ParseThresholdFlag("memory.available<1Gi")
	grace, _ := pressure.ParseKeyValueFlag("memory.available=1m30s")
	reclaim, _ := pressure.ParseKeyValueFlag("memory.available=100Mi")
	ths, err := pressure.ParseThresholdConfig([]string{"pods"}, hard, soft, grace, reclaim)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range ths {
		fmt.Println(t, "hard:", t.IsHard())
	}
	_, err = pressure.ParseThresholdConfig(nil, map[string]string{"memory.available": "0"}, nil, nil, nil)
	fmt.Println(err)
	// Output:
	// memory.available<500Mi minReclaim=100Mi hard: true
	// nodefs.available<10% hard: true
	// memory.available<1Gi grace=1m30s minReclaim=100Mi hard: false
	// allocatableMemory.available<500Mi minReclaim=100Mi hard: true
	// pressure: invalid eviction threshold: eviction threshold memory.available must be positive: 0 (evictionHard)
}

func ExampleFormatThresholds() {
	ths, _ := pressure.DefaultSettings("linux").Parse()
	s := pressure.FormatThresholds(ths)
	fmt.Println("--eviction-hard=" + pressure.FormatThresholdFlag(s.EvictionHard))
	fmt.Println(s.EnforceNodeAllocatable)
	// Output:
	// --eviction-hard=imagefs.available<15%,imagefs.inodesFree<5%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%
	// [pods]
}

func ExampleEvictionHardWithDefaults() {
	user := map[string]string{"memory.available": "1Gi"}
	fmt.Println(pressure.FormatThresholdFlag(pressure.EvictionHardWithDefaults(user, "linux", false)))
	fmt.Println(pressure.FormatThresholdFlag(pressure.EvictionHardWithDefaults(user, "linux", true)))
	// Output:
	// memory.available<1Gi
	// imagefs.available<15%,imagefs.inodesFree<5%,memory.available<1Gi,nodefs.available<10%,nodefs.inodesFree<5%
}

func ExampleLintSettings() {
	for _, w := range pressure.LintSettings(pressure.Settings{
		EvictionSoft:            map[string]string{"memory.available": "1Gi"},
		EvictionSoftGracePeriod: map[string]string{"memory.available": "0s"},
	}) {
		fmt.Println(w.Reason+":", w.Message)
	}
	// Output:
	// ZeroSoftGracePeriod: evictionSoftGracePeriod[memory.available]="0s" makes the soft threshold hard
}

func ExampleUpdateContainerFsThresholds() {
	ths, _ := pressure.Settings{EvictionHard: map[string]string{"nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%"}}.Parse()
	out, warnings := pressure.UpdateContainerFsThresholds(ths, pressure.LayoutImageFs)
	for _, t := range out[len(ths):] {
		fmt.Println(t)
	}
	fmt.Println(len(warnings), "warnings, e.g.", warnings[0].Reason)
	// Output:
	// containerfs.available<15%
	// containerfs.available<0.0% operator=""
	// containerfs.inodesFree<0.0% operator=""
	// containerfs.inodesFree<0.0% operator=""
	// 3 warnings, e.g. ZeroValuedContainerFsCopy
}

func ExampleObserve() {
	obs := pressure.Observe(pressure.NodeStats{
		Memory: &pressure.MemoryStats{AvailableBytes: u64(80 << 20), WorkingSetBytes: u64(3968 << 20)},
		NodeFs: &pressure.FsStats{AvailableBytes: u64(20 << 30), CapacityBytes: u64(100 << 30)},
	})
	ths, _ := pressure.DefaultSettings("linux").Parse()
	for _, t := range pressure.Met(ths, obs, false) {
		fmt.Println("met:", t)
	}
	fmt.Println(obs[pressure.SignalMemoryAvailable].Capacity >> 20)
	// Output:
	// met: memory.available<100Mi
	// 4048
}

func ExampleRank() {
	stats := pressure.Stats{} // the readings of the stats summary, by pod UID
	mem := func(name string, prio int32, request string, workingSet uint64) core.Pod {
		stats[name+"-uid"] = &pressure.PodStats{WorkingSetBytes: u64(workingSet)}
		return core.Pod{Name: name, Namespace: "default", UID: name + "-uid", Priority: &prio,
			Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{
				Requests: core.ResourceList{core.ResourceMemory: resource.MustParse(request)}}}}}
	}
	pods := []core.Pod{
		mem("guaranteed-hog", 0, "2Gi", 2<<30),    // at its request
		mem("burstable", 1000, "256Mi", 1<<30),    // 768Mi above, high priority
		mem("besteffort", 0, "0", 100<<20),        // 100Mi above
		mem("batch", 0, "512Mi", 1<<30),           // 512Mi above
		mem("system", 2000001000, "128Mi", 4<<30), // critical
	}
	ranked, _ := pressure.Rank(pressure.SignalMemoryAvailable, pressure.LayoutSingle, pods, stats, pressure.RankOptions{})
	for _, r := range ranked {
		fmt.Println(r.Explain(pressure.SignalMemoryAvailable))
	}
	// Output:
	// default/batch: priority 0, usage 1Gi exceeds request 512Mi, excess 512Mi
	// default/besteffort: priority 0, usage 100Mi exceeds request 0, excess 100Mi
	// default/burstable: priority 1000, usage 1Gi exceeds request 256Mi, excess 768Mi
	// default/system (critical: never evicted): priority 2000001000, usage 4Gi exceeds request 128Mi, excess 3968Mi
	// default/guaranteed-hog: priority 0, usage 2Gi within request 2Gi, excess 0
}

func ExampleManager_Step() {
	ths, _ := pressure.Settings{
		EvictionHard:            map[string]string{"memory.available": "100Mi"},
		EvictionSoft:            map[string]string{"memory.available": "500Mi"},
		EvictionSoftGracePeriod: map[string]string{"memory.available": "30s"},
	}.Parse()
	cfg := pressure.DefaultConfig()
	cfg.Thresholds, cfg.MaxPodGracePeriodSeconds = ths, 20
	m, _ := pressure.NewManager(cfg)

	prio := int32(0)
	pods := []core.Pod{{Name: "web", Namespace: "shop", UID: "web-1", Priority: &prio,
		Containers: []core.Container{{Name: "nginx", Resources: core.ResourceRequirements{
			Requests: core.ResourceList{core.ResourceMemory: resource.MustParse("64Mi")}}}}}}
	stats := pressure.Stats{"web-1": {WorkingSetBytes: u64(300 << 20),
		Containers: []pressure.ContainerStats{{Name: "nginx", WorkingSetBytes: u64(300 << 20)}}}}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Duration{0, 10 * time.Second, 30 * time.Second} {
		now := start.Add(at)
		obs := pressure.Observations{pressure.SignalMemoryAvailable: {Available: 400 << 20, Capacity: 8 << 30, Time: now}}
		res := m.Step(now, obs, pods, stats)
		fmt.Println(at, res.Conditions, res.Decision.Kind)
		if e := res.Decision.Evict; e != nil {
			fmt.Println(" evict", e.Pod.Key(), "grace", e.GracePeriodSeconds)
			fmt.Printf(" message: %q\n", e.Status.Message)
			fmt.Println(" annotations:", e.Annotations)
		}
	}
	fmt.Println(m.Admit(&core.Pod{Name: "new", QOSClass: core.PodQOSBestEffort}).Message)
	// Output:
	// 0s [MemoryPressure] Nothing
	// 10s [MemoryPressure] Nothing
	// 30s [MemoryPressure] Evict
	//  evict shop/web grace 20
	//  message: "The node was low on resource: memory. Threshold quantity: 500Mi, available: 400Mi. Container nginx was using 300Mi, request is 64Mi, has larger consumption of memory. "
	//  annotations: map[offending_containers:nginx offending_containers_usage:300Mi starved_resource:memory]
	// The node had condition: [MemoryPressure].
}

func ExampleManager_Reclaimed() {
	ths, _ := pressure.Settings{EvictionHard: map[string]string{"imagefs.available": "15%"},
		EvictionMinimumReclaim: map[string]string{"imagefs.available": "5Gi"}}.Parse()
	m, _ := pressure.NewManager(pressure.Config{Thresholds: ths, Layout: pressure.LayoutImageFs, PressureTransitionPeriod: 5 * time.Minute})
	low := pressure.Observations{pressure.SignalImageFsAvailable: {Available: 10 << 30, Capacity: 100 << 30}}
	d := m.Step(time.Unix(0, 0), low, nil, nil).Decision
	fmt.Println(d.Kind, d.Reclaim)
	// After image GC, 18Gi free: above 15% but not 15% + 5Gi.
	fmt.Println(m.Reclaimed(pressure.Observations{pressure.SignalImageFsAvailable: {Available: 18 << 30, Capacity: 100 << 30}}))
	fmt.Println(m.Reclaimed(pressure.Observations{pressure.SignalImageFsAvailable: {Available: 21 << 30, Capacity: 100 << 30}}))
	// Output:
	// Reclaim [DeleteAllUnusedContainers DeleteUnusedImages]
	// false
	// true
}

func ExampleAdmit() {
	be := &core.Pod{Name: "be", QOSClass: core.PodQOSBestEffort}
	burstable := &core.Pod{Name: "b", QOSClass: core.PodQOSBurstable}
	fmt.Println(pressure.Admit([]conditions.Type{conditions.MemoryPressure}, burstable).Admit)
	fmt.Println(pressure.Admit([]conditions.Type{conditions.MemoryPressure}, be))
	fmt.Println(pressure.Admit([]conditions.Type{conditions.DiskPressure}, burstable))
	// Output:
	// true
	// {false Evicted The node had condition: [MemoryPressure]. }
	// {false Evicted The node had condition: [DiskPressure]. }
}

func ExamplePlanEvictions() {
	stats := pressure.Stats{}
	pod := func(name string, ws uint64) core.Pod {
		stats[name] = &pressure.PodStats{WorkingSetBytes: u64(ws)}
		return core.Pod{Name: name, Namespace: "ns", UID: name}
	}
	pods := []core.Pod{pod("a", 300<<20), pod("b", 200<<20), pod("c", 50<<20)}
	ranked, _ := pressure.Rank(pressure.SignalMemoryAvailable, pressure.LayoutSingle, pods, stats, pressure.RankOptions{})
	th := pressure.Threshold{Signal: pressure.SignalMemoryAvailable, Operator: pressure.OpLessThan,
		Value: pressure.ThresholdValue{Quantity: resource.NewQuantity(500<<20, resource.BinarySI)}}
	plan := pressure.PlanEvictions(th, pressure.Observation{Available: 100 << 20, Capacity: 8 << 30}, ranked)
	fmt.Println(plan.Need>>20, "Mi needed;", len(plan.Pods), "pods free", plan.Freed>>20, "Mi; enough:", plan.Enough)
	// Output:
	// 400 Mi needed; 2 pods free 500 Mi; enough: true
}

func ExampleReclaimFor() {
	for _, l := range []pressure.Layout{pressure.LayoutSingle, pressure.LayoutImageFs, pressure.LayoutSplit} {
		fmt.Println(l, pressure.ReclaimFor(pressure.SignalNodeFsAvailable, l), pressure.DiskParts(pressure.SignalNodeFsAvailable, l))
	}
	// Output:
	// single [DeleteAllUnusedContainers DeleteUnusedImages] images+rootfs+logs+local volumes
	// imagefs [] logs+local volumes
	// split [DeleteAllUnusedContainers] rootfs+logs+local volumes
}

func ExampleSignal() {
	for _, s := range pressure.Signals() {
		fmt.Println(s, s.Resource(), s.Condition())
	}
	fmt.Println(pressure.Signal("swap.available").Valid())
	// Output:
	// memory.available memory MemoryPressure
	// allocatableMemory.available memory MemoryPressure
	// pid.available pids PIDPressure
	// nodefs.available ephemeral-storage DiskPressure
	// nodefs.inodesFree inodes DiskPressure
	// imagefs.available ephemeral-storage DiskPressure
	// imagefs.inodesFree inodes DiskPressure
	// containerfs.available ephemeral-storage DiskPressure
	// containerfs.inodesFree inodes DiskPressure
	// false
}

func ExampleNewManager() {
	cfg := pressure.DefaultConfig()
	cfg.MaxPodGracePeriodSeconds = -1
	m, err := pressure.NewManager(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(m.Thresholds()), "thresholds with the containerfs copies")
	for _, w := range m.Warnings() {
		fmt.Println(w.Reason)
	}
	cfg.PressureTransitionPeriod = -time.Second
	_, err = pressure.NewManager(cfg)
	fmt.Println(err)
	// The defaults have no soft nodefs thresholds, so the two soft
	// containerfs copies are zero-valued, as upstream's.
	// Output:
	// 10 thresholds with the containerfs copies
	// ZeroValuedContainerFsCopy
	// ZeroValuedContainerFsCopy
	// NegativeMaxPodGracePeriod
	// pressure: invalid config: PressureTransitionPeriod -1s must be >= 0
}

func ExampleRequest() {
	memory := func(q string) core.ResourceRequirements {
		return core.ResourceRequirements{Requests: core.ResourceList{core.ResourceMemory: resource.MustParse(q)}}
	}
	p := core.Pod{
		Containers:     []core.Container{{Name: "app", Resources: memory("256Mi")}},
		InitContainers: []core.Container{{Name: "migrate", Resources: memory("1Gi")}},
		Overhead:       core.ResourceList{core.ResourceMemory: resource.MustParse("64Mi")},
	}
	fmt.Println(pressure.Request(&p, pressure.ResourceMemory)/1000>>20, "Mi")
	// Output:
	// 1088 Mi
}

func ExampleIsEvicted() {
	fmt.Println(pressure.IsEvicted("Failed", "Evicted"), pressure.IsEvicted("Failed", "Error"))
	// Output:
	// true false
}

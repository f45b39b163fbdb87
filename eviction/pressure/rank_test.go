package pressure

import (
	"slices"
	"testing"

	"github.com/nodelife/nodelife/core"
)

// TestRankMemory pins rankMemoryPressure: no stats first, then usage
// above request, then lower priority, then usage minus request; QoS plays
// no part.
func TestRankMemory(t *testing.T) {
	pods := []tp{
		memPod("f", 0, "200Mi", 200*mi), // equal: not above request
		memPod("d", -10, "1Gi", 500*mi), // within request, lowest priority
		memPod("c", 1000, "1Gi", 2*gi),  // above by 1Gi, high priority
		memPod("b", 0, "", 50*mi),       // BestEffort, above by 50Mi
		memPod("a", 0, "100Mi", 200*mi), // above by 100Mi
		memPod("e", 5000, "1Gi", -1),    // no stats
	}
	for _, sig := range []Signal{SignalMemoryAvailable, SignalAllocatableMemoryAvailable} {
		got, err := rank(sig, LayoutSingle, pods, RankOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n := names(got); !slices.Equal(n, []string{"e", "a", "b", "c", "d", "f"}) {
			t.Errorf("%s: %v", sig, n)
		}
		if a := got[1]; !a.Exceeds || a.Excess != 100*mi*1000 || a.Request != 100*mi*1000 || a.Usage != 200*mi*1000 {
			t.Errorf("a: %+v", a)
		}
	}
}

// TestRankPID pins rankPIDPressure: priority first, then (no stats first)
// more processes.
func TestRankPID(t *testing.T) {
	pid := func(name string, prio int32, procs int64) tp {
		p := tp{Pod: core.Pod{Name: name, UID: name, Priority: &prio}}
		if procs >= 0 {
			p.st = &PodStats{ProcessCount: u64(uint64(procs))}
		}
		return p
	}
	pods := []tp{pid("p1", 0, 10), pid("p2", 0, 50), pid("p3", -1, 1), pid("p4", 0, -1), pid("p5", 100, -1)}
	got, _ := rank(SignalPIDAvailable, LayoutSingle, pods, RankOptions{})
	if n := names(got); !slices.Equal(n, []string{"p3", "p4", "p2", "p1", "p5"}) {
		t.Fatal(n)
	}
}

// diskPods: x writes to its rootfs, y to a local volume, z to logs and a
// non-local volume.
func diskPods() []tp {
	x := tp{core.Pod{Name: "x", UID: "x", Volumes: []core.Volume{local("cache")}},
		&PodStats{Containers: []ContainerStats{{Name: "c", Rootfs: &FsUsage{UsedBytes: u64(10 * gi)}, Logs: &FsUsage{UsedBytes: u64(mi)}}},
			Volumes: []VolumeStats{{Name: "cache", FsUsage: FsUsage{UsedBytes: u64(2 * mi)}}}}}
	y := tp{core.Pod{Name: "y", UID: "y", Volumes: []core.Volume{{Name: "data", Source: core.VolumeHostPath}},
		Containers: []core.Container{ctr("c", "", "50Mi")}},
		&PodStats{Containers: []ContainerStats{{Name: "c"}},
			Volumes: []VolumeStats{{Name: "data", FsUsage: FsUsage{UsedBytes: u64(100 * mi)}}}}}
	z := tp{core.Pod{Name: "z", UID: "z", Volumes: []core.Volume{{Name: "nfs", Source: "nfs"}},
		Containers: []core.Container{ctr("c", "", "10Mi")}},
		&PodStats{Containers: []ContainerStats{{Name: "c", Logs: &FsUsage{UsedBytes: u64(5 * mi)}}},
			Volumes: []VolumeStats{{Name: "nfs", FsUsage: FsUsage{UsedBytes: u64(gi)}}}}}
	return []tp{z, y, x}
}

// TestRankDisk pins rankDiskPressureFunc with the filesystem parts of
// buildSignalToRankFunc per layout.
func TestRankDisk(t *testing.T) {
	for _, tc := range []struct {
		s      Signal
		layout Layout
		want   []string
	}{
		// All parts: x 10Gi+3Mi above 0; y 100Mi above 50Mi; z 5Mi within 10Mi.
		{SignalNodeFsAvailable, LayoutSingle, []string{"x", "y", "z"}},
		{SignalImageFsAvailable, LayoutSingle, []string{"x", "y", "z"}},
		// Logs + volumes: y excess 50Mi beats x excess 3Mi.
		{SignalNodeFsAvailable, LayoutImageFs, []string{"y", "x", "z"}},
		// Rootfs + images: x above; z (-10Mi) before y (-50Mi).
		{SignalImageFsAvailable, LayoutImageFs, []string{"x", "z", "y"}},
		{SignalContainerFsAvailable, LayoutImageFs, []string{"x", "z", "y"}},
		// Split: nodefs counts rootfs too; imagefs counts images only, so
		// no pod uses anything and the smaller request goes first.
		{SignalNodeFsAvailable, LayoutSplit, []string{"x", "y", "z"}},
		{SignalImageFsAvailable, LayoutSplit, []string{"x", "z", "y"}},
	} {
		got, err := rank(tc.s, tc.layout, diskPods(), RankOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n := names(got); !slices.Equal(n, tc.want) {
			t.Errorf("%s %s: %v, want %v", tc.s, tc.layout, n, tc.want)
		}
	}
}

// TestRankInodes: inodes have no request, so any use exceeds it; the last
// comparator subtracts the byte request (upstream quirk) unless
// InodeExcessIgnoresByteRequest.
func TestRankInodes(t *testing.T) {
	ino := func(name string, inodes uint64, req string) tp {
		return tp{core.Pod{Name: name, UID: name, Containers: []core.Container{ctr("c", "", req)}},
			&PodStats{Containers: []ContainerStats{{Name: "c", Rootfs: &FsUsage{InodesUsed: u64(inodes)}}}}}
	}
	pods := []tp{ino("i1", 100, "1Mi"), ino("i2", 50, ""), ino("i0", 0, "")}
	got, _ := rank(SignalNodeFsInodesFree, LayoutSingle, pods, RankOptions{})
	if n := names(got); !slices.Equal(n, []string{"i2", "i1", "i0"}) || !got[0].Exceeds || got[2].Exceeds {
		t.Errorf("upstream: %v", n)
	}
	got, _ = rank(SignalNodeFsInodesFree, LayoutSingle, pods, RankOptions{InodeExcessIgnoresByteRequest: true})
	if n := names(got); !slices.Equal(n, []string{"i1", "i2", "i0"}) {
		t.Errorf("fixed: %v", n)
	}
}

// TestRankTieBreak: fully tied pods are ordered by namespace, name, UID.
func TestRankTieBreak(t *testing.T) {
	pods := []core.Pod{
		{Name: "b", Namespace: "ns1"}, {Name: "a", Namespace: "ns2"},
		{Name: "a", Namespace: "ns1", UID: "2"}, {Name: "a", Namespace: "ns1", UID: "1"},
	}
	got, _ := Rank(SignalMemoryAvailable, LayoutSingle, pods, nil, RankOptions{})
	var keys []string
	for _, r := range got {
		keys = append(keys, r.Pod.Namespace+"/"+r.Pod.Name+"/"+r.Pod.UID)
	}
	if !slices.Equal(keys, []string{"ns1/a/1", "ns1/a/2", "ns1/b/", "ns2/a/"}) {
		t.Fatal(keys)
	}
	if _, err := Rank("swap.available", LayoutSingle, pods, nil, RankOptions{}); err == nil {
		t.Fatal("unknown signal accepted")
	}
	if _, err := Rank(SignalMemoryAvailable, Layout(7), pods, nil, RankOptions{}); err == nil {
		t.Fatal("unknown layout accepted")
	}
}

// TestPodRequest pins GetResourceRequestQuantity: sidecars add to the
// regular containers and to every later init container; pod-level
// requests replace the containers'; overhead only on a non-zero request.
func TestPodRequest(t *testing.T) {
	sidecar := ctr("s", "30Mi", "")
	sidecar.RestartPolicy = core.ContainerRestartPolicyAlways
	p := core.Pod{
		Containers:     []core.Container{ctr("a", "100Mi", ""), ctr("b", "50Mi", "")},
		InitContainers: []core.Container{sidecar, ctr("i", "400Mi", "")},
		Overhead:       rl("10Mi", "1Gi"),
	}
	// containers 150 + sidecar 30 = 180; init needs 400 + 30 = 430; + 10.
	if got := Request(&p, ResourceMemory); got != 440*mi*1000 {
		t.Errorf("memory %d", got/1000/mi)
	}
	if got := Request(&p, ResourceEphemeralStorage); got != 0 {
		t.Errorf("overhead added to a zero request: %d", got)
	}
	p.Resources = &core.ResourceRequirements{Requests: rl("1Gi", "")}
	if got := Request(&p, ResourceMemory); got != (gi+10*mi)*1000 {
		t.Errorf("pod level %d", got)
	}
	// Pod-level cpu alone still makes the pod sized at pod level: no memory
	// request there, so none at all (component-helpers'
	// IsPodLevelResourcesSet, then PodRequests without the containers).
	p.Resources = &core.ResourceRequirements{Limits: core.ResourceList{core.ResourceCPU: qv("1")}}
	if got := Request(&p, ResourceMemory); got != 0 {
		t.Errorf("pod-level cpu only: %d", got)
	}
	// A pod-level name upstream ignores leaves the containers' requests.
	p.Resources = &core.ResourceRequirements{Requests: rl("", "5Gi")}
	if got := Request(&p, ResourceMemory); got != 440*mi*1000 {
		t.Errorf("pod-level ephemeral storage only: %d", got/1000/mi)
	}
	if got := Request(&p, ResourceInodes); got != 0 {
		t.Error(got)
	}
	// "500m" of memory is half a byte: two of them make one byte.
	half := core.Pod{Containers: []core.Container{ctr("a", "500m", ""), ctr("b", "500m", "")}}
	if got := Request(&half, ResourceMemory); got != 1000 {
		t.Errorf("fractional %d", got)
	}
}

func TestFormatMilli(t *testing.T) {
	for m, want := range map[int64]string{0: "0", 1500: "1.5", 2000: "2", -1500: "-1.5", -500: "-0.5", -2000: "-2", 1: "0.001", 120: "0.12"} {
		if got := formatMilli(m); got != want {
			t.Errorf("%d: %q, want %q", m, got, want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for m, want := range map[int64]string{0: "0", 1073741824000: "1Gi", 214958080000: "205Mi", -536870912000: "-512Mi",
		10737418400000: "10737418400", 1500: "1.5", 1024000: "1Ki"} {
		if got := formatBytes(m); got != want {
			t.Errorf("%d: %q, want %q", m, got, want)
		}
	}
}

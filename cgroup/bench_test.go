package cgroup

import (
	"strconv"
	"testing"

	"github.com/nodelife/nodelife/core"
)

var (
	sinkU64  uint64
	sinkI64  int64
	sinkStr  string
	sinkName Name
	sinkQOS  core.PodQOSClass
)

func BenchmarkConversions(b *testing.B) {
	b.Run("MilliCPUToShares", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkU64 += MilliCPUToShares(int64(i & 0xfffff))
		}
	})
	b.Run("MilliCPUToQuota", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkI64 += MilliCPUToQuota(int64(i&0xfffff), QuotaPeriod)
		}
	})
	b.Run("WeightLinear", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkU64 += WeightLinear.Weight(uint64(i & 0x3ffff))
		}
	})
	b.Run("WeightQuadratic", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkU64 += WeightQuadratic.Weight(uint64(i & 0x3ffff))
		}
	})
	b.Run("SharesLinear", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkU64 += WeightLinear.Shares(uint64(i%10000 + 1))
		}
	})
	b.Run("SharesQuadratic", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkU64 += WeightQuadratic.Shares(uint64(i%10000 + 1))
		}
	})
	b.Run("SystemdRoundedQuota", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkI64 += SystemdRoundedQuota(int64(1000+i&0xffff), QuotaPeriod)
		}
	})
}

func BenchmarkNames(b *testing.B) {
	pod := Name{"kubepods", "burstable", "pod6c1a4e95-6bb6-11e6-bc26-28d2444e470d"}
	sd, _ := pod.Systemd()
	b.Run("Cgroupfs", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkStr = pod.Cgroupfs()
		}
	})
	b.Run("Systemd", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkStr, _ = pod.Systemd()
		}
	})
	b.Run("ParseCgroupfs", func(b *testing.B) {
		b.ReportAllocs()
		p := pod.Cgroupfs()
		for i := 0; i < b.N; i++ {
			sinkName = ParseCgroupfs(p)
		}
	})
	b.Run("ParseSystemd", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkName, _ = ParseSystemd(sd)
		}
	})
	b.Run("ParsePodCgroup", func(b *testing.B) {
		b.ReportAllocs()
		p := sd + "/cri-containerd-0123abcd.scope"
		for i := 0; i < b.N; i++ {
			pc, _ := ParsePodCgroup(p)
			sinkStr = pc.PodUID
		}
	})
}

func benchPods(n int) []core.Pod {
	pods := make([]core.Pod, n)
	for i := range pods {
		switch i % 3 {
		case 0:
			pods[i] = core.Pod{UID: strconv.Itoa(i), Containers: []core.Container{ctr("a", rl("cpu", "500m", "memory", "1Gi"), rl("cpu", "500m", "memory", "1Gi"))}}
		case 1:
			pods[i] = core.Pod{UID: strconv.Itoa(i), InitContainers: []core.Container{ctr("i", rl("cpu", "1"), nil)},
				Containers: []core.Container{ctr("a", rl("cpu", "100m", "memory", "256Mi"), rl("memory", "512Mi")), ctr("b", rl("cpu", "50m"), nil)}}
		default:
			pods[i] = core.Pod{UID: strconv.Itoa(i), Containers: []core.Container{ctr("a", nil, nil)}}
		}
	}
	return pods
}

func BenchmarkPod(b *testing.B) {
	pods := benchPods(3)
	b.Run("ComputeQOS", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkQOS = ComputeQOS(pods[i%3], QOSOptions{})
		}
	})
	b.Run("ResourceConfigForPod", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			rc := ResourceConfigForPod(pods[i%3], PodConfigOptions{CPUPeriod: 100000})
			sinkU64 += *rc.CPUShares
		}
	})
}

func BenchmarkQOSConfigs(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		pods := benchPods(n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c := QOSConfigs(pods, QOSConfigOptions{})
				sinkU64 += *c.Burstable.CPUShares
			}
		})
	}
}

func BenchmarkParsePSI(b *testing.B) {
	b.ReportAllocs()
	data := "some avg10=1.50 avg60=0.12 avg300=0.05 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=6789\n"
	for i := 0; i < b.N; i++ {
		p, _ := ParsePSI(data)
		sinkU64 += p.Some.Total
	}
}

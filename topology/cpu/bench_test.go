package cpu_test

import (
	"fmt"
	"testing"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
)

// filledLarge returns the static policy on upstream's 256-CPU, 8-NUMA
// test machine (topoDualSocketMultiNumaPerSocketHTLarge) with pods of two
// CPUs admitted until filled of them.
func filledLarge(b *testing.B, opts cpu.Options, filled int) *cpu.Static {
	b.Helper()
	m := mustMachine(b, upstreamTopologies(b)["topoDualSocketMultiNumaPerSocketHTLarge"])
	p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: 2, Options: opts})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Start(checkpoint.CPUState{}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < filled; i++ {
		pod := makePod(fmt.Sprintf("fill-%d", i), "c", "2", "2")
		if _, err := p.Allocate(pod, "c", admitHint(b, p, pod)); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

// admitHint returns the first preferred hint of the pod's only container
// (what the topology manager picks for a lone provider), or no affinity.
func admitHint(b testing.TB, p *cpu.Static, pod core.Pod) topology.Hint {
	hs, err := p.Hints(pod, pod.Containers[0].Name)
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range hs[cpu.ResourceName] {
		if h.Preferred {
			return h
		}
	}
	return topology.Hint{Any: true}
}

// BenchmarkHintsAndAllocate is one pod of two CPUs on the 256-CPU, 8-NUMA
// machine: its hints (255 masks), its allocation with the first preferred
// hint, and its removal (to keep the state as it was), on an empty machine
// and on one holding 100 such pods.
func BenchmarkHintsAndAllocate(b *testing.B) {
	for _, filled := range []int{0, 100} {
		for _, o := range []struct {
			name string
			opts cpu.Options
		}{{"default", cpu.Options{}}, {"full-pcpus-only", cpu.Options{FullPCPUsOnly: true}},
			{"distribute-across-numa", cpu.Options{DistributeCPUsAcrossNUMA: true}}} {
			b.Run(fmt.Sprintf("filled=%d/%s", filled, o.name), func(b *testing.B) {
				p := filledLarge(b, o.opts, filled)
				pod := makePod("bench", "c", "2", "2")
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := p.Allocate(pod, "c", admitHint(b, p, pod)); err != nil {
						b.Fatal(err)
					}
					p.RemoveContainer("bench", "c")
				}
			})
		}
	}
}

// BenchmarkTakePacked is the packed allocator alone on the 256-CPU machine,
// 2 and 64 CPUs out of every free CPU.
func BenchmarkTakePacked(b *testing.B) {
	m := mustMachine(b, upstreamTopologies(b)["topoDualSocketMultiNumaPerSocketHTLarge"])
	for _, n := range []int{2, 64} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := m.TakePacked(m.CPUs(), n, cpu.TakeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

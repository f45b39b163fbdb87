package cpu_test

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
)

// TestStaticProperties admits and removes random pods on random machines
// under random options and topology manager policies, container scope:
// every allocation takes only free (or the pod's reusable) CPUs, exactly
// as many as asked, never a reserved or held one (CheckCPUState after
// every step), on the admitted node under single-numa-node; a failed
// allocation changes nothing; and removing a pod's containers right after
// its admission restores the state exactly.
func TestStaticProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topo := nodelifetest.CPUTopologies().Draw(t, "machine")
		m, err := cpu.NewMachine(topo)
		if err != nil {
			t.Fatal(err)
		}
		opts := nodelifetest.CPUOptions().Draw(t, "options")
		policy := rapid.SampledFrom([]topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode}).Draw(t, "topology policy")
		reserved := rapid.IntRange(0, min(3, len(topo.CPUs)-1)).Draw(t, "reserved")
		p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: reserved, Options: opts, TopologyPolicy: policy})
		if opts.AlignBySocket && (policy == topology.PolicySingleNUMANode || topo.NumSockets > topo.NumNUMANodes) {
			if err == nil {
				t.Fatalf("align-by-socket accepted under %s with %d sockets and %d NUMA nodes", policy, topo.NumSockets, topo.NumNUMANodes)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(checkpoint.CPUState{}); err != nil {
			t.Fatal(err)
		}
		info := topology.NUMAInfo{Nodes: m.NUMANodes()}
		for k := rapid.IntRange(1, 10).Draw(t, "pods"); k > 0; k-- {
			uid := fmt.Sprintf("pod-%d", k)
			pod := nodelifetest.CPUPods(uid).Draw(t, "pod")
			before := p.State()
			for _, c := range append(append([]string{}, names(pod.InitContainers)...), names(pod.Containers)...) {
				hints, err := p.Hints(pod, c)
				if err != nil {
					t.Fatal(err)
				}
				hint, admit, err := topology.Merge(policy, info, topology.PolicyOptions{}, []topology.ProviderHints{hints})
				if err != nil {
					t.Fatal(err)
				}
				if !admit {
					break
				}
				available, reusable := p.Available(), p.Reusable(uid)
				cont := container(pod, c)
				want := p.GuaranteedCPUs(pod, cont)
				prior := p.State()
				got, err := p.Allocate(pod, c, hint)
				if err != nil {
					if now := p.State(); !reflect.DeepEqual(now, prior) {
						t.Fatalf("failed allocation %v changed the state from %+v to %+v", err, prior, now)
					}
					break
				}
				if err := nodelifetest.CheckCPUAllocation(got, available, reusable, want, m, policy, hint); err != nil {
					t.Fatalf("%s/%s with %v: %v", uid, c, hint, err)
				}
				if err := nodelifetest.CheckCPUState(p, m, opts.StrictCPUReservation); err != nil {
					t.Fatalf("after %s/%s: %v", uid, c, err)
				}
			}
			if rapid.Bool().Draw(t, "remove at once") {
				for _, c := range append(names(pod.InitContainers), names(pod.Containers)...) {
					p.RemoveContainer(uid, c)
				}
				if after := p.State(); !reflect.DeepEqual(after, before) {
					t.Fatalf("removing %s left %+v, not %+v", uid, after, before)
				}
			}
			if err := nodelifetest.CheckCPUState(p, m, opts.StrictCPUReservation); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func names(cs []core.Container) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func container(p core.Pod, name string) core.Container {
	for _, c := range append(append([]core.Container{}, p.InitContainers...), p.Containers...) {
		if c.Name == name {
			return c
		}
	}
	return core.Container{}
}

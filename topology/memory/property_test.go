package memory_test

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/memory"
)

// TestStaticProperties admits and removes random pods on random machines
// under random topology manager policies, container scope: no table ever
// holds more than its allocatable memory and every node counts exactly
// the blocks on it, multi-node groups stay whole (CheckMemoryGroups
// after every step; the hints are the memory manager's own); under
// single-numa-node every admitted block is on one node; a failed
// allocation changes nothing; and removing a pod's containers right after
// its admission gives back the state as the kubelet compares states
// (memory.CompareMachineStates), with the same blocks.
func TestStaticProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := nodelifetest.MemoryMachines().Draw(t, "machine")
		policy := rapid.SampledFrom([]topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode}).Draw(t, "topology policy")
		p, err := memory.NewStatic(memory.Config{Nodes: m.Nodes, Reserved: m.Reserved})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(checkpoint.MemoryState{}); err != nil {
			t.Fatal(err)
		}
		var ids []int
		var sizes []string
		for _, n := range m.Nodes {
			ids = append(ids, n.ID)
		}
		for _, hp := range m.Nodes[0].HugePages {
			sizes = append(sizes, memory.HugePageResource(hp.PageSizeKiB))
		}
		info := topology.NUMAInfo{Nodes: ids}
		for k := rapid.IntRange(1, 10).Draw(t, "pods"); k > 0; k-- {
			uid := fmt.Sprintf("pod-%d", k)
			pod := nodelifetest.MemoryPods(uid, sizes).Draw(t, "pod")
			before := p.State()
			for _, c := range append(append([]core.Container{}, pod.InitContainers...), pod.Containers...) {
				hints, err := p.Hints(pod, c.Name)
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
				prior := p.State()
				blocks, err := p.Allocate(pod, c.Name, hint)
				if err != nil {
					if now := p.State(); !reflect.DeepEqual(now, prior) {
						t.Fatalf("failed allocation %v changed the state", err)
					}
					break
				}
				if policy == topology.PolicySingleNUMANode && !hint.Any {
					for _, b := range blocks {
						if len(b.NUMAAffinity) != 1 {
							t.Fatalf("single-numa-node admitted %v but %s/%s got %v", hint, uid, c.Name, blocks)
						}
					}
				}
				if err := nodelifetest.CheckMemoryGroups(p.State()); err != nil {
					t.Fatalf("after %s/%s: %v", uid, c.Name, err)
				}
			}
			if rapid.Bool().Draw(t, "remove at once") {
				for _, c := range append(append([]core.Container{}, pod.InitContainers...), pod.Containers...) {
					p.RemoveContainer(uid, c.Name)
				}
				after := p.State()
				if err := memory.CompareMachineStates(after.MachineState, before.MachineState); err != nil {
					t.Fatalf("removing %s: %v", uid, err)
				}
				if !reflect.DeepEqual(after.Entries, before.Entries) {
					t.Fatalf("removing %s left blocks %v, not %v", uid, after.Entries, before.Entries)
				}
			}
			if err := nodelifetest.CheckMemoryGroups(p.State()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

package nodelifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
)

// RenewLease through a ref is UpsertLease by name: two controllers, one
// fed every renewal by name, the other through refs taken when each node
// is added (kept across a deletion and a re-creation of the node, and for
// a node deleted for good), give the same actions at every step of a
// drawn schedule of renewals, deletions and re-creations; a zero ref
// records nothing.
func TestRenewLeaseIsUpsertLease(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		byName, _ := New(DefaultConfig())
		byRef, _ := New(DefaultConfig())
		n := rapid.IntRange(1, 5).Draw(t, "nodes")
		refs := make([]LeaseRef, n)
		add := func(i int, at time.Time) {
			node := core.Node{Name: fmt.Sprintf("n%d", i), CreationTimestamp: start.Add(-time.Hour),
				Labels:     map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: fmt.Sprint(i % 2)},
				Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: at, LastTransitionTime: at}}}
			byName.UpsertNode(node)
			byRef.UpsertNode(node)
			if refs[i] == (LeaseRef{}) || rapid.Bool().Draw(t, "fresh ref") {
				var ok bool
				if refs[i], ok = byRef.LeaseRef(node.Name); !ok {
					t.Fatalf("no ref to %s", node.Name)
				}
			}
		}
		for i := 0; i < n; i++ {
			add(i, start)
		}
		byRef.RenewLease(LeaseRef{}, start, "0") // records nothing
		in := make([]bool, n)
		for i := range in {
			in[i] = true
		}
		for step := 0; step < 40; step++ {
			at := start.Add(time.Duration(step) * 5 * time.Second)
			for i := 0; i < n; i++ {
				switch rapid.IntRange(0, 9).Draw(t, "op") {
				case 0, 1, 2, 3, 4, 5:
					rv := fmt.Sprint(step*10 + i)
					byName.UpsertLease(Lease{Node: fmt.Sprintf("n%d", i), RenewTime: at, ResourceVersion: rv})
					byRef.RenewLease(refs[i], at, rv)
				case 6:
					if in[i] {
						byName.DeleteNode(fmt.Sprintf("n%d", i))
						byRef.DeleteNode(fmt.Sprintf("n%d", i))
					} else {
						add(i, at)
					}
					in[i] = !in[i]
				}
			}
			a, b := byName.StepAll(at), byRef.StepAll(at)
			if diff := cmp.Diff(a, b, cmp.AllowUnexported(Action{})); diff != "" {
				t.Fatalf("at +%v (-by name +by ref):\n%s", at.Sub(start), diff)
			}
		}
	})
}

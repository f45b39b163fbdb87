package nodelifecycle

import (
	"errors"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// FuzzStep feeds the Controller arbitrary sequences of upserts, deletes,
// lease schedules and clock steps, with arbitrary strings where names, labels, statuses and
// taint fields go, and writes that fail: it must never panic, and every
// Step must say when it next needs to run.
func FuzzStep(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x09\x03\x09\x09"), "n0", "Unknown", "node.kubernetes.io/unreachable")
	f.Add([]byte("\x06\x00\x09\x09\x07\x02\x09"), "a/b", "", "NoExecute")
	f.Fuzz(func(t *testing.T, ops []byte, name, status, key string) {
		cfg := DefaultConfig()
		cfg.NoTaintEviction, cfg.NoScheduleOnly, cfg.ConditionChangeIsHeartbeat = len(key)%3 == 1, len(key)%5 == 2, len(status)%2 == 1
		if len(name)%2 == 1 {
			// Rules drawn from the node's name and labels.
			cfg.NodePolicy = NodePolicyFunc(func(n *core.Node) NodeRules {
				h := len(n.Name) + len(n.Labels[eviction.LabelTopologyZone])
				secs := int64(h) - 3
				return NodeRules{KeepPodsReady: h&1 != 0, NoExecuteExempt: h&2 != 0, ExcludeFromDisruption: h&4 != 0, Bind: h&8 != 0, BindSeconds: &secs}
			})
		}
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		fail := false
		names := []string{"n0", "n1", name}
		for i, op := range ops {
			n := names[i%len(names)]
			switch op % 10 {
			case 0, 1:
				c.UpsertNode(core.Node{Name: n, CreationTimestamp: now.Add(-time.Duration(op) * time.Second),
					Labels:     map[string]string{eviction.LabelTopologyZone: name, eviction.LabelNodeExcludeDisruption: status},
					Conditions: []conditions.Condition{{Type: conditions.Type(key), Status: conditions.Status(status)}, {Type: conditions.Ready, Status: conditions.Status(status), LastHeartbeatTime: now}},
					Taints:     []taints.Taint{{Key: key, Value: name, Effect: taints.Effect(status)}, {Key: key, Effect: taints.TaintEffectNoExecute}},
				})
			case 2:
				c.DeleteNode(n)
			case 3:
				if op%2 == 0 {
					// a lease schedule, possibly empty, ended or without a gap
					ref, _ := c.LeaseRef(n)
					c.SetRenewals(ref, Periodic{First: now.Add(-time.Duration(op) * time.Second), Every: time.Duration(op%7) * time.Second,
						Until: now.Add(time.Duration(op%5) * time.Second)})
					continue
				}
				c.UpsertLease(Lease{Node: n, RenewTime: now.Add(-time.Duration(op) * time.Millisecond)})
			case 4:
				c.DeleteLease(n)
			case 5, 6:
				secs := int64(op) - 100
				c.UpsertPod(corePod(PodState{Namespace: status, Name: name + n, UID: key, NodeName: n, Ready: op%2 == 0, Terminating: op%3 == 0,
					Tolerations: []taints.Toleration{{Key: key, Operator: taints.Operator(status), Value: name, Effect: taints.Effect(status), TolerationSeconds: &secs}}}))
			case 7:
				c.DeletePod(status, name+n)
			default:
				now = now.Add(time.Duration(op) * 100 * time.Millisecond)
				var r Ready
				if op%2 == 0 {
					// One call: a Step that pauses is carried on by a later
					// one, with upserts and deletes in between. Every other
					// action is reported failed; only writes can be.
					r = c.Step(now)
					for k, a := range r.Actions {
						if k%3 == 2 {
							// Refused: only evictions and pods-not-ready
							// writes can be.
							err := c.Refused(a)
							if (err == nil) != (a.Kind == KindEvict || a.Kind == KindPodsNotReady) {
								t.Fatalf("Refused(%s) = %v", a, err)
							}
							continue
						}
						if fail = !fail; fail {
							err := c.Failed(a)
							if (err == nil) != isWrite(a.Kind) {
								t.Fatalf("Failed(%s) = %v", a, err)
							}
						}
					}
					if err := c.Failed(Action{Kind: KindEvict}); !errors.Is(err, ErrNotPending) {
						t.Fatalf("Failed of an action the Controller did not return = %v", err)
					}
				} else {
					r = c.StepAll(now.Add(-time.Hour)) // an earlier now is clamped
				}
				if r.Next.IsZero() {
					t.Fatalf("Step at %v returned no Next", now)
				}
			}
		}
	})
}

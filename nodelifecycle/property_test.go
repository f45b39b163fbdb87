package nodelifecycle_test

import (
	"errors"
	"fmt"
	"hash/fnv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/nodelifetest"
)

var (
	propNodes = []string{"n0", "n1", "n2", "n3", "n4", "n5"}
	propPods  = []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}
	propSteps = []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, time.Second, 5 * time.Second, 10 * time.Second, 37 * time.Second, time.Minute}
)

// drawPod draws a pod from nodelifetest as the controller takes it, named
// from a small pool (so that upserts replace pods, with a UID that may
// change), bound to a node of the pool about nine times in ten.
func drawPod(t *rapid.T) core.Pod {
	p := nodelifetest.OnePod(nodelifetest.Options{}).Draw(t, "pod")
	name := rapid.SampledFrom(propPods).Draw(t, "name")
	p.Namespace, p.Name, p.UID = "ns", name, name+"-"+rapid.SampledFrom([]string{"a", "b"}).Draw(t, "uid")
	on := nodelifetest.PodsOn([]core.Pod{p}, propNodes).Draw(t, "bound")
	return on[0]
}

// failing returns an Apply that fails the actions whose hash modulo
// every is 0 (never for every 0): the same actions fail for both machines.
func failing(every uint32) nodelifecycle.Apply {
	if every == 0 {
		return nil
	}
	return func(a nodelifecycle.Action) error {
		h := fnv.New32a()
		fmt.Fprintf(h, "%s|%s|%s|%s|%v|%v", a.At.Format(time.RFC3339Nano), a.Kind, a.Node, a.Pod.Key(), a.Add, a.Remove)
		if h.Sum32()%every == 0 {
			return errors.New("injected failure")
		}
		return nil
	}
}

// After any sequence of upserts, deletes and clock steps, the incremental
// propRVs are the resource versions drawn for leases, live leases and the
// lease cache: some equal, some ordered, one malformed, and unknown.
var propRVs = []string{"", "5", "7", "9", "10", "07"}

type drawnAnswer struct {
	rv          string
	found, fail bool
}

// drawnLeases is a live lease view drawn for a property run, shared by
// both machines (they ask the same questions in the same order).
type drawnLeases struct {
	answers map[string]drawnAnswer
	cache   string
}

func (d *drawnLeases) LiveLease(node string) (string, bool, error) {
	a := d.answers[node]
	if a.fail {
		return "", false, errors.New("the server was unable to return a response in the time allotted")
	}
	return a.rv, a.found, nil
}

func (d *drawnLeases) CacheResourceVersion() string { return d.cache }

// askLog is one machine's view of drawnLeases, recording the nodes it
// asks about: both machines must ask the same questions (a client-go
// program makes a GET of each).
type askLog struct {
	*drawnLeases
	asked []string
}

func (a *askLog) LiveLease(node string) (string, bool, error) {
	a.asked = append(a.asked, node)
	return a.drawnLeases.LiveLease(node)
}

// Controller takes exactly the naive reference's actions, asks for the
// same next time and for the same live leases, under every option that
// changes the decisions and with writes that fail at random; so does a
// Controller with EveryNodePass, byte for byte. The two Controllers are
// also given lease schedules (SetRenewals) that the naive reference gets
// as one upsert of their last renewal before each Step.
func TestPropertyIncrementalMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := nodelifecycle.DefaultConfig()
		cfg.NodeMonitorGracePeriod = time.Duration(rapid.IntRange(10, 60).Draw(t, "grace")) * time.Second
		cfg.NodeStartupGracePeriod = time.Duration(rapid.IntRange(10, 90).Draw(t, "startupGrace")) * time.Second
		cfg.NodeEvictionRate = rapid.SampledFrom([]float64{0, 0.1, 1, 10}).Draw(t, "rate")
		cfg.SecondaryNodeEvictionRate = rapid.SampledFrom([]float64{0, 0.01, 0.5}).Draw(t, "secondaryRate")
		cfg.LargeClusterSizeThreshold = rapid.IntRange(0, 4).Draw(t, "largeCluster")
		cfg.UnhealthyZoneThreshold = rapid.SampledFrom([]float32{0, 0.55, 1}).Draw(t, "unhealthy")
		cfg.TaintOnObservedReady = rapid.Bool().Draw(t, "observedReady")
		cfg.KeepProbesOnExit = rapid.Bool().Draw(t, "keepProbes")
		cfg.MarkPodsOnKubeletNotReady = rapid.Bool().Draw(t, "markOnKubelet")
		cfg.NoExecute.Replan = rapid.Bool().Draw(t, "replan")
		if rapid.Bool().Draw(t, "anchorTaintAdded") {
			cfg.NoExecute.Anchor = eviction.AnchorTaintAdded
		}
		if rapid.Bool().Draw(t, "fixedQueue") {
			cfg.Queue = eviction.FixedQueueOptions()
		}
		apply := failing(rapid.SampledFrom([]uint32{0, 0, 3, 7}).Draw(t, "failEvery"))
		cfg.LeaseCircuitBreaker = rapid.Bool().Draw(t, "breaker")
		var live *drawnLeases
		if rapid.Bool().Draw(t, "liveLeases") {
			live = &drawnLeases{answers: map[string]drawnAnswer{}}
			for _, name := range propNodes {
				live.answers[name] = drawnAnswer{rv: rapid.SampledFrom(propRVs).Draw(t, "liveRV"), found: rapid.IntRange(0, 4).Draw(t, "found") > 0,
					fail: rapid.IntRange(0, 9).Draw(t, "liveFails") == 0}
			}
			live.cache = rapid.SampledFrom(propRVs).Draw(t, "cacheRV")
		}

		inc, err := nodelifecycle.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		every := cfg
		every.EveryNodePass = true
		all, err := nodelifecycle.New(every)
		if err != nil {
			t.Fatal(err)
		}
		ctls := []*nodelifecycle.Controller{inc, all}
		machines := []nodelifecycle.Machine{nodelifecycle.NewNaive(cfg), nodelifecycle.Applying(inc), nodelifecycle.Applying(all)}
		logs := []*askLog{{drawnLeases: live}, {drawnLeases: live}, {drawnLeases: live}}
		// The schedules the Controllers have, and the naive reference's
		// lease renew times, by node.
		scheds := map[string]nodelifecycle.Periodic{}
		naiveRenew := map[string]time.Time{}
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		stepped := false
		hear := func(name string, p nodelifecycle.Periodic) {
			at, rv, ok := p.Last(now)
			if prev, seen := naiveRenew[name]; ok && (!seen || at.After(prev)) {
				naiveRenew[name] = at
				machines[0].UpsertLease(nodelifecycle.Lease{Node: name, RenewTime: at, ResourceVersion: rv})
			}
		}
		if live != nil {
			for k, m := range machines {
				m.SetLiveLeases(logs[k])
			}
		}
		var next time.Time
		for i, steps := 0, rapid.IntRange(1, 60).Draw(t, "ops"); i < steps; i++ {
			var op func(nodelifecycle.Machine)
			switch rapid.IntRange(0, 11).Draw(t, "op") {
			case 0, 1:
				n := nodelifetest.OneNode(nodelifetest.Options{Now: now, Zones: 3}, propNodes...).Draw(t, "node")
				op = func(m nodelifecycle.Machine) { m.UpsertNode(n) }
			case 2:
				name := rapid.SampledFrom(propNodes).Draw(t, "deleteNode")
				if p, ok := scheds[name]; ok && stepped {
					// It leaves the lease of the last Step behind.
					hear(name, p)
				}
				delete(scheds, name) // a deleted node loses its schedule
				op = func(m nodelifecycle.Machine) { m.DeleteNode(name) }
			case 3, 4:
				l := nodelifecycle.Lease{Node: rapid.SampledFrom(propNodes).Draw(t, "lease"), RenewTime: now.Add(-time.Duration(rapid.IntRange(0, 30).Draw(t, "renewAge")) * time.Second),
					ResourceVersion: rapid.SampledFrom(propRVs).Draw(t, "leaseRV")}
				if live != nil && rapid.Bool().Draw(t, "cacheMoves") {
					live.cache = rapid.SampledFrom(propRVs).Draw(t, "cacheRV")
				}
				delete(scheds, l.Node)
				naiveRenew[l.Node] = l.RenewTime
				op = func(m nodelifecycle.Machine) { m.UpsertLease(l) }
			case 5:
				name := rapid.SampledFrom(propNodes).Draw(t, "deleteLease")
				delete(scheds, name)
				delete(naiveRenew, name)
				op = func(m nodelifecycle.Machine) { m.DeleteLease(name) }
			case 6, 7:
				p := drawPod(t)
				op = func(m nodelifecycle.Machine) { m.UpsertPod(p) }
			case 8:
				name := rapid.SampledFrom(propPods).Draw(t, "deletePod")
				op = func(m nodelifecycle.Machine) { m.DeletePod("ns", name) }
			case 10, 11:
				// A kubelet renewing on a schedule, or one that stops: its
				// schedule ends after the last Step.
				name := rapid.SampledFrom(propNodes).Draw(t, "renewing")
				p, ok := scheds[name]
				if ok && rapid.Bool().Draw(t, "stop") {
					p.Until = now.Add(time.Duration(rapid.IntRange(1, 20000).Draw(t, "stopIn")) * time.Millisecond)
				} else {
					p = nodelifecycle.Periodic{First: now.Add(time.Duration(rapid.IntRange(-20, 30).Draw(t, "first")) * time.Second),
						Every:   rapid.SampledFrom([]time.Duration{0, time.Second, 4 * time.Second, 10 * time.Second, 45 * time.Second, 70 * time.Second}).Draw(t, "every"),
						Version: rapid.SampledFrom([]uint64{5, 7, 9}).Draw(t, "version")}
					if rapid.Bool().Draw(t, "ends") {
						p.Until = p.First.Add(time.Duration(rapid.IntRange(0, 300).Draw(t, "lasts")) * time.Second)
					}
				}
				scheds[name] = p
				for _, c := range ctls {
					if ref, ok := c.LeaseRef(name); ok {
						c.SetRenewals(ref, p)
					} else {
						delete(scheds, name) // not in the view: nothing to renew
					}
				}
				continue
			case 9:
				if !next.IsZero() && rapid.Bool().Draw(t, "atNext") {
					now = next
				} else {
					now = now.Add(rapid.SampledFrom(propSteps).Draw(t, "advance"))
				}
				for _, name := range propNodes {
					// The naive reference hears of the schedules' renewals
					// as upserts, the last one before each Step.
					if p, ok := scheds[name]; ok {
						hear(name, p)
					}
				}
				stepped = true
				var got [3]nodelifecycle.Ready
				for k, m := range machines {
					got[k] = m.Step(now, apply)
				}
				for k, name := range []string{"event-driven", "every-node"} {
					if diff := cmp.Diff(got[0], got[k+1], cmpopts.IgnoreUnexported(nodelifecycle.Action{})); diff != "" {
						t.Fatalf("step at %v: %s (+) differs from naive (-):\n%s", now, name, diff)
					}
					if diff := cmp.Diff(logs[0].asked, logs[k+1].asked); diff != "" {
						t.Fatalf("step at %v: the live leases asked for, %s (+) and naive (-):\n%s", now, name, diff)
					}
				}
				next = got[0].Next
				continue
			}
			for _, m := range machines {
				op(m)
			}
		}
	})
}

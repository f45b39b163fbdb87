package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/nodelifetest"
)

// runBothWays runs cfg with quiet nodes renewing in bulk (and cut-off
// kubelets retrying alone) and with every renewal and round queued, and
// returns both results and how many renewals went in bulk.
func runBothWays(t interface {
	Helper()
	Fatal(...any)
}, cfg Config) (quick, eager Result, bulk int) {
	quick, eager, bulk, _ = runBothWaysAlone(t, cfg)
	return quick, eager, bulk
}

// runBothWaysAlone is runBothWays, also returning how many rounds of
// kubelets cut off to the end ran alone.
func runBothWaysAlone(t interface {
	Helper()
	Fatal(...any)
}, cfg Config) (quick, eager Result, bulk, alone int) {
	t.Helper()
	var err error
	afterRun = func(r *run) { bulk, alone = r.quietRenewals, r.retriedAlone }
	defer func() { afterRun = nil }()
	if quick, err = Run(cfg); err != nil {
		t.Fatal(err)
	}
	afterRun = nil
	eagerRenewals = true
	defer func() { eagerRenewals = false }()
	if eager, err = Run(cfg); err != nil {
		t.Fatal(err)
	}
	return quick, eager, bulk, alone
}

// everyNodePass is cfg with the controller's every-node pass, under which
// quiet nodes renew in buckets rather than lazily.
func everyNodePass(cfg Config) Config {
	lc := nodelifecycle.DefaultConfig()
	if cfg.Controller != nil {
		lc = *cfg.Controller
	}
	lc.EveryNodePass = true
	cfg.Controller = &lc
	return cfg
}

// TestQuietRenewalsChangeNothing: renewing the untouched nodes' leases
// lazily, as the controller reads them (its event-driven passes, the
// default), or in bulk just before the controller runs (its every-node
// pass), and running the rounds of
// kubelets cut off to the end at once, give the result of queueing each
// renewal and round, event for event and count for count, on synthetic clusters with
// jitter and outages of parts of zones, and on drawn explicit clusters
// with outages and graceful shutdowns; and it does take the bulk path
// where a node is untouched.
func TestQuietRenewalsChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var cfg Config
		if rapid.Bool().Draw(t, "explicit") {
			s := nodelifetest.Scenarios(nodelifetest.Options{MaxNodes: 6}).Draw(t, "scenario")
			var c Cluster
			for _, n := range s.Nodes {
				c.Nodes = append(c.Nodes, core.Node{Name: n.Name, Labels: n.Labels, CreationTimestamp: n.CreationTimestamp,
					Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}})
			}
			for _, p := range s.Pods {
				c.Pods = append(c.Pods, core.Pod{Namespace: p.Namespace, Name: p.Name, UID: p.UID, NodeName: p.NodeName, Phase: core.PodRunning, Tolerations: p.Tolerations})
			}
			cfg = Config{Cluster: &c, Duration: s.Duration, Start: s.Start, Placement: rapid.Bool().Draw(t, "placement")}
			for _, f := range s.Faults {
				switch f.Kind {
				case nodelifetest.FaultOutage:
					cfg.Outages = append(cfg.Outages, Outage{Names: f.Nodes, From: f.From, To: f.To})
				case nodelifetest.FaultShutdown:
					cfg.Shutdowns = append(cfg.Shutdowns, Shutdown{Names: f.Nodes, At: f.From})
				}
			}
		} else {
			cfg = Config{Zones: rapid.IntRange(1, 3).Draw(t, "zones"), NodesPerZone: rapid.IntRange(1, 8).Draw(t, "perZone"),
				PodsPerNode: rapid.IntRange(-1, 3).Draw(t, "pods"), Duration: time.Duration(rapid.IntRange(1, 20).Draw(t, "minutes")) * time.Minute}
			for k := rapid.IntRange(0, 2).Draw(t, "outages"); k > 0; k-- {
				z := rapid.IntRange(0, cfg.Zones-1).Draw(t, "zone")
				from := time.Duration(rapid.IntRange(0, 600).Draw(t, "from")) * time.Second
				o := Outage{Zone: string(rune('a' + z)), Nodes: rapid.IntRange(0, cfg.NodesPerZone).Draw(t, "cut"), From: from}
				if rapid.Bool().Draw(t, "ends") {
					o.To = from + time.Duration(rapid.IntRange(1, 600).Draw(t, "length"))*time.Second
				}
				cfg.Outages = append(cfg.Outages, o)
			}
		}
		cfg.Seed = rapid.Int64Range(0, 5).Draw(t, "seed")
		cfg.NodeLeaseDurationSeconds = rapid.SampledFrom([]int32{0, 10, 40, 120}).Draw(t, "leaseSeconds")
		lc := nodelifecycle.DefaultConfig()
		lc.NodeMonitorGracePeriod = time.Duration(rapid.SampledFrom([]int{20, 50, 80}).Draw(t, "graceSeconds")) * time.Second
		lc.LeaseCircuitBreaker = rapid.Bool().Draw(t, "breaker")
		cfg.Controller = &lc
		quick, eager, _ := runBothWays(t, cfg)
		if diff := cmp.Diff(eager, quick); diff != "" {
			t.Fatalf("lazy renewals change the result (-queued +lazy):\n%s", diff)
		}
		bucketed, _, _ := runBothWays(t, everyNodePass(cfg))
		if diff := cmp.Diff(eager, bucketed); diff != "" {
			t.Fatalf("bulk renewals and every-node passes change the result (-queued +bulk):\n%s", diff)
		}
	})

	// The defaults, one zone out: two of three zones renew lazily, or in
	// bulk with the every-node pass.
	defaults := Config{NodesPerZone: 20, Seed: 3, Outages: []Outage{{Zone: "b", From: time.Minute, To: 8 * time.Minute}}}
	quick, eager, bulk := runBothWays(t, defaults)
	if diff := cmp.Diff(eager, quick); diff != "" {
		t.Fatalf("(-queued +lazy):\n%s", diff)
	}
	bucketed, _, bulkBucketed := runBothWays(t, everyNodePass(defaults))
	if diff := cmp.Diff(eager, bucketed); diff != "" {
		t.Fatalf("(-queued +bulk):\n%s", diff)
	}
	if bulk != bulkBucketed {
		t.Fatalf("%d renewals made lazily, %d in bulk", bulk, bulkBucketed)
	}
	// The 40 nodes of zones a and c renew every 10 to 10.4 s for 15
	// minutes, and the 20 of zone b for the 7 minutes after their outage,
	// each's first round of either stretch queued: between 15m/10.4s - 2
	// and 15m/10s renewals each in a and c, 7m/10.4s - 2 and 7m/10s in b.
	low := 40*(900/10.4-2) + 20*(420/10.4-2)
	if high := 40*90 + 20*42; float64(bulk) < low || bulk > high {
		t.Fatalf("%d renewals in bulk, want %.0f to %d", bulk, low, high)
	}
	if quick.Totals.Heartbeats < 60*6*15-60 {
		t.Fatalf("%d heartbeats in all", quick.Totals.Heartbeats)
	}

	// Zone b cut off from 1m to the end: its 20 kubelets retry alone from
	// their first round cut off. Each waits its back-off after a failed
	// round, 0.2 s doubling to 7 s (12.6 s for the first six), then 7 s:
	// over the 14 minutes, (840 s - 12.6 s)/7 s + 6 = 124 rounds, give or
	// take the first (queued) and the start within a renewal interval.
	quick, eager, _, alone := runBothWaysAlone(t, Config{NodesPerZone: 20, Seed: 3, Outages: []Outage{{Zone: "b", From: time.Minute}}})
	if diff := cmp.Diff(eager, quick); diff != "" {
		t.Fatalf("(-queued +alone):\n%s", diff)
	}
	if alone < 20*(124-3) || alone > 20*(124+1) {
		t.Fatalf("%d rounds alone, want %d to %d", alone, 20*(124-3), 20*(124+1))
	}
}

// TestQuietRenewalsNeedRoom: where the grace period leaves a healthy
// node's lease no room (20 s of grace against 30 s renewals), no node
// renews in bulk; nor in a run with a lease cache stall.
func TestQuietRenewalsNeedRoom(t *testing.T) {
	lc := nodelifecycle.DefaultConfig()
	lc.NodeMonitorGracePeriod = 20 * time.Second
	for _, cfg := range []Config{
		{NodesPerZone: 3, NodeLeaseDurationSeconds: 120, Controller: &lc},
		{NodesPerZone: 3, LeaseCacheStalls: []LeaseCacheStall{{From: time.Minute, To: 2 * time.Minute}}},
	} {
		quick, eager, bulk := runBothWays(t, cfg)
		if bulk != 0 {
			t.Errorf("%d renewals in bulk", bulk)
		}
		if diff := cmp.Diff(eager, quick); diff != "" {
			t.Fatalf("(-queued +bulk):\n%s", diff)
		}
	}
}

// Every run of the package's tests counts the nodes at each sample and
// fails when a count changed that no mark announced (run.stale), so that
// the samples the runs take from the one before are checked by all of
// them.
func init() { checkSamples = true }

package sim

import (
	"testing"
	"time"

	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/release"
)

// A lease cache stall (the controller's lease watch hangs from +60s to
// +180s while every kubelet keeps renewing) on 3 zones of 10 nodes. The
// cache's last renewals are those of +50s (probe +55s at the latest pass
// that saw them), so every node's lease looks expired from +105s, the
// first pass strictly after +55s + 50s. v1.36 trusts the cache: all 30
// nodes turn Unknown at +105s and their pods are marked NotReady; the
// kubelets, which reach the API server, post Ready=True again at their
// next sync (+110s), which is a heartbeat for 50s more, after which (the
// cache still stalled) they are blamed again, before the cache catches up
// at +180s. v1.37's lease circuit breaker reads the live leases instead:
// no node is marked Unknown, the controller holds until the cache catches
// up.
func TestLeaseCacheStall(t *testing.T) {
	run := func(v release.Version) map[string][]time.Duration {
		cfg := nodelifecycle.ConfigFor(v)
		res, err := Run(Config{Zones: 3, NodesPerZone: 10, Duration: 5 * time.Minute, Controller: &cfg,
			LeaseCacheStalls: []LeaseCacheStall{{From: time.Minute, To: 3 * time.Minute}}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]time.Duration{}
		for _, e := range res.Events {
			out[e.Kind] = append(out[e.Kind], e.At)
		}
		if res.Totals.Evicted != 0 {
			t.Errorf("%v: %d pods evicted", v, res.Totals.Evicted)
		}
		return out
	}
	old := run(release.V1_36)
	if len(old["unknown"]) != 60 || len(old["hold"]) != 0 {
		t.Errorf("v1.36: %d Unknown rewrites (want 30 nodes twice), %d holds (want 0)", len(old["unknown"]), len(old["hold"]))
	}
	for i, at := range old["unknown"] {
		if first := i < 30; (first && at != 105*time.Second) || (!first && (at <= 160*time.Second || at > 180*time.Second)) {
			t.Errorf("v1.36: Unknown rewrite %d at +%v, want the first 30 at +1m45s and the rest in (+2m40s, +3m]", i, at)
		}
	}
	cur := run(release.V1_37)
	if len(cur["unknown"]) != 0 || len(cur["hold"]) == 0 {
		t.Errorf("v1.37: %d nodes marked Unknown (want 0), %d holds (want some)", len(cur["unknown"]), len(cur["hold"]))
	}
	for _, at := range cur["hold"] {
		if at < 100*time.Second || at >= 180*time.Second {
			t.Errorf("v1.37: a hold at +%v, outside the stall's expired window (+100s to +180s)", at)
		}
	}
	if got := len(cur["lease-cache"]); got != 2 {
		t.Errorf("v1.37: %d lease-cache events, want 2 (stalled, synced)", got)
	}
}

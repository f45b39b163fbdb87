package replaycmd

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/examples/kubeapi/replay"
	"github.com/nodelife/nodelife/sim"
)

// Placement on the sample, worked out by hand. Zones eu-1b and eu-1c and
// node w-1a1 lose the API server at +1m for good (no jitter): all five
// nodes turn Unknown at +105s and get the unreachable NoSchedule taint;
// eu-1a keeps two of three nodes Ready, so it is Normal and the two dark
// zones are tainted at 0.1 node/s: w-1a1, w-1b1 and w-1c1 at +105s, w-1b2
// and w-1c2 at +115s. Every node has 1930m of cpu (memory is plenty).
//
// What is left for replacements: cp-1, whose control-plane NoSchedule
// taint only coredns tolerates (1930 - 200m used), and w-1a2 (1930 -
// 1100m: kube-proxy and db-0 = 830m free). The other five are tainted.
//
//   - +165s api-b (500m, 60s toleration, on w-1c1) -> w-1a2 (330m left);
//   - +175s api-a (500m, on w-1b2): no room anywhere: "0/7 nodes are
//     available: 1 Insufficient cpu, 6 node(s) had untolerated taint(s).";
//   - +405s, in the eviction order: web-a (250m, on w-1a1) -> w-1a2 (80m
//     left); coredns-9kz7w (100m) -> cp-1 (it tolerates the control-plane
//     taint; 80m on w-1a2 is too little); web-b (250m) waits, same message;
//   - +415s web-c (250m) waits, same message.
//
// Nothing frees room later (the dark nodes never come back, so their
// pods stay terminating), so api-a, web-b and web-c still wait at +15m.
// Lost for want of room, at the 10s samples: api-a is first seen waiting
// at +180s and counts from +190s to +900s (72 samples, 12m0s); web-b from
// +420s (49 samples, 8m10s) and web-c from +430s (48, 8m0s): 16m10s for
// the web Deployment, with 2 waiting at once.
func TestPlacementZoneLoss(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-snapshot", sample, "-seed", "0", "-duration", "15m", "-outage", "eu-1b@1m-", "-outage", "eu-1c@1m-", "-outage", "w-1a1@1m-"}
	if code := Main(append(args, "-json"), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var res sim.Result
	if err := replay.UnmarshalResult(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	type placed struct {
		At          time.Duration
		On, Pending string
		EvictedAt   time.Duration
	}
	full := "0/7 nodes are available: 1 Insufficient cpu, 6 node(s) had untolerated taint(s)."
	want := map[string]placed{
		"shop/api-6c4d7f9b8-b":                 {s(165), "w-1a2", "", s(165)},
		"shop/api-6c4d7f9b8-a":                 {-1, "", full, s(175)},
		"shop/web-7d9f8b6c5-a":                 {s(405), "w-1a2", "", s(405)},
		"kube-system/coredns-5d78c9869d-9kz7w": {s(405), "cp-1", "", s(405)},
		"shop/web-7d9f8b6c5-b":                 {-1, "", full, s(405)},
		"shop/web-7d9f8b6c5-c":                 {-1, "", full, s(415)},
	}
	got := map[string]placed{}
	for _, p := range res.Pods {
		if p.Fate == "evicted" {
			got[p.Pod] = placed{p.ReplacedAt, p.PlacedOn, p.Pending, p.At}
		}
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("replacements:\n got %+v\nwant %+v", got, want)
	}
	room := map[string][2]any{}
	for _, w := range res.Workloads {
		if w.LostForRoom > 0 || w.MostPending > 0 {
			room[w.Name] = [2]any{w.LostForRoom, w.MostPending}
		}
	}
	wantRoom := map[string][2]any{
		"Deployment shop/api": {12 * time.Minute, 1},
		"Deployment shop/web": {16*time.Minute + 10*time.Second, 2},
	}
	if !reflect.DeepEqual(wantRoom, room) {
		t.Errorf("lost for want of room:\n got %v\nwant %v", room, wantRoom)
	}

	// The summary lists the waiting replacements with the message; with
	// -no-placement every replacement is taken to start at once.
	out.Reset()
	if code := Main(args, &out, &errOut); code != 0 || !strings.Contains(out.String(), "REPLACEMENTS STILL PENDING AT THE END\nshop/api-6c4d7f9b8-a: "+full) {
		t.Errorf("summary:\n%s", out.String())
	}
	out.Reset()
	if code := Main(append(args, "-no-placement", "-json"), &out, &errOut); code != 0 {
		t.Fatal(errOut.String())
	}
	var off sim.Result
	if err := replay.UnmarshalResult(out.Bytes(), &off); err != nil {
		t.Fatal(err)
	}
	for _, p := range off.Pods {
		if p.Fate == "evicted" && (p.ReplacedAt != p.At || p.PlacedOn != "" || p.Pending != "") {
			t.Errorf("-no-placement: %s replaced at %v on %q (%q)", p.Pod, p.ReplacedAt, p.PlacedOn, p.Pending)
		}
	}
}

// The README's scenario with placement, worked out by hand: zone eu-1b
// cut off from +1m to +11m, w-1c2 powered off at +2m with the
// out-of-service taint at +7m30s. The replacements placed before db-2's
// fill the cpu that is left: api-a (500m, +175s) -> w-1a1, coredns (100m)
// and web-b (250m) at +405s -> w-1c1, web-c (250m, +415s) -> w-1a1 (each
// the emptier node of a zone with fewer of its workload). When db-2 (1
// cpu) is force deleted at +460s, w-1a1 has 830m free, w-1a2 830m, w-1c1
// 980m, cp-1 is tainted and zone eu-1b still dark: it waits. eu-1b's
// kubelets are back and Ready at +660.6s; the +670s sample places db-2 on
// w-1b2, which has 1080m free (its evicted pods still terminating until
// +690.6s count), w-1b1 only 480m. Without room from the +460s sample on:
// 470s..670s, 21 samples, 3m30s.
func TestPlacementREADME(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-snapshot", sample, "-seed", "0", "-duration", "15m", "-outage", "eu-1b@1m-11m", "-shutdown", "w-1c2@2m/7m30s", "-json"}
	if code := Main(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var res sim.Result
	if err := replay.UnmarshalResult(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"shop/api-6c4d7f9b8-a":                 "2m55s w-1a1",
		"kube-system/coredns-5d78c9869d-9kz7w": "6m45s w-1c1",
		"shop/web-7d9f8b6c5-b":                 "6m45s w-1c1",
		"shop/web-7d9f8b6c5-c":                 "6m55s w-1a1",
		"shop/db-2":                            "11m10s w-1b2",
	}
	got := map[string]string{}
	for _, p := range res.Pods {
		if p.PlacedOn != "" {
			got[p.Pod] = p.ReplacedAt.String() + " " + p.PlacedOn
		}
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("placements:\n got %v\nwant %v", got, want)
	}
	for _, w := range res.Workloads {
		if w.Name == "StatefulSet shop/db" && (w.LostForRoom != 3*time.Minute+30*time.Second || w.MostPending != 1) {
			t.Errorf("%s: %v without room, %d at once", w.Name, w.LostForRoom, w.MostPending)
		}
	}
}

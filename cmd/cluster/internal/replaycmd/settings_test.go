package replaycmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/examples/kubeapi/replay"
	"github.com/nodelife/nodelife/sim"
)

// fatesAt runs the replay on the sample with args and returns when each
// touched pod was evicted (its fate's time), and the settings it reports.
func fatesAt(t *testing.T, args ...string) (map[string]time.Duration, []sim.Setting) {
	t.Helper()
	var out, errOut bytes.Buffer
	base := []string{"-snapshot", sample, "-seed", "0", "-duration", "15m", "-outage", "eu-1b@1m-11m", "-json"}
	if code := Main(append(base, args...), &out, &errOut); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
	}
	var res sim.Result
	if err := replay.UnmarshalResult(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Duration{}
	for _, p := range res.Pods {
		if p.Fate == "evicted" {
			got[p.Pod] = p.At
		}
	}
	return got, res.Settings
}

func setting(ss []sim.Setting, name string) string {
	for _, s := range ss {
		if s.Name == name {
			return s.Value
		}
	}
	return ""
}

// The cluster's settings change the timeline as upstream's rules say,
// worked out by hand from the sample's zone outage (eu-1b cut from +1m to
// +11m, no jitter, last renewals at +50s, a monitor pass every 5s;
// kubeapi/replay's TestSampleZoneOutage has the default timeline: Unknown
// at +105s, w-1b1 tainted NoExecute at +105s and w-1b2 at +115s, api-a
// (60s toleration, on w-1b2) evicted at +175s, the 300s pods at +405s on
// w-1b1 and +415s on w-1b2):
//
//   - -node-monitor-grace-period 40s: the first pass strictly more than
//     40s after +50s is +95s, 10s earlier: w-1b1 tainted at +95s, w-1b2 at
//     +105s; evictions at +395s (w-1b1), +165s (api-a) and +405s (web-c);
//   - -kubernetes-version 1.31: the same, its grace being 40s;
//   - -node-eviction-rate 0.05: one node per 20s: w-1b1 at +105s, w-1b2 at
//     +125s; evictions +405s (w-1b1), +185s (api-a), +425s (web-c);
//   - -kubernetes-version 1.28: grace 40s and the taint decided on the
//     Ready condition observed before the pass's rewrite, so one pass
//     later: w-1b1 at +100s, w-1b2 at +110s; evictions +400s, +170s, +410s.
func TestSettingsTimelines(t *testing.T) {
	want := func(b1, api, webC float64) map[string]time.Duration {
		return map[string]time.Duration{
			"kube-system/coredns-5d78c9869d-9kz7w": s(b1),
			"shop/web-7d9f8b6c5-b":                 s(b1),
			"shop/api-6c4d7f9b8-a":                 s(api),
			"shop/web-7d9f8b6c5-c":                 s(webC),
		}
	}
	for _, tc := range []struct {
		name  string
		args  []string
		want  map[string]time.Duration
		grace string
	}{
		{"defaults (v1.37)", nil, want(405, 175, 415), "50s"},
		{"v1.36", []string{"-kubernetes-version", "1.36"}, want(405, 175, 415), "50s"},
		{"grace 40s", []string{"-node-monitor-grace-period", "40s"}, want(395, 165, 405), "40s"},
		{"v1.31", []string{"-kubernetes-version", "1.31"}, want(395, 165, 405), "40s"},
		{"rate 0.05", []string{"-node-eviction-rate", "0.05"}, want(405, 185, 425), "50s"},
		{"v1.28", []string{"-kubernetes-version", "v1.28.3"}, want(400, 170, 410), "40s"},
		{"v1.31 with its grace overridden", []string{"-kubernetes-version", "1.31", "-node-monitor-grace-period", "50s"}, want(405, 175, 415), "50s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, settings := fatesAt(t, tc.args...)
			for pod, at := range tc.want {
				if got[pod] != at {
					t.Errorf("%s evicted at %v, want %v", pod, got[pod], at)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("evicted %v", got)
			}
			if g := setting(settings, "--node-monitor-grace-period"); g != tc.grace {
				t.Errorf("reported grace %q, want %q", g, tc.grace)
			}
		})
	}
}

func s(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

// Bad settings are refused, naming the flag and the value.
func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-kubernetes-version", "1.26"}, `-kubernetes-version "1.26": the replay knows releases 1.27 to 1.37`},
		{[]string{"-kubernetes-version", "1.38"}, `-kubernetes-version "1.38": the replay knows releases 1.27 to 1.37`},
		{[]string{"-kubernetes-version", "2.0"}, `-kubernetes-version "2.0": want a release as 1.MINOR`},
		{[]string{"-node-eviction-rate", "-1"}, "NodeEvictionRate -1"},
		{[]string{"-node-lease-duration-seconds", "0"}, "-node-lease-duration-seconds 0: want a positive number of seconds"},
	} {
		var out, errOut bytes.Buffer
		if code := Main(append([]string{"-snapshot", sample}, tc.args...), &out, &errOut); code != 1 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut.String(), tc.want)
		}
	}
	var out, errOut bytes.Buffer
	Main([]string{"-h"}, &out, &errOut)
	for _, want := range []string{"-node-monitor-grace-period duration", "(default 50s)", "-default-unreachable-toleration-seconds int", "(default 300)", "-kubernetes-version string"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("-h lacks %q", want)
		}
	}
}

package scenario

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// text runs a scenario and returns its text report.
func text(t *testing.T, s Scenario, opts Options) string {
	t.Helper()
	rep, err := s.Run(opts)
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// golden compares got with testdata/name, or rewrites it under -update.
// The golden files pin the whole report against regressions; the facts
// below them were worked out by hand.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it after review):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			a := text(t, s, Options{})
			if b := text(t, s, Options{}); a != b {
				t.Fatal("two runs printed different reports")
			}
			golden(t, s.Name+".golden", a)
		})
	}
}

// The facts each scenario must show, worked out by hand from the
// reference notes and the seeds.
var facts = map[string][]string{
	// Reserved: 2 CPUs taken by topology from the lowest core, core 0
	// (threads 0 and 12). db's 8 CPUs on node 0 are its four lowest free
	// whole cores (1-4 with 13-16), its 10Gi on node 1. web's 6 CPUs fit
	// only node 1 (node 0 keeps 5 and 17), so the CPU hints are node 1
	// (preferred: one node) and both nodes; its 4Gi only node 0 (node 1
	// has 11Gi - 10Gi = 1Gi free; both nodes is not offered, node 1
	// serving a single-node allocation). No combination is preferred:
	// best-effort takes node 0, the narrowest, and restricted refuses;
	// single-numa-node finds no common node. With node 0 as hint (or none)
	// the CPUs are node 0's last core (5, 17) then the two lowest cores of
	// node 1 (6, 18, 7, 19); memory and pages go to node 0.
	// The rule taints b-1 and b-2 when their agents report False (+60s);
	// the web pods carry only admission's not-ready and unreachable
	// tolerations, so the readiness taint evicts them at once; db-0
	// tolerates it for 120s, so it goes at +60s + 120s = +180s; the agents
	// tolerate it forever. Zone b's six nodes keep Ready=True: Normal. b-2
	// is untainted when its agent is back (+150s), b-1 at +240s.
	"readiness": {
		`\+60s  b-1: Taint 'readiness.k8s.io/cni:NoExecute' added by rule 'cni'`,
		`\+60s  shop/web-b1 deleted \(UntoleratedTaint, readiness.k8s.io/cni:NoExecute\)`,
		`\+60s  shop/db-0 to be deleted at \+180s`,
		`\+60s  kube-system/cni-agent-b1 stays`,
		`\+60s  zone b is Normal`,
		`\+150s  b-2: Taint 'readiness.k8s.io/cni:NoExecute' removed by rule 'cni'`,
		`\+180s  shop/db-0 deleted \(TolerationExpired`,
		`\+240s  b-1: Taint 'readiness.k8s.io/cni:NoExecute' removed by rule 'cni'`,
		`nodes tainted 2, pods evicted 3, pods kept 3`,
	},
	"numa": {
		`reserved CPUs 0,12; db holds CPUs 1-4,13-16 and memory 10Gi on \[1\]`,
		`hints: cpu \[\{NUMA node 1, preferred\} \{NUMA nodes 0,1\}\]; memory \[\{NUMA node 0, preferred\}\], hugepages-1Gi \[\{NUMA node 0, preferred\}\]`,
		`none +no merge: admitted, CPUs 5-7,17-19, hugepages-1Gi 2Gi on \[0\], memory 4Gi on \[0\]`,
		`best-effort +merged \{NUMA node 0\}: admitted, CPUs 5-7,17-19, hugepages-1Gi 2Gi on \[0\], memory 4Gi on \[0\]`,
		`restricted +merged \{NUMA node 0\}: refused \(TopologyAffinityError\)`,
		`single-numa-node merged \{any\}: refused \(TopologyAffinityError\)`,
	},
	// web gets the DefaultTolerationSeconds 300s, cache its own 60s
	// unreachable toleration, the DaemonSet pod tolerates unreachable
	// forever, and debug tolerates everything.
	"taints": {
		`web +schedule: no, untolerated example.com/dedicated=cache:NoSchedule +run: evicted after 300s`,
		`cache +schedule: no, untolerated node.kubernetes.io/unreachable:NoSchedule +run: evicted after 60s`,
		`node-exporter +schedule: no, untolerated example.com/dedicated=cache:NoSchedule +run: stays`,
		`debug +schedule: yes +run: stays`,
		`node taints: \[example.com/dedicated=cache:NoSchedule node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute\]`,
	},
	// Renewals every 10s from 0: the last good one at +50s. Grace 50s,
	// passes every 5s: Unknown at the first pass strictly after +100s.
	// NoExecute decisions read the Ready after the pass's rewrite (as
	// upstream since v1.29, kubernetes#120816), so the first taint comes
	// in the same pass, at +105s; then one node every 10s (rate 0.1/s:
	// zone b is the only dark zone). Pods tolerate 300s: b-00's go at
	// +405s; nodes tainted by +295s (b-00 to b-19) lose their 40 pods by
	// +595s. Back at +600s, the heartbeat's back-off (at +60s five updates
	// and a get fail; then gets at 60.2, 60.6, 61.4, 63, 66.2, 72.6, the
	// delay doubling from 200ms, then every 7s) next fires at
	// 72.6 + 76 x 7 = 604.6s; the pass at +605s untaints, which cancels the
	// other 30 nodes' 60 evictions (b-20's, due at +605s too, among them:
	// the untaint comes first).
	"zone-outage": {
		`\+60s  zone b: 50 nodes lose connectivity`,
		`\+105s  b-00: Ready=Unknown, no heartbeat for 50s; pods marked NotReady: true`,
		`\+105s  b-00 tainted node.kubernetes.io/unreachable:NoSchedule`,
		`\+105s  zone b: Normal -> FullDisruption, 50 of 50 not ready, tainting rate 0.1/s`,
		`\+105s  b-00 tainted node.kubernetes.io/unreachable:NoExecute`,
		`\+115s  b-01 tainted node.kubernetes.io/unreachable:NoExecute`,
		`\+405s  pod shop/b-00-0 on b-00 deleted \(TaintManagerEviction\)`,
		`\+595s  \.\.\. pods evicted in zone b: 40 in all, the last shop/b-19-1`,
		`\+604.6s  b-00 posts Ready=True again \(was Unknown\)`,
		`\+605s  b-00: NoExecute taints removed`,
		`evictions cancelled in zone b: 60 in all`,
		`\+605s  zone b: FullDisruption -> Normal`,
		`nodes 150, pods 300, NoExecute taints 50, pods evicted 40, evictions cancelled 60`,
	},
	// 10+180+120+60 = 370s of inhibit delay. Phases run from priority 0:
	// web and cron (60s, cron's own 10s); web gone at +45s ends it early;
	// batch gets 120s and runs it out (+165s); search keeps its own 30s,
	// gone at +185s; payments' 30s is cut to 10s.
	"shutdown": {
		`inhibit delay 6m10s: logind allows 5s, write /etc/systemd/logind.conf.d/99-kubelet.conf \(InhibitDelayMaxSec=370\)`,
		`\+0s  phase 0 started: kill shop/web \(60s\), shop/cron \(10s\)`,
		`\+45s  phase 1000 started: kill shop/batch \(120s\)`,
		`\+165s  phase 1000 timed out`,
		`\+165s  phase 10000 started: kill shop/search \(30s\)`,
		`\+185s  phase 100000 started: kill shop/payments \(10s\)`,
		`\+190s  inhibitor lock released`,
	},
	// 12Gi free of 100Gi: usage 100 - 12 = 88% >= 85%; free
	// 100Gi x 20% - 12Gi = 8Gi, least recently used first (web:v1 48h,
	// web:v2 3h; trainer is spare; debug is younger than the 2m minimum
	// age). web:v1 fails, so trainer (10Gi) replaces it: 14Gi freed, 26Gi
	// free. Container GC keeps the newest dead nginx and drops the removed
	// pod's two. At +600s 8Gi < 10%: reclaim (single disk: containers and
	// images) runs the container GC again with terminated pods counted as
	// removed, under the same policy: only the batch pod's sandbox goes
	// (its containers went at +0s; web-0 keeps its newest dead nginx);
	// then every unused image: debug + web:v1 = 6Gi, 14Gi < 10Gi + 5Gi, so a pod goes:
	// logger exceeds its 1Gi request by 5Gi, cache (no request) by 3Gi,
	// metrics by 0.5Gi, all priority 0; kube-proxy exceeds too but has a
	// higher priority (and is critical); the web pods are within their
	// requests. Hard threshold: grace 1s. After the eviction the next step
	// is 30s later (+630s); DiskPressure is reported until the first step
	// at least 5m after +600s, which is +900s.
	"disk-pressure": {
		`image GC: usage 88% >= high threshold 85%: free 8Gi to reach 80%`,
		`plan: delete sha256:web-v1 \(4Gi, last used 48h0m0s ago\)`,
		`spare: sha256:trainer \(10Gi\) if a deletion fails`,
		`RemoveImage sha256:web-v1 failed`,
		`image GC freed 14Gi: nodefs.available 26Gi`,
		`remove c-web0-nginx-r1 `,
		`\+600s  .*nodefs.available 8Gi < 10%, conditions \[DiskPressure\]`,
		`reclaim \[DeleteAllUnusedContainers DeleteUnusedImages\] first`,
		`DeleteAllUnusedContainers: removed sb-batch\n`,
		`DeleteUnusedImages: removed sha256:debug, sha256:web-v1, freed 6Gi`,
		`1\. shop/logger: priority 0`,
		`2\. shop/cache: priority 0`,
		`3\. shop/metrics: priority 0`,
		`4\. shop/kube-proxy \(critical: never evicted\)`,
		`5\. shop/web-1`,
		`6\. shop/web-0`,
		`evict shop/logger \(grace 1s\): The node was low on resource: ephemeral-storage. Threshold quantity: 10737418400, available: 8Gi. Container main was using 6Gi, request is 1Gi`,
		`\+630s  nodefs.available 20Gi, conditions still \[DiskPressure\]; a new pod: admit false \(The node had condition: \[DiskPressure\].\)`,
		`\+900s  DiskPressure cleared`,
	},
	// a renews every 2s (0, 2, ..., 28); cut off at +30s, its round's
	// deadline is +40s; its fence is the last renewal + 15s = +43s. b,
	// polling every 2s from +0.5s, last sees the record change at +28.5s
	// and takes it at its first poll after +43.5s: +44.5s. b renews every
	// 2s from +44.5s; at +90.5s it releases; a, polling every 2s since
	// +60s, takes the empty lock at +92s.
	"leader-election": {
		`\+0s  controller-a became leader \(holder controller-a, transitions 0\)`,
		`\+0.5s  controller-b sees leader controller-a`,
		`\+40s  controller-a stopped leading: failed to renew the lock within RenewDeadline \(its fence was \+43s\)`,
		`\+44.5s  controller-b became leader \(holder controller-b, transitions 1\); must stop leader work by \+59.5s`,
		`\+60s  controller-a sees leader controller-b`,
		`\+90.5s  controller-b shuts down and releases the lock`,
		`\+92s  controller-a became leader \(holder controller-a, transitions 2\)`,
	},
	// Background removes each level as its owner reference dangles;
	// foreground removes bottom-up, the Deployment last, after four
	// rounds; orphan strips the ReplicaSet's reference and removes only
	// the Deployment.
	"cascading-delete": {
		`Background \(2 collector rounds\)`,
		`round 1: Delete ReplicaSet shop/web-5d8f \(Background\) AllOwnersGone`,
		`Foreground \(4 collector rounds\)`,
		`round 1: Delete ReplicaSet shop/web-5d8f \(Foreground\) OwnersDeletingDependents`,
		`round 3: RemoveFinalizer ReplicaSet shop/web-5d8f foregroundDeletion`,
		`round 4: Removed Deployment shop/web`,
		`Orphan \(1 collector rounds\)`,
		`round 1: RemoveRefs ReplicaSet shop/web-5d8f \[d-1\]`,
		`left: ReplicaSet shop/web-5d8f, Pod shop/web-5d8f-a, Pod shop/web-5d8f-b`,
	},
	// 250m -> 256 shares; linear weight 1 + 254*9999/262142 = 10,
	// quadratic ceil(10^((64+1000)/612 - 7/34)) = 35; quota 500m of 100ms;
	// memory.high floor(1Gi*1.9/4096)*4096; swap 1Gi/40Gi*5Gi.
	"cgroup": {
		`systemd  /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice`,
		`cgroupfs /kubepods/burstable/pod0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`,
		`cpu.shares 256 -> cpu.weight 10 \(kubelet, linear; 35 under runc 1.3.2\+\), cpu.max "50000 100000", memory.max 2147483648`,
		`memory.high 2040107008`,
		`swap: Granted, memory.swap.max 134217728`,
	},
	// k8s.io/cloud-provider controllers: the --node-ip 10.0.1.7 comes first
	// with its InternalIP type and the other InternalIP (10.0.1.8) goes;
	// Hostname is appended as the cloud reports none. Instance type, zone
	// and region under both names plus example.com/pool = 7 labels
	// (node.kubernetes.io/pool is in a Kubernetes namespace). cp-1 holds
	// block 0, so worker-1 gets block 1 of each family. Ready=Unknown at
	// +175s: last status +120s, 50s grace, passes every 5s, and 170 is not
	// after 170. Readiness does not take it out of the load balancers;
	// deletion does; its two routes go, cp-1's and the prod cluster's stay.
	"cloud-node": {
		`addresses \[\{InternalIP 10.0.1.7\} \{ExternalIP 198.51.100.7\} \{Hostname worker-1\}\]`,
		`initialized: providerID fake://eu-1a/i-0b7, 7 labels`,
		`\+0s  pod CIDRs \[10.244.1.0/24 fd00:10:244:1::/64\]`,
		`\+10s  worker-1 NetworkUnavailable=False \(RouteCreated\)`,
		`\+10s  load-balancer nodes: \[worker-1\]`,
		`\+175s  cloud node lifecycle: AddShutdownTaint; taints \[node.cloudprovider.kubernetes.io/shutdown:NoSchedule\]`,
		`\+175s  load-balancer nodes: \[worker-1\]`,
		`\+300s  cloud node lifecycle: Deleting node worker-1 because it does not exist in the cloud provider`,
		`released: 255 of 256 IPv4 blocks free`,
		`\+310s  route kind-uid-worker-1-10.244.1.0/24 deleted \(NodeGone\)`,
		`routes left in the cloud: \[kind-uid-cp-1-10.244.0.0/24 kind-uid-cp-1-fd00:10:244::/64 prod-uid-x-10.8.0.0/24\]`,
		`routes created 2, routes deleted 2, IPv4 blocks in use 1`,
	},
}

func TestHandWorkedFacts(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			out := text(t, s, Options{})
			if len(facts[s.Name]) == 0 {
				t.Fatal("no hand-worked facts for this scenario")
			}
			for _, want := range facts[s.Name] {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// Sizes change what they say they change.
func TestSizes(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		// 3 x 4 nodes; zone b's 4 nodes are tainted at +105..+135s, all
		// before +300s, so their 8 pods go.
		{"zone-outage", `nodes 12, pods 24, NoExecute taints 4, pods evicted 8, evictions cancelled 0`},
		// Twelve pods: six more batch jobs, all within their request.
		{"disk-pressure", `12\. shop/job-0011|\.\.\. 4 more`},
		// Three candidates polling every 2s from 0, +0.5s and +1s: b still
		// takes over at +44.5s; after b's release at +90.5s, c polls first
		// (+91s) and takes the free lock, the third transition.
		{"leader-election", `\+91s  controller-c became leader \(holder controller-c, transitions 2\)`},
		{"cascading-delete", `left: ReplicaSet shop/web-5d8f, Pod shop/web-5d8f-a, Pod shop/web-5d8f-b, Pod shop/web-5d8f-c`},
	} {
		s, _ := Find(c.name)
		size := map[string]int{"zone-outage": 4, "disk-pressure": 12, "leader-election": 3, "cascading-delete": 3}[c.name]
		out := text(t, s, Options{Size: size})
		if !regexp.MustCompile(c.want).MatchString(out) {
			t.Errorf("%s -size %d: lacks %q:\n%s", c.name, size, c.want, out)
		}
	}
}

func TestSeedChangesZoneOutageButStaysDeterministic(t *testing.T) {
	s, _ := Find("zone-outage")
	a, b := text(t, s, Options{Seed: 7}), text(t, s, Options{Seed: 7})
	if a != b {
		t.Fatal("seed 7 gave two different reports")
	}
	if a == text(t, s, Options{}) {
		t.Fatal("seed 7 gave the unseeded report")
	}
}

func TestJSON(t *testing.T) {
	rep, err := Cgroup(Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Name   string
		Events []struct {
			AtSeconds *float64 `json:"at_seconds"`
			Kind      string
			Message   string
		}
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Name != "cgroup" || len(back.Events) != len(rep.Events) || back.Events[0].AtSeconds != nil || back.Events[0].Message != rep.Events[0].Message {
		t.Fatalf("JSON round trip lost data: %s", b)
	}
	sh, _ := Shutdown(Options{})
	b, _ = json.Marshal(sh)
	if !strings.Contains(string(b), `"at_seconds":165,"kind":"phase","object":"1000","message":"phase 1000 timed out"`) {
		t.Fatalf("timed events lack at_seconds: %s", b)
	}
}

func TestOffset(t *testing.T) {
	for d, want := range map[int64]string{0: "+0s", 105e9: "+105s", 604.6e9: "+604.6s", 5e7: "+0.05s", 47042318001: "+47.042s"} {
		if got := Offset(durationOf(d)); got != want {
			t.Errorf("Offset(%d ns) = %q, want %q", d, got, want)
		}
	}
}

func TestMain_(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main("cgroup", []string{"-json"}, &out, &errb); code != 0 || !json.Valid(out.Bytes()) {
		t.Fatalf("exit %d, stderr %q, stdout not JSON: %s", code, errb.String(), out.String())
	}
	out.Reset()
	if code := Main("zone-outage", []string{"-size", "-1"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-size -1") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if code := Main("nope", nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "nope: no such scenario") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func durationOf(ns int64) time.Duration { return time.Duration(ns) }

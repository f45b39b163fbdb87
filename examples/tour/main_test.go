package main

import (
	"bytes"
	"regexp"
	"testing"
)

// The tour's verdicts, worked out by hand: web gets the DefaultTolerationSeconds
// 300s, cache its own 60s unreachable toleration, the DaemonSet pod tolerates
// unreachable forever, and debug tolerates everything; the silent node turns
// Unknown at the first pass after 10s + 50s.
func TestTourVerdicts(t *testing.T) {
	var a, b bytes.Buffer
	if err := run(&a); err != nil {
		t.Fatal(err)
	}
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("two runs printed different output")
	}
	for _, want := range []string{
		`web +schedule: no, untolerated example.com/dedicated=cache:NoSchedule +run: evicted after 300s`,
		`cache +schedule: no, untolerated node.kubernetes.io/unreachable:NoSchedule +run: evicted after 60s`,
		`node-exporter +schedule: no, untolerated example.com/dedicated=cache:NoSchedule +run: stays`,
		`debug +schedule: yes +run: stays`,
		`node taints: \[example.com/dedicated=cache:NoSchedule node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute\]`,
		// Last heard at +10s, grace 50s, passes every 5s: Unknown at +65s.
		`\+ 65s event NodeNotReady; mark pods NotReady: true`,
		`\+ 65s Ready=Unknown NodeStatusUnknown +taints \[node.kubernetes.io/unreachable:NoSchedule\]`,
		`\+ 80s Ready=True +KubeletReady +taints \[\]`,
		// Zone b is the only dark zone: FullDisruption at the normal rate;
		// one node per 10s from +110s; pods go 300s (or 30s) later.
		`\+105s zone eu/b: Normal -> FullDisruption, tainting rate 0.1/s`,
		`\+110s b-00 tainted node.kubernetes.io/unreachable; pod shop/web-b-00 evicted at \+410s`,
		`pod shop/checkout-b-00 tolerates 30s: evicted at \+140s`,
		`\+140s b-03 tainted node.kubernetes.io/unreachable; pod shop/web-b-03 evicted at \+440s`,
		`4 of 50 nodes tainted by \+140s; the next at \+150s`,
		// All zones dark: tainting stops everywhere.
		`EnterFullDisruption \(strip NoExecute taints: true\)`,
		`\+200s zone eu/a: Normal -> FullDisruption, tainting rate 0/s`,
		// Shutdown: 10+180+120+60 = 370s of inhibit delay. Phases run from
		// priority 0: web and cron (60s, cron's own 10s); web gone at +45s
		// ends it early; batch gets 120s and runs it out (+165s); search
		// keeps its own 30s, gone at +185s; payments' 30s is cut to 10s.
		`inhibit delay 6m10s: logind allows 5s, write /etc/systemd/logind.conf.d/99-kubelet.conf \(InhibitDelayMaxSec=370\)`,
		`\+  0s phase 0 started: kill shop/web \(60s\), shop/cron \(10s\)`,
		`\+ 45s phase 1000 started: kill shop/batch \(120s\)`,
		`\+165s phase 1000 timed out`,
		`\+165s phase 10000 started: kill shop/search \(30s\)`,
		`\+185s phase 100000 started: kill shop/payments \(10s\)`,
		`\+190s inhibitor lock released`,
		// gc: background removes each level as its owner reference
		// dangles; foreground removes bottom-up, the Deployment last, after
		// four rounds; orphan strips the ReplicaSet's reference and removes
		// only the Deployment.
		`Background \(2 collector rounds\)`,
		`round 1: Delete ReplicaSet shop/web-5d8f \(Background\) AllOwnersGone`,
		`Foreground \(4 collector rounds\)`,
		`round 1: Delete ReplicaSet shop/web-5d8f \(Foreground\) OwnersDeletingDependents`,
		`round 3: RemoveFinalizer ReplicaSet shop/web-5d8f foregroundDeletion`,
		`round 4: Removed Deployment shop/web`,
		`Orphan \(1 collector rounds\)`,
		`round 1: RemoveRefs ReplicaSet shop/web-5d8f \[d-1\]`,
		`left: ReplicaSet shop/web-5d8f, Pod shop/web-5d8f-a, Pod shop/web-5d8f-b`,
		// cgroup: 250m -> 256 shares; linear weight 1 + 254*9999/262142 = 10,
		// quadratic ceil(10^((64+1000)/612 - 7/34)) = 35; quota 500m of 100ms;
		// memory.high floor(1Gi*1.9/4096)*4096; swap 1Gi/40Gi*5Gi.
		`systemd  /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice`,
		`cgroupfs /kubepods/burstable/pod0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`,
		`cpu.shares 256 -> cpu.weight 10 \(kubelet, linear; 35 under runc 1.3.2\+\), cpu.max "50000 100000", memory.max 2147483648`,
		`memory.high 2040107008`,
		`swap: Granted, memory.swap.max 134217728`,
	} {
		if !regexp.MustCompile(want).MatchString(a.String()) {
			t.Errorf("output lacks %q:\n%s", want, a.String())
		}
	}
}

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
	} {
		if !regexp.MustCompile(want).MatchString(a.String()) {
			t.Errorf("output lacks %q:\n%s", want, a.String())
		}
	}
}

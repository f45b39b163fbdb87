package shutdown

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecideInhibitDelay(t *testing.T) {
	tests := []struct {
		name              string
		current, required time.Duration
		want              InhibitDecision
	}{
		{"systemd default 5s, seed's 30s", 5 * time.Second, 30 * time.Second, InhibitDecision{
			Override: true, Path: "/etc/systemd/logind.conf.d/99-kubelet.conf",
			DropIn:  "# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=30\n",
			Current: 5 * time.Second, Required: 30 * time.Second,
		}},
		{"already enough", 30 * time.Second, 30 * time.Second, InhibitDecision{Current: 30 * time.Second, Required: 30 * time.Second}},
		{"more than enough", 120 * time.Second, 30 * time.Second, InhibitDecision{Current: 120 * time.Second, Required: 30 * time.Second}},
		{"fraction rounds to nearest, as %.0f", 0, 1500 * time.Millisecond, InhibitDecision{
			Override: true, Path: LogindDropInPath, DropIn: "# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=2\n",
			Required: 1500 * time.Millisecond,
		}},
		{"seed priority table: 370s", 5 * time.Second, 370 * time.Second, InhibitDecision{
			Override: true, Path: LogindDropInPath, DropIn: "# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=370\n",
			Current: 5 * time.Second, Required: 370 * time.Second,
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, DecideInhibitDelay(tt.current, tt.required)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// The texts of upstream's manager tests ("override unsuccessful").
func TestCheckInhibitDelay(t *testing.T) {
	if err := CheckInhibitDelay(30*time.Second, 30*time.Second); err != nil {
		t.Errorf("enough delay: %v", err)
	}
	tests := []struct {
		current, required time.Duration
		want              string
	}{
		{5 * time.Second, 30 * time.Second, "node shutdown manager was timed out after 5 attempts waiting for logind InhibitDelayMaxSec to update to 30s (ShutdownGracePeriod), current value is 5s"},
		{0, 5 * time.Second, "node shutdown manager was timed out after 5 attempts waiting for logind InhibitDelayMaxSec to update to 5s (ShutdownGracePeriod), current value is 0s"},
	}
	for _, tt := range tests {
		err := CheckInhibitDelay(tt.current, tt.required)
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrInhibitDelayTooShort) {
			t.Errorf("CheckInhibitDelay(%v, %v) = %v, want %q wrapping ErrInhibitDelayTooShort", tt.current, tt.required, err, tt.want)
		}
	}
	legacy := &InhibitDelayError{Attempts: 1, Required: 30 * time.Second, Current: 5 * time.Second, Legacy: true}
	const want = "node shutdown manager was unable to update logind InhibitDelayMaxSec to 30s (ShutdownGracePeriod), current value of InhibitDelayMaxSec (5s) is less than requested ShutdownGracePeriod"
	if legacy.Error() != want {
		t.Errorf("legacy text %q", legacy.Error())
	}
	// Five reads, the first at once, then backing off from 100ms,
	// doubling: 1.5s in all.
	wantDelays := [InhibitRecheckReads]time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}
	if got := InhibitRecheckDelays(); got != wantDelays {
		t.Errorf("recheck delays %v, want %v", got, wantDelays)
	}
}

func TestAddToPreshutdownOrder(t *testing.T) {
	tests := []struct {
		name        string
		deps, order []string
		want        []string
	}{
		{"upstream example", []string{"a", "b", "c", "d"}, []string{"x", "b", "y", "c", "z"}, []string{"x", "kubelet", "b", "y", "c", "z", "a", "d"}},
		{"no dependencies: unchanged, kubelet kept", nil, []string{"x", "kubelet"}, []string{"x", "kubelet"}},
		{"existing kubelet moved, any case", []string{"containerd"}, []string{"Kubelet", "containerd", "x"}, []string{"kubelet", "containerd", "x"}},
		{"no dependency present: appended after kubelet", []string{"containerd"}, []string{"x"}, []string{"x", "kubelet", "containerd"}},
		{"empty order", []string{"containerd", "hns"}, nil, []string{"kubelet", "containerd", "hns"}},
		{"duplicate missing dependency appended twice, as upstream", []string{"a", "a"}, []string{"x"}, []string{"x", "kubelet", "a", "a"}},
	}
	for _, tt := range tests {
		orig := append([]string(nil), tt.order...)
		got := AddToPreshutdownOrder(tt.deps, tt.order)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(orig, tt.order); diff != "" {
			t.Errorf("%s: input modified", tt.name)
		}
	}
}

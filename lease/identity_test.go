package lease

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 + s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(math.Round(s*1000)) * time.Millisecond) }

// Legacy names: the seed's worked example, kind-control-plane ->
// kube-apiserver-c4vwjftbvpc5os2vvzle4qg27a. The other values were computed
// from the reference's rules with Python's hashlib, struct and base64
// modules, independently of this code.
func TestIdentityLeaseNames(t *testing.T) {
	tests := []struct {
		host, current, legacy string
	}{
		{"kind-control-plane", "apiserver-c7uylvfxlbqccnk6myfkwetzze", "kube-apiserver-c4vwjftbvpc5os2vvzle4qg27a"},
		{"master-0.example.com", "apiserver-k7nkldil3orunqwiqg2xeoi7ju", "kube-apiserver-kesqfbklf3pt6xq5d2s32ta6ge"},
		{"ip-10-0-1-23.ec2.internal", "apiserver-dpfp2hbhmqb6qcbmnrsufzjcvq", "kube-apiserver-kd5zavwphke3hyeww6ycpbmase"},
		{"", "apiserver-2ikcnb3wory4bpirwz777r2iv4", "kube-apiserver-4oymiquy7qobjgx36tejs35zeq"},
	}
	for _, tt := range tests {
		if got := IdentityLeaseName(tt.host); got != tt.current || len(got) != 36 {
			t.Errorf("IdentityLeaseName(%q) = %q, want %q (36 chars)", tt.host, got, tt.current)
		}
		if got := LegacyIdentityLeaseName(tt.host); got != tt.legacy {
			t.Errorf("LegacyIdentityLeaseName(%q) = %q, want %q", tt.host, got, tt.legacy)
		}
	}
	const seedHolder = "kube-apiserver-c4vwjftbvpc5os2vvzle4qg27a_9cbf54e5-1136-44bd-8f9a-1dcd15c346b4"
	if got := IdentityHolder(LegacyIdentityLeaseName("kind-control-plane"), "9cbf54e5-1136-44bd-8f9a-1dcd15c346b4"); got != seedHolder {
		t.Errorf("holder %q, want the seed's %q", got, seedHolder)
	}
}

func TestIdentityLease(t *testing.T) {
	l := IdentityLease(at(0), "kind-control-plane", "u-1")
	want := Lease{
		Namespace: "kube-system", Name: "apiserver-c7uylvfxlbqccnk6myfkwetzze",
		Labels:               map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": "kind-control-plane"},
		HolderIdentity:       ptrTo("apiserver-c7uylvfxlbqccnk6myfkwetzze_u-1"),
		LeaseDurationSeconds: ptrTo(int32(3600)),
		RenewTime:            ptrTo(at(0)),
	}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"k8s.io/component": "kube-apiserver", "kubernetes.io/hostname": "h"}, IdentityLabels("h", true)); diff != "" {
		t.Errorf("legacy labels (-want +got):\n%s", diff)
	}
}

func TestExpired(t *testing.T) {
	d := ptrTo(int32(3600))
	tests := []struct {
		name string
		l    Lease
		now  time.Time
		want bool
	}{
		{"renewed just now", Lease{RenewTime: ptrTo(at(0)), LeaseDurationSeconds: d}, at(1), false},
		{"exactly at renew+duration is not expired", Lease{RenewTime: ptrTo(at(0)), LeaseDurationSeconds: d}, at(3600), false},
		{"after renew+duration", Lease{RenewTime: ptrTo(at(0)), LeaseDurationSeconds: d}, at(3600.001), true},
		{"nil renew time", Lease{LeaseDurationSeconds: d}, at(0), true},
		{"nil duration", Lease{RenewTime: ptrTo(at(0))}, at(0), true},
		{"zero duration", Lease{RenewTime: ptrTo(at(0)), LeaseDurationSeconds: ptrTo(int32(0))}, at(0.5), true},
	}
	for _, tt := range tests {
		if got := tt.l.Expired(tt.now); got != tt.want {
			t.Errorf("%s: Expired = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPlanIdentityLeaseGC(t *testing.T) {
	labels := IdentityLabels("h", false)
	mk := func(name string, renew *time.Time, dur *int32) Lease {
		return Lease{Namespace: "kube-system", Name: name, Labels: labels, RenewTime: renew, LeaseDurationSeconds: dur}
	}
	hour := ptrTo(int32(3600))
	leases := []Lease{
		mk("e-renewed", ptrTo(at(-10)), hour),
		mk("d-stale", ptrTo(at(-3601)), hour),
		mk("c-nil-renew", nil, hour),
		mk("b-nil-duration", ptrTo(at(-10)), nil),
		mk("a-edge", ptrTo(at(-3600)), hour),
		{Namespace: "kube-system", Name: "kube-scheduler", RenewTime: ptrTo(at(-99999)), LeaseDurationSeconds: hour},                            // not an identity lease
		{Namespace: "default", Name: "x", Labels: labels, RenewTime: ptrTo(at(-99999)), LeaseDurationSeconds: hour},                             // other namespace
		{Namespace: "kube-system", Name: "legacy", Labels: IdentityLabels("h", true), RenewTime: ptrTo(at(-99999)), LeaseDurationSeconds: hour}, // legacy label
	}
	var got []string
	for _, d := range PlanIdentityLeaseGC(at(0), leases) {
		verdict := "keep"
		if d.Delete {
			verdict = "delete"
		}
		got = append(got, d.Lease.Name+" "+verdict+" "+d.Reason)
	}
	want := []string{
		"a-edge keep Live",
		"b-nil-duration delete NoLeaseDuration",
		"c-nil-renew delete NoRenewTime",
		"d-stale delete Expired",
		"e-renewed keep Live",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWorkloadLeaseName(t *testing.T) {
	got, err := WorkloadLeaseName("example-foo", "kind-control-plane")
	// The first 10 characters of the lower-case base32 SHA-256 of the
	// instance, as computed with Python for the identity names above.
	if err != nil || got != "example-foo-c4vwjftbvp" {
		t.Errorf("WorkloadLeaseName = %q, %v", got, err)
	}
	a, _ := WorkloadLeaseName("example-foo", "prod/foo")
	b, _ := WorkloadLeaseName("example-foo", "staging/foo")
	if a == b {
		t.Errorf("two instances share %q", a)
	}
	for _, bad := range []string{"", "Example_Foo", strings.Repeat("a", 250), "-foo"} {
		if _, err := WorkloadLeaseName(bad, "x"); !errors.Is(err, ErrInvalidName) || (bad != "" && !strings.Contains(err.Error(), bad[:3])) {
			t.Errorf("prefix %q: err %v", bad, err)
		}
	}
}

package gc

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func finishedJob(name string, ttl *int32, condType string, at time.Time) Job {
	return Job{Namespace: "ns", Name: name, UID: "uid-" + name, TTLSecondsAfterFinished: ttl,
		Conditions: []JobCondition{{Type: "SuccessCriteriaMet", Status: "True", LastTransitionTime: at.Add(-time.Second)}, {Type: condType, Status: "True", LastTransitionTime: at}}}
}

func TestJobTTL(t *testing.T) {
	fin := ago(100 * time.Second)
	for _, c := range []struct {
		name      string
		job       Job
		del, wait bool
		expire    time.Time
		remaining time.Duration
		warning   bool
		err       bool
	}{
		{name: "no TTL", job: finishedJob("j", nil, JobComplete, fin)},
		{name: "not finished", job: Job{Name: "j", TTLSecondsAfterFinished: ptr[int32](0),
			Conditions: []JobCondition{{Type: JobComplete, Status: "False", LastTransitionTime: fin}}}},
		{name: "being deleted", job: func() Job {
			j := finishedJob("j", ptr[int32](0), JobComplete, fin)
			j.DeletionTimestamp = &t0
			return j
		}()},
		{name: "Complete, TTL 100s, finished 100s ago: expired exactly now", job: finishedJob("j", ptr[int32](100), JobComplete, fin),
			del: true, expire: t0, remaining: 0},
		{name: "Failed counts too", job: finishedJob("j", ptr[int32](50), JobFailed, fin),
			del: true, expire: ago(50 * time.Second), remaining: -50 * time.Second},
		{name: "TTL 101s: one second left", job: finishedJob("j", ptr[int32](101), JobComplete, fin),
			wait: true, expire: t0.Add(time.Second), remaining: time.Second},
		{name: "TTL 0 deletes at once", job: finishedJob("j", ptr[int32](0), JobComplete, fin), del: true, expire: fin, remaining: -100 * time.Second},
		{name: "finished in the future (clock skew)", job: finishedJob("j", ptr[int32](10), JobComplete, t0.Add(time.Minute)),
			wait: true, expire: t0.Add(70 * time.Second), remaining: 70 * time.Second, warning: true},
		{name: "finished without a transition time", job: finishedJob("j", ptr[int32](10), JobComplete, time.Time{}), err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := JobTTL(t0, c.job)
			if d.Delete != c.del || d.Wait != c.wait || (d.Err != nil) != c.err || (d.Warning != "") != c.warning {
				t.Fatalf("%+v", d)
			}
			if (c.del || c.wait) && (!d.ExpireAt.Equal(c.expire) || d.Remaining != c.remaining) {
				t.Errorf("expire %v remaining %v, want %v %v", d.ExpireAt, d.Remaining, c.expire, c.remaining)
			}
			if c.err && (d.Err.Error() != "gc: invalid input: unable to find the time when the Job ns/j finished" || !errors.Is(d.Err, ErrInvalidInput)) {
				t.Errorf("err %v", d.Err)
			}
			if d.Message == "" {
				t.Error("no message")
			}
		})
	}
}

func TestPlanJobTTL(t *testing.T) {
	jobs := []Job{
		finishedJob("late", ptr[int32](10), JobComplete, ago(20*time.Second)),  // expired at t0-10s
		finishedJob("early", ptr[int32](10), JobComplete, ago(time.Minute)),    // expired at t0-50s
		finishedJob("wait-2m", ptr[int32](180), JobComplete, ago(time.Minute)), // expires t0+2m
		finishedJob("wait-1m", ptr[int32](120), JobFailed, ago(time.Minute)),   // expires t0+1m
		finishedJob("broken", ptr[int32](1), JobComplete, time.Time{}),
		{Name: "running"},
	}
	p := PlanJobTTL(t0, jobs)
	var del []string
	for _, d := range p.Delete {
		del = append(del, d.Job.Name)
	}
	if d := cmp.Diff([]string{"early", "late"}, del); d != "" {
		t.Errorf("delete (-want +got):\n%s", d)
	}
	if len(p.Failed) != 1 || p.Failed[0].Job.Name != "broken" || !p.Next.Equal(t0.Add(time.Minute)) {
		t.Errorf("failed %v next %v", p.Failed, p.Next)
	}
}

// certPEM returns a self-signed certificate valid until notAfter.
func certPEM(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	mustNil(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "system:node:n"},
		NotBefore: notAfter.Add(-24 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	mustNil(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestPlanCSRCleanup(t *testing.T) {
	valid := certPEM(t, t0.Add(time.Hour))
	expired := certPEM(t, ago(time.Minute))
	approved := func(at time.Time) []CSRCondition { return []CSRCondition{{Type: CSRApproved, LastUpdateTime: at}} }
	for _, c := range []struct {
		name   string
		csr    CSR
		reason CSRReason
		next   time.Time
	}{
		{"issued, approved exactly 1h ago: kept (strictly older needed)", CSR{Conditions: approved(ago(time.Hour)), Certificate: valid},
			"", ago(time.Hour).Add(time.Hour + 1)},
		{"issued, approved 1h+1ns ago", CSR{Conditions: approved(ago(time.Hour + 1)), Certificate: valid}, CSRIssuedPastDeadline, time.Time{}},
		{"approved, never issued: kept forever", CSR{CreationTimestamp: ago(1000 * time.Hour), Conditions: approved(ago(999 * time.Hour))}, "", time.Time{}},
		{"denied 61m ago", CSR{Conditions: []CSRCondition{{Type: CSRDenied, LastUpdateTime: ago(61 * time.Minute)}}}, CSRDeniedPastDeadline, time.Time{}},
		{"denied 59m ago", CSR{Conditions: []CSRCondition{{Type: CSRDenied, LastUpdateTime: ago(59 * time.Minute)}}}, "", t0.Add(time.Minute + 1)},
		{"failed 2h ago", CSR{Conditions: []CSRCondition{{Type: CSRFailed, LastUpdateTime: ago(2 * time.Hour)}}}, CSRFailedPastDeadline, time.Time{}},
		{"denied with a zero update time never expires", CSR{Conditions: []CSRCondition{{Type: CSRDenied}}}, "", time.Time{}},
		{"pending (no condition) 24h: kept", CSR{CreationTimestamp: ago(24 * time.Hour)}, "", t0.Add(1)},
		{"pending 24h+1s", CSR{CreationTimestamp: ago(24*time.Hour + time.Second)}, CSRPendingPastDeadline, time.Time{}},
		{"approved recently, certificate expired", CSR{Conditions: approved(ago(time.Minute)), Certificate: expired}, CSRIssuedExpired, time.Time{}},
		{"approved recently, certificate valid: next is the earlier of approval+1h and NotAfter", CSR{Conditions: approved(ago(30 * time.Minute)), Certificate: valid},
			"", t0.Add(30*time.Minute + 1)},
		{"unparseable certificate never expires", CSR{Conditions: approved(ago(time.Minute)), Certificate: []byte("not pem")}, "", t0.Add(59*time.Minute + 1)},
		{"issued but not approved: no rule", CSR{Conditions: []CSRCondition{{Type: "Other", LastUpdateTime: ago(time.Hour * 48)}}, Certificate: expired}, "", time.Time{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.csr.Name = "csr"
			p := PlanCSRCleanup(t0, []CSR{c.csr})
			var reason CSRReason
			if len(p.Delete) == 1 {
				reason = p.Delete[0].Reason
				if p.Delete[0].Message == "" {
					t.Error("no message")
				}
			}
			if reason != c.reason || !p.Next.Equal(c.next) {
				t.Errorf("reason %q next %v, want %q %v", reason, p.Next, c.reason, c.next)
			}
		})
	}
}

func TestCertificateNotAfter(t *testing.T) {
	at := t0.Add(time.Hour).Truncate(time.Second)
	got, ok := CertificateNotAfter(certPEM(t, at))
	if !ok || !got.Equal(at) {
		t.Errorf("%v %v", got, ok)
	}
	for _, bad := range [][]byte{nil, []byte("x"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2}})} {
		if _, ok := CertificateNotAfter(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestPlanNodeLeases(t *testing.T) {
	owner := func(name, uid string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: types.UID(uid)}}
	}
	nodes := []NodeRef{{Name: "alive", UID: "u1"}, {Name: "reused", UID: "new"}, {Name: "ownerless-alive", UID: "u3"}}
	leases := []NodeLease{
		{Name: "alive", OwnerReferences: owner("alive", "u1")},
		{Name: "reused", OwnerReferences: owner("reused", "old")},
		{Name: "deleted", OwnerReferences: owner("deleted", "u9")},
		{Name: "ownerless-stale", RenewTime: ptr(ago(2 * time.Hour))},
		{Name: "ownerless-fresh", RenewTime: ptr(ago(time.Minute))},
		{Name: "ownerless-alive", RenewTime: ptr(ago(2 * time.Hour))},
		{Name: "other-owner", OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "x", UID: "d"}}},
	}
	type dec struct {
		Name   string
		Reason NodeLeaseReason
	}
	decs := func(ds []NodeLeaseDecision) []dec {
		var out []dec
		for _, d := range ds {
			out = append(out, dec{d.Lease.Name, d.Reason})
		}
		return out
	}
	// Upstream: only owner references count.
	p := PlanNodeLeases(t0, NodeLeaseConfig{}, leases, nodes)
	if d := cmp.Diff([]dec{{"deleted", NodeLeaseOwnerGone}, {"reused", NodeLeaseOwnerGone}}, decs(p.Delete)); d != "" {
		t.Errorf("delete (-want +got):\n%s", d)
	}
	if len(p.Keep) != 5 || !p.Next.IsZero() {
		t.Errorf("keep %v next %v", decs(p.Keep), p.Next)
	}
	// OwnerlessAfter 1h: the stale ownerless lease of a missing node goes too.
	p = PlanNodeLeases(t0, NodeLeaseConfig{OwnerlessAfter: time.Hour}, leases, nodes)
	want := []dec{{"deleted", NodeLeaseOwnerGone}, {"ownerless-stale", NodeLeaseNoOwner}, {"reused", NodeLeaseOwnerGone}}
	if d := cmp.Diff(want, decs(p.Delete)); d != "" {
		t.Errorf("OwnerlessAfter delete (-want +got):\n%s", d)
	}
	if !p.Next.Equal(ago(time.Minute).Add(time.Hour + 1)) {
		t.Errorf("next %v", p.Next)
	}
	wantKeep := []dec{{"alive", NodeLeaseOwnerExists}, {"other-owner", NodeLeaseOwnerUnverified}, {"ownerless-alive", NodeLeaseNoOwner}, {"ownerless-fresh", NodeLeaseNoOwner}}
	if d := cmp.Diff(wantKeep, decs(p.Keep)); d != "" {
		t.Errorf("keep (-want +got):\n%s", d)
	}
}

package gc

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"time"
)

// CSR cleaner constants (kube-controller-manager's csrcleaner).
const (
	// CSRPollingInterval is how often the cleaner lists every CSR.
	CSRPollingInterval = time.Hour
	// CSRApprovedExpiration is how long an approved and issued CSR is kept
	// after its Approved condition was last updated.
	CSRApprovedExpiration = time.Hour
	// CSRDeniedExpiration is how long a denied or failed CSR is kept after
	// that condition was last updated.
	CSRDeniedExpiration = time.Hour
	// CSRPendingExpiration is how long a CSR without any condition is
	// kept after its creation.
	CSRPendingExpiration = 24 * time.Hour
)

// CSR condition types, as certificates/v1.
const (
	CSRApproved = "Approved"
	CSRDenied   = "Denied"
	CSRFailed   = "Failed"
)

// CSRCondition is a condition of a CertificateSigningRequest's status.
type CSRCondition struct {
	// Type is CSRApproved, CSRDenied or CSRFailed. The cleaner does not
	// look at the condition's status, as upstream.
	Type string
	// LastUpdateTime is the condition's lastUpdateTime; zero never
	// expires.
	LastUpdateTime time.Time
}

// CSR is what the CSR cleaner looks at in a CertificateSigningRequest.
type CSR struct {
	// Name is the CSR's name (CSRs are cluster-scoped).
	Name string
	// CreationTimestamp is metadata.creationTimestamp.
	CreationTimestamp time.Time
	// Conditions are status.conditions.
	Conditions []CSRCondition
	// Certificate is status.certificate, PEM; empty until issued.
	Certificate []byte
}

// CSRReason says which rule deletes a CSR, in the order the cleaner checks
// them.
type CSRReason string

// The CSR cleaner's rules.
const (
	// CSRIssuedPastDeadline: approved, issued, and the Approved condition
	// last updated more than an hour ago.
	CSRIssuedPastDeadline CSRReason = "IssuedPastDeadline"
	// CSRDeniedPastDeadline: a Denied condition last updated more than an
	// hour ago.
	CSRDeniedPastDeadline CSRReason = "DeniedPastDeadline"
	// CSRFailedPastDeadline: a Failed condition last updated more than an
	// hour ago.
	CSRFailedPastDeadline CSRReason = "FailedPastDeadline"
	// CSRPendingPastDeadline: no condition at all, created more than 24
	// hours ago.
	CSRPendingPastDeadline CSRReason = "PendingPastDeadline"
	// CSRIssuedExpired: approved, and the first certificate of the issued
	// PEM has a NotAfter before now.
	CSRIssuedExpired CSRReason = "IssuedExpired"
)

// CSRDeletion is one CSR to delete.
type CSRDeletion struct {
	// CSR is the CSR.
	CSR CSR
	// Reason is the first rule that matched.
	Reason CSRReason
	// Message says why, for a log line.
	Message string
}

// CSRPlan is one run of the CSR cleaner.
type CSRPlan struct {
	// Delete lists the CSRs to delete, by name.
	Delete []CSRDeletion
	// Next is the earliest time another of the given CSRs becomes due;
	// zero when none will. The cleaner itself lists every
	// CSRPollingInterval.
	Next time.Time
}

// PlanCSRCleanup is one run of the CSR cleaner at now. "Older than d" is
// strict, as upstream: a time t is past the deadline when now - t > d, and
// a zero time never is. An Approved condition counts whatever its status.
// A certificate that does not parse never expires. An approved CSR that
// was never issued is kept forever, as upstream.
func PlanCSRCleanup(now time.Time, csrs []CSR) CSRPlan {
	var p CSRPlan
	for _, c := range csrs {
		reason, msg, due := csrDue(&c, now)
		if reason != "" {
			p.Delete = append(p.Delete, CSRDeletion{CSR: c, Reason: reason, Message: msg})
			continue
		}
		if !due.IsZero() && (p.Next.IsZero() || due.Before(p.Next)) {
			p.Next = due
		}
	}
	slices.SortFunc(p.Delete, func(a, b CSRDeletion) int { return strings.Compare(a.CSR.Name, b.CSR.Name) })
	return p
}

// csrDue returns the first rule that deletes c at now with its message,
// or else the earliest time one will (zero if none will).
func csrDue(c *CSR, now time.Time) (CSRReason, string, time.Time) {
	var next time.Time
	// check reports whether t + d has passed; otherwise it notes when it
	// will.
	check := func(t time.Time, d time.Duration) bool {
		if t.IsZero() {
			return false
		}
		if now.Sub(t) > d {
			return true
		}
		if due := t.Add(d + 1); next.IsZero() || due.Before(next) {
			next = due
		}
		return false
	}
	issued := len(c.Certificate) > 0
	for _, cond := range c.Conditions {
		if cond.Type == CSRApproved && issued && check(cond.LastUpdateTime, CSRApprovedExpiration) {
			return CSRIssuedPastDeadline, fmt.Sprintf("approved and issued more than %v ago", CSRApprovedExpiration), time.Time{}
		}
	}
	for _, cond := range c.Conditions {
		if cond.Type == CSRDenied && check(cond.LastUpdateTime, CSRDeniedExpiration) {
			return CSRDeniedPastDeadline, fmt.Sprintf("denied more than %v ago", CSRDeniedExpiration), time.Time{}
		}
	}
	for _, cond := range c.Conditions {
		if cond.Type == CSRFailed && check(cond.LastUpdateTime, CSRDeniedExpiration) {
			return CSRFailedPastDeadline, fmt.Sprintf("failed more than %v ago", CSRDeniedExpiration), time.Time{}
		}
	}
	if len(c.Conditions) == 0 && check(c.CreationTimestamp, CSRPendingExpiration) {
		return CSRPendingPastDeadline, fmt.Sprintf("pending (no condition) for more than %v", CSRPendingExpiration), time.Time{}
	}
	if issued && slices.ContainsFunc(c.Conditions, func(cond CSRCondition) bool { return cond.Type == CSRApproved }) {
		if notAfter, ok := CertificateNotAfter(c.Certificate); ok {
			if now.After(notAfter) {
				return CSRIssuedExpired, fmt.Sprintf("its certificate expired at %s", notAfter.UTC().Format(time.RFC3339)), time.Time{}
			}
			if due := notAfter.Add(1); next.IsZero() || due.Before(next) {
				next = due
			}
		}
	}
	return "", "", next
}

// CertificateNotAfter returns the NotAfter of the first certificate in the
// first PEM block of pemBytes, and false when there is none or it does
// not parse (which the CSR cleaner treats as not expired).
func CertificateNotAfter(pemBytes []byte) (time.Time, bool) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return time.Time{}, false
	}
	certs, err := x509.ParseCertificates(block.Bytes)
	if err != nil || len(certs) == 0 {
		return time.Time{}, false
	}
	return certs[0].NotAfter, true
}

package lease

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// API server identity leases (pkg/controlplane/apiserver, KEP-1965).
const (
	// IdentityLeaseNamespace is where identity leases live.
	IdentityLeaseNamespace = "kube-system"
	// IdentityLeaseComponentLabelKey labels identity leases with the
	// component, "kube-apiserver"; the garbage collector lists leases by it.
	IdentityLeaseComponentLabelKey = "apiserver.kubernetes.io/identity"
	// LegacyIdentityLeaseComponentLabelKey is the label earlier releases
	// used (k8s.io/component=kube-apiserver), as the seed's example shows.
	LegacyIdentityLeaseComponentLabelKey = "k8s.io/component"
	// IdentityLeaseComponent is the label value and the component name
	// hashed into the lease name.
	IdentityLeaseComponent = "kube-apiserver"
	// HostnameLabelKey carries the API server's hostname.
	HostnameLabelKey = "kubernetes.io/hostname"
	// IdentityLeaseDurationSeconds is an identity lease's duration.
	IdentityLeaseDurationSeconds int32 = 3600
	// IdentityLeaseRenewInterval is how often an API server renews it.
	IdentityLeaseRenewInterval = 10 * time.Second
	// IdentityLeaseGCPeriod is how often expired identity leases are
	// deleted, so a dead server's lease goes 1 to 2 hours after its last
	// renewal.
	IdentityLeaseGCPeriod = 3600 * time.Second
)

// lowerBase32 is the standard base32 alphabet in lower case, unpadded.
var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// IdentityLeaseName returns the name of the identity lease of the API
// server on hostname, as current upstream derives it: "apiserver-" and the
// lower-case, unpadded base32 of the first 16 bytes of the SHA-256 of the
// hostname and "kube-apiserver", each preceded by its length as a
// big-endian uint16. The name is always 36 characters. A hostname longer
// than 65535 bytes is hashed with its length truncated to 16 bits, where
// upstream's builder would fail.
func IdentityLeaseName(hostname string) string {
	h := sha256.New()
	var n [2]byte
	for _, s := range [...]string{hostname, IdentityLeaseComponent} {
		binary.BigEndian.PutUint16(n[:], uint16(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var sum [sha256.Size]byte
	return "apiserver-" + lowerBase32.EncodeToString(h.Sum(sum[:0])[:16])
}

// LegacyIdentityLeaseName returns the name earlier releases gave the
// identity lease, as the seed documents it: "kube-apiserver-" and the
// lower-case, unpadded base32 of the first 16 bytes of the SHA-256 of the
// hostname alone. "kind-control-plane" gives
// "kube-apiserver-c4vwjftbvpc5os2vvzle4qg27a".
func LegacyIdentityLeaseName(hostname string) string {
	sum := sha256.Sum256([]byte(hostname))
	return "kube-apiserver-" + lowerBase32.EncodeToString(sum[:16])
}

// IdentityHolder returns an identity lease's holder identity,
// "<leaseName>_<uuid>"; the UUID is new at every API server start, and the
// caller supplies it.
func IdentityHolder(leaseName, uuid string) string { return leaseName + "_" + uuid }

// IdentityLabels returns the labels of an identity lease: the component
// label (the legacy key when legacy is true) and the hostname.
func IdentityLabels(hostname string, legacy bool) map[string]string {
	key := IdentityLeaseComponentLabelKey
	if legacy {
		key = LegacyIdentityLeaseComponentLabelKey
	}
	return map[string]string{key: IdentityLeaseComponent, HostnameLabelKey: hostname}
}

// IdentityLease returns the identity lease an API server on hostname writes
// at now, with holder identity built from uuid.
func IdentityLease(now time.Time, hostname, uuid string) Lease {
	name := IdentityLeaseName(hostname)
	return Lease{
		Namespace:            IdentityLeaseNamespace,
		Name:                 name,
		Labels:               IdentityLabels(hostname, false),
		HolderIdentity:       ptrTo(IdentityHolder(name, uuid)),
		LeaseDurationSeconds: ptrTo(IdentityLeaseDurationSeconds),
		RenewTime:            ptrTo(now),
	}
}

// GCDecision is the identity lease collector's verdict on one lease.
type GCDecision struct {
	// Lease is the lease.
	Lease Lease
	// Delete is true for an expired lease. Upstream fetches the lease again
	// before deleting it and deletes only if it is still expired; a
	// NotFound then is fine (another API server collected it).
	Delete bool
	// Reason is "NoRenewTime", "NoLeaseDuration", "Expired" or "Live".
	Reason string
}

// PlanIdentityLeaseGC decides, at now, which identity leases to delete:
// among the leases in kube-system labelled
// apiserver.kubernetes.io/identity=kube-apiserver (others are not looked
// at, as upstream lists by that selector), those without renewTime, without
// leaseDurationSeconds, or whose renewTime + duration is before now. The
// decisions are sorted by lease name; the input is not modified.
func PlanIdentityLeaseGC(now time.Time, leases []Lease) []GCDecision {
	var out []GCDecision
	for _, l := range leases {
		if l.Namespace != IdentityLeaseNamespace || l.Labels[IdentityLeaseComponentLabelKey] != IdentityLeaseComponent {
			continue
		}
		d := GCDecision{Lease: l, Delete: true}
		switch {
		case l.RenewTime == nil:
			d.Reason = "NoRenewTime"
		case l.LeaseDurationSeconds == nil:
			d.Reason = "NoLeaseDuration"
		case l.Expired(now):
			d.Reason = "Expired"
		default:
			d.Delete, d.Reason = false, "Live"
		}
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b GCDecision) int { return strings.Compare(a.Lease.Name, b.Lease.Name) })
	return out
}

// WorkloadLeaseName returns a lease name for one instance of a workload,
// following the seed's advice: a name obviously linked to the product
// (prefix) plus a short hash of the instance (for example the namespace and
// name of the Deployment), so that several instances do not collide:
// prefix + "-" + the first 10 characters of the lower-case base32 SHA-256
// of instance (50 bits). The result must be a DNS subdomain; otherwise an
// error wrapping ErrInvalidName names the problem.
func WorkloadLeaseName(prefix, instance string) (string, error) {
	if prefix == "" {
		return "", wrap(ErrInvalidName, "empty prefix")
	}
	sum := sha256.Sum256([]byte(instance))
	name := prefix + "-" + lowerBase32.EncodeToString(sum[:])[:10]
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", wrap(ErrInvalidName, fmt.Sprintf("%q (prefix %q): %s", name, prefix, strings.Join(errs, "; ")))
	}
	return name, nil
}

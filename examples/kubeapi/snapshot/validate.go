package snapshot

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The checks below refuse what the API server would never have stored,
// in the API server's words ("metadata.name: Invalid value: ...: a
// lowercase RFC 1123 subdomain must consist of ..."): names that are not
// DNS subdomains (or, for a namespace, labels), invalid UTF-8 among them
// (JSON decoding turns it into U+FFFD, which no DNS name holds), and
// negative quantities in a node's capacity and allocatable and a pod's
// requests, limits and overhead. They also refuse quantities too large to
// compute with (at least 2^63-1 bytes, or millicores for cpu: "1e1000",
// "99999999999999999999999999Ei"), which the API server takes but no
// replay could use. A read leaves such an object out with a warning that
// names it and every field path, and counts it in Snapshot.Refused.

// maxValue and maxMilli are the first quantities too large to compute
// with, in units and in thousandths.
func maxValue() resource.Quantity { return *resource.NewQuantity(math.MaxInt64, resource.DecimalSI) }
func maxMilli() resource.Quantity {
	return *resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)
}

// checkName adds an error for a name that is not a DNS subdomain (or, with
// label, a DNS label).
func checkName(errs []string, path *field.Path, name string, label bool) []string {
	check := validation.IsDNS1123Subdomain
	if label {
		check = validation.IsDNS1123Label
	}
	for _, msg := range check(name) {
		errs = append(errs, field.Invalid(path, name, msg).Error())
	}
	return errs
}

// checkList adds an error for every negative or too large quantity of l,
// resources in name order, each quantity as the input wrote it: raw finds
// the list's JSON in the item (called only when a quantity is bad).
func checkList(errs []string, path *field.Path, l corev1.ResourceList, raw func() []byte) []string {
	bad := false
	for name, q := range l {
		bad = bad || !quantityOK(string(name), &q)
	}
	if !bad {
		return errs // without allocating: most lists are fine
	}
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, string(name))
	}
	slices.Sort(names)
	list := raw()
	for _, name := range names {
		q := l[corev1.ResourceName(name)]
		written := asWritten(jsonAt(list, name), q.String())
		limit := maxValue()
		if name == string(corev1.ResourceCPU) {
			limit = maxMilli()
		}
		switch {
		case q.Sign() < 0:
			errs = append(errs, field.Invalid(path.Key(name), written, "must be greater than or equal to 0").Error())
		case q.Cmp(limit) >= 0:
			errs = append(errs, field.Invalid(path.Key(name), written, "must be less than 2^63-1 bytes (millicores for cpu): too large to compute with").Error())
		}
	}
	return errs
}

// quantityOK reports whether q is neither negative nor too large.
func quantityOK(name string, q *resource.Quantity) bool {
	limit := maxValue()
	if name == string(corev1.ResourceCPU) {
		limit = maxMilli()
	}
	return q.Sign() >= 0 && q.Cmp(limit) < 0
}

// nodeErrors lists what the API server (or the replay's arithmetic) would
// refuse in n, read from raw.
func nodeErrors(n *corev1.Node, raw []byte) []string {
	errs := checkName(nil, field.NewPath("metadata", "name"), n.Name, false)
	errs = checkList(errs, field.NewPath("status", "capacity"), n.Status.Capacity, at(raw, "status", "capacity"))
	return checkList(errs, field.NewPath("status", "allocatable"), n.Status.Allocatable, at(raw, "status", "allocatable"))
}

// podErrors lists what the API server (or the replay's arithmetic) would
// refuse in p, read from raw.
func podErrors(p *corev1.Pod, raw []byte) []string {
	errs := checkName(nil, field.NewPath("metadata", "name"), p.Name, false)
	if p.Namespace != "" {
		errs = checkName(errs, field.NewPath("metadata", "namespace"), p.Namespace, true)
	}
	if p.Spec.NodeName != "" {
		errs = checkName(errs, field.NewPath("spec", "nodeName"), p.Spec.NodeName, false)
	}
	for _, group := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", p.Spec.InitContainers}, {"containers", p.Spec.Containers}} {
		for i, c := range group.cs {
			res := field.NewPath("spec", group.name).Index(i).Child("resources")
			errs = checkList(errs, res.Child("requests"), c.Resources.Requests, at(raw, "spec", group.name, i, "resources", "requests"))
			errs = checkList(errs, res.Child("limits"), c.Resources.Limits, at(raw, "spec", group.name, i, "resources", "limits"))
		}
	}
	errs = checkList(errs, field.NewPath("spec", "overhead"), p.Spec.Overhead, at(raw, "spec", "overhead"))
	if r := p.Spec.Resources; r != nil {
		errs = checkList(errs, field.NewPath("spec", "resources", "requests"), r.Requests, at(raw, "spec", "resources", "requests"))
		errs = checkList(errs, field.NewPath("spec", "resources", "limits"), r.Limits, at(raw, "spec", "resources", "limits"))
	}
	return errs
}

// leaseErrors lists what the API server would refuse in l (its
// ValidateLease): a name that is not a DNS subdomain, a namespace that is
// not a DNS label, a duration not above 0, a negative count of
// transitions.
func leaseErrors(l *coordinationv1.Lease) []string {
	errs := checkName(nil, field.NewPath("metadata", "name"), l.Name, false)
	if l.Namespace != "" {
		errs = checkName(errs, field.NewPath("metadata", "namespace"), l.Namespace, true)
	}
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "leaseDurationSeconds"), *d, "must be greater than 0").Error())
	}
	if n := l.Spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "leaseTransitions"), *n, "must be greater than or equal to 0").Error())
	}
	return errs
}

// The bounds of what a lease that the API server stores can plausibly
// hold: no Kubernetes component writes a lease longer than an hour (node
// leases 40 s by default, leader election 15 s, kube-apiserver's identity
// leases 3600 s), and no clock of a cluster reads a time before
// Kubernetes' first commit or from 2100 on.
const maxLeaseSeconds = 24 * 60 * 60

var (
	firstPlausible = time.Date(2014, 6, 6, 0, 0, 0, 0, time.UTC)
	lastPlausible  = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// leaseNotes words what l holds that the API server stores but no cluster
// writes: a duration above a day, a renew or acquire time before
// 2014-06-06 or from 2100 on; each as the input wrote it (raw). The lease
// is kept: its node's timeline is the snapshot's as written.
func leaseNotes(l *coordinationv1.Lease, raw []byte) []string {
	var notes []string
	name := "lease " + l.Namespace + "/" + l.Name
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d > maxLeaseSeconds {
		notes = append(notes, fmt.Sprintf("%s: spec.leaseDurationSeconds %s is %s, longer than any lease a cluster writes (a day at most; a node's is 40 s by default); kept as written",
			name, asWritten(jsonAt(raw, "spec", "leaseDurationSeconds"), strconv.Itoa(int(*d))), time.Duration(*d)*time.Second))
	}
	for _, f := range []struct {
		key string
		t   *metav1.MicroTime
	}{{"renewTime", l.Spec.RenewTime}, {"acquireTime", l.Spec.AcquireTime}} {
		if f.t == nil || f.t.IsZero() {
			continue
		}
		if t := f.t.UTC(); t.Before(firstPlausible) || !t.Before(lastPlausible) {
			notes = append(notes, fmt.Sprintf("%s: spec.%s %q is outside any cluster's clock (before 2014-06-06 or from 2100 on); kept as written",
				name, f.key, asWritten(jsonAt(raw, "spec", f.key), t.Format(time.RFC3339Nano))))
		}
	}
	return notes
}

// at is a func finding path in raw (jsonAt), for checkList.
func at(raw []byte, path ...any) func() []byte {
	return func() []byte { return jsonAt(raw, path...) }
}

// jsonAt returns the JSON value at path in data, each step a member's key
// (the last match, as encoding/json takes it, case-insensitive as it
// matches) or an array index; nil when there is none.
func jsonAt(data []byte, path ...any) []byte {
	for _, step := range path {
		i := skipSpace(data, 0)
		if i >= len(data) {
			return nil
		}
		var found []byte
		switch step := step.(type) {
		case string:
			if data[i] != '{' {
				return nil
			}
			for i = skipSpace(data, i+1); i < len(data) && data[i] == '"'; {
				end := skipValue(data, i)
				if end < 0 {
					return nil
				}
				var key string
				_ = json.Unmarshal(data[i:end], &key)
				i = skipSpace(data, end)
				if i >= len(data) || data[i] != ':' {
					return nil
				}
				i = skipSpace(data, i+1)
				vend := skipValue(data, i)
				if vend < 0 {
					return nil
				}
				if strings.EqualFold(key, step) {
					found = data[i:vend]
				}
				if i = skipSpace(data, vend); i < len(data) && data[i] == ',' {
					i = skipSpace(data, i+1)
				}
			}
		case int:
			if data[i] != '[' {
				return nil
			}
			i = skipSpace(data, i+1)
			for n := 0; i < len(data) && data[i] != ']'; n++ {
				end := skipValue(data, i)
				if end < 0 {
					return nil
				}
				if n == step {
					found = data[i:end]
					break
				}
				if i = skipSpace(data, end); i < len(data) && data[i] == ',' {
					i = skipSpace(data, i+1)
				}
			}
		}
		if found == nil {
			return nil
		}
		data = found
	}
	return data
}

// asWritten is a JSON value as the input wrote it: a string's text, or a
// number's; def when there is none.
func asWritten(raw []byte, def string) string {
	var s string
	switch {
	case len(raw) == 0:
		return def
	case raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
		return s
	}
	return string(raw)
}

// refusal is the warning for an object left out: "node n-1 left out, as
// the API server would refuse it: metadata.name: ...; status...".
func refusal(kind, name string, errs []string) string {
	return kind + " " + name + " left out, as the API server would refuse it: " + strings.Join(errs, "; ")
}

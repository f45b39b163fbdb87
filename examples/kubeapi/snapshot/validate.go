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
// label, a DNS label), at the field path names.
func checkName(errs []string, name string, label bool, path ...string) []string {
	if plainDNS(name, label) {
		return errs // the common case, without a regular expression or a path
	}
	check := validation.IsDNS1123Subdomain
	if label {
		check = validation.IsDNS1123Label
	}
	for _, msg := range check(name) {
		errs = append(errs, field.Invalid(field.NewPath(path[0], path[1:]...), name, msg).Error())
	}
	return errs
}

// plainDNS reports whether name is a DNS subdomain (RFC 1123: at most 253
// bytes, dot-separated labels of lowercase letters, digits and inner
// hyphens) or, with label, a DNS label (at most 63 bytes, no dot), as
// validation.IsDNS1123Subdomain and IsDNS1123Label accept them; it is
// their answer for the names that pass, without their regular expression
// (FuzzPlainDNS holds it to theirs).
func plainDNS(name string, label bool) bool {
	limit := validation.DNS1123SubdomainMaxLength
	if label {
		limit = validation.DNS1123LabelMaxLength
	}
	if len(name) == 0 || len(name) > limit {
		return false
	}
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	start := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '.' {
			if c := name[i]; !alnum(c) && c != '-' {
				return false
			}
			continue
		}
		if i < len(name) && label {
			return false
		}
		if part := name[start:i]; len(part) == 0 || !alnum(part[0]) || !alnum(part[len(part)-1]) {
			return false
		}
		start = i + 1
	}
	return true
}

// checkList adds an error for every negative or too large quantity of l,
// resources in name order, each quantity as the input wrote it: path
// makes the list's field path and raw finds its JSON in the item (each
// called only when a quantity is bad).
func checkList(errs []string, path func() *field.Path, l corev1.ResourceList, raw func() []byte) []string {
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
	list, at := raw(), path()
	for _, name := range names {
		q := l[corev1.ResourceName(name)]
		written := asWritten(jsonAt(list, name), q.String())
		limit := maxValue()
		if name == string(corev1.ResourceCPU) {
			limit = maxMilli()
		}
		switch {
		case q.Sign() < 0:
			errs = append(errs, field.Invalid(at.Key(name), written, "must be greater than or equal to 0").Error())
		case q.Cmp(limit) >= 0:
			errs = append(errs, field.Invalid(at.Key(name), written, "must be less than 2^63-1 bytes (millicores for cpu): too large to compute with").Error())
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
	errs := checkName(nil, n.Name, false, "metadata", "name")
	errs = checkList(errs, func() *field.Path { return field.NewPath("status", "capacity") }, n.Status.Capacity,
		func() []byte { return jsonAt(raw, "status", "capacity") })
	return checkList(errs, func() *field.Path { return field.NewPath("status", "allocatable") }, n.Status.Allocatable,
		func() []byte { return jsonAt(raw, "status", "allocatable") })
}

// podErrors lists what the API server (or the replay's arithmetic) would
// refuse in p, read from raw. Paths and JSON are looked up only for an
// error: a million pods are checked without allocating.
func podErrors(p *corev1.Pod, raw []byte) []string {
	errs := checkName(nil, p.Name, false, "metadata", "name")
	if p.Namespace != "" {
		errs = checkName(errs, p.Namespace, true, "metadata", "namespace")
	}
	if p.Spec.NodeName != "" {
		errs = checkName(errs, p.Spec.NodeName, false, "spec", "nodeName")
	}
	for _, group := range [2]struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", p.Spec.InitContainers}, {"containers", p.Spec.Containers}} {
		for i := range group.cs {
			res := &group.cs[i].Resources
			for _, part := range [2]struct {
				name string
				l    corev1.ResourceList
			}{{"requests", res.Requests}, {"limits", res.Limits}} {
				errs = checkList(errs, func() *field.Path { return field.NewPath("spec", group.name).Index(i).Child("resources", part.name) }, part.l,
					func() []byte { return jsonAt(raw, "spec", group.name, i, "resources", part.name) })
			}
		}
	}
	errs = checkList(errs, func() *field.Path { return field.NewPath("spec", "overhead") }, p.Spec.Overhead,
		func() []byte { return jsonAt(raw, "spec", "overhead") })
	if r := p.Spec.Resources; r != nil {
		errs = checkList(errs, func() *field.Path { return field.NewPath("spec", "resources", "requests") }, r.Requests,
			func() []byte { return jsonAt(raw, "spec", "resources", "requests") })
		errs = checkList(errs, func() *field.Path { return field.NewPath("spec", "resources", "limits") }, r.Limits,
			func() []byte { return jsonAt(raw, "spec", "resources", "limits") })
	}
	return errs
}

// leaseErrors lists what the API server would refuse in l (its
// ValidateLease): a name that is not a DNS subdomain, a namespace that is
// not a DNS label, a duration not above 0, a negative count of
// transitions.
func leaseErrors(l *coordinationv1.Lease) []string {
	errs := checkName(nil, l.Name, false, "metadata", "name")
	if l.Namespace != "" {
		errs = checkName(errs, l.Namespace, true, "metadata", "namespace")
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

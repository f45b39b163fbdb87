package snapshot

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
// resources in name order.
func checkList(errs []string, path *field.Path, l corev1.ResourceList) []string {
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
	for _, name := range names {
		q := l[corev1.ResourceName(name)]
		limit := maxValue()
		if name == string(corev1.ResourceCPU) {
			limit = maxMilli()
		}
		switch {
		case q.Sign() < 0:
			errs = append(errs, field.Invalid(path.Key(name), q.String(), "must be greater than or equal to 0").Error())
		case q.Cmp(limit) >= 0:
			errs = append(errs, field.Invalid(path.Key(name), q.String(), "must be less than 2^63-1 bytes (millicores for cpu): too large to compute with").Error())
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
// refuse in n.
func nodeErrors(n *corev1.Node) []string {
	errs := checkName(nil, field.NewPath("metadata", "name"), n.Name, false)
	errs = checkList(errs, field.NewPath("status", "capacity"), n.Status.Capacity)
	return checkList(errs, field.NewPath("status", "allocatable"), n.Status.Allocatable)
}

// podErrors lists what the API server (or the replay's arithmetic) would
// refuse in p.
func podErrors(p *corev1.Pod) []string {
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
			errs = checkList(errs, res.Child("requests"), c.Resources.Requests)
			errs = checkList(errs, res.Child("limits"), c.Resources.Limits)
		}
	}
	errs = checkList(errs, field.NewPath("spec", "overhead"), p.Spec.Overhead)
	if r := p.Spec.Resources; r != nil {
		errs = checkList(errs, field.NewPath("spec", "resources", "requests"), r.Requests)
		errs = checkList(errs, field.NewPath("spec", "resources", "limits"), r.Limits)
	}
	return errs
}

// refusal is the warning for an object left out: "node n-1 left out, as
// the API server would refuse it: metadata.name: ...; status...".
func refusal(kind, name string, errs []string) string {
	return kind + " " + name + " left out, as the API server would refuse it: " + strings.Join(errs, "; ")
}

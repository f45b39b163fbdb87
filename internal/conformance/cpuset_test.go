package conformance

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	upstream "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/topology/cpuset"
)

// randomCPUList draws a CPU list as a user or a checkpoint could hold it:
// mostly well-formed elements and ranges on a few hundred CPUs, at times
// an ID near or above the limit, a sign, a leading zero, an empty or
// reversed element, a space or a letter.
func randomCPUList(r *rand.Rand) string {
	if r.Intn(20) == 0 {
		return ""
	}
	id := func() string {
		switch r.Intn(40) {
		case 0:
			return fmt.Sprint(cpuset.MaxCPU - r.Intn(3))
		case 1:
			return fmt.Sprint(cpuset.MaxCPU + 1 + r.Intn(5000))
		case 2:
			return "+" + fmt.Sprint(r.Intn(300))
		case 3:
			return "0" + fmt.Sprint(r.Intn(300))
		case 4:
			return []string{"", "-0", "-3", " 1", "x", "1_0"}[r.Intn(6)]
		}
		return fmt.Sprint(r.Intn(300))
	}
	var elems []string
	for n := 1 + r.Intn(6); n > 0; n-- {
		if r.Intn(3) == 0 {
			elems = append(elems, id()+"-"+id())
			continue
		}
		elems = append(elems, id())
	}
	return strings.Join(elems, ",")
}

// TestDifferentialCPUSet compares cpuset.Parse, String and the set
// operations with k8s.io/utils/cpuset's, which the kubelet uses.
func TestDifferentialCPUSet(t *testing.T) {
	c := compare(t, "cpuset.Parse, String, Union, Intersection, Difference, IsSubsetOf, Equals, Size", "k8s.io/utils/cpuset",
		"pairs of CPU lists: up to 6 elements or ranges on CPUs 0-299, at times IDs near or above 65535, signs, leading zeros, negative, empty, spaced or non-numeric elements")
	r := rand.New(rand.NewSource(38))
	for i := 0; i < inputs(t); i++ {
		x, y := randomCPUList(r), randomCPUList(r)
		a, err := cpuset.Parse(x)
		ua, uerr := upstream.Parse(x)
		b, errB := cpuset.Parse(y)
		ub, uerrB := upstream.Parse(y)
		switch {
		case (err == nil) != (uerr == nil) || (errB == nil) != (uerrB == nil):
			if (err != nil && uerr == nil && ua.Size() > 0 && maxOf(ua) > cpuset.MaxCPU) ||
				(errB != nil && uerrB == nil && ub.Size() > 0 && maxOf(ub) > cpuset.MaxCPU) {
				c.deviate("cpu-id-limit")
				continue
			}
			c.disagree("Parse(%q): %v, upstream %v; Parse(%q): %v, upstream %v", x, err, uerr, y, errB, uerrB)
			continue
		case err != nil || errB != nil:
			c.agree() // both refuse
			continue
		}
		var why []string
		pair := func(name, got, want string) {
			if got != want {
				why = append(why, fmt.Sprintf("%s: %q, upstream %q", name, got, want))
			}
		}
		pair("String", a.String(), ua.String())
		pair("Union", a.Union(b).String(), ua.Union(ub).String())
		pair("Intersection", a.Intersection(b).String(), ua.Intersection(ub).String())
		pair("Difference", a.Difference(b).String(), ua.Difference(ub).String())
		pair("IsSubsetOf", fmt.Sprint(a.IsSubsetOf(b)), fmt.Sprint(ua.IsSubsetOf(ub)))
		pair("Equals", fmt.Sprint(a.Equals(b)), fmt.Sprint(ua.Equals(ub)))
		pair("Size", fmt.Sprint(a.Size()), fmt.Sprint(ua.Size()))
		pair("List", fmt.Sprint(a.List()), fmt.Sprint(ua.List()))
		if len(why) > 0 {
			c.disagree("%q and %q: %s", x, y, strings.Join(why, "; "))
			continue
		}
		c.agree()
	}
}

// maxOf is the largest CPU of an upstream set.
func maxOf(s upstream.CPUSet) int {
	l := s.List()
	return l[len(l)-1]
}

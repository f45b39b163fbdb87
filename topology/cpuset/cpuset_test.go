package cpuset_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/topology/cpuset"
)

func mustParse(t *testing.T, s string) cpuset.CPUSet {
	t.Helper()
	c, err := cpuset.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return c
}

// k8s.io/utils/cpuset's TestParse, positive and negative cases as upstream
// states them, and the same for word boundaries and the ID limit.
func TestParseUpstream(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"5", []int{5}},
		{"1,2,3,4,5", []int{1, 2, 3, 4, 5}},
		{"1-5", []int{1, 2, 3, 4, 5}},
		{"1-2,3-5", []int{1, 2, 3, 4, 5}},
		{"5,4,3,2,1", []int{1, 2, 3, 4, 5}},  // range ordering
		{"3-6,1-5", []int{1, 2, 3, 4, 5, 6}}, // overlapping ranges
		{"3-3,5-5", []int{3, 5}},             // very short ranges
		// strconv.Atoi's signs, as upstream reads them
		{"+3", []int{3}},
		{"1-+3", []int{1, 2, 3}},
		// word boundaries
		{"63-64", []int{63, 64}},
		{"127,128,0", []int{0, 127, 128}},
		{"65535", []int{65535}},
	} {
		got := mustParse(t, c.in).List()
		if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("Parse(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	for _, in := range []string{
		// non-numeric entries
		"nonnumeric", "non-numeric", "no,numbers", "0-a", "a-0", "0,a", "a,0", "1-2,a,3-5",
		// incomplete sequences
		"0,", "0,,", ",3", ",,3", "0,,3",
		// incomplete ranges and/or negative numbers
		"-1", "1-", "1,2-,3", "1,-2,3", "-1--2", "--1", "1--",
		// reversed ranges
		"3-0", "0--3",
		// spaces, and IDs above the limit (nodelife's)
		" 1", "1 ", "1, 2", "65536", "0-65536", "99999999999999999999",
	} {
		s, err := cpuset.Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %q, want an error", in, s)
			continue
		}
		if !errors.Is(err, cpuset.ErrInvalid) {
			t.Errorf("Parse(%q): %v does not wrap ErrInvalid", in, err)
		}
	}
}

// The errors name the element at fault.
func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"1,2-,3":  `cpuset: invalid CPU list: "" in "2-" is not a CPU number`,
		"3-0":     `cpuset: invalid CPU list: range "3-0" goes down (3 > 0)`,
		"0-70000": `cpuset: invalid CPU list: CPU 70000 in "0-70000" is above 65535`,
		"0,x":     `cpuset: invalid CPU list: "x" in "x" is not a CPU number`,
	} {
		_, err := cpuset.Parse(in)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q): %v, want %s", in, err, want)
		}
	}
	if _, err := cpuset.New(3, -1); err == nil || err.Error() != "cpuset: invalid CPU list: CPU -1 is outside 0-65535" {
		t.Errorf("New(3, -1): %v", err)
	}
}

// k8s.io/utils/cpuset's TestCPUSetString, and runs across words.
func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"":               "",
		"5":              "5",
		"1,2,3,4,5":      "1-5",
		"1,2,3,5,6,8":    "1-3,5-6,8",
		"0-200":          "0-200",
		"63,64,66":       "63-64,66",
		"65530-65535,0":  "0,65530-65535",
		"8-11,0-3,12,13": "0-3,8-13",
	} {
		if got := mustParse(t, in).String(); got != want {
			t.Errorf("Parse(%q).String() = %q, want %q", in, got, want)
		}
	}
}

// k8s.io/utils/cpuset's tables for the set operations (Size, IsEmpty,
// Contains, Equals, IsSubsetOf, Union, Intersection, Difference), the sets
// written as lists.
func TestOperationsUpstream(t *testing.T) {
	p := func(s string) cpuset.CPUSet { return mustParse(t, s) }
	for _, c := range []struct {
		s    string
		size int
	}{{"", 0}, {"5", 1}, {"1-5", 5}} {
		if got := p(c.s).Size(); got != c.size {
			t.Errorf("Size(%q) = %d, want %d", c.s, got, c.size)
		}
		if got := p(c.s).IsEmpty(); got != (c.size == 0) {
			t.Errorf("IsEmpty(%q) = %v", c.s, got)
		}
	}
	for _, c := range []struct {
		s    string
		cpu  int
		want bool
	}{{"", 5, false}, {"5", 5, true}, {"1-5", 1, true}, {"1-5", 6, false}, {"1-5", -1, false}, {"64", 64, true}, {"64", 0, false}} {
		if got := p(c.s).Contains(c.cpu); got != c.want {
			t.Errorf("Contains(%q, %d) = %v", c.s, c.cpu, got)
		}
	}
	for _, c := range []struct {
		a, b          string
		equal, subset bool
	}{
		{"", "", true, true}, {"5", "5", true, true}, {"1-5", "1-5", true, true},
		{"", "5", false, true}, {"5", "", false, false}, {"5", "1-5", false, true}, {"1-3", "1-5", false, true},
		{"4-5", "1-5", false, true}, {"2-3", "1-5", false, true}, {"6", "5", false, false}, {"1-5", "1-3", false, false},
		{"100", "1-5", false, false}, {"1-5", "0-200", false, true},
	} {
		a, b := p(c.a), p(c.b)
		if got := a.Equals(b); got != c.equal {
			t.Errorf("Equals(%q, %q) = %v", c.a, c.b, got)
		}
		if got := a.IsSubsetOf(b); got != c.subset {
			t.Errorf("IsSubsetOf(%q, %q) = %v", c.a, c.b, got)
		}
	}
	for _, c := range []struct {
		a      string
		others []string
		want   string
	}{
		{"5", nil, "5"}, {"", []string{""}, ""}, {"", []string{"5"}, "5"}, {"5", []string{""}, "5"}, {"5", []string{"5"}, "5"},
		{"", []string{"1-5"}, "1-5"}, {"1-5", []string{""}, "1-5"}, {"5", []string{"1-5"}, "1-5"}, {"1-2", []string{"3-5"}, "1-5"},
		{"1-3", []string{"3-5"}, "1-5"}, {"", []string{"1-5", "4-5"}, "1-5"}, {"1-5", []string{"", "4"}, "1-5"},
		{"1-5", []string{"1-5", "1,5"}, "1-5"}, {"0", []string{"200", "64"}, "0,64,200"},
	} {
		var others []cpuset.CPUSet
		for _, o := range c.others {
			others = append(others, p(o))
		}
		if got := p(c.a).Union(others...).String(); got != c.want {
			t.Errorf("Union(%q, %q) = %q, want %q", c.a, c.others, got, c.want)
		}
	}
	for _, c := range []struct{ a, b, inter, diff string }{
		{"", "", "", ""}, {"", "5", "", ""}, {"5", "", "", "5"}, {"5", "5", "5", ""},
		{"", "1-5", "", ""}, {"1-5", "", "", "1-5"}, {"1-5", "1-5", "1-5", ""},
		{"5", "1-5", "5", ""}, {"1-5", "5", "5", "1-4"}, {"1-2", "3-5", "", "1-2"}, {"1-3", "3-5", "3", "1-2"},
		{"0-200", "64-127", "64-127", "0-63,128-200"}, {"200", "0-199", "", "200"},
	} {
		if got := p(c.a).Intersection(p(c.b)).String(); got != c.inter {
			t.Errorf("Intersection(%q, %q) = %q, want %q", c.a, c.b, got, c.inter)
		}
		if got := p(c.a).Difference(p(c.b)).String(); got != c.diff {
			t.Errorf("Difference(%q, %q) = %q, want %q", c.a, c.b, got, c.diff)
		}
	}
}

// Operations never change their operands, and results are canonical: a
// difference that empties the high words equals the set built directly.
func TestValueSemantics(t *testing.T) {
	a, b := mustParse(t, "0-3,130"), mustParse(t, "130")
	d := a.Difference(b)
	if !d.Equals(mustParse(t, "0-3")) || a.String() != "0-3,130" || b.String() != "130" {
		t.Errorf("Difference changed an operand or is not canonical: %v %v %v", a, b, d)
	}
	u := a.Union(b)
	if u.String() != "0-3,130" || !u.Equals(a) {
		t.Errorf("Union: %v", u)
	}
	var zero cpuset.CPUSet
	if !zero.Equals(mustParse(t, "")) || zero.String() != "" || zero.Next(0) != -1 || len(zero.List()) != 0 {
		t.Error("the zero value is not the empty set")
	}
	if got := cpuset.Range(5, 2); !got.IsEmpty() {
		t.Errorf("Range(5, 2) = %v", got)
	}
	if got := cpuset.Range(-3, 2).String(); got != "0-2" {
		t.Errorf("Range(-3, 2) = %v", got)
	}
	if got := cpuset.Range(65530, 70000).String(); got != "65530-65535" {
		t.Errorf("Range(65530, 70000) = %v", got)
	}
	if got := mustParse(t, "3,70,200").Next(71); got != 200 {
		t.Errorf("Next(71) = %d", got)
	}
	if got := mustParse(t, "3,70,200").Next(-5); got != 3 {
		t.Errorf("Next(-5) = %d", got)
	}
}

// naiveParse is upstream's grammar with a map, as plainly as it can be
// written: the reference FuzzParse compares Parse with.
func naiveParse(s string) (map[int]bool, bool) {
	out := map[int]bool{}
	if s == "" {
		return out, true
	}
	for _, elem := range strings.Split(s, ",") {
		parts := strings.SplitN(elem, "-", 2)
		nums := make([]int, len(parts))
		for i, p := range parts {
			// strconv.Atoi: an optional sign, then decimal digits
			neg := strings.HasPrefix(p, "-")
			digits := strings.TrimPrefix(strings.TrimPrefix(p, "+"), "-")
			if digits == "" || len(digits) < len(p)-1 {
				return nil, false
			}
			v := 0
			for _, r := range digits {
				if r < '0' || r > '9' {
					return nil, false
				}
				if v = v*10 + int(r-'0'); v > cpuset.MaxCPU {
					return nil, false // above the limit (upstream: any int)
				}
			}
			if neg && v != 0 {
				return nil, false // a negative end: the range goes down
			}
			nums[i] = v
		}
		lo, hi := nums[0], nums[len(nums)-1]
		if lo > hi {
			return nil, false
		}
		for c := lo; c <= hi; c++ {
			out[c] = true
		}
	}
	return out, true
}

// FuzzParse: Parse never panics, agrees with the naive parser, and what it
// parses prints canonically: Parse(String()) is the same set and String
// is ascending, without repeats or adjacent ranges.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "0", "0-3,8-11", "5,4,3", "3-0", "1,,2", "+3", "1-+3", "0-65535", "65536", "-1", "63-64", "0-1,2-3", "0--0", "007", "+-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := cpuset.Parse(s)
		want, ok := naiveParse(s)
		if (err == nil) != ok {
			t.Fatalf("Parse(%q): error %v, naive ok %v", s, err, ok)
		}
		if err != nil {
			return
		}
		if got.Size() != len(want) {
			t.Fatalf("Parse(%q) has %d CPUs, want %d", s, got.Size(), len(want))
		}
		for _, c := range got.List() {
			if !want[c] {
				t.Fatalf("Parse(%q) has %d", s, c)
			}
		}
		again, err := cpuset.Parse(got.String())
		if err != nil || !again.Equals(got) || again.String() != got.String() {
			t.Fatalf("Parse(%q).String() = %q does not read back: %v", s, got.String(), err)
		}
	})
}

// FuzzOperations: the set operations agree with the same operations on
// maps, on any two parsable lists.
func FuzzOperations(f *testing.F) {
	f.Add("0-3,8-11", "2-9")
	f.Add("", "5")
	f.Add("0-200", "64-127,300")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, err1 := cpuset.Parse(x)
		b, err2 := cpuset.Parse(y)
		if err1 != nil || err2 != nil || a.Size() > 4096 || b.Size() > 4096 {
			return
		}
		in := func(s cpuset.CPUSet) map[int]bool {
			m := map[int]bool{}
			for _, c := range s.List() {
				m[c] = true
			}
			return m
		}
		ma, mb := in(a), in(b)
		var union, inter, diff []int
		for c := 0; c <= cpuset.MaxCPU; c++ {
			if ma[c] || mb[c] {
				union = append(union, c)
			}
			if ma[c] && mb[c] {
				inter = append(inter, c)
			}
			if ma[c] && !mb[c] {
				diff = append(diff, c)
			}
		}
		eq := func(name string, got cpuset.CPUSet, want []int) {
			if !slices.Equal(got.List(), want) && !(got.IsEmpty() && len(want) == 0) {
				t.Fatalf("%s(%q, %q) = %v, want %v", name, x, y, got, want)
			}
		}
		eq("Union", a.Union(b), union)
		eq("Intersection", a.Intersection(b), inter)
		eq("Difference", a.Difference(b), diff)
		if got, want := a.IsSubsetOf(b), len(diff) == 0; got != want {
			t.Fatalf("IsSubsetOf(%q, %q) = %v", x, y, got)
		}
		if got, want := a.Equals(b), len(diff) == 0 && len(inter) == len(mb); got != want {
			t.Fatalf("Equals(%q, %q) = %v", x, y, got)
		}
	})
}

// Package cpuset is a set of logical CPU IDs, the kubelet's cpuset: the
// value the CPU Manager hands out, keeps in its checkpoint and writes to
// cgroups' cpuset.cpus, in the Linux list syntax ("0-3,8-11").
//
// It behaves as k8s.io/utils/cpuset, which the kubelet uses, with a
// bitset underneath: sets of a few hundred CPUs are a few words, and
// union, intersection, difference, size and subset tests are word
// operations, so allocation code can try many candidate sets cheaply.
//
// # Usage
//
//	s, err := cpuset.Parse("0-3,8-11")
//	free := s.Difference(reserved)
//	fmt.Println(free.Size(), free) // 6 2-3,8-11
//
// A CPUSet is a value: operations return new sets and never change their
// operands, and the zero value is the empty set.
//
// # Semantics
//
// Parse reads upstream's grammar exactly: "" is the empty set; otherwise
// comma-separated elements, each a CPU ID or a range "a-b" with a ≤ b
// (both ends included, "1-1" is 1), numbers as strconv.Atoi reads them (so
// "+3" is 3), no spaces, no empty element, repeats allowed. String prints
// the canonical form: ascending, runs of consecutive CPUs as ranges ("5"
// for a run of one), "" for the empty set; Parse(s.String()) == s.
//
// One deliberate difference: upstream accepts any CPU ID an int holds and
// stores each CPU of a range in a map, so "0-2000000000" makes it allocate
// gigabytes; here IDs above MaxCPU (65535, eight times Linux's largest
// NR_CPUS) are refused with an error naming the element.
package cpuset

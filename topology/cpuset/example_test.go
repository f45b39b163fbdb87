package cpuset_test

import (
	"fmt"

	"github.com/nodelife/nodelife/topology/cpuset"
)

// The CPUs left for exclusive allocation on a node with 12 CPUs when the
// kubelet reserves 0 and 6 (--reserved-cpus=0,6).
func Example() {
	all, _ := cpuset.Parse("0-11")
	reserved, _ := cpuset.Parse("0,6")
	free := all.Difference(reserved)
	fmt.Println(free, free.Size())
	fmt.Println(reserved.IsSubsetOf(all), free.Contains(6))
	// Output:
	// 1-5,7-11 10
	// true false
}

func ExampleParse() {
	s, err := cpuset.Parse("8-11,0-3,12")
	fmt.Println(s, err)
	_, err = cpuset.Parse("3-0")
	fmt.Println(err)
	// Output:
	// 0-3,8-12 <nil>
	// cpuset: invalid CPU list: range "3-0" goes down (3 > 0)
}

func ExampleNew() {
	s, _ := cpuset.New(5, 1, 2, 3)
	fmt.Println(s, s.List())
	// Output: 1-3,5 [1 2 3 5]
}

func ExampleRange() {
	fmt.Println(cpuset.Range(4, 7))
	// Output: 4-7
}

func ExampleCPUSet_Union() {
	a, _ := cpuset.Parse("0-1")
	b, _ := cpuset.Parse("4")
	c, _ := cpuset.Parse("2")
	fmt.Println(a.Union(b, c))
	// Output: 0-2,4
}

func ExampleCPUSet_Next() {
	s, _ := cpuset.Parse("3,70,200")
	for c := s.Next(0); c >= 0; c = s.Next(c + 1) {
		fmt.Print(c, " ")
	}
	fmt.Println()
	// Output: 3 70 200
}

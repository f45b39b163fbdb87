package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/core"
)

// podChunks keeps pods in order across chunk boundaries, truncates
// anywhere (inside a chunk, at a boundary, to nothing), and joins them
// into one slice after what is already there.
func TestPodChunks(t *testing.T) {
	var c podChunks
	n := 2*podChunkSize + 5
	for i := range n {
		c.add(core.Pod{Name: fmt.Sprint(i)})
	}
	if c.n != n || c.at(podChunkSize).Name != fmt.Sprint(podChunkSize) || c.at(n-1).Name != fmt.Sprint(n-1) {
		t.Fatalf("n %d, at(%d) %q", c.n, podChunkSize, c.at(podChunkSize).Name)
	}
	for _, keep := range []int{n, 2*podChunkSize + 1, 2 * podChunkSize, podChunkSize + 3, 0} {
		c.truncate(keep)
		if c.n != keep || (keep > 0 && c.at(keep-1).Name != fmt.Sprint(keep-1)) {
			t.Fatalf("truncate(%d): n %d", keep, c.n)
		}
		total := 0
		for _, ch := range c.chunks {
			total += len(ch)
		}
		if total != keep {
			t.Fatalf("truncate(%d): %d pods in the chunks", keep, total)
		}
	}
	for i := range podChunkSize + 1 {
		c.add(core.Pod{Name: fmt.Sprint("b", i)})
	}
	got := c.join([]core.Pod{{Name: "first"}})
	if len(got) != podChunkSize+2 || got[0].Name != "first" || got[1].Name != "b0" || got[len(got)-1].Name != fmt.Sprint("b", podChunkSize) || c.n != 0 || c.chunks != nil {
		t.Fatalf("join: %d pods, first %q, last %q", len(got), got[0].Name, got[len(got)-1].Name)
	}
}

// sorted orders the pods by namespace and name across chunks, keeping the
// order in which pods with the same namespace and name came (their UIDs
// say it), as a stable sort of one slice does; pods added in order come
// back as they were.
func TestPodChunksSorted(t *testing.T) {
	var c podChunks
	var want []core.Pod
	n := 2*podChunkSize + 5
	for i := range n {
		// names cycle backwards through 1,000 values in three namespaces,
		// so that each name comes many times, in two chunks or more
		p := core.Pod{Namespace: fmt.Sprint("ns-", i%3), Name: fmt.Sprintf("pod-%03d", 999-i%1000), UID: fmt.Sprint(i)}
		c.add(p)
		want = append(want, p)
	}
	slices.SortStableFunc(want, func(a, b core.Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	got := c.sorted()
	if len(got) != n || c.n != 0 || c.chunks != nil {
		t.Fatalf("%d pods, %d left in the chunks", len(got), c.n)
	}
	for i := range want {
		if got[i].Namespace != want[i].Namespace || got[i].Name != want[i].Name || got[i].UID != want[i].UID {
			t.Fatalf("pod %d: %s/%s %s, want %s/%s %s", i, got[i].Namespace, got[i].Name, got[i].UID, want[i].Namespace, want[i].Name, want[i].UID)
		}
	}
	for _, p := range want {
		c.add(p)
	}
	again := c.sorted()
	for i := range want {
		if again[i].UID != want[i].UID {
			t.Fatalf("sorted input, pod %d: %s, want %s", i, again[i].UID, want[i].UID)
		}
	}
}

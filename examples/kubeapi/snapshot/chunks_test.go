package snapshot

import (
	"fmt"
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

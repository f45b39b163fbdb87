package keys_test

import (
	"fmt"
	"testing"

	"github.com/nodelife/nodelife/internal/keys"
)

func TestSorted(t *testing.T) {
	if got := fmt.Sprint(keys.Sorted(map[string]int{"b": 1, "a": 2, "B": 3})); got != "[B a b]" {
		t.Fatalf("got %s", got)
	}
	if got := fmt.Sprint(keys.Sorted(map[int]bool{3: true, -1: false, 2: true})); got != "[-1 2 3]" {
		t.Fatalf("got %s", got)
	}
	if got := keys.Sorted(map[int]int(nil)); len(got) != 0 {
		t.Fatalf("nil map gave %v", got)
	}
}

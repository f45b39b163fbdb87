package minheap

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func lessInt(a, b *int) bool { return *a < *b }

// Popping everything pushed gives it back sorted, whatever the order of
// pushes and pops interleaved.
func TestPropertyHeapSorts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h []int
		var model []int
		for _, op := range rapid.SliceOf(rapid.IntRange(-5, 20)).Draw(t, "ops") {
			if op < 0 && len(h) > 0 {
				var got int
				got, h = Pop(h, lessInt)
				slices.Sort(model)
				if got != model[0] {
					t.Fatalf("popped %d, want %d", got, model[0])
				}
				model = model[1:]
				continue
			}
			h = Push(h, op, lessInt)
			model = append(model, op)
		}
		slices.Sort(model)
		for _, want := range model {
			var got int
			got, h = Pop(h, lessInt)
			if got != want {
				t.Fatalf("popped %d, want %d", got, want)
			}
		}
		if len(h) != 0 {
			t.Fatalf("%d left", len(h))
		}
	})
}

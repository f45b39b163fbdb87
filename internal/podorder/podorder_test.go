package podorder

import (
	"slices"
	"testing"
	"time"
)

func TestCompare(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keys := []Key{
		{Created: t0, Name: "b", Namespace: "x"},
		{Created: t0.Add(time.Second), Name: "a"},
		{Evicted: true, Created: t0.Add(time.Hour), Name: "z"},
		{Created: t0, Name: "b", Namespace: "a", UID: "2"},
		{Created: t0, Name: "b", Namespace: "a", UID: "1"},
		{Created: t0, Name: "a", Namespace: "z"},
	}
	slices.SortFunc(keys, Compare)
	var got []string
	for _, k := range keys {
		got = append(got, k.Name+"/"+k.Namespace+"/"+k.UID)
	}
	// Evicted first whatever its age; then oldest; then name, namespace, UID.
	want := []string{"z//", "a/z/", "b/a/1", "b/a/2", "b/x/", "a//"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestCompareIdentity(t *testing.T) {
	for _, tc := range []struct {
		a, b [3]string
		want int
	}{
		{[3]string{"a", "z", "z"}, [3]string{"b", "a", "a"}, -1},
		{[3]string{"a", "b", "a"}, [3]string{"a", "a", "z"}, 1},
		{[3]string{"a", "a", "1"}, [3]string{"a", "a", "2"}, -1},
		{[3]string{"a", "a", "1"}, [3]string{"a", "a", "1"}, 0},
	} {
		if got := CompareIdentity(tc.a[0], tc.a[1], tc.a[2], tc.b[0], tc.b[1], tc.b[2]); got != tc.want {
			t.Errorf("%v %v: %d", tc.a, tc.b, got)
		}
	}
}

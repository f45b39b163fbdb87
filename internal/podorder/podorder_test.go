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

package compact_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/internal/compact"
)

type inner struct {
	Q    resource.Quantity
	Seen bool
}

type named struct{ V int }

func (n named) GoString() string { return fmt.Sprintf("named(%d)", n.V) }

type sample struct {
	Name     string
	Seconds  *int64
	Unset    *int64
	Limits   map[string]resource.Quantity
	Inner    inner
	At       time.Time
	After    time.Duration
	Prefix   netip.Prefix
	Mask     uint64
	Rand     func() float64
	Items    []named
	Bytes    []byte
	Ratio    float64
	Any      any
	internal int
}

func TestSprint(t *testing.T) {
	secs := int64(300)
	v := sample{Name: "a", Seconds: &secs,
		Limits: map[string]resource.Quantity{"memory": resource.MustParse("1Gi"), "cpu": resource.MustParse("500m")},
		Inner:  inner{Q: resource.MustParse("2")}, At: time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC), After: 90 * time.Second,
		Prefix: netip.MustParsePrefix("10.0.0.0/24"), Mask: 6, Rand: func() float64 { return 0 }, Items: []named{{1}, {2}},
		Bytes: []byte("{}"), Ratio: 0.55, Any: &secs, internal: 7}
	want := `compact_test.sample{Name:"a" Seconds:300 Limits:{cpu:500m memory:1Gi} Inner:{Q:2} At:2026-01-01T00:00:05Z After:1m30s` +
		` Prefix:10.0.0.0/24 Mask:6 Rand:func Items:[named(1), named(2)] Bytes:"{}" Ratio:0.55 Any:300}`
	if got := compact.Sprint(v); got != want {
		t.Errorf("Sprint:\n got %s\nwant %s", got, want)
	}
	if got := compact.Sprint(&v); got != want {
		t.Errorf("Sprint of a pointer:\n got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "nil"},
		{sample{}, "compact_test.sample{}"},
		{[]int(nil), "nil"},
		{[]string{"x"}, `["x"]`},
		{map[int]bool{2: true, 1: false}, "{1:false 2:true}"},
		{named{3}, "compact_test.named{V:3}"}, // the top value field by field, so that GoString can call Sprint
		{(*sample)(nil), "nil"},
	} {
		if got := compact.Sprint(c.v); got != c.want {
			t.Errorf("Sprint(%T) = %s, want %s", c.v, got, c.want)
		}
	}
}

// A value that holds itself prints "…" where it repeats past the depth
// limit, instead of running forever.
func TestSprintCycle(t *testing.T) {
	type node struct {
		Name string
		Next *node
	}
	n := &node{Name: "n"}
	n.Next = n
	if got := compact.Sprint(n); len(got) > 2000 || got[len(got)-1] != '}' {
		t.Errorf("Sprint of a cycle: %s", got)
	}
}

func ExampleSprint() {
	secs := int64(300)
	type toleration struct {
		Key               string
		TolerationSeconds *int64
		Limit             resource.Quantity
	}
	fmt.Println(compact.Sprint(toleration{Key: "node.kubernetes.io/unreachable", TolerationSeconds: &secs, Limit: resource.MustParse("1Gi")}))
	// Output: compact_test.toleration{Key:"node.kubernetes.io/unreachable" TolerationSeconds:300 Limit:1Gi}
}

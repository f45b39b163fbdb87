package enum

import "testing"

type color int

func TestName(t *testing.T) {
	for _, c := range []struct {
		v    color
		want string
	}{{0, "red"}, {1, "green"}, {2, "color(2)"}, {-1, "color(-1)"}} {
		if got := Name(c.v, "color", "red", "green"); got != c.want {
			t.Errorf("Name(%d) = %q, want %q", c.v, got, c.want)
		}
	}
}

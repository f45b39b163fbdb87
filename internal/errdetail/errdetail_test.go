package errdetail

import (
	"errors"
	"testing"
)

func TestNew(t *testing.T) {
	sentinel := errors.New("pkg: bad thing")
	err := New(sentinel, `value "x" is out of range`)
	if !errors.Is(err, sentinel) || err.Error() != `pkg: bad thing: value "x" is out of range` {
		t.Fatalf("got %v", err)
	}
}

func TestRewrap(t *testing.T) {
	from, to := errors.New("a: invalid"), errors.New("b: invalid")
	joined := errors.Join(New(from, "X 1 is bad"), errors.New("plain"), New(from, "Y 2 is bad"))
	got := Rewrap(to, joined)
	want := "b: invalid: X 1 is bad\nb: invalid: plain\nb: invalid: Y 2 is bad"
	if got.Error() != want {
		t.Fatalf("Rewrap = %q, want %q", got, want)
	}
	if !errors.Is(got, to) || errors.Is(got, from) {
		t.Fatalf("Rewrap(%v): Is(to) %v, Is(from) %v", got, errors.Is(got, to), errors.Is(got, from))
	}
	if Rewrap(to, nil) != nil {
		t.Fatal("Rewrap(nil) is not nil")
	}
}

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

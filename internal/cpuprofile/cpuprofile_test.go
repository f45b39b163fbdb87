package cpuprofile

import (
	"os"
	"path/filepath"
	"testing"
)

// An empty path profiles nothing; a path gets a profile once stopped; a
// path that cannot be created is an error.
func TestStart(t *testing.T) {
	stop, err := Start("")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	path := filepath.Join(t.TempDir(), "cpu.prof")
	if stop, err = Start(path); err != nil {
		t.Fatal(err)
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("profile %v, %v: want a non-empty file", fi, err)
	}
	if _, err := Start(filepath.Join(t.TempDir(), "missing", "cpu.prof")); err == nil {
		t.Fatal("a path in a missing directory: no error")
	}
}

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pkg", "a.go"), `package pkg

import (
	"errors"
	"fmt"
)

var ErrBad = errors.New("bad")

var (
	ErrWrapped = fmt.Errorf("wrapped: %w", ErrBad)
	Delays     = []int{1, 2}
	hidden     = 3
	Default, other = 4, 5
)

const Fixed = 6
`)
	write(t, filepath.Join(dir, "pkg", "a_test.go"), "package pkg\n\nvar InTest = 1\n")
	write(t, filepath.Join(dir, "internal", "x", "x.go"), "package x\n\nvar Internal = 1\n")
	write(t, filepath.Join(dir, "examples", "y", "y.go"), "package main\n\nvar Example = 1\n")
	write(t, filepath.Join(dir, "nested", "go.mod"), "module nested\n")
	write(t, filepath.Join(dir, "nested", "z.go"), "package nested\n\nvar Nested = 1\n")
	got, err := check(dir)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "pkg", "a.go")
	want := []string{file + ":12:2: pkg.Delays", file + ":14:2: pkg.Default"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("check = %q, want %q", got, want)
	}
}

func TestCheckReportsParseErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "bad.go"), "package bad\n\nvar = \n")
	if _, err := check(dir); err == nil {
		t.Error("check of a file that does not parse: no error")
	}
}

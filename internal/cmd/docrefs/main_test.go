package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Two modules, the second naming the first's packages: every form the
// check judges, each once right and once stale, and the forms it leaves
// alone.
func TestCheck(t *testing.T) {
	root := t.TempDir()
	lib, app := filepath.Join(root, "lib"), filepath.Join(root, "app")
	write(t, lib, "go.mod", "module example.com/lib\n")
	write(t, lib, "gc/gc.go", `// Package gc has PodGC.Step and PodGC.Stepp (stale), Config.Quarantine
// and Config.Gone (stale), Plan.Pods and Loose.Anything.
package gc

import "time"

// PodGC runs; see also Config.Validate and time.Duration.
type PodGC struct{}

// Step steps.
func (g *PodGC) Step() {}

// Config has a field and a method. Its zero
// value is fine.
type Config struct{ Quarantine time.Duration }

// StepOptions says nothing of its zero.
type StepOptions struct{ Fast bool }

// stepConfig is unexported: not judged.
type stepConfig struct{}

// RunConfig is not a struct: not judged.
type RunConfig func()

type (
	// GroupConfig is in a group. The zero value is nothing.
	GroupConfig struct{}
)

// Validate validates.
func (Config) Validate() error { return nil }

// Plan is an interface.
type Plan interface{ Pods() int }

// Loose embeds Config, so its members are not followed.
type Loose struct{ Config }

// Old was renamed; upstream's gc.Old is upstream's, and so is this
// upstream's
// gc.Older, across the line.
const Old = 1
`)
	write(t, lib, "core/core.go", `// Package core names gc.PodGC, gc.PodGC.Step, gc.Config.Quarantine,
// gc.Missing (stale), gc.PodGC.Run (stale), node.kubernetes.io/gc.Thing,
// k8s.io/api/core/v1.Pod, memory.available and gc.Loose.Whatever.
package core
`)
	write(t, lib, "core/x_test.go", `package core_test

// Config.Quarantine means nothing here: an external test declares no
// types, and gc.Nope (stale) is still checked.
`)
	write(t, lib, "testdata/skip.go", "// gc.Skipped is in testdata.\npackage skip\n")
	write(t, lib, "internal/x/x.go", "// Package x is internal.\npackage x\n\n// XConfig is internal: not judged.\ntype XConfig struct{}\n")
	write(t, lib, "gc/gc_test.go", "package gc\n\n// TestConfig is in a test: not judged.\ntype TestConfig struct{}\n")
	write(t, app, "go.mod", "module example.com/app\n")
	write(t, app, "main.go", `// Command app calls gc.PodGC.Step and gc.PodGC.Walk (stale), and
// metrics.Thing from a package it imports from elsewhere.
package main

import (
	_ "example.com/lib/gc"
	metrics "example.org/other/gc"
)

var _ = metrics.X
`)
	found, err := check(lib, app)
	if err != nil {
		t.Fatal(err)
	}
	rel := make([]string, len(found))
	for i, f := range found {
		r, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		rel[i] = r
	}
	want := []string{
		"app/main.go:1: gc.PodGC.Walk",
		"lib/core/core.go:2: gc.Missing",
		"lib/core/core.go:2: gc.PodGC.Run",
		"lib/core/x_test.go:4: gc.Nope",
		"lib/gc/gc.go:18: StepOptions: its doc does not say what its zero value is",
		"lib/gc/gc.go:1: PodGC.Stepp",
		"lib/gc/gc.go:2: Config.Gone",
	}
	if !slices.Equal(rel, want) {
		t.Errorf("found\n%q\nwant\n%q", rel, want)
	}
}

func TestModulePath(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "go.mod", "// comment\nmodule \"example.com/q\"\n\ngo 1.22\n")
	if got, err := modulePath(filepath.Join(dir, "go.mod")); err != nil || got != "example.com/q" {
		t.Errorf("modulePath = %q, %v", got, err)
	}
	write(t, dir, "go.mod", "go 1.22\n")
	if _, err := modulePath(filepath.Join(dir, "go.mod")); err == nil {
		t.Error("no module line: no error")
	}
}

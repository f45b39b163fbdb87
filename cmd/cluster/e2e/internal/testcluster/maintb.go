package testcluster

import (
	"fmt"
	"os"
	"sync"
)

// mainTB is the test handle the API server runs under: it lives for the
// whole test binary rather than for one test, so the server is not torn
// down when the first test that used it ends. It satisfies ktesting.TB.
type mainTB struct {
	verbose bool

	mu       sync.Mutex
	cleanups []func()
	failed   bool
}

// The methods below implement ktesting.TB for the binary-long handle:
// logs go to stderr when verbose, cleanups run at Stop, a fatal error ends
// the process.

func (t *mainTB) Attr(key, value string) {}
func (t *mainTB) Chdir(dir string)       {}
func (t *mainTB) Setenv(key, value string) {
	os.Setenv(key, value)
}
func (t *mainTB) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// cleanup runs the registered cleanups, last first.
func (t *mainTB) cleanup() {
	t.mu.Lock()
	fs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

func (t *mainTB) Error(args ...any) { t.Log(args...); t.Fail() }
func (t *mainTB) Errorf(format string, args ...any) {
	t.Logf(format, args...)
	t.Fail()
}
func (t *mainTB) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}
func (t *mainTB) FailNow() {
	fmt.Fprintln(os.Stderr, "testcluster: the API server failed fatally")
	os.Exit(1)
}
func (t *mainTB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}
func (t *mainTB) Fatal(args ...any) { fmt.Fprintln(os.Stderr, args...); t.FailNow() }
func (t *mainTB) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	t.FailNow()
}
func (t *mainTB) Helper() {}
func (t *mainTB) Log(args ...any) {
	if t.verbose {
		fmt.Fprintln(os.Stderr, args...)
	}
}
func (t *mainTB) Logf(format string, args ...any) {
	if t.verbose {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}
func (t *mainTB) Name() string                     { return "TestMain" }
func (t *mainTB) Skip(args ...any)                 {}
func (t *mainTB) Skipf(format string, args ...any) {}
func (t *mainTB) SkipNow()                         {}
func (t *mainTB) Skipped() bool                    { return false }
func (t *mainTB) TempDir() string {
	d, err := os.MkdirTemp("", "nodelife-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

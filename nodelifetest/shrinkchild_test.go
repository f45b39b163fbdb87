package nodelifetest_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestShrinkPriorityOrder sets rapid's flags (a fixed seed, room to
// shrink), and those are the whole process's: in one process it cannot run
// beside the package's other rapid tests, which would then draw with its
// settings. It is also the package's longest test, about 9 s of the
// README command's nodelifetest. So TestMain starts it first, in a child
// process of the same test binary where the flags are its own, and the
// test in this process waits for the child and reports its output: the
// two processes share the machine's cores instead of taking turns.

// shrinkChildEnv set in the environment makes a test binary the child:
// TestShrinkPriorityOrder then runs its check itself.
const shrinkChildEnv = "NODELIFE_SHRINK_CHILD"

// shrinkChild is the child process, when TestMain started one.
var shrinkChild struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	waited bool
	err    error
}

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(shrinkChildEnv) == "" && !raceEnabled && selected("TestShrinkPriorityOrder") {
		startShrinkChild()
	}
	code := m.Run()
	if c := shrinkChild.cmd; c != nil && !shrinkChild.waited {
		// the test did not run (a -run that selected it by a subtest
		// pattern, a -failfast stop): stop the child
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	os.Exit(code)
}

// selected reports whether the -test.run and -test.skip flags select the
// top-level test name, by their first element. A pattern it misreads only
// costs time: the test runs its check in this process when no child was
// started, and an unused child is stopped.
func selected(name string) bool {
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return false
	}
	top := func(flagName string) string {
		f := flag.Lookup(flagName)
		if f == nil {
			return ""
		}
		return strings.Split(f.Value.String(), "/")[0]
	}
	if run := top("test.run"); run != "" {
		if ok, err := regexp.MatchString(run, name); err != nil || !ok {
			return false
		}
	}
	if skip := top("test.skip"); skip != "" {
		if ok, err := regexp.MatchString(skip, name); err != nil || ok {
			return false
		}
	}
	return true
}

func startShrinkChild() {
	args := []string{"-test.run=^TestShrinkPriorityOrder$", "-test.count=1", "-test.v=true"}
	if f := flag.Lookup("test.timeout"); f != nil {
		args = append(args, "-test.timeout="+f.Value.String())
	}
	if *update {
		args = append(args, "-update")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), shrinkChildEnv+"=1")
	cmd.Stdout, cmd.Stderr = &shrinkChild.out, &shrinkChild.out
	if err := cmd.Start(); err != nil {
		shrinkChild.err = err
		return
	}
	shrinkChild.cmd = cmd
}

// reportShrinkChild waits for the child, if TestMain started one, and
// fails t with the child's output if the check failed there; it reports
// whether there was a child (false: run the check in this process).
func reportShrinkChild(t *testing.T) bool {
	t.Helper()
	if shrinkChild.cmd == nil {
		if shrinkChild.err != nil {
			t.Logf("the child process did not start (%v): checking in this process", shrinkChild.err)
		}
		return false
	}
	// The files the child reads, read here too: go test's result cache
	// keys on what this process opens, and must see a change to them.
	for _, f := range []string{"testdata/priority-order.golden", "../README.md"} {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	if !shrinkChild.waited {
		shrinkChild.err = shrinkChild.cmd.Wait()
		shrinkChild.waited = true
	}
	if shrinkChild.err != nil {
		t.Fatalf("TestShrinkPriorityOrder failed in its child process (%v):\n%s", shrinkChild.err, shrinkChild.out.String())
	}
	t.Logf("passed in its child process:\n%s", shrinkChild.out.String())
	return true
}

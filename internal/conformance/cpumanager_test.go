package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "unsafe" // go:linkname, for the CPU manager's unexported allocators

	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/nodelifetest"

	"github.com/go-logr/logr"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	cputopo "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/topology"
	ucpuset "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

//go:linkname upstreamTakePacked k8s.io/kubernetes/pkg/kubelet/cm/cpumanager.takeByTopologyNUMAPacked
func upstreamTakePacked(logger logr.Logger, topo *cputopo.CPUTopology, availableCPUs ucpuset.CPUSet, numCPUs int, strategy cpumanager.CPUSortingStrategy, preferAlignByUncoreCache bool) (ucpuset.CPUSet, error)

//go:linkname upstreamTakeDistributed k8s.io/kubernetes/pkg/kubelet/cm/cpumanager.takeByTopologyNUMADistributed
func upstreamTakeDistributed(logger logr.Logger, topo *cputopo.CPUTopology, availableCPUs ucpuset.CPUSet, numCPUs int, cpuGroupSize int, strategy cpumanager.CPUSortingStrategy, alignBySocket bool) (ucpuset.CPUSet, error)

// upstreamCPUTopology converts a nodelife topology.
func upstreamCPUTopology(t cpu.Topology) *cputopo.CPUTopology {
	u := &cputopo.CPUTopology{NumCPUs: t.NumCPUs, NumCores: t.NumCores, NumUncoreCache: t.NumUncoreCache, NumSockets: t.NumSockets,
		NumNUMANodes: t.NumNUMANodes, CPUDetails: cputopo.CPUDetails{}}
	for id, info := range t.CPUs {
		u.CPUDetails[id] = cputopo.CPUInfo{NUMANodeID: info.NUMANodeID, SocketID: info.SocketID, CoreID: info.CoreID, UncoreCacheID: info.UncoreCacheID}
	}
	return u
}

func toUpstreamCPUSet(s cpuset.CPUSet) ucpuset.CPUSet { return ucpuset.New(s.List()...) }

// cpuFixtures are the CPU topologies of upstream's cpumanager tests
// (nodelifetest.UpstreamCPUTopologies, extracted from upstream's
// policy_test.go; TestCPUFixturesAreUpstreams checks them against it), by
// name.
var cpuFixtures = func() []namedTopology {
	m := nodelifetest.UpstreamCPUTopologies()
	var out []namedTopology
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, namedTopology{name: name, topo: m[name]})
	}
	return out
}()

type namedTopology struct {
	name string
	topo cpu.Topology
}

// randomCPUTopology draws a machine as cAdvisor would describe it and
// builds it with cpu.Discover: 1-4 sockets; one NUMA node per socket,
// 2-4 per socket, or one for several sockets; 1-8 cores per NUMA node and
// socket, 1, 2 or 4 threads, 1-3 uncore caches per NUMA node (or none
// reported), threads numbered upstream's way (siblings NumCores apart) or
// adjacent; at times a few cores missing (an asymmetric machine). At most
// 8 NUMA nodes.
func randomCPUTopology(r *rand.Rand) cpu.Topology {
	sockets := 1 + r.Intn(4)
	numaPerSocket, socketsPerNUMA := 1, 1
	switch r.Intn(4) {
	case 1:
		numaPerSocket = 2 + r.Intn(3)
	case 2:
		socketsPerNUMA = sockets
	}
	for sockets*numaPerSocket > 8 {
		numaPerSocket--
	}
	cores := 1 + r.Intn(8)
	threads := []int{1, 2, 2, 4}[r.Intn(4)]
	uncores := r.Intn(4)
	adjacent := r.Intn(2) == 0
	type slot struct{ numa, socket, uncore int }
	var slots []slot
	for s := 0; s < sockets; s++ {
		for k := 0; k < numaPerSocket; k++ {
			numa := s*numaPerSocket + k
			if socketsPerNUMA > 1 {
				numa = 0
			}
			for c := 0; c < cores; c++ {
				u := -1
				if uncores > 0 {
					u = (s*numaPerSocket+k)*uncores + c*uncores/cores
				}
				slots = append(slots, slot{numa, s, u})
			}
		}
	}
	if r.Intn(8) == 0 && len(slots) > 1 {
		for drop := 1 + r.Intn(len(slots)/2+1); drop > 0 && len(slots) > 1; drop-- {
			i := r.Intn(len(slots))
			slots = append(slots[:i], slots[i+1:]...)
		}
	}
	numCores := len(slots)
	nodes := map[int]*cpu.NUMANode{}
	for i, sl := range slots {
		core := cpu.Core{ID: i, SocketID: sl.socket}
		for t := 0; t < threads; t++ {
			id := t*numCores + i
			if adjacent {
				id = i*threads + t
			}
			core.Threads = append(core.Threads, id)
		}
		if sl.uncore >= 0 {
			core.UncoreCaches = []int{sl.uncore}
		}
		if nodes[sl.numa] == nil {
			nodes[sl.numa] = &cpu.NUMANode{ID: sl.numa}
		}
		nodes[sl.numa].Cores = append(nodes[sl.numa].Cores, core)
	}
	var list []cpu.NUMANode
	for id := 0; id < 8; id++ {
		if n := nodes[id]; n != nil {
			list = append(list, *n)
		}
	}
	topo, err := cpu.Discover(numCores*threads, sockets, list)
	if err != nil {
		panic(err)
	}
	return topo
}

// pickMachine returns an upstream fixture or a random machine.
func pickMachine(r *rand.Rand) (string, cpu.Topology) {
	if r.Intn(3) == 0 {
		f := cpuFixtures[r.Intn(len(cpuFixtures))]
		return f.name, f.topo
	}
	return "random", randomCPUTopology(r)
}

// randomFree draws a subset of the machine's CPUs (every CPU, most, half
// or few of them), at times with a CPU the machine does not have.
func randomFree(r *rand.Rand, topo cpu.Topology) cpuset.CPUSet {
	p := []float64{1, 0.9, 0.6, 0.3}[r.Intn(4)]
	var ids []int
	for _, id := range keys.Sorted(topo.CPUs) { // in order: the same seed draws the same set
		if r.Float64() < p {
			ids = append(ids, id)
		}
	}
	if r.Intn(20) == 0 {
		ids = append(ids, 1000+r.Intn(10))
	}
	s, _ := cpuset.New(ids...)
	return s
}

// drawTake draws an allocator input: a machine (pickMachine), its free
// CPUs (randomFree) and a request of 0 to free+1 CPUs.
func drawTake(r *rand.Rand) (string, cpu.Topology, *cpu.Machine, cpuset.CPUSet, int, error) {
	name, topo := pickMachine(r)
	m, err := cpu.NewMachine(topo)
	if err != nil {
		return name, topo, nil, cpuset.CPUSet{}, 0, err
	}
	free := randomFree(r, topo)
	return name, topo, m, free, r.Intn(free.Size() + 2), nil
}

// TestDifferentialCPUTakePacked compares Machine.TakePacked with
// takeByTopologyNUMAPacked (unexported, by linkname).
func TestDifferentialCPUTakePacked(t *testing.T) {
	c := compare(t, "cpu.Machine.TakePacked", "cpumanager.takeByTopologyNUMAPacked (unexported, by linkname)",
		"upstream's 23 test topologies and random machines (1-4 sockets, 1-8 NUMA nodes, 1-4 threads per core, uncore caches, asymmetric ones), "+
			"random free sets, 0 to free+1 CPUs, packed or spread, with and without uncore alignment")
	r := rand.New(rand.NewSource(2902))
	logger := logr.Discard()
	for i := 0; i < inputs(t); i++ {
		name, topo, m, free, n, err := drawTake(r)
		if err != nil {
			c.disagree("input %d: %s: %v", i, name, err)
			continue
		}
		opts := cpu.TakeOptions{PreferUncoreCache: r.Intn(2) == 0}
		strategy := cpumanager.CPUSortingStrategyPacked
		if r.Intn(3) == 0 {
			opts.Sorting, strategy = cpu.Spread, cpumanager.CPUSortingStrategySpread
		}
		got, err := m.TakePacked(free, n, opts)
		want, uerr := upstreamTakePacked(logger, upstreamCPUTopology(topo), toUpstreamCPUSet(free), n, strategy, opts.PreferUncoreCache)
		c.check(sameTake(got, err, want, uerr, fmt.Sprintf("input %d (%s, free %s, n %d, %+v)", i, name, free, n, opts)))
	}
}

func sameTake(got cpuset.CPUSet, err error, want ucpuset.CPUSet, uerr error, what string) string {
	switch {
	case (err == nil) != (uerr == nil):
		return fmt.Sprintf("%s: nodelife %s %v, upstream %s %v", what, got, err, want, uerr)
	case err != nil && err.Error() != uerr.Error():
		return fmt.Sprintf("%s: nodelife error %q, upstream %q", what, err, uerr)
	case got.String() != want.String():
		return fmt.Sprintf("%s: nodelife %s, upstream %s", what, got, want)
	}
	return ""
}

// distributedCall is one takeByTopologyNUMADistributed call, as the
// helper process reads it.
type distributedCall struct {
	Topo          cpu.Topology
	Free          string
	N             int
	Group         int
	Spread        bool
	AlignBySocket bool
}

type distributedAnswer struct {
	CPUs, Err string
}

// helperCall is one request to the helper process: a distributed take or
// a sequence through the static policy (see cpupolicy_test.go).
type helperCall struct {
	Distributed *distributedCall `json:",omitempty"`
	Sequence    *seqCall         `json:",omitempty"`
}

type helperAnswer struct {
	Distributed *distributedAnswer `json:",omitempty"`
	Sequence    *seqResult         `json:",omitempty"`
}

// TestCPUHelperProcess is not a test: with NODELIFE_CPU_HELPER=1 it serves
// upstream CPU manager calls on stdin, one JSON line each, so that a call
// that never returns can be killed (see TestDifferentialCPUTakeDistributed).
func TestCPUHelperProcess(t *testing.T) {
	if os.Getenv("NODELIFE_CPU_HELPER") != "1" {
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var call helperCall
		if err := json.Unmarshal(in.Bytes(), &call); err != nil {
			panic(err)
		}
		var a helperAnswer
		if d := call.Distributed; d != nil {
			free, _ := ucpuset.Parse(d.Free)
			strategy := cpumanager.CPUSortingStrategyPacked
			if d.Spread {
				strategy = cpumanager.CPUSortingStrategySpread
			}
			got, err := upstreamTakeDistributed(logr.Discard(), upstreamCPUTopology(d.Topo), free, d.N, d.Group, strategy, d.AlignBySocket)
			a.Distributed = &distributedAnswer{CPUs: got.String()}
			if err != nil {
				a.Distributed.Err = err.Error()
			}
		}
		if call.Sequence != nil {
			a.Sequence = runUpstreamSequence(call.Sequence)
		}
		if err := enc.Encode(a); err != nil {
			panic(err)
		}
	}
	os.Exit(0)
}

// helperProcess runs TestCPUHelperProcess in a child process.
type helperProcess struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	answers chan helperAnswer
}

func startHelper(t *testing.T) *helperProcess {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestCPUHelperProcess$")
	cmd.Env = append(os.Environ(), "NODELIFE_CPU_HELPER=1")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helperProcess{t: t, cmd: cmd, in: in, answers: make(chan helperAnswer)}
	go func() {
		dec := json.NewDecoder(out)
		for {
			var a helperAnswer
			if err := dec.Decode(&a); err != nil {
				close(h.answers)
				return
			}
			h.answers <- a
		}
	}()
	return h
}

func (h *helperProcess) stop() {
	_ = h.in.Close()
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
}

// call sends c and waits up to wait for the answer; false when upstream
// did not answer in time (the process is then replaced).
func (h *helperProcess) call(c helperCall, wait time.Duration) (helperAnswer, bool) {
	line, err := json.Marshal(c)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.in.Write(append(line, '\n')); err != nil {
		h.t.Fatal(err)
	}
	select {
	case a, ok := <-h.answers:
		if !ok {
			h.t.Fatal("the helper process ended")
		}
		return a, true
	case <-time.After(wait):
		h.stop()
		*h = *startHelper(h.t)
		return helperAnswer{}, false
	}
}

// hangWait is how long the helper may take: until a call has hung in a
// test, 10 s, to show that it does; later ones 0.3 s (upstream answers any
// other call here in milliseconds).
type hangWait struct{ hung int }

func (w *hangWait) wait() time.Duration {
	if w.hung < 1 {
		return 10 * time.Second
	}
	return 300 * time.Millisecond
}

// TestDifferentialCPUTakeDistributed compares Machine.TakeDistributed with
// takeByTopologyNUMADistributed (unexported, by linkname), run in a child
// process: on some inputs upstream never returns. Those are the inputs
// Machine.UpstreamDistributeLoops flags, counted as that documented
// deviation; the first three are still given to upstream, which must not
// answer (10 s for the first, 0.3 s for the others; the process is then
// killed and a new one started). Any other input must be answered within
// 30 s, so the counts do not depend on the machine's load.
func TestDifferentialCPUTakeDistributed(t *testing.T) {
	c := compare(t, "cpu.Machine.TakeDistributed", "cpumanager.takeByTopologyNUMADistributed (unexported, by linkname, in a child process)",
		"upstream's 23 test topologies and random machines as for TakePacked, random free sets, 0 to free+1 CPUs, group size 1 or the CPUs per core, packed or spread, align-by-socket one time in three")
	r := rand.New(rand.NewSource(2903))
	h := startHelper(t)
	defer func() { h.stop() }()
	var w hangWait
	for i := 0; i < inputs(t); i++ {
		name, topo, m, free, n, err := drawTake(r)
		if err != nil {
			c.disagree("input %d: %s: %v", i, name, err)
			continue
		}
		group := 1
		if r.Intn(2) == 0 {
			group = topo.CPUsPerCore()
			n -= n % group
		}
		var opts cpu.TakeOptions
		if r.Intn(4) == 0 {
			opts.Sorting = cpu.Spread
		}
		opts.AlignBySocket = r.Intn(3) == 0
		got, err := m.TakeDistributed(free, n, group, opts)
		loops := m.UpstreamDistributeLoops(free, n, group, opts)
		if loops && w.hung >= 3 {
			c.deviate("distribute-loops")
			continue
		}
		wait := 30 * time.Second
		if loops {
			wait = w.wait()
		}
		a, ok := h.call(helperCall{Distributed: &distributedCall{Topo: topo, Free: free.String(), N: n, Group: group, Spread: opts.Sorting == cpu.Spread,
			AlignBySocket: opts.AlignBySocket}}, wait)
		switch {
		case !ok && loops:
			t.Logf("input %d: upstream did not return in %v, as predicted (%s, free %s, n %d, group %d); nodelife gave %s %v", i, wait, name, free, n, group, got, err)
			c.deviate("distribute-loops")
			w.hung++
			continue
		case !ok:
			c.disagree("input %d: upstream did not return in %v though UpstreamDistributeLoops says it does (%s, free %s, n %d, group %d)", i, wait, name, free, n, group)
			continue
		case loops:
			c.disagree("input %d: upstream answered %s %q though UpstreamDistributeLoops says it loops (%s, free %s, n %d, group %d)", i, a.Distributed.CPUs, a.Distributed.Err, name, free, n, group)
			continue
		}
		var uerr error
		if a.Distributed.Err != "" {
			uerr = fmt.Errorf("%s", a.Distributed.Err)
		}
		want, _ := ucpuset.Parse(a.Distributed.CPUs)
		c.check(sameTake(got, err, want, uerr, fmt.Sprintf("input %d (%s, free %s, n %d, group %d)", i, name, free, n, group)))
	}
}

// TestCPUFixturesAreUpstreams checks topology/cpu's copy of upstream's test
// topologies against policy_test.go in the module cache: same names, same
// counts, same CPUs.
func TestCPUFixturesAreUpstreams(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg/kubelet/cm/cpumanager/policy_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for _, f := range cpuFixtures {
		start := strings.Index(text, "\t"+f.name+" = &topology.CPUTopology{")
		if start < 0 {
			t.Errorf("%s is not in upstream's policy_test.go", f.name)
			continue
		}
		end := strings.Index(text[start:], "\n\t}\n")
		body := text[start : start+end]
		for _, kv := range []struct {
			k string
			v int
		}{{"NumCPUs", f.topo.NumCPUs}, {"NumSockets", f.topo.NumSockets}, {"NumCores", f.topo.NumCores},
			{"NumUncoreCache", f.topo.NumUncoreCache}, {"NumNUMANodes", f.topo.NumNUMANodes}} {
			if kv.v == 0 {
				if strings.Contains(body, kv.k+":") && !strings.Contains(strings.ReplaceAll(body, " ", ""), kv.k+":0,") {
					t.Errorf("%s: %s is 0 here but set upstream", f.name, kv.k)
				}
				continue
			}
			if !strings.Contains(strings.ReplaceAll(body, " ", ""), kv.k+":"+strconv.Itoa(kv.v)+",") {
				t.Errorf("%s: %s %d is not upstream's", f.name, kv.k, kv.v)
			}
		}
		flat := strings.NewReplacer(" ", "", "\t", "", "topology.CPUInfo", "").Replace(body)
		ids := make([]int, 0, len(f.topo.CPUs))
		for id := range f.topo.CPUs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			info := f.topo.CPUs[id]
			fields := map[string]int{"CoreID": info.CoreID, "SocketID": info.SocketID, "NUMANodeID": info.NUMANodeID, "UncoreCacheID": info.UncoreCacheID}
			key := "\n" + strconv.Itoa(id) + ":{"
			at := strings.Index(flat, key)
			if at < 0 {
				t.Errorf("%s: CPU %d is not upstream's", f.name, id)
				continue
			}
			entry := flat[at+len(key) : at+strings.Index(flat[at:], "}")]
			for k, v := range fields {
				has := strings.Contains(","+entry+",", ","+k+":"+strconv.Itoa(v)+",")
				if !has && (v != 0 || strings.Contains(entry, k+":")) {
					t.Errorf("%s: CPU %d %s %d is not upstream's (%s)", f.name, id, k, v, entry)
				}
			}
		}
		if got := strings.Count(flat, ":{"); got != len(f.topo.CPUs) {
			t.Errorf("%s: %d CPUs upstream, %d here", f.name, got, len(f.topo.CPUs))
		}
	}
}

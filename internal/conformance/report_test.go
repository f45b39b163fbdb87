package conformance

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// reportPath, when set, is where TestMain writes CONFORMANCE.md after a
// passing run: go test -count=1 -run Differential . -args -report=../../CONFORMANCE.md
var reportPath = flag.String("report", "", "write the conformance report (markdown) to this file after a passing run")

// upstreamVersion is the k8s.io/kubernetes release every comparison runs
// against, read from this module's go.mod (tests run in the package
// directory) so that the report follows it.
func upstreamVersion() string {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		return "(go.mod unreadable: " + err.Error() + ")"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "k8s.io/kubernetes" {
			return f[1]
		}
	}
	return "(not in go.mod)"
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && *reportPath != "" {
		if err := os.WriteFile(*reportPath, []byte(report()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// inputs is how many generated inputs each differential test tries:
// 100,000, or NODELIFE_CONFORMANCE_N (.ci/run sets a smaller count).
func inputs(t testing.TB) int {
	n, err := inputCount()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func inputCount() (int, error) {
	v := os.Getenv("NODELIFE_CONFORMANCE_N")
	if v == "" {
		return 100_000, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("NODELIFE_CONFORMANCE_N=%q: want a positive count", v)
	}
	return n, nil
}

// deviations are the documented differences between nodelife and upstream.
// A comparison that finds a difference names one of these reasons, or it
// fails; CONFORMANCE.md prints each with its text.
var deviations = map[string]string{
	"panics": "upstream panics on this input (a cgroup name component with \"/\" or \"_\", or an integer " +
		"division by a zero CFS period); nodelife returns an error or a defined value (DESIGN.md rule 8: no input makes the library panic)",
	"wraps": "upstream's integer arithmetic overflows and wraps on this input (shares beyond 2^63/1000, " +
		"quota*1000 beyond int64, shares or weight below the API's range in the unsigned formulas); nodelife " +
		"saturates or clamps to the documented range",
	"nan-percentage": "upstream accepts a \"NaN%\" eviction threshold and then compares with a machine-dependent " +
		"number; nodelife rejects it with ErrInvalidThreshold",
	"cfs-period": "with the CPUCFSQuotaPeriod gate switched off (it is GA and on by default in v1.36 and v1.37) upstream ignores the period it is given and uses 100ms; " +
		"nodelife takes the period as given (the caller passes 100000 for the upstream default)",
	"negative-quota": "upstream reads any negative quota other than -1 as a negative milliCPU; nodelife reads every " +
		"negative quota as no limit (0), as the kernel does",
	"stricter-name": "nodelife refuses a cgroup name component that is empty, \".\" or \"..\" (the cgroupfs path would " +
		"lose a level or leave the parent), a --cgroup-root component with \"_\" (upstream's NewCgroupName panics on it, " +
		"but its path parser lets it in), and a systemd name with an empty part; upstream accepts them",
	"negative-period": "upstream divides a quota by a negative CFS period; nodelife reads a period that is not positive as no limit (0)",
	"float64": "upstream divides cpu.shares in float64, which rounds once shares*1000 passes 2^53 (far above the " +
		"kernel's 262144); nodelife's integer arithmetic is exact",
	"systemd-root": "nodelife reads the systemd names \"/\", \"\", \"-\", \".slice\" and \"-.slice\" as the root; upstream " +
		"returns a name with a single \"/\", \".\" or empty component, which no other function accepts",
	"hugepage-size": "for a hugepages-<size> resource whose size does not parse or is not positive, upstream ignores the " +
		"error and files the amount under page size 0 (or the negative size); nodelife skips the entry (API validation " +
		"rejects such names in a pod)",
	"sloppy-ip": "upstream parses node addresses with ParseIPSloppy, which reads IPv4 octets with leading zeros " +
		"(\"010.0.0.1\") as decimal; nodelife refuses them as ambiguous (octal or decimal) and skips the address",
	"effect-required": "taints.Taint.Validate checks a node's taint as the API server does, where the effect is " +
		"required; upstream's CheckTaintValidation (kubectl's check, which also serves removals) lets an empty effect pass",
	"invalid-node-ip": "a --node-ip item that does not parse is an error in nodelife; upstream returns it apart and the " +
		"kubelet logs it and goes on with the items that parsed",
	"map-order": "several extended or huge page resources fall short at once and the answer comes from them: upstream " +
		"visits them in Go map order, so which one a kubelet reports first (and, for a critical pod, the order its " +
		"preemption lists and sums them in) varies from run to run; nodelife takes them sorted by name. Every such input " +
		"is counted here, once upstream's answer is one of the shortfalls nodelife finds (or the same preemption), so " +
		"that the report does not depend on the run",
	"cpu-id-limit": "upstream's cpuset accepts any CPU ID an int holds, storing each CPU of a range in a map (\"0-2000000000\" " +
		"allocates gigabytes); nodelife's cpuset refuses IDs above 65535, eight times Linux's largest NR_CPUS, naming the element",
	"null-memory-table": "a memory_manager_state file whose machine state holds a null memory table: the kubelet's " +
		"state cloning dereferences it and the kubelet panics; nodelife refuses the file, naming the node and resource",
	"distribute-loops": "distribute-cpus-across-numa, spreading the CPUs left over after the even share over a subset of " +
		"NUMA nodes: when every node of the subset keeps fewer than a CPU group (the CPUs per core under full-pcpus-only) " +
		"while CPUs are still to place, upstream's loop never ends (the kubelet hangs in admission); nodelife skips that " +
		"subset, as upstream does since kubernetes#140730 (merged for v1.38: neither v1.36.3 nor v1.37.2 has it), which counts the subset's room in whole groups. Counted for TakeDistributed when Machine.UpstreamDistributeLoops says upstream loops " +
		"(the first three such inputs are run upstream to show that it does not answer: 10 s for the first, 0.3 s for the others; " +
		"an input it does not flag gets 30 s, and a timeout there fails the comparison); in the static policy's sequences, when " +
		"upstream has not answered a step: in 20 s for the first, then 3 s",
	"missing-memory-table": "a pod asks huge pages of a size some NUMA node has no table for (the kubelet's resource " +
		"admission refuses such pods first): upstream's memory manager dereferences the missing table and panics; nodelife counts " +
		"it as no memory. The sequence is not compared further",
	"restart-order": "a memory manager state in which a single-node allocation broke a multi-node group (which upstream " +
		"allows, kubernetes#113035), restored at a restart: upstream replays the containers' blocks in Go map order and, on " +
		"such a state, accepts or refuses it depending on that order; nodelife replays them sorted by pod and container. " +
		"Every restart after a sequence in which a group was broken is counted here, when upstream gives nodelife's answer " +
		"in one of up to 51 tries (so that the count does not depend on the order of the first try)",
	"disruption-exit-panic": "the node lifecycle controller of v1.37.2 panics (a nil health record in handleDisruption) when " +
		"the cluster leaves full disruption while the lease circuit breaker holds a node it has no health record of yet: " +
		"kube-controller-manager exits (kubernetes#141572, fixed by PR #141622, open). nodelife resets the probes of the nodes " +
		"it has a record of and leaves the others to their first pass, as the PR does. The scenario is not compared after the panic",
	"long-hostname": "upstream fails to build the identity hash for a hostname over 65535 bytes (klog.Fatalf); " +
		"nodelife hashes it with the length truncated to 16 bits (not compared: upstream ends the process)",
}

// tally counts one comparison's outcomes.
type tally struct {
	name, upstream, tried string
	inputs, agreed        int
	deviated              map[string]int
	differ, shown         int
	t                     *testing.T
}

var tallies []*tally

// compare starts the tally of one comparison: nodelife's symbol, the
// upstream symbol it is compared with, and what the inputs are.
func compare(t *testing.T, name, upstream, tried string) *tally {
	c := &tally{name: name, upstream: upstream, tried: tried, deviated: map[string]int{}, t: t}
	tallies = append(tallies, c)
	t.Cleanup(c.done)
	return c
}

// agree records an input on which both sides gave the same result.
func (c *tally) agree() { c.inputs++; c.agreed++ }

// deviate records an input on which the results differ for a documented
// reason (a key of deviations).
func (c *tally) deviate(reason string) {
	c.inputs++
	if _, ok := deviations[reason]; !ok {
		c.t.Fatalf("%s: deviation %q is not documented", c.name, reason)
	}
	c.deviated[reason]++
}

// disagree records an undocumented difference: the test fails, and the first
// few are shown.
func (c *tally) disagree(format string, args ...any) {
	c.inputs++
	c.differ++
	if c.shown < 5 {
		c.shown++
		c.t.Errorf("%s against %s: %s", c.name, c.upstream, fmt.Sprintf(format, args...))
	}
}

// check records one input: agreed when why is empty, otherwise a
// disagreement described by why.
func (c *tally) check(why string) {
	if why == "" {
		c.agree()
		return
	}
	c.disagree("%s", why)
}

func (c *tally) done() {
	devs := 0
	for _, n := range c.deviated {
		devs += n
	}
	c.t.Logf("%s: %d inputs, %d agree, %d documented deviations, %d differ", c.name, c.inputs, c.agreed, devs, c.differ)
	if c.differ > 0 {
		c.t.Errorf("%s: %d of %d inputs differ from %s", c.name, c.differ, c.inputs, c.upstream)
	}
	if c.inputs == 0 {
		c.t.Errorf("%s: no input was compared", c.name)
	}
}

// report renders CONFORMANCE.md from the tallies of this run.
func report() string {
	var b strings.Builder
	n := 0
	for _, c := range tallies {
		n += c.inputs
	}
	perComparison, _ := inputCount()
	fmt.Fprintf(&b, "# Conformance: nodelife against k8s.io/kubernetes %s\n\n", upstreamVersion())
	b.WriteString("Generated; do not edit. Regenerate with\n\n")
	b.WriteString("    cd internal/conformance && go test -count=1 -run Differential . -args -report=../../CONFORMANCE.md\n\n")
	b.WriteString("Each row runs a nodelife function and its upstream counterpart on the same seeded, generated inputs\n")
	b.WriteString("(valid values and the malformed ones a user could type or an API object could hold) and compares the\n")
	b.WriteString("results. A difference is either one of the documented deviations below, counted, or a test failure.\n")
	fmt.Fprintf(&b, "This run compared %d inputs in %d comparisons (%d generated inputs per comparison, NODELIFE_CONFORMANCE_N); "+
		"every one agreed or deviated as documented.\n\n", n, len(tallies), perComparison)
	sorted := slices.Clone(tallies)
	slices.SortStableFunc(sorted, func(a, b *tally) int { return strings.Compare(a.name, b.name) })
	b.WriteString("| nodelife | upstream | inputs | agree | documented deviations | generated inputs |\n")
	b.WriteString("|---|---|---:|---:|---|---|\n")
	used := map[string]bool{}
	for _, c := range sorted {
		var devs []string
		keys := make([]string, 0, len(c.deviated))
		for k := range c.deviated {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			devs = append(devs, fmt.Sprintf("%s: %d", k, c.deviated[k]))
			used[k] = true
		}
		dev := "none"
		if len(devs) > 0 {
			dev = strings.Join(devs, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %d | %d | %s | %s |\n", c.name, c.upstream, c.inputs, c.agreed, dev, c.tried)
	}
	if r := lifecycleReport; r != nil {
		b.WriteString(lifecycleSection(r))
	}
	b.WriteString("\n## Documented deviations\n\n")
	keys := make([]string, 0, len(deviations))
	for k := range deviations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		mark := ""
		if !used[k] {
			mark = " (not met in this run)"
		}
		fmt.Fprintf(&b, "- **%s**%s: %s.\n", k, mark, deviations[k])
	}
	b.WriteString("\n## Without an upstream counterpart\n\n")
	for _, s := range unpaired {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	return b.String()
}

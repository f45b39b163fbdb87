package topology_test

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
)

// upstreamCase is one row of testdata/upstream_merge.txt.
type upstreamCase struct {
	section, name string
	providers     []topology.ProviderHints
	expected      topology.Hint
}

// upstream's test machines (commonNUMAInfoTwoNodes, FourNodes, EightNodes).
var (
	twoNodes   = nodelifetest.UpstreamNUMAMachines()[0]
	fourNodes  = nodelifetest.UpstreamNUMAMachines()[1]
	eightNodes = nodelifetest.UpstreamNUMAMachines()[2]
)

func parseHint(t *testing.T, s string, all []int) topology.Hint {
	t.Helper()
	mask, pref, ok := strings.Cut(s, "/")
	if !ok {
		t.Fatalf("hint %q", s)
	}
	h := topology.Hint{Preferred: pref == "t"}
	switch mask {
	case "nil":
		h.Any = true
	case "all":
		h.Affinity, _ = topology.NewBitMask(all...)
	default:
		var ids []int
		for _, f := range strings.Split(mask, ",") {
			ids = append(ids, int(f[0]-'0'))
		}
		h.Affinity, _ = topology.NewBitMask(ids...)
	}
	return h
}

var resourceRE = regexp.MustCompile(`"(\w+)": (nil|\{\}|\[\]|\[[^\]]*\])`)

func loadUpstream(t *testing.T, all []int) []upstreamCase {
	f, err := os.Open("testdata/upstream_merge.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []upstreamCase
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") || line == "":
			continue
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 {
			t.Fatalf("line %q", line)
		}
		c := upstreamCase{section: section, name: strings.Trim(parts[0], "'"), expected: parseHint(t, parts[2], all)}
		if strings.TrimSpace(parts[1]) != "" {
			for _, p := range strings.Split(parts[1], " ; ") {
				ph := topology.ProviderHints{}
				for _, m := range resourceRE.FindAllStringSubmatch(p, -1) {
					switch v := m[2]; v {
					case "nil":
						ph[m[1]] = nil
					case "[]":
						ph[m[1]] = []topology.Hint{}
					default:
						var hs []topology.Hint
						for _, h := range strings.Fields(strings.Trim(v, "[]")) {
							hs = append(hs, parseHint(t, h, all))
						}
						ph[m[1]] = hs
					}
				}
				c.providers = append(c.providers, ph)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

func sections(cases []upstreamCase, names ...string) []upstreamCase {
	var out []upstreamCase
	for _, c := range cases {
		for _, n := range names {
			if c.section == n {
				out = append(out, c)
			}
		}
	}
	return out
}

// TestUpstreamMergeTables runs upstream's merge tables
// (pkg/kubelet/cm/topologymanager/policy_test.go, as combined by
// policy_best_effort_test.go, policy_restricted_test.go and
// policy_single_numa_node_test.go) and expects upstream's hints.
func TestUpstreamMergeTables(t *testing.T) {
	for _, tc := range []struct {
		test     string
		policy   topology.Policy
		info     topology.NUMAInfo
		opts     topology.PolicyOptions
		sections []string
	}{
		{"TestPolicyBestEffortMerge", topology.PolicyBestEffort, fourNodes, topology.PolicyOptions{}, []string{"common", "besteffort", "nopolicies"}},
		{"TestPolicyBestEffortMergeClosestNUMA", topology.PolicyBestEffort, eightNodes, topology.PolicyOptions{PreferClosestNUMA: true}, []string{"common", "besteffort", "closest"}},
		{"TestPolicyRestrictedMerge", topology.PolicyRestricted, fourNodes, topology.PolicyOptions{}, []string{"common", "besteffort", "nopolicies"}},
		{"TestPolicyRestrictedMergeClosestNUMA", topology.PolicyRestricted, eightNodes, topology.PolicyOptions{PreferClosestNUMA: true}, []string{"common", "besteffort", "closest"}},
		{"TestPolicySingleNumaNodeMerge", topology.PolicySingleNUMANode, fourNodes, topology.PolicyOptions{}, []string{"common", "single"}},
	} {
		cases := sections(loadUpstream(t, tc.info.Nodes), tc.sections...)
		if len(cases) == 0 {
			t.Fatalf("%s: no cases", tc.test)
		}
		for _, c := range cases {
			got, admit, err := topology.Merge(tc.policy, tc.info, tc.opts, c.providers)
			if err != nil {
				t.Fatalf("%s / %s: %v", tc.test, c.name, err)
			}
			if got != c.expected {
				t.Errorf("%s / %s: got %v, upstream expects %v", tc.test, c.name, got, c.expected)
			}
			if wantAdmit := tc.policy == topology.PolicyBestEffort || got.Preferred; admit != wantAdmit {
				t.Errorf("%s / %s: admit %v for %v", tc.test, c.name, admit, got)
			}
		}
		t.Logf("%s: %d upstream cases", tc.test, len(cases))
	}
}

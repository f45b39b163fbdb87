package nodelifetest_test

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/readiness"
)

// unreadable are what Go's own %v and %#v print for the parts a person
// cannot read: addresses and hexadecimal numbers ("0x" at the start of a
// word; drawn names may hold "o0x"), a quantity's or a prefix's
// internals, a function's address.
var unreadable = regexp.MustCompile(`\b0x[0-9a-f]|resource\.Quantity\{|int64Amount|inf\.Dec|netip\.uint128|\(func`)

// checkPrints draws values from g and fails on any whose %v or %#v holds
// one of unreadable.
func checkPrints[T any](t *testing.T, name string, g interface{ Example(...int) T }) {
	t.Helper()
	for seed := 0; seed < 40; seed++ {
		v := g.Example(seed)
		for _, verb := range []string{"%v", "%#v"} {
			s := fmt.Sprintf(verb, v)
			if bad := unreadable.FindString(s); bad != "" {
				t.Errorf("%s (seed %d) prints %q under %s:\n%.600s", name, seed, bad, verb, s)
				return
			}
		}
	}
}

// Every generator's values print without addresses, hexadecimal or a
// quantity's internals, under %v and %#v (the forms rapid and go-cmp
// use).
func TestEveryGeneratedTypePrintsReadably(t *testing.T) {
	o := nodelifetest.Options{}
	checkPrints(t, "AdmissionNodes", nodelifetest.AdmissionNodes(o))
	checkPrints(t, "Backoffs", nodelifetest.Backoffs())
	checkPrints(t, "CIDRSpaces", nodelifetest.CIDRSpaces())
	checkPrints(t, "CPUOptions", nodelifetest.CPUOptions())
	checkPrints(t, "CPUPods", nodelifetest.CPUPods("u"))
	checkPrints(t, "CPUTopologies", nodelifetest.CPUTopologies())
	// (not CgroupNames: plain strings, which may hold "0x4" themselves)
	checkPrints(t, "Clusters", nodelifetest.Clusters(o))
	checkPrints(t, "Conditions", nodelifetest.Conditions(o))
	checkPrints(t, "ContainerGCs", nodelifetest.ContainerGCs(o))
	checkPrints(t, "CrashBackoffs", nodelifetest.CrashBackoffs())
	checkPrints(t, "ElectionConfigs", nodelifetest.ElectionConfigs("me"))
	checkPrints(t, "EvictionSettings", nodelifetest.EvictionSettings(o))
	checkPrints(t, "GCPods", nodelifetest.GCPods(o, []string{"n"}))
	checkPrints(t, "HeartbeatConfigs", nodelifetest.HeartbeatConfigs("n"))
	checkPrints(t, "Hints", nodelifetest.Hints(2))
	checkPrints(t, "ImagePlans", nodelifetest.ImagePlans())
	checkPrints(t, "ImagePolicies", nodelifetest.ImagePolicies())
	checkPrints(t, "ImageRecords", nodelifetest.ImageRecords(o))
	checkPrints(t, "Layouts", nodelifetest.Layouts())
	checkPrints(t, "Leases", nodelifetest.Leases(o))
	checkPrints(t, "MemoryMachines", nodelifetest.MemoryMachines())
	checkPrints(t, "MemoryPods", nodelifetest.MemoryPods("u", []string{"2Mi", "1Gi"}))
	checkPrints(t, "NUMAMachines", nodelifetest.NUMAMachines())
	checkPrints(t, "NoExecuteConfigs", nodelifetest.NoExecuteConfigs())
	checkPrints(t, "NoExecuteTolerations", nodelifetest.NoExecuteTolerations())
	checkPrints(t, "Nodes", nodelifetest.Nodes(o))
	checkPrints(t, "OneNode", nodelifetest.OneNode(o))
	checkPrints(t, "Observations", nodelifetest.Observations())
	checkPrints(t, "OwnerGraphs", nodelifetest.OwnerGraphs(o))
	checkPrints(t, "Pods", nodelifetest.Pods(o))
	checkPrints(t, "ProviderHintSets", nodelifetest.ProviderHintSets(2))
	rules := nodelifetest.ReadinessRules(o)
	checkPrints(t, "ReadinessRules", rules)
	checkPrints(t, "ReadinessNodes", nodelifetest.ReadinessNodes([]readiness.Rule{}))
	checkPrints(t, "RouteWorlds", nodelifetest.RouteWorlds())
	checkPrints(t, "Scenarios", nodelifetest.Scenarios(o))
	checkPrints(t, "Schedules", nodelifetest.Schedules(o))
	checkPrints(t, "ShutdownConfigs", nodelifetest.ShutdownConfigs(o))
	checkPrints(t, "ShutdownPhases", nodelifetest.ShutdownPhases(o))
	checkPrints(t, "SyncPods", nodelifetest.SyncPods(o))
	checkPrints(t, "Taints", nodelifetest.Taints(o))
	checkPrints(t, "Tolerations", nodelifetest.Tolerations(o))
	checkPrints(t, "ZoneNodes", nodelifetest.ZoneNodes(o))
	// netip.Prefix is the standard library's: its %v is the prefix as
	// written; its %#v, Go's own, cannot be changed from here.
	if got := fmt.Sprint(nodelifetest.PrefixesIn(netip.MustParsePrefix("10.0.0.0/8")).Example(0)); !strings.HasPrefix(got, "10.") {
		t.Errorf("PrefixesIn prints %s", got)
	}
}

package conformance

import (
	"fmt"
	"maps"
	"math/rand"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/flowcontrol"
	nodeutil "k8s.io/component-helpers/node/util"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubeeviction "k8s.io/kubernetes/pkg/kubelet/eviction"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"
	utilnode "k8s.io/kubernetes/pkg/util/node"
	utiltaints "k8s.io/kubernetes/pkg/util/taints"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/gc"
)

var (
	addressTypes = []v1.NodeAddressType{v1.NodeInternalIP, v1.NodeExternalIP, v1.NodeHostName, v1.NodeInternalDNS, v1.NodeExternalDNS, "Other"}
	addressPool  = []string{"10.0.0.1", "10.0.0.2", "192.168.1.10", "fd00::1", "2001:db8::2", "::1", "0.0.0.0", "::",
		"010.000.000.001", "10.0.0.256", "node-1", "", " 10.0.0.3", "::ffff:10.0.0.4", "fe80::1%eth0", "1.2.3", "2001:db8::g"}
)

func TestDifferentialNodeHostIPs(t *testing.T) {
	c := compare(t, "conditions.NodeHostIPs", "pkg/util/node.GetNodeHostIPs",
		"0-5 node addresses of every type: IPv4, IPv6, unspecified, IPv4-mapped, zoned, with leading zeros, malformed, host names")
	r := rand.New(rand.NewSource(41))
	for i, n := 0, inputs(t); i < n; i++ {
		var addrs []v1.NodeAddress
		var nAddrs []conditions.NodeAddress
		for j := r.Intn(6); j > 0; j-- {
			a := v1.NodeAddress{Type: addressTypes[r.Intn(len(addressTypes))], Address: oneOf(r, addressPool)}
			addrs = append(addrs, a)
			nAddrs = append(nAddrs, conditions.NodeAddress{Type: conditions.NodeAddressType(a.Type), Address: a.Address})
		}
		up, upErr := utilnode.GetNodeHostIPs(&v1.Node{Status: v1.NodeStatus{Addresses: addrs}})
		nl, nlErr := conditions.NodeHostIPs(nAddrs)
		switch {
		case (upErr == nil) == (nlErr == nil) && sameIPs(up, nl):
			c.agree()
		case sloppyOnly(addrs):
			c.deviate("sloppy-ip")
		default:
			c.disagree("%v: upstream %v (%v), nodelife %v (%v)", addrs, up, upErr, nl, nlErr)
		}
	}
}

func sameIPs(up []net.IP, nl []netip.Addr) bool {
	if len(up) != len(nl) {
		return false
	}
	for i := range up {
		if !up[i].Equal(net.IP(nl[i].AsSlice())) {
			return false
		}
	}
	return true
}

// sloppyOnly reports whether an address upstream's ParseIPSloppy accepts
// and netip refuses takes part: IPv4 octets with leading zeros.
func sloppyOnly(addrs []v1.NodeAddress) bool {
	for _, a := range addrs {
		if (a.Type == v1.NodeInternalIP || a.Type == v1.NodeExternalIP) && strings.Contains(a.Address, "010.") {
			return true
		}
	}
	return false
}

func TestDifferentialTaintValidate(t *testing.T) {
	c := compare(t, "taints.Taint.Validate", "pkg/util/taints.CheckTaintValidation",
		"taints with keys, values and effects from the pools (qualified names, prefixes, over-long names and values, empty and unknown effects), mangled")
	r := rand.New(rand.NewSource(42))
	valid := 0
	for i, n := 0, inputs(t); i < n; i++ {
		tt := randomTaint(r)
		if r.Intn(2) == 0 {
			tt.Key, tt.Value, tt.Effect = oneOf(r, validKeys), oneOf(r, validValues), v1.TaintEffect(oneOf(r, effectPool))
		}
		upErr, nlErr := utiltaints.CheckTaintValidation(tt), one(tt).Validate()
		if upErr == nil {
			valid++
		}
		switch {
		case (upErr == nil) == (nlErr == nil):
			c.agree()
		case upErr == nil && tt.Effect == "":
			c.deviate("effect-required")
		default:
			c.disagree("%+v: upstream %v, nodelife %v", tt, upErr, nlErr)
		}
	}
	t.Logf("%d valid", valid)
}

var layouts = []struct {
	layout              pressure.Layout
	imageFs, separateFs bool
}{{pressure.LayoutSingle, false, false}, {pressure.LayoutImageFs, true, false}, {pressure.LayoutSplit, true, true}}

func TestDifferentialUpdateContainerFsThresholds(t *testing.T) {
	c := compare(t, "pressure.UpdateContainerFsThresholds", "pkg/kubelet/eviction.UpdateContainerFsThresholds",
		"the thresholds ParseThresholdConfig makes from the generated settings above (containerfs ones included), on the three filesystem layouts")
	r := rand.New(rand.NewSource(43))
	for c.inputs < inputs(t) {
		hard, soft := randomSettings(r, thresholdPool, 9, 4), randomSettings(r, thresholdPool, 9, 3)
		grace := map[string]string{}
		for _, s := range slices.Sorted(maps.Keys(soft)) { // sorted: map order would change the draws
			grace[s] = oneOf(r, gracePool[:4])
		}
		reclaim := randomSettings(r, reclaimPool, 4, 2)
		up, upErr := kubeeviction.ParseThresholdConfig(nil, hard, soft, grace, reclaim)
		nl, nlErr := pressure.ParseThresholdConfig(nil, hard, soft, grace, reclaim)
		if upErr != nil || nlErr != nil {
			continue // the parse is compared on its own
		}
		l := layouts[r.Intn(len(layouts))]
		upOut, _ := kubeeviction.UpdateContainerFsThresholds(slices.Clone(up), l.imageFs, l.separateFs)
		nlOut, _ := pressure.UpdateContainerFsThresholds(nl, l.layout)
		if u, n := canonicalUpstream(upOut), canonicalNodelife(nlOut); !slices.Equal(u, n) {
			c.disagree("%v: hard %v soft %v:\n upstream %q\n nodelife %q", l.layout, hard, soft, u, n)
		} else {
			c.agree()
		}
	}
}

// The tables: default hard thresholds and the operator of every signal.
func TestDifferentialEvictionTables(t *testing.T) {
	c := compare(t, "pressure.DefaultEvictionHard(\"linux\"), pressure.Signals", "pkg/kubelet/eviction.DefaultEvictionHard (linux), eviction/api.OpForSignal",
		"every entry of both tables")
	for k, v := range kubeeviction.DefaultEvictionHard {
		c.check(diffString(k+"<"+v, k+"<"+pressure.DefaultEvictionHard("linux")[k]))
	}
	if len(kubeeviction.DefaultEvictionHard) != len(pressure.DefaultEvictionHard("linux")) {
		c.disagree("default evictionHard: upstream %v, nodelife %v", kubeeviction.DefaultEvictionHard, pressure.DefaultEvictionHard("linux"))
	}
	nl := map[string]string{}
	for _, s := range pressure.Signals() {
		nl[string(s)] = string(pressure.OpLessThan)
	}
	for s, op := range evictionapi.OpForSignal {
		c.check(diffString(string(s)+" "+string(op), string(s)+" "+nl[string(s)]))
	}
	if !slices.Equal(slices.Sorted(maps.Keys(nl)), slices.Sorted(slices.Values(signalNames(evictionapi.OpForSignal)))) {
		c.disagree("signals: upstream %v, nodelife %v", signalNames(evictionapi.OpForSignal), pressure.Signals())
	}
}

func signalNames(m map[evictionapi.Signal]evictionapi.ThresholdOperator) []string {
	var out []string
	for s := range m {
		out = append(out, string(s))
	}
	return out
}

var (
	upStates = []kubecontainer.State{kubecontainer.ContainerStateCreated, kubecontainer.ContainerStateRunning, kubecontainer.ContainerStateExited, kubecontainer.ContainerStateUnknown}
	nlStates = []gc.ContainerState{gc.ContainerCreated, gc.ContainerRunning, gc.ContainerExited, gc.ContainerUnknown}
)

func TestDifferentialShouldRestart(t *testing.T) {
	c := compare(t, "cri.ShouldRestart", "pkg/kubelet/container.ShouldContainerBeRestarted (ContainerRestartRules at its v1.36 default, on)",
		"restart policy Always/OnFailure/Never/empty, pod deleting or not, newest instance none/created/running/exited (exit 0, 1, 137, -1)/unknown; containers without their own restartPolicy or rules, which core.Pod does not model")
	r := rand.New(rand.NewSource(44))
	policies := []v1.RestartPolicy{v1.RestartPolicyAlways, v1.RestartPolicyOnFailure, v1.RestartPolicyNever, ""}
	codes := []int{0, 1, 137, -1}
	for i, n := 0, inputs(t); i < n; i++ {
		policy := policies[r.Intn(len(policies))]
		pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: policy, Containers: []v1.Container{{Name: "app"}}}}
		np := core.Pod{Name: "p", RestartPolicy: core.RestartPolicy(policy), Containers: []core.Container{{Name: "app"}}}
		if r.Intn(4) == 0 {
			pod.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
			np.DeletionTimestamp = &pod.DeletionTimestamp.Time
		}
		status := &kubecontainer.PodStatus{}
		var newest *cri.ContainerStatus
		if s := r.Intn(5); s < 4 {
			code := codes[r.Intn(len(codes))]
			status.ContainerStatuses = []*kubecontainer.Status{{Name: "app", State: upStates[s], ExitCode: code}}
			newest = &cri.ContainerStatus{Name: "app", State: nlStates[s], ExitCode: int32(code)}
		}
		up := kubecontainer.ShouldContainerBeRestarted(discard, &pod.Spec.Containers[0], pod, status)
		c.check(diffBool(fmt.Sprintf("policy %q deleting %v status %+v", policy, np.Deleting(), newest), up, cri.ShouldRestart(np, newest)))
	}
}

func TestDifferentialParseNodeIPs(t *testing.T) {
	c := compare(t, "conditions.ParseNodeIPs", "component-helpers/node/util.ParseNodeIPArgument (no cloud provider)",
		"--node-ip values: empty, one address, pairs and triples of the address pool (same and mixed families, unspecified, leading zeros, zones, malformed), spaces around items")
	r := rand.New(rand.NewSource(45))
	for i, n := 0, inputs(t); i < n; i++ {
		parts := make([]string, r.Intn(4))
		for j := range parts {
			parts[j] = oneOf(r, addressPool)
			if r.Intn(8) == 0 {
				parts[j] = " " + parts[j] + " "
			}
		}
		flag := strings.Join(parts, ",")
		up, invalid, upErr := nodeutil.ParseNodeIPArgument(flag, "")
		nl, nlErr := conditions.ParseNodeIPs(flag)
		switch {
		case upErr == nil && nlErr == nil && allBlank(invalid) && sameIPs(up, nl):
			// Blank items are no address on either side (upstream lists
			// them as invalid, and the kubelet goes on without them).
			c.agree()
		case upErr != nil && nlErr != nil:
			c.agree()
		case strings.Contains(flag, "010."):
			c.deviate("sloppy-ip")
		case len(invalid) > 0 && nlErr != nil:
			c.deviate("invalid-node-ip")
		default:
			c.disagree("%q: upstream %v %q (%v), nodelife %v (%v)", flag, up, invalid, upErr, nl, nlErr)
		}
	}
}

func allBlank(items []string) bool {
	for _, s := range items {
		if strings.TrimSpace(s) != "" {
			return false
		}
	}
	return true
}

// The kubelet's crash-loop back-off: doBackOff (pkg/kubelet/kuberuntime)
// asks flowcontrol.Backoff IsInBackOffSince(key, finishedAt) and, when not in
// back-off, calls Next(key, finishedAt), on a clock at now.
func TestDifferentialCrashLoopBackoff(t *testing.T) {
	for _, cfg := range []struct {
		name string
		c    cri.BackoffConfig
	}{{"DefaultBackoffConfig", cri.DefaultBackoffConfig()}, {"ReducedDecayBackoffConfig", cri.ReducedDecayBackoffConfig()}} {
		t.Run(cfg.name, func(t *testing.T) {
			c := compare(t, "cri.BackoffConfig.Decide ("+cfg.name+")",
				fmt.Sprintf("client-go flowcontrol.Backoff (initial %v, max %v) as pkg/kubelet/kuberuntime doBackOff uses it", cfg.c.Initial, cfg.c.Max),
				"one container through 1-8 restarts: now moves on by up to 2 x max, one time in four up to 25 minutes (across the 2 x max reset); the exit lies within twice the current delay, one time in three up to 1.5 x max, before now; each step compares the decision and the delay")
			r := rand.New(rand.NewSource(46))
			start := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
			inBackoff, resets := 0, 0
			defer func() { t.Logf("%d steps in back-off, %d resets", inBackoff, resets) }()
			for c.inputs < inputs(t) {
				clk := clocktesting.NewFakeClock(start)
				b := flowcontrol.NewFakeBackOff(cfg.c.Initial, cfg.c.Max, clk)
				var e cri.BackoffEntry
				now := start
				for step := 1 + r.Intn(8); step > 0 && c.inputs < inputs(t); step-- {
					// Mostly restarts within the back-off's reach, sometimes a
					// long quiet spell that expires the entry.
					gap := time.Duration(r.Int63n(int64(2 * cfg.c.Max)))
					if r.Intn(4) == 0 {
						gap = time.Duration(r.Int63n(int64(25 * time.Minute)))
					}
					now = now.Add(gap)
					// The exit: just now, within twice the current delay, or
					// up to 1.5 x max ago.
					back := time.Duration(r.Int63n(int64(2*e.Delay + time.Second)))
					if r.Intn(3) == 0 {
						back = time.Duration(r.Int63n(int64(cfg.c.Max) * 3 / 2))
					}
					finished := now.Add(-back)
					clk.SetTime(now)
					upIn := b.IsInBackOffSince("k", finished)
					if !upIn {
						b.Next("k", finished)
					}
					d, err := cfg.c.Decide(now, e, finished)
					if err != nil {
						c.disagree("step at %v: %v", now, err)
						break
					}
					if d.InBackoff != upIn || d.Entry.Delay != b.Get("k") {
						c.disagree("finished %v now %v: upstream in back-off %v delay %v, nodelife %v %v", finished, now, upIn, b.Get("k"), d.InBackoff, d.Entry.Delay)
						break
					}
					c.agree()
					if upIn {
						inBackoff++
					}
					if d.Reset {
						resets++
					}
					e = d.Entry
				}
			}
		})
	}
}

package cloud

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

func addrs(pairs ...string) []conditions.NodeAddress {
	var out []conditions.NodeAddress
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, conditions.NodeAddress{Type: conditions.NodeAddressType(pairs[i]), Address: pairs[i+1]})
	}
	return out
}

var uninitialized = taints.Taint{Key: taints.TaintExternalCloudProvider, Value: "true", Effect: taints.TaintEffectNoSchedule}

func newNode(name string) core.Node {
	return core.Node{Name: name, UID: "uid-" + name, Taints: []taints.Taint{uninitialized, {Key: "example.com/pool", Value: "gpu", Effect: taints.TaintEffectNoSchedule}},
		Labels: map[string]string{"kubernetes.io/hostname": name, "team": "node-owner"}, Addresses: addrs("Hostname", name)}
}

// controllers/node/node_controller.go getNodeModifiersFromCloudProvider and
// updateNodeAddress: provider ID (the node had none), instance type, zone and
// region under both names, the additional labels but those in a Kubernetes
// namespace or already on the node, the taint removed, and the cloud's
// addresses with the node's Hostname appended (the cloud reported none).
func TestPlanInitialization(t *testing.T) {
	meta := &InstanceMetadata{ProviderID: "fake://us-east-1a/i-1", InstanceType: "m5.large", Zone: "us-east-1a", Region: "us-east-1",
		NodeAddresses:    addrs("InternalIP", "10.0.0.5", "ExternalIP", "203.0.113.5", "InternalDNS", "ip-10-0-0-5.ec2.internal"),
		AdditionalLabels: map[string]string{"example.com/pool": "a", "kubernetes.io/role": "x", "node.k8s.io/x": "y", "team": "cloud"}}
	p := PlanInitialization(newNode("n1"), meta, nil)
	want := InitPlan{
		Node: "n1", Initialize: true, ProviderID: "fake://us-east-1a/i-1",
		Labels: map[string]string{
			LabelInstanceType: "m5.large", LabelInstanceTypeBeta: "m5.large",
			LabelZone: "us-east-1a", LabelZoneBeta: "us-east-1a",
			LabelRegion: "us-east-1", LabelRegionBeta: "us-east-1",
			"example.com/pool": "a",
		},
		Addresses: addrs("InternalIP", "10.0.0.5", "ExternalIP", "203.0.113.5", "InternalDNS", "ip-10-0-0-5.ec2.internal", "Hostname", "n1"),
		Taints:    []taints.Taint{{Key: "example.com/pool", Value: "gpu", Effect: taints.TaintEffectNoSchedule}},
		Reason:    "Initialized", Message: "node n1 initialized from the cloud provider's instance metadata",
	}
	if d := cmp.Diff(want, p); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
	// A node with a provider ID keeps it; metadata without zone or region
	// sets no such label.
	n := newNode("n2")
	n.ProviderID = "fake://mine"
	p = PlanInitialization(n, &InstanceMetadata{ProviderID: "fake://cloud", InstanceType: "t3.small"}, nil)
	if p.ProviderID != "" || !p.Initialize || !maps.Equal(p.Labels, map[string]string{LabelInstanceType: "t3.small", LabelInstanceTypeBeta: "t3.small"}) || p.Addresses != nil {
		t.Fatalf("%+v", p)
	}
	// The cloud without a provider ID is fine when the node has one.
	if p = PlanInitialization(n, &InstanceMetadata{}, nil); !p.Initialize {
		t.Fatalf("%+v", p)
	}
}

// Reasons that keep the uninitialized taint.
func TestPlanInitializationKeepsTaint(t *testing.T) {
	boom := errors.New("throttled")
	withIP := newNode("n1")
	withIP.Annotations = map[string]string{AnnotationProvidedNodeIP: "10.0.0.9"}
	badIP := newNode("n1")
	badIP.Annotations = map[string]string{AnnotationProvidedNodeIP: "10.0.0.9,10.0.0.10"}
	meta := &InstanceMetadata{ProviderID: "fake://i-1", NodeAddresses: addrs("InternalIP", "10.0.0.5")}
	for _, tc := range []struct {
		name    string
		node    core.Node
		meta    *InstanceMetadata
		err     error
		reason  string
		wantErr error
		message string
	}{
		{"lookup failed", newNode("n1"), nil, boom, "MetadataUnavailable", boom, "failed to get instance metadata for node n1: throttled"},
		{"no metadata yet", newNode("n1"), nil, nil, "MetadataNotReady", nil, "no instance metadata"},
		{"no provider ID anywhere", newNode("n1"), &InstanceMetadata{InstanceType: "m5"}, nil, "NoProviderID", ErrNoProviderID, "does not set a provider ID"},
		// node/helpers/address.go GetNodeAddressesFromNodeIP: the kubelet's
		// --node-ip 10.0.0.9 is not an address the cloud reports.
		{"provided IP unknown to the cloud", withIP, meta, nil, "InvalidNodeIP", ErrInvalidNodeIP, "matches ip: 10.0.0.9"},
		{"provided IP pair of one family", badIP, meta, nil, "InvalidNodeIP", ErrInvalidNodeIP, "single IP or a dual-stack pair"},
	} {
		p := PlanInitialization(tc.node, tc.meta, tc.err)
		if p.Initialize || p.Taints != nil || p.Labels != nil || p.Reason != tc.reason || !errors.Is(p.Err, tc.wantErr) ||
			!strings.Contains(p.Message+" "+errString(p.Err), tc.message) || !strings.Contains(p.Message, "stays uninitialized") {
			t.Errorf("%s: %+v", tc.name, p)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Dual-stack ordering (GetNodeAddressesFromNodeIP): the annotation's IPs
// first in its order, each with the cloud's type; then the cloud's
// addresses of other types; 10.0.0.6, another InternalIP, is dropped.
func TestAddressesFromNodeIPDualStack(t *testing.T) {
	n := core.Node{Name: "n", Annotations: map[string]string{AnnotationProvidedNodeIP: "fd00::5,10.0.0.5"}}
	cloud := addrs("InternalIP", "10.0.0.5", "InternalIP", "10.0.0.6", "InternalIP", "fd00::5", "ExternalIP", "203.0.113.5", "Hostname", "h")
	got, err := addressesFromNodeIP(n, cloud)
	want := addrs("InternalIP", "fd00::5", "InternalIP", "10.0.0.5", "ExternalIP", "203.0.113.5", "Hostname", "h")
	if err != nil || !cmp.Equal(got, want) {
		t.Fatalf("got %v %v\nwant %v", got, err, want)
	}
	// An IP the cloud reports under two types keeps both.
	n.Annotations[AnnotationProvidedNodeIP] = "203.0.113.5"
	got, _ = addressesFromNodeIP(n, addrs("InternalIP", "10.0.0.5", "ExternalIP", "203.0.113.5", "InternalIP", "203.0.113.5"))
	if want := addrs("ExternalIP", "203.0.113.5", "InternalIP", "203.0.113.5"); !cmp.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"", " 10.0.0.5", "10.0.0.5,", "010.0.0.5", "fe80::1%eth0", "10.0.0.5,10.0.0.6", "0.0.0.0,fd00::1", "1.2.3.4,fd00::1,fd00::2"} {
		if _, err := ParseProvidedNodeIP(bad); !errors.Is(err, ErrInvalidNodeIP) || !strings.Contains(err.Error(), quote(bad)) {
			t.Errorf("ParseProvidedNodeIP(%q): %v", bad, err)
		}
	}
	if _, err := ParseProvidedNodeIP("10.0.0.5,10.0.0.6"); !errors.Is(err, conditions.ErrInvalidNodeIP) {
		t.Errorf("the --node-ip rules' error is kept: %v", err)
	}
	if ips, err := ParseProvidedNodeIP("::ffff:10.0.0.5"); err != nil || ips[0].String() != "10.0.0.5" {
		t.Errorf("IPv4-mapped: %v %v", ips, err)
	}
}

func TestPlanAddressSync(t *testing.T) {
	n := core.Node{Name: "n", Addresses: addrs("InternalIP", "10.0.0.5", "Hostname", "n")}
	// The same addresses: no change.
	if _, changed, err := PlanAddressSync(n, addrs("InternalIP", "10.0.0.5")); changed || err != nil {
		t.Fatalf("unchanged: %v %v", changed, err)
	}
	// A new IP: the cloud's, with the node's Hostname kept.
	got, changed, _ := PlanAddressSync(n, addrs("InternalIP", "10.0.0.7"))
	if !changed || !cmp.Equal(got, addrs("InternalIP", "10.0.0.7", "Hostname", "n")) {
		t.Fatalf("got %v %v", got, changed)
	}
	// The cloud's Hostname replaces the node's.
	got, changed, _ = PlanAddressSync(n, addrs("InternalIP", "10.0.0.5", "Hostname", "n.cloud"))
	if !changed || !cmp.Equal(got, addrs("InternalIP", "10.0.0.5", "Hostname", "n.cloud")) {
		t.Fatalf("got %v %v", got, changed)
	}
	// Nothing while uninitialized, or when the cloud reports no address.
	u := n
	u.Taints = []taints.Taint{uninitialized}
	if got, changed, _ := PlanAddressSync(u, addrs("InternalIP", "10.0.0.7")); changed || got != nil {
		t.Fatal("uninitialized node changed")
	}
	if _, changed, _ := PlanAddressSync(n, nil); changed {
		t.Fatal("no cloud address changed")
	}
	// An invalid annotation: an error, no change.
	n.Annotations = map[string]string{AnnotationProvidedNodeIP: "10.9.9.9"}
	if _, changed, err := PlanAddressSync(n, addrs("InternalIP", "10.0.0.7")); changed || !errors.Is(err, ErrInvalidNodeIP) {
		t.Fatalf("bad annotation: %v %v", changed, err)
	}
}

// reconcileNodeLabels: the beta labels are the source of truth.
func TestReconcileLabels(t *testing.T) {
	for _, tc := range []struct {
		labels, want map[string]string
	}{
		{map[string]string{LabelZoneBeta: "a", LabelZone: "b"}, map[string]string{LabelZone: "a"}},
		{map[string]string{LabelRegionBeta: "r"}, map[string]string{LabelRegion: "r"}},
		{map[string]string{LabelInstanceTypeBeta: "m5", LabelInstanceType: "m5"}, nil},
		{map[string]string{LabelInstanceType: "m5"}, nil}, // GA alone: untouched
		{nil, nil},
	} {
		if got := ReconcileLabels(core.Node{Labels: tc.labels}); !maps.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%v: got %v, want %v", tc.labels, got, tc.want)
		}
	}
	p := PlanInitialization(core.Node{Name: "n", Labels: map[string]string{LabelZoneBeta: "a"}}, nil, nil)
	if p.Initialize || p.Reason != "LabelsReconciled" || p.Labels[LabelZone] != "a" {
		t.Errorf("%+v", p)
	}
}

func TestInKubernetesNamespace(t *testing.T) {
	for key, want := range map[string]bool{
		"kubernetes.io/x": true, "node.kubernetes.io/x": true, "k8s.io/x": true, "foo.k8s.io/x": true,
		"xk8s.io/x": false, "example.com/kubernetes.io": false, "example.com/x": false, "a/b.kubernetes.io/c": true, "kubernetes.io": false,
	} {
		if got := inKubernetesNamespace(key); got != want {
			t.Errorf("%q: %v, want %v", key, got, want)
		}
	}
}

func ready(s conditions.Status) []conditions.Condition {
	return []conditions.Condition{{Type: conditions.Ready, Status: s}}
}

// controllers/nodelifecycle/node_lifecycle_controller.go MonitorNodes.
func TestDecideLifecycle(t *testing.T) {
	shut := ShutdownTaint()
	boom := errors.New("API rate limit")
	for _, tc := range []struct {
		name   string
		node   core.Node
		probe  Probe
		action LifecycleAction
		reason string
	}{
		{"Ready with the taint", core.Node{Name: "n", Conditions: ready(conditions.True), Taints: []taints.Taint{shut}}, Probe{}, LifecycleRemoveShutdownTaint, "Ready"},
		{"Ready without it", core.Node{Name: "n", Conditions: ready(conditions.True)}, Probe{}, LifecycleNone, "ShutdownTaintAbsent"},
		{"gone from the cloud", core.Node{Name: "n", Conditions: ready(conditions.Unknown)}, Probe{Exists: false}, LifecycleDeleteNode, EventDeletingNode},
		{"no Ready condition, gone", core.Node{Name: "n"}, Probe{}, LifecycleDeleteNode, EventDeletingNode},
		{"exists check failed", core.Node{Name: "n", Conditions: ready(conditions.False)}, Probe{ExistsErr: boom}, LifecycleNone, "ExistsCheckFailed"},
		{"shut down", core.Node{Name: "n", Conditions: ready(conditions.Unknown)}, Probe{Exists: true, Shutdown: true}, LifecycleAddShutdownTaint, "InstanceShutdown"},
		{"shut down, tainted", core.Node{Name: "n", Conditions: ready(conditions.Unknown), Taints: []taints.Taint{shut}}, Probe{Exists: true, Shutdown: true}, LifecycleNone, "AlreadyTainted"},
		{"shutdown check failed", core.Node{Name: "n", Conditions: ready(conditions.False)}, Probe{Exists: true, ShutdownErr: boom}, LifecycleNone, "ShutdownCheckFailed"},
		{"running but NotReady", core.Node{Name: "n", Conditions: ready(conditions.False)}, Probe{Exists: true}, LifecycleNone, "Running"},
	} {
		d := DecideLifecycle(tc.node, tc.probe)
		if d.Action != tc.action || d.Reason != tc.reason {
			t.Errorf("%s: %v %s, want %v %s", tc.name, d.Action, d.Reason, tc.action, tc.reason)
		}
		if tc.probe.ExistsErr != nil || tc.probe.ShutdownErr != nil {
			if d.Err == nil || d.Action == LifecycleDeleteNode {
				t.Errorf("%s: a provider error must be reported and never delete: %+v", tc.name, d)
			}
		}
	}
	d := DecideLifecycle(core.Node{Name: "n1"}, Probe{})
	if d.Message != "Deleting node n1 because it does not exist in the cloud provider" {
		t.Errorf("event message %q", d.Message)
	}
	if LifecycleDeleteNode.String() != "DeleteNode" || LifecycleAction(9).String() != "LifecycleAction(?)" {
		t.Error("String")
	}
}

package admission

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// Tables ported from k8s.io/kubernetes v1.36.3, each citing its file; the
// expected values are upstream's.

func milliCPUMem(cpu, mem int64) core.ResourceList {
	return core.ResourceList{
		core.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
		core.ResourceMemory: *resource.NewQuantity(mem, resource.BinarySI),
	}
}

func requestPod(l core.ResourceList) *core.Pod {
	return &core.Pod{Containers: []core.Container{{Resources: core.ResourceRequirements{Requests: l}}}}
}

// machine1 is predicate_test.go's node: allocatable 10 millicpu, 20 bytes of
// memory, 32 pods.
func machine1(ts ...taints.Taint) core.Node {
	l := milliCPUMem(10, 20)
	l[core.ResourcePods] = *resource.NewQuantity(32, resource.DecimalSI)
	return core.Node{Name: "machine1", Allocatable: l, Taints: ts}
}

// pkg/kubelet/lifecycle/predicate_test.go, TestGeneralPredicates.
func TestUpstreamGeneralPredicates(t *testing.T) {
	port := func(p int32) *core.Pod { return &core.Pod{HostPorts: []core.ContainerPort{{HostPort: p}}} }
	fooBar := []taints.Taint{{Key: "foo", Effect: taints.TaintEffectNoSchedule}, {Key: "bar", Effect: taints.TaintEffectNoExecute}}
	tests := []struct {
		name  string
		pod   *core.Pod
		other *core.Pod
		node  core.Node
		want  []Failure
	}{
		{name: "no resources/port/host requested always fits", pod: &core.Pod{}, other: requestPod(milliCPUMem(9, 19)), node: machine1()},
		{name: "not enough cpu and memory resource", pod: requestPod(milliCPUMem(8, 10)), other: requestPod(milliCPUMem(5, 19)), node: machine1(),
			want: []Failure{{Resource: "cpu", Requested: 8, Used: 5, Capacity: 10}, {Resource: "memory", Requested: 10, Used: 19, Capacity: 20}}},
		{name: "host not match", pod: &core.Pod{NodeName: "machine2"}, node: machine1(),
			want: []Failure{{Predicate: "NodeName", Description: "node(s) didn't match the requested node name"}}},
		{name: "hostport conflict", pod: port(123), other: port(123), node: machine1(),
			want: []Failure{{Predicate: "NodePorts", Description: "node(s) didn't have free ports for the requested pod ports"}}},
		{name: "taint/toleration match", pod: &core.Pod{Tolerations: []taints.Toleration{{Key: "foo"}, {Key: "bar"}}}, node: machine1(fooBar...)},
		{name: "NoSchedule taint/toleration not match", pod: &core.Pod{}, node: machine1(taints.Taint{Key: "foo", Effect: taints.TaintEffectNoSchedule})},
		{name: "NoExecute taint/toleration not match", pod: &core.Pod{}, node: machine1(taints.Taint{Key: "bar", Effect: taints.TaintEffectNoExecute}),
			want: []Failure{{Predicate: "TaintToleration", Description: "node(s) had taints that the pod didn't tolerate"}}},
		{name: "PreferNoSchedule taint/toleration not match", pod: &core.Pod{}, node: machine1(taints.Taint{Key: "baz", Effect: taints.TaintEffectPreferNoSchedule})},
		{name: "static pods ignore taints", pod: &core.Pod{Annotations: map[string]string{core.ConfigSourceAnnotation: core.SourceFile}}, node: machine1(fooBar...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := NewNodeInfo(tt.node, Options{})
			if tt.other != nil {
				tt.other.UID = "other"
				ni.AddPod(tt.other)
			}
			if got := ni.Filter(tt.pod, nil); !slices.Equal(got, tt.want) {
				t.Fatalf("Filter = %+v, want %+v", got, tt.want)
			}
			r := RequestsOf(tt.pod, Options{})
			if got := ni.FilterRequests(tt.pod, &r, nil); !slices.Equal(got, tt.want) {
				t.Fatalf("FilterRequests = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// pkg/kubelet/lifecycle/predicate_test.go, TestRejectPodAdmissionBasedOnOSSelector
// and TestRejectPodAdmissionBasedOnOSField (on a linux kubelet).
func TestUpstreamOSChecks(t *testing.T) {
	tests := []struct {
		name      string
		podLabels map[string]string
		podOS     string
		node      map[string]string
		reason    string
	}{
		{name: "OS label match", podLabels: map[string]string{LabelOS: "linux"}, node: map[string]string{LabelOS: "linux"}},
		{name: "dummyOS label, but the underlying OS matches", podLabels: map[string]string{LabelOS: "linux"}, node: map[string]string{LabelOS: "dummyOS"}},
		{name: "OS label mismatch", podLabels: map[string]string{LabelOS: "dummyOS"}, node: map[string]string{LabelOS: "linux"}, reason: ReasonOSSelectorMismatch},
		{name: "no label on the pod", node: map[string]string{LabelOS: "linux"}},
		{name: "OS field mismatch", podOS: "dummyOS", reason: ReasonOSNotSupported},
		{name: "no OS field", podOS: ""},
		{name: "OS field match", podOS: "linux"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := machine1()
			n.Labels = tt.node
			d := NewNodeInfo(n, Options{}).Admit(&core.Pod{Labels: tt.podLabels, OS: tt.podOS})
			if d.Reason != tt.reason || d.Admit != (tt.reason == "") {
				t.Fatalf("Admit = %+v, want reason %q", d, tt.reason)
			}
		})
	}
}

// pkg/kubelet/lifecycle/predicate_test.go,
// TestPodAdmissionBasedOnSupplementalGroupsPolicy (the feature GA).
func TestUpstreamSupplementalGroupsPolicy(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name    string
		policy  string
		feature *bool
		admit   bool
	}{
		{"no policy, node without features", "", nil, true},
		{"Merge on a node that does not support it", "Merge", &no, true},
		{"Strict on a node without features", "Strict", nil, false},
		{"Strict on a node that does not support it", "Strict", &no, false},
		{"Strict on a node that supports it", "Strict", &yes, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := machine1()
			n.Features.SupplementalGroupsPolicy = tt.feature
			d := NewNodeInfo(n, Options{}).Admit(&core.Pod{SupplementalGroupsPolicy: tt.policy})
			if d.Admit != tt.admit || !tt.admit && (d.Reason != "SupplementalGroupsPolicyNotSupported" || d.Message != "SupplementalGroupsPolicy=Strict is not supported in this node") {
				t.Fatalf("Admit = %+v, want admit %v", d, tt.admit)
			}
		})
	}
}

// preemption_test.go's pods.
func preemptionPods() map[string]*core.Pod {
	mk := func(name, cpu, mem string, guaranteed bool) *core.Pod {
		l := core.ResourceList{}
		if cpu != "" {
			l[core.ResourceCPU] = resource.MustParse(cpu)
			l[core.ResourceMemory] = resource.MustParse(mem)
		}
		p := &core.Pod{Name: name, UID: name, Containers: []core.Container{{Name: name + "-container", Resources: core.ResourceRequirements{Requests: l}}}}
		if guaranteed {
			p.Containers[0].Resources.Limits = l
		}
		return p
	}
	pods := map[string]*core.Pod{
		"tiny":                    mk("tiny", "1m", "1Mi", false),
		"bestEffort":              mk("bestEffort", "", "", false),
		"cluster-critical":        mk("cluster-critical", "100m", "100Mi", false),
		"node-critical":           mk("node-critical", "100m", "100Mi", false),
		"burstable":               mk("burstable", "100m", "100Mi", false),
		"guaranteed":              mk("guaranteed", "100m", "100Mi", true),
		"high-request-burstable":  mk("high-request-burstable", "300m", "300Mi", false),
		"high-request-guaranteed": mk("high-request-guaranteed", "300m", "300Mi", true),
	}
	cluster, node := core.SystemCriticalPriority, core.SystemCriticalPriority+100
	pods["cluster-critical"].Priority, pods["cluster-critical"].PriorityClassName = &cluster, "system-cluster-critical"
	pods["node-critical"].Priority, pods["node-critical"].PriorityClassName = &node, SystemNodeCritical
	return pods
}

// getAdmissionRequirementList(cpu, memory, pods) of preemption_test.go.
func needList(cpu, memMi, pods int64) []Need {
	var out []Need
	if cpu > 0 {
		out = append(out, Need{Resource: core.ResourceCPU, Amount: cpu})
	}
	if memMi > 0 {
		out = append(out, Need{Resource: core.ResourceMemory, Amount: memMi << 20})
	}
	if pods > 0 {
		out = append(out, Need{Resource: core.ResourcePods, Amount: pods})
	}
	return out
}

// pkg/kubelet/preemption/preemption_test.go, TestGetPodsToPreempt.
func TestUpstreamGetPodsToPreempt(t *testing.T) {
	all := preemptionPods()
	pods := func(names ...string) []*core.Pod {
		var out []*core.Pod
		for _, n := range names {
			out = append(out, all[n])
		}
		return out
	}
	tests := []struct {
		name      string
		preemptor string
		input     []*core.Pod
		needs     []Need
		wantErr   bool
		want      []*core.Pod
	}{
		{"no requirements", "cluster-critical", nil, needList(0, 0, 0), false, nil},
		{"no pods", "cluster-critical", nil, needList(0, 0, 1), true, nil},
		{"equal pods and resources requirements", "cluster-critical", pods("burstable"), needList(100, 100, 1), false, pods("burstable")},
		{"higher requirements than pod requests", "cluster-critical", pods("burstable"), needList(200, 200, 2), true, nil},
		{"choose between bestEffort and burstable", "cluster-critical", pods("burstable", "bestEffort"), needList(0, 0, 1), false, pods("bestEffort")},
		{"choose between burstable and guaranteed", "cluster-critical", pods("burstable", "guaranteed"), needList(0, 0, 1), false, pods("burstable")},
		{"choose lower request burstable if it meets requirements", "cluster-critical", pods("bestEffort", "high-request-burstable", "burstable"), needList(100, 100, 0), false, pods("burstable")},
		{"choose higher request burstable if lower does not meet requirements", "cluster-critical", pods("bestEffort", "burstable", "high-request-burstable"), needList(150, 150, 0), false, pods("high-request-burstable")},
		{"multiple pods required", "cluster-critical", pods("bestEffort", "burstable", "high-request-burstable", "guaranteed", "high-request-guaranteed"), needList(350, 350, 0), false, pods("burstable", "high-request-burstable")},
		{"evict guaranteed when we have to, and dont evict the extra burstable", "cluster-critical", pods("bestEffort", "burstable", "high-request-burstable", "guaranteed", "high-request-guaranteed"), needList(0, 550, 0), false, pods("high-request-burstable", "high-request-guaranteed")},
		{"evict cluster critical pod for node critical pod", "node-critical", pods("cluster-critical"), needList(100, 0, 0), false, pods("cluster-critical")},
		{"can not evict node critical pod for cluster critical pod", "cluster-critical", pods("node-critical"), needList(100, 0, 0), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Preempt(all[tt.preemptor], tt.input, tt.needs, Options{})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			// upstream compares as sets (podListEqual)
			if !sameSet(got, tt.want) {
				t.Fatalf("Preempt = %v, want %v", names(got), names(tt.want))
			}
		})
	}
}

func names(ps []*core.Pod) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func sameSet(a, b []*core.Pod) bool {
	x, y := names(a), names(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// pkg/kubelet/preemption/preemption_test.go, TestAdmissionRequirementsDistance.
func TestUpstreamDistance(t *testing.T) {
	all := preemptionPods()
	for _, tt := range []struct {
		needs []Need
		pod   string
		want  float64
	}{
		{needList(0, 0, 0), "burstable", 0},      // no requirements
		{needList(100, 100, 1), "bestEffort", 2}, // no requests, some requirements
		{needList(100, 100, 1), "burstable", 0},  // equal requests and requirements
		{needList(50, 50, 0), "burstable", 0},    // higher requests than requirements
	} {
		t.Run(fmt.Sprint(tt.needs, tt.pod), func(t *testing.T) {
			c := candidate{req: make([]int64, len(tt.needs))}
			for i, n := range tt.needs {
				c.req[i] = PreemptRequest(all[tt.pod], n.Resource, Options{})
			}
			rem := make([]remaining, len(tt.needs))
			for i, n := range tt.needs {
				rem[i] = remaining{n, i}
			}
			if got := distance(rem, &c); got != tt.want {
				t.Fatalf("distance = %v, want %v", got, tt.want)
			}
		})
	}
}

// pkg/kubelet/pod/pod_manager_test.go (static and mirror pods) and
// pkg/kubelet/types/pod_update_test.go (upstream's IsStaticPod, IsCriticalPod).
func TestUpstreamStaticAndMirror(t *testing.T) {
	static := &core.Pod{Name: "bar", Namespace: "default", UID: "123", Annotations: map[string]string{core.ConfigSourceAnnotation: core.SourceFile, core.ConfigHashAnnotation: "123"}}
	mirror := &core.Pod{Name: "bar", Namespace: "default", UID: "987654321", Annotations: map[string]string{core.ConfigSourceAnnotation: core.SourceAPIServer, core.ConfigMirrorAnnotation: "123"}}
	if !static.IsStatic() || mirror.IsStatic() || !mirror.IsMirror() || static.IsMirror() {
		t.Fatal("static/mirror classification")
	}
	if !IsMirrorPodOf(mirror, static) {
		t.Fatal("mirror of its static pod")
	}
	other := *mirror
	other.Annotations = map[string]string{core.ConfigMirrorAnnotation: "456"}
	if IsMirrorPodOf(&other, static) {
		t.Fatal("mirror with another hash")
	}
	for _, tt := range []struct {
		pod      *core.Pod
		critical bool
	}{
		{&core.Pod{Annotations: map[string]string{core.ConfigSourceAnnotation: core.SourceFile}}, true},
		{&core.Pod{Annotations: map[string]string{core.ConfigSourceAnnotation: core.SourceAPIServer}}, false},
		{&core.Pod{Annotations: map[string]string{core.ConfigMirrorAnnotation: ""}}, true},
		{&core.Pod{Priority: ptr(core.SystemCriticalPriority)}, true},
		{&core.Pod{Priority: ptr(core.SystemCriticalPriority - 1)}, false},
		{&core.Pod{}, false},
	} {
		if got := tt.pod.IsCritical(); got != tt.critical {
			t.Errorf("IsCritical(%+v) = %v", tt.pod, got)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// pkg/kubelet/pod/mirror_client_test.go, TestCreateMirrorPod (the node
// cases; a node that cannot be read is the caller's) and the successful
// cases of TestParsePodFullName, which PodFullName forms.
func TestUpstreamMirrorClient(t *testing.T) {
	pod := &core.Pod{Name: "test-pod-name", Namespace: "test-pod-ns", Annotations: map[string]string{core.ConfigHashAnnotation: "123456789"}}
	if _, _, err := MirrorPod(pod, &core.Node{Name: "test-node-name"}); err == nil {
		t.Error("node missing UID: no error")
	}
	mirror, owner, err := MirrorPod(pod, &core.Node{Name: "test-node-name", UID: "test-node-uid-1234"})
	if err != nil || owner != "test-node-uid-1234" || mirror.Annotations[core.ConfigMirrorAnnotation] != "123456789" {
		t.Errorf("successfully fetched node: owner %q, annotations %v, %v", owner, mirror.Annotations, err)
	}
	for full, p := range map[string]core.Pod{
		"bar_foo":         {Name: "bar", Namespace: "foo"},
		"bar.org_foo.com": {Name: "bar.org", Namespace: "foo.com"},
		"bar-bar_foo":     {Name: "bar-bar", Namespace: "foo"},
	} {
		if got := PodFullName(&p); got != full {
			t.Errorf("PodFullName(%s/%s) = %q, want %q", p.Namespace, p.Name, got, full)
		}
	}
}

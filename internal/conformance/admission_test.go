package conformance

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/kubelet/preemption"
	schedulerframework "k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/examples/kubeapi"
)

// Label keys and values an admission test draws from: a few that nodes
// and pods share often (so selectors match and fail), and the taint
// tests' pools of odd keys and values now and then.
var (
	affinityKeys   = []string{"zone", "disk", "num", "kubernetes.io/os", "example.com/x"}
	affinityValues = []string{"a", "b", "10", "5", "-3", "linux", "windows", "9223372036854775807"}
	affinityOps    = []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gt", "Lt", "Equal"}
	// resources a container may ask for: the node may lack the extended
	// ones, which the kubelet then ignores.
	admissionResources = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage, "hugepages-2Mi", "example.com/gpu", "example.com/fpga"}
)

func labelKey(r *rand.Rand) string {
	if r.Intn(12) == 0 {
		return mangle(r, oneOf(r, keyPool))
	}
	return oneOf(r, affinityKeys)
}

func labelValue(r *rand.Rand) string {
	if r.Intn(12) == 0 {
		return mangle(r, oneOf(r, valuePool))
	}
	return oneOf(r, affinityValues)
}

func randomLabels(r *rand.Rand, n int) map[string]string {
	if n == 0 && r.Intn(2) == 0 {
		return nil
	}
	m := map[string]string{}
	for i := 0; i < n; i++ {
		m[labelKey(r)] = labelValue(r)
	}
	return m
}

func randomRequirements(r *rand.Rand, fields bool) []v1.NodeSelectorRequirement {
	var out []v1.NodeSelectorRequirement
	for i := r.Intn(3); i > 0; i-- {
		req := v1.NodeSelectorRequirement{Key: labelKey(r), Operator: v1.NodeSelectorOperator(oneOf(r, affinityOps))}
		if fields {
			req.Key = oneOf(r, []string{"metadata.name", "metadata.name", "metadata.uid", ""})
			req.Operator = v1.NodeSelectorOperator(oneOf(r, []string{"In", "NotIn", "In", "Exists"}))
		}
		for j := r.Intn(3); j > 0; j-- {
			if fields {
				req.Values = append(req.Values, oneOf(r, []string{"n1", "n2", ""}))
			} else {
				req.Values = append(req.Values, labelValue(r))
			}
		}
		out = append(out, req)
	}
	return out
}

func randomHostPorts(r *rand.Rand) []v1.ContainerPort {
	var out []v1.ContainerPort
	for i := r.Intn(3); i > 0; i-- {
		out = append(out, v1.ContainerPort{
			ContainerPort: 80,
			HostPort:      int32([]int{0, 80, 8080, 53, -1}[r.Intn(5)]),
			Protocol:      v1.Protocol(oneOf(r, []string{"", "TCP", "UDP", "SCTP"})),
			HostIP:        oneOf(r, []string{"", "", "0.0.0.0", "10.0.0.1", "10.0.0.2", "::"}),
		})
	}
	return out
}

// randomAdmissionPod draws a pod for admission: randomPod's resources (with
// extended resources now and then), host ports, a node name, node selector
// and required affinity, tolerations, OS label and field, supplemental
// groups policy, priority, and static or mirror annotations.
func randomAdmissionPod(r *rand.Rand, i int) *v1.Pod {
	p := randomPod(r, i)
	p.Namespace = "ns"
	p.UID = types.UID(fmt.Sprintf("uid-%d", i))
	for c := range p.Spec.Containers {
		if r.Intn(4) == 0 {
			p.Spec.Containers[c].Resources = resources(r, admissionResources)
		}
		if r.Intn(3) == 0 {
			p.Spec.Containers[c].Ports = randomHostPorts(r)
		}
	}
	for c := range p.Spec.InitContainers {
		if r.Intn(2) == 0 {
			p.Spec.InitContainers[c].Ports = randomHostPorts(r)
		}
	}
	if r.Intn(10) == 0 {
		p.Spec.NodeName = oneOf(r, []string{"n1", "n2", "N1"})
	}
	if r.Intn(6) == 0 {
		p.Spec.NodeSelector = randomLabels(r, r.Intn(3))
	}
	if r.Intn(4) == 0 {
		ns := &v1.NodeSelector{}
		for t := r.Intn(3); t > 0; t-- {
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: randomRequirements(r, false), MatchFields: randomRequirements(r, r.Intn(3) == 0)})
		}
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}
	}
	for t := r.Intn(3); t > 0; t-- {
		p.Spec.Tolerations = append(p.Spec.Tolerations, randomToleration(r))
	}
	if r.Intn(20) == 0 {
		p.Labels = map[string]string{"kubernetes.io/os": oneOf(r, []string{"linux", "windows"})}
	}
	if r.Intn(20) == 0 {
		p.Spec.OS = &v1.PodOS{Name: v1.OSName(oneOf(r, []string{"linux", "windows"}))}
	}
	if r.Intn(20) == 0 {
		policy := v1.SupplementalGroupsPolicy(oneOf(r, []string{"Strict", "Merge"}))
		p.Spec.SecurityContext = &v1.PodSecurityContext{SupplementalGroupsPolicy: &policy}
	}
	if r.Intn(2) == 0 {
		prio := []int32{0, 1000, -5, 2000000000, 2000001000}[r.Intn(5)]
		p.Spec.Priority = &prio
	}
	switch r.Intn(8) {
	case 0:
		p.Annotations = map[string]string{"kubernetes.io/config.source": oneOf(r, []string{"file", "http", "api"})}
	case 1:
		p.Annotations = map[string]string{"kubernetes.io/config.mirror": "h"}
	}
	return p
}

func randomAdmissionNode(r *rand.Rand) *v1.Node {
	n := &v1.Node{}
	n.Name = oneOf(r, []string{"n1", "n1", "n2", ""})
	n.Labels = randomLabels(r, r.Intn(4))
	alloc := v1.ResourceList{}
	set := func(name v1.ResourceName, from []string) {
		alloc[name] = pick(r, from)
	}
	if r.Intn(20) != 0 {
		set(v1.ResourcePods, []string{"0", "3", "8", "110", "110", "110"})
	}
	if r.Intn(20) != 0 {
		set(v1.ResourceCPU, []string{"0", "500m", "4", "16", "64", "64", "64"})
	}
	if r.Intn(20) != 0 {
		set(v1.ResourceMemory, []string{"0", "1Gi", "8Gi", "64Gi", "256Gi", "256Gi"})
	}
	if r.Intn(4) != 0 {
		set(v1.ResourceEphemeralStorage, []string{"0", "1Gi", "20Gi", "1Ti", "1Ti"})
	}
	if r.Intn(4) != 0 {
		set("hugepages-2Mi", []string{"0", "4Mi", "20Mi", "1Gi", "1Gi"})
	}
	if r.Intn(3) == 0 {
		set("example.com/gpu", []string{"0", "1", "2", "4"})
	}
	n.Status.Allocatable = alloc
	for i := r.Intn(3); i > 0 && r.Intn(2) == 0; i-- {
		n.Spec.Taints = append(n.Spec.Taints, randomTaint(r))
	}
	switch r.Intn(3) {
	case 1:
		n.Status.Features = &v1.NodeFeatures{}
	case 2:
		yes := r.Intn(2) == 0
		n.Status.Features = &v1.NodeFeatures{SupplementalGroupsPolicy: &yes}
	}
	return n
}

// upstreamAdmit runs the kubelet's predicate admit handler with its
// critical-pod preemption, and returns its result and the pods it killed.
func upstreamAdmit(node *v1.Node, pod *v1.Pod, others []*v1.Pod) (lifecycle.PodAdmitResult, []string) {
	var killed []string
	kill := func(p *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
		killed = append(killed, p.Name)
		return nil
	}
	getPods := func() []*v1.Pod { return append([]*v1.Pod(nil), others...) }
	critical := preemption.NewCriticalPodAdmissionHandler(getPods, kill, record.NewFakeRecorder(1000))
	getNode := func(context.Context, bool) (*v1.Node, error) { return node, nil }
	noPlugins := func(*schedulerframework.NodeInfo, *lifecycle.PodAdmitAttributes) error { return nil }
	h := lifecycle.NewPredicateAdmitHandler(getNode, critical, noPlugins)
	res := h.Admit(context.Background(), &lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others, Operation: lifecycle.AddOperation})
	return res, killed
}

// isScalar reports whether a failure is an extended or huge page
// resource's, which upstream visits in map order.
func isScalar(f admission.Failure) bool {
	switch f.Resource {
	case "", "cpu", "memory", "ephemeral-storage", "pods":
		return false
	}
	return true
}

// orderDependent reports whether upstream's answer depends on map order:
// more than one scalar resource falls short, and nodelife's answer comes
// from the shortfalls: a refusal for a scalar one (reported first), or a
// preemption (which sums and lists them all), done or impossible.
func orderDependent(fs []admission.Failure, got admission.Decision) bool {
	if n := len(slices.DeleteFunc(slices.Clone(fs), func(f admission.Failure) bool { return !isScalar(f) })); n < 2 {
		return false
	}
	if len(got.Preempt) > 0 || got.Reason == admission.ReasonUnexpectedAdmissionError {
		return true
	}
	return !got.Admit && len(fs) > 0 && isScalar(fs[0]) && got.Reason == fs[0].Reason()
}

// sameUpToMapOrder reports whether upstream's answer is one that differs
// from nodelife's only by the order in which several failing scalar
// resources are visited: the same verdict; a refusal for one of the
// resources nodelife finds short, with that failure's message, or the
// preemption error listing the same shortfalls; the same pods preempted.
func sameUpToMapOrder(fs []admission.Failure, got admission.Decision, up lifecycle.PodAdmitResult, victims, killed []string) bool {
	if got.Admit != up.Admit || !slices.Equal(sorted(victims), sorted(killed)) {
		return false
	}
	if up.Admit {
		return true
	}
	if up.Reason == admission.ReasonUnexpectedAdmissionError {
		// the shortfalls listed after "[" in whatever order
		gotHead, gotList, _ := strings.Cut(got.Message, "[")
		upHead, upList, _ := strings.Cut(up.Message, "[")
		return got.Reason == up.Reason && gotHead == upHead &&
			slices.Equal(sorted(strings.Split(gotList, "), ")), sorted(strings.Split(upList, "), ")))
	}
	for _, f := range fs {
		if f.Resource != "" && f.Reason() == up.Reason && f.Message() == up.Message {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestDifferentialAdmit(t *testing.T) {
	c := compare(t, "admission.NodeInfo.Admit", "pkg/kubelet/lifecycle.predicateAdmitHandler.Admit with preemption.CriticalPodAdmissionHandler",
		"a node (allocatable cpu, memory, pods, ephemeral storage, hugepages-2Mi, example.com/gpu drawn present, absent or zero; 0-3 labels; "+
			"0-2 taints from the taint pools; status.features) with 0-8 admitted pods, and a pod with containers, sidecars, init containers, "+
			"overhead and pod-level resources, extended resources the node may lack, host ports, node name, node selector, required affinity "+
			"(valid and invalid requirements, matchFields), tolerations, OS label and field, supplemental groups policy, priorities up to "+
			"system-node-critical, static and mirror annotations; result, reason, message and the preempted pods in order")
	quietKlog(t)
	r := rand.New(rand.NewSource(35))
	seen := map[string]int{} // upstream's outcomes, so that the log shows what was covered
	defer func() { t.Logf("upstream outcomes: %v", seen) }()
	for i, n := 0, inputs(t); i < n; i++ {
		node := randomAdmissionNode(r)
		others := make([]*v1.Pod, r.Intn(9))
		for j := range others {
			others[j] = randomAdmissionPod(r, 1000*i+j)
		}
		pod := randomAdmissionPod(r, 1000*i+999)

		nlPods := make([]*core.Pod, len(others))
		for j, o := range others {
			ap := kubeapi.Pod(o)
			nlPods[j] = &ap
		}
		ap := kubeapi.Pod(pod)
		ni := admission.NewNodeInfo(kubeapi.Node(node), admission.OptionsFor(upstreamRelease), nlPods...)
		got := ni.Admit(&ap)

		// upstream writes the kubelet's OS into the cached Node's labels:
		// give it a copy.
		up, killed := upstreamAdmit(node.DeepCopy(), pod, others)
		switch {
		case len(killed) > 0:
			seen["admitted after preempting"]++
		case up.Admit:
			seen["admitted"]++
		default:
			seen[up.Reason]++
		}
		var victims []string
		for _, v := range got.Preempt {
			victims = append(victims, v.Name)
		}
		if fs := ni.Filter(&ap, nil); orderDependent(fs, got) {
			// Which shortfall upstream reports (and the order of its
			// preemption message) depends on map order: every such input
			// is counted as the documented deviation, so that the report
			// does not depend on the run, once upstream's answer is one
			// nodelife's shortfalls allow.
			if sameUpToMapOrder(fs, got, up, victims, killed) {
				c.deviate("map-order")
				continue
			}
		} else if got.Admit == up.Admit && got.Reason == up.Reason && got.Message == up.Message && strings.Join(victims, ",") == strings.Join(killed, ",") {
			c.agree()
			continue
		}
		c.disagree("input %d:\n node %+v\n pod %+v\n upstream %v %q %q killed %v\n nodelife %v %q %q preempt %v",
			i, node, pod.Spec, up.Admit, up.Reason, up.Message, killed, got.Admit, got.Reason, got.Message, victims)
	}
}

// The preemption alone: a critical pod short of random amounts of cpu,
// memory, pods and ephemeral storage on a node running 0-15 pods of every
// QoS class and priority.
func TestDifferentialPreempt(t *testing.T) {
	c := compare(t, "admission.Preempt", "pkg/kubelet/preemption.CriticalPodAdmissionHandler.HandleAdmissionFailure",
		"0-15 running pods (randomAdmissionPod: every QoS class, priorities up to critical, static and mirror pods) and a critical or "+
			"non-critical pod short of 1-3 of cpu, memory, ephemeral-storage and pods by random amounts; the pods evicted in order, or the error")
	quietKlog(t)
	r := rand.New(rand.NewSource(36))
	names := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage, v1.ResourcePods}
	amounts := map[v1.ResourceName][]int64{
		v1.ResourceCPU:              {1, 100, 500, 1000, 2500, 8000},
		v1.ResourceMemory:           {1, 64 << 20, 512 << 20, 1 << 30, 3 << 30},
		v1.ResourceEphemeralStorage: {1, 1 << 30, 10 << 30},
		v1.ResourcePods:             {1, 2, 3},
	}
	evicting := 0
	defer func() { t.Logf("%d of the inputs evict pods", evicting) }()
	for i, n := 0, inputs(t); i < n; i++ {
		running := make([]*v1.Pod, r.Intn(16))
		nl := make([]*core.Pod, len(running))
		for j := range running {
			running[j] = randomAdmissionPod(r, 100*i+j)
			ap := kubeapi.Pod(running[j])
			nl[j] = &ap
		}
		pod := randomAdmissionPod(r, 100*i+99)
		if r.Intn(4) != 0 {
			prio := int32(2000000000)
			pod.Spec.Priority = &prio
		}
		var reasons []lifecycle.PredicateFailureReason
		var needs []admission.Need
		for _, k := range r.Perm(len(names))[:1+r.Intn(3)] {
			name := names[k]
			q := amounts[name][r.Intn(len(amounts[name]))]
			// an InsufficientResourceError whose shortfall is q
			reasons = append(reasons, &lifecycle.InsufficientResourceError{ResourceName: name, Requested: q, Used: 0, Capacity: 0})
			needs = append(needs, admission.Need{Resource: core.ResourceName(name), Amount: q})
		}
		var killed []string
		kill := func(p *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
			killed = append(killed, p.Name)
			return nil
		}
		h := preemption.NewCriticalPodAdmissionHandler(func() []*v1.Pod { return running }, kill, record.NewFakeRecorder(1000))
		ap := kubeapi.Pod(pod)
		left, err := h.HandleAdmissionFailure(context.Background(), pod, reasons, lifecycle.AddOperation)
		if !(&ap).IsCritical() {
			// upstream hands the reasons back; nodelife's Admit does not
			// call Preempt for such a pod
			if len(left) == len(reasons) && err == nil && len(killed) == 0 {
				c.agree()
			} else {
				c.disagree("input %d: non-critical pod: upstream left %v, err %v, killed %v", i, left, err, killed)
			}
			continue
		}
		victims, nlErr := admission.Preempt(&ap, nl, needs, admission.OptionsFor(upstreamRelease))
		var got []string
		for _, v := range victims {
			got = append(got, v.Name)
		}
		upErr, gotErr := "", ""
		if err != nil {
			upErr = err.Error()
		}
		if nlErr != nil {
			gotErr = "preemption: error finding a set of pods to preempt: " + nlErr.Error()
		}
		if upErr == gotErr && strings.Join(got, ",") == strings.Join(killed, ",") {
			if len(killed) > 0 {
				evicting++
			}
			c.agree()
			continue
		}
		c.disagree("input %d: needs %v\n upstream killed %v err %q\n nodelife %v err %q", i, needs, killed, upErr, got, gotErr)
	}
}

// quietKlog discards klog's output until the test ends: the kubelet logs
// each refusal and preemption at info level.
func quietKlog(t testing.TB) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	t.Cleanup(func() { klog.LogToStderr(true) })
}

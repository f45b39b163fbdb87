package conformance

import (
	"fmt"
	"maps"
	"math/rand"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	resourcehelper "k8s.io/component-helpers/resource"
	v1qos "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/cm"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/examples/kubeapi"
)

// quantities a generated resource picks from: zeros, small and odd values,
// and values that make requests equal limits often.
var (
	cpus     = []string{"0", "1m", "10m", "100m", "250m", "500m", "1", "1500m", "2", "4"}
	memories = []string{"0", "1", "1Mi", "64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi"}
	huge     = []string{"0", "2Mi", "4Mi", "10Mi"}
	storage  = []string{"0", "1Gi", "10Gi"}
)

func pick(r *rand.Rand, from []string) resource.Quantity {
	return resource.MustParse(from[r.Intn(len(from))])
}

// resources draws requests and limits for one container (or the pod):
// each resource is absent, request only, limit only, both equal, or both
// different.
func resources(r *rand.Rand, names []v1.ResourceName) v1.ResourceRequirements {
	var rr v1.ResourceRequirements
	for _, name := range names {
		from := cpus
		switch name {
		case v1.ResourceMemory:
			from = memories
		case "hugepages-2Mi":
			from = huge
		case v1.ResourceEphemeralStorage:
			from = storage
		}
		set := func(l *v1.ResourceList, q resource.Quantity) {
			if *l == nil {
				*l = v1.ResourceList{}
			}
			(*l)[name] = q
		}
		switch r.Intn(5) {
		case 1:
			set(&rr.Requests, pick(r, from))
		case 2:
			set(&rr.Limits, pick(r, from))
		case 3:
			q := pick(r, from)
			set(&rr.Requests, q)
			set(&rr.Limits, q)
		case 4:
			set(&rr.Requests, pick(r, from))
			set(&rr.Limits, pick(r, from))
		}
	}
	return rr
}

var containerResources = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, "hugepages-2Mi", v1.ResourceEphemeralStorage}

// randomPod draws a pod: 1-3 containers, 0-3 init containers of which some
// are sidecars (restartPolicy Always), sometimes an overhead, and
// sometimes pod-level cpu, memory and hugepages-2Mi (spec.resources).
func randomPod(r *rand.Rand, i int) *v1.Pod {
	p := &v1.Pod{}
	p.Name, p.UID = fmt.Sprintf("p%d", i), "u"
	for c := 0; c < 1+r.Intn(3); c++ {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: fmt.Sprintf("c%d", c), Resources: resources(r, containerResources)})
	}
	for c := 0; c < r.Intn(4); c++ {
		ic := v1.Container{Name: fmt.Sprintf("i%d", c), Resources: resources(r, containerResources)}
		if r.Intn(2) == 0 {
			always := v1.ContainerRestartPolicyAlways
			ic.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, ic)
	}
	if r.Intn(5) == 0 {
		p.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: pick(r, cpus), v1.ResourceMemory: pick(r, memories)}
	}
	if r.Intn(3) == 0 {
		rr := resources(r, []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, "hugepages-2Mi"})
		p.Spec.Resources = &rr
	}
	return p
}

// same compares upstream's and nodelife's pod cgroup values.
func same(up *cm.ResourceConfig, nl cgroup.ResourceConfig) string {
	u64 := func(a, b *uint64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	i64 := func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	show := func(p any) string {
		switch v := p.(type) {
		case *uint64:
			if v != nil {
				return strconv.FormatUint(*v, 10)
			}
		case *int64:
			if v != nil {
				return strconv.FormatInt(*v, 10)
			}
		}
		return "nil"
	}
	var diff string
	if !u64(up.CPUShares, nl.CPUShares) {
		diff += fmt.Sprintf(" shares %s/%s", show(up.CPUShares), show(nl.CPUShares))
	}
	if !i64(up.CPUQuota, nl.CPUQuota) {
		diff += fmt.Sprintf(" quota %s/%s", show(up.CPUQuota), show(nl.CPUQuota))
	}
	if !u64(up.CPUPeriod, nl.CPUPeriod) {
		diff += fmt.Sprintf(" period %s/%s", show(up.CPUPeriod), show(nl.CPUPeriod))
	}
	if !i64(up.Memory, nl.Memory) {
		diff += fmt.Sprintf(" memory %s/%s", show(up.Memory), show(nl.Memory))
	}
	if len(up.HugePageLimit) != len(nl.HugePageLimit) {
		diff += fmt.Sprintf(" hugepages %v/%v", up.HugePageLimit, nl.HugePageLimit)
	} else {
		for k, v := range up.HugePageLimit {
			if w, ok := nl.HugePageLimit[k]; !ok || w != v {
				diff += fmt.Sprintf(" hugepages %v/%v", up.HugePageLimit, nl.HugePageLimit)
				break
			}
		}
	}
	return diff
}

// quantityMap renders a resource list for comparison: cpu in millicores,
// everything else in units.
func quantityMap(l v1.ResourceList) map[string]int64 {
	out := map[string]int64{}
	for name, q := range l {
		if name == v1.ResourceCPU {
			out[string(name)] = q.MilliValue()
		} else {
			out[string(name)] = q.Value()
		}
	}
	return out
}

func fromCgroup(l core.ResourceList) v1.ResourceList {
	out := v1.ResourceList{}
	for name, q := range l {
		out[v1.ResourceName(name)] = q
	}
	return out
}

// The pod's QoS class, effective requests and limits, and its own cgroup's
// values (ResourceConfigForPod, CFS quota on, 100ms period), nodelife
// against upstream (v1qos.GetPodQOS and ComputePodQOS, component-helpers'
// PodRequests and PodLimits, pkg/kubelet/cm.ResourceConfigForPod) on random
// pods with sidecars, init containers, overhead, huge pages and pod-level
// resources, with the PodLevelResources gate at its default (on) and off.
func TestDifferentialPodResources(t *testing.T) {
	n := inputs(t)
	const tried = "pods of 1-3 containers and 0-3 init containers (half of them sidecars), requests and limits absent, equal or different per resource (cpu, memory, hugepages-2Mi, ephemeral-storage, zeros included), overhead one in five, pod-level cpu/memory one in three"
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("PodLevelResources=%v", gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.PodLevelResources, gate)
			suffix := ""
			opts := cgroup.QOSOptionsFor(upstreamRelease)
			opts.DisablePodLevelResources = !gate
			if !gate {
				suffix = " (DisablePodLevelResources)"
			}
			gateName := fmt.Sprintf(" (PodLevelResources=%v)", gate)
			qos := compare(t, "cgroup.PodQOS"+suffix, "pkg/apis/core/v1/helper/qos.GetPodQOS"+gateName, tried)
			compute := compare(t, "cgroup.ComputeQOS"+suffix, "pkg/apis/core/v1/helper/qos.ComputePodQOS"+gateName, tried)
			requests := compare(t, "cgroup.PodRequests"+suffix, "component-helpers/resource.PodRequests"+gateName, tried)
			limits := compare(t, "cgroup.PodLimits"+suffix, "component-helpers/resource.PodLimits"+gateName, tried)
			config := compare(t, "cgroup.ResourceConfigForPod"+suffix, "pkg/kubelet/cm.ResourceConfigForPod(enforceCPULimits=true, 100ms)"+gateName, tried)
			r := rand.New(rand.NewSource(1))
			var withSidecar, withPodLevel int
			for i := 0; i < n; i++ {
				pod := randomPod(r, i)
				for _, c := range pod.Spec.InitContainers {
					if c.RestartPolicy != nil {
						withSidecar++
						break
					}
				}
				if pod.Spec.Resources != nil {
					withPodLevel++
				}
				np := kubeapi.Pod(pod)
				if up, nl := v1qos.GetPodQOS(pod), cgroup.PodQOS(np, opts); string(up) != string(nl) {
					qos.disagree("qos %s/%s\n%s", up, nl, describe(pod))
				} else {
					qos.agree()
				}
				if up, nl := v1qos.ComputePodQOS(pod), cgroup.ComputeQOS(np, opts); string(up) != string(nl) {
					compute.disagree("qos %s/%s\n%s", up, nl, describe(pod))
				} else {
					compute.agree()
				}
				ro := resourcehelper.PodResourcesOptions{SkipPodLevelResources: !gate}
				if up, nl := quantityMap(resourcehelper.PodRequests(pod, ro)), quantityMap(fromCgroup(cgroup.PodRequests(np, opts))); !maps.Equal(up, nl) {
					requests.disagree("requests %v/%v\n%s", up, nl, describe(pod))
				} else {
					requests.agree()
				}
				if up, nl := quantityMap(resourcehelper.PodLimits(pod, ro)), quantityMap(fromCgroup(cgroup.PodLimits(np, opts))); !maps.Equal(up, nl) {
					limits.disagree("limits %v/%v\n%s", up, nl, describe(pod))
				} else {
					limits.agree()
				}
				up := cm.ResourceConfigForPod(pod, true, 100000, false, "")
				// MemoryQoS off on both sides (enforceMemoryQoS false).
				po := cgroup.PodConfigOptionsFor(upstreamRelease)
				po.QOSOptions, po.MemoryQoS = opts, nil
				if why := same(up, cgroup.ResourceConfigForPod(np, po)); why != "" {
					config.disagree("pod %d (upstream/nodelife):%s\n%s", i, why, describe(pod))
				} else {
					config.agree()
				}
			}
			t.Logf("%d pods (%d with sidecars, %d with pod-level resources)", n, withSidecar, withPodLevel)
		})
	}
}

// describe prints a pod's resources compactly, for a failure message.
func describe(p *v1.Pod) string {
	rr := func(r v1.ResourceRequirements) string {
		return fmt.Sprintf("req %v lim %v", quantityMap(r.Requests), quantityMap(r.Limits))
	}
	out := ""
	for _, c := range p.Spec.InitContainers {
		kind := "init"
		if c.RestartPolicy != nil {
			kind = "sidecar"
		}
		out += fmt.Sprintf("  %s %s: %s\n", kind, c.Name, rr(c.Resources))
	}
	for _, c := range p.Spec.Containers {
		out += fmt.Sprintf("  container %s: %s\n", c.Name, rr(c.Resources))
	}
	if p.Spec.Overhead != nil {
		out += fmt.Sprintf("  overhead %v\n", quantityMap(p.Spec.Overhead))
	}
	if p.Spec.Resources != nil {
		out += fmt.Sprintf("  pod-level: %s\n", rr(*p.Spec.Resources))
	}
	return out
}

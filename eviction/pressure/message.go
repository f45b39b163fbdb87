package pressure

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/quantity"
)

// Status and event strings the kubelet writes for an eviction.
const (
	// Reason is the pod status reason, the pod event reason and the
	// admission rejection reason: "Evicted".
	Reason = "Evicted"
	// PhaseFailed is the phase an evicted pod ends in.
	PhaseFailed = "Failed"
	// ReasonTerminationByKubelet is the reason of the DisruptionTarget
	// condition (core.DisruptionTarget) set on a pod the kubelet evicts for
	// pressure.
	ReasonTerminationByKubelet = "TerminationByKubelet"
	// EventTypeWarning is the type of the pod and node events.
	EventTypeWarning = "Warning"
	// ReasonEvictionThresholdMet is the node event recorded when the
	// kubelet starts reclaiming a resource.
	ReasonEvictionThresholdMet = "EvictionThresholdMet"

	// AnnotationOffendingContainers lists the containers using more than
	// their request, comma-separated.
	AnnotationOffendingContainers = "offending_containers"
	// AnnotationOffendingContainersUsage lists their usage, in the same
	// order.
	AnnotationOffendingContainersUsage = "offending_containers_usage"
	// AnnotationOffendingPod is the pod name when its pod-level memory
	// request is exceeded.
	AnnotationOffendingPod = "offending_pod"
	// AnnotationOffendingPodUsage is that pod's usage.
	AnnotationOffendingPodUsage = "offending_pod_usage"
	// AnnotationStarvedResource is the resource the node was low on.
	AnnotationStarvedResource = "starved_resource"
)

// PodStatus is the status the kubelet gives an evicted pod: phase Failed,
// reason Evicted, the eviction message, and for a pressure eviction the
// DisruptionTarget condition.
type PodStatus struct {
	// Phase is "Failed".
	Phase string
	// Reason is "Evicted".
	Reason string
	// Message says what the node was low on and which containers used
	// more than their request.
	Message string
	// Conditions holds DisruptionTarget=True, reason TerminationByKubelet
	// (PodDisruptionConditions, GA); empty for local-storage evictions.
	Conditions []core.PodCondition
}

// IsEvicted reports whether a pod status records an eviction (upstream's
// PodIsEvicted): phase Failed and reason Evicted.
func IsEvicted(phase, reason string) bool { return phase == PhaseFailed && reason == Reason }

// Event is an event the kubelet records.
type Event struct {
	// Type is "Warning".
	Type string
	// Reason is the event reason.
	Reason string
	// Message is the event message.
	Message string
}

// quantityFormat returns how upstream prints the resource's observed
// amounts: binary suffixes for bytes, decimal for inodes and PIDs.
func (r Resource) quantityFormat() resource.Format {
	if r == ResourceInodes || r == ResourcePIDs {
		return resource.DecimalSI
	}
	return resource.BinarySI
}

// evictionMessage builds the eviction message and annotations for a pod
// (upstream's evictionMessage): the starved resource, the threshold and
// availability of the first threshold in ths on that resource with an
// observation, and each regular or init container whose usage is above its
// request. A pod without stats gets the first two parts and no
// annotations.
func evictionMessage(res Resource, p *core.Pod, st *PodStats, ths []Threshold, obs Observations) (string, map[string]string) {
	var b strings.Builder
	b.WriteString("The node was low on resource: ")
	b.WriteString(string(res))
	b.WriteString(". ")
	for i := range ths {
		if ths[i].Signal.Resource() != res {
			continue
		}
		if o, ok := obs[ths[i].Signal]; ok {
			q := ths[i].Value.quantity(o.Capacity)
			b.WriteString("Threshold quantity: ")
			b.WriteString(q.String())
			b.WriteString(", available: ")
			b.WriteString(resource.NewQuantity(o.Available, res.quantityFormat()).String())
			b.WriteString(". ")
			break
		}
	}
	ann := map[string]string{}
	if st == nil {
		return b.String(), ann
	}
	if req, ok := podLevelMemory(p); ok && res == ResourceMemory && st.WorkingSetBytes != nil {
		usage := bytesQuantity(*st.WorkingSetBytes)
		b.WriteString("Pod " + p.Name + " was using " + usage + ", request is " + req.String() + ", has larger consumption of memory. ")
		ann[AnnotationOffendingPod] = p.Name
		ann[AnnotationOffendingPodUsage] = usage
	}
	var names, usages []string
	for i := range st.Containers {
		cs := &st.Containers[i]
		c := container(p, cs.Name)
		if c == nil {
			continue
		}
		var used *uint64
		switch res {
		case ResourceMemory:
			used = cs.WorkingSetBytes
		case ResourceEphemeralStorage:
			if cs.Rootfs != nil && cs.Rootfs.UsedBytes != nil && cs.Logs != nil && cs.Logs.UsedBytes != nil {
				sum := *cs.Rootfs.UsedBytes + *cs.Logs.UsedBytes
				used = &sum
			}
		}
		if used == nil {
			continue
		}
		var req resource.Quantity
		if res == ResourceMemory || res == ResourceEphemeralStorage {
			req = c.Resources.Requests[res.name()]
		}
		if req.CmpInt64(int64(*used)) >= 0 {
			continue
		}
		u := bytesQuantity(*used)
		b.WriteString("Container " + c.Name + " was using " + u + ", request is " + req.String() + ", has larger consumption of " + string(res) + ". ")
		names = append(names, c.Name)
		usages = append(usages, u)
	}
	ann[AnnotationOffendingContainers] = strings.Join(names, ",")
	ann[AnnotationOffendingContainersUsage] = strings.Join(usages, ",")
	ann[AnnotationStarvedResource] = string(res)
	return b.String(), ann
}

// podLevelMemory returns the pod-level memory request of a pod that sets
// pod-level resources, and whether it has one.
func podLevelMemory(p *core.Pod) (resource.Quantity, bool) {
	if !p.PodLevelResourcesSet() {
		return resource.Quantity{}, false
	}
	q, ok := p.Resources.Requests[core.ResourceMemory]
	return q, ok
}

// container returns the regular or init container with the name, regular
// ones first, or nil.
func container(p *core.Pod, name string) *core.Container {
	for i := range p.Containers {
		if p.Containers[i].Name == name {
			return &p.Containers[i]
		}
	}
	for i := range p.InitContainers {
		if p.InitContainers[i].Name == name {
			return &p.InitContainers[i]
		}
	}
	return nil
}

func bytesQuantity(v uint64) string { return quantity.Bytes(int64(v)) }

// The local-storage eviction messages.
func emptyDirMessage(volume string, limit resource.Quantity) string {
	return "Usage of EmptyDir volume " + strconv.Quote(volume) + " exceeds the limit " + strconv.Quote(limit.String()) + ". "
}

func podEphemeralMessage(limit resource.Quantity) string {
	return "Pod ephemeral local storage usage exceeds the total limit of containers " + limit.String() + ". "
}

func containerEphemeralMessage(container string, limit resource.Quantity) string {
	return "Container " + container + " exceeded its local ephemeral storage limit " + strconv.Quote(limit.String()) + ". "
}

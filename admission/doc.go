// Package admission is the kubelet's pod admission: whether a pod bound to
// the node may run there, and if not, the Reason and Message the kubelet
// writes on it; for a critical pod that does not fit, which running pods
// the kubelet evicts to make room; and the static pods it runs from
// manifests with their mirror pods in the API server.
//
// Upstream: k8s.io/kubernetes v1.37.2 pkg/kubelet/lifecycle (the predicate
// admit handler), pkg/scheduler (AdmissionCheck and the NodeResourcesFit,
// NodeAffinity, NodeName and NodePorts checks it runs),
// component-helpers' node affinity, pkg/kubelet/preemption,
// pkg/kubelet/types and pkg/kubelet/pod (static and mirror pods), and the
// order of admit handlers in NewMainKubelet.
//
// # Usage
//
//	ni := admission.NewNodeInfo(node, admission.Options{}, running...)
//	d := ni.Admit(pod)
//	if !d.Admit {
//		reject(pod, d.Reason, d.Message) // e.g. OutOfmemory, "Node didn't have enough resource: ..."
//	}
//	for _, victim := range d.Preempt { evict(victim, admission.PreemptReason, admission.PreemptMessage) }
//	ni.AddPod(pod) // once it runs; ni.RemovePod(uid) when it ends
//
// A NodeInfo keeps the sum of its pods' requests and their host ports, so
// one admission costs the same on a node with 10 pods or 110, and a
// simulator can place pods on thousands of nodes (see the benchmarks).
// Chain runs the kubelet's whole handler chain, with the pressure,
// topology and shutdown handlers of packages eviction/pressure, topology
// (TopologyHandler: the topology manager with the CPU and memory
// managers) and shutdown, and slots for the rest. ReconcileMirrors plans the mirror pods of a node's static
// pods.
//
// # Semantics
//
// The requests a pod needs are cgroup.PodRequests (containers, sidecars,
// init containers, pod-level resources, overhead). A node has room when,
// for each resource the pod requests, allocatable minus what the admitted
// pods request is at least the request, and when one more pod stays within
// allocatable pods. The kubelet reads only NoExecute taints (the scheduler
// has judged the rest) and skips them for static pods; it ignores
// requests of extended resources the node does not advertise (left to
// cluster-level resources). The checks run in the kubelet's order and the
// first failure is reported (Filter lists them all).
//
// A critical pod that does not fit preempts (Preempt): the pods it may
// evict are taken by QoS class, BestEffort before Burstable before
// Guaranteed, and within a class the pod that best covers what is missing
// goes first. Priority plays no part in that order: a priority-1000 pod
// that frees exactly the shortfall goes before priority-0 pods that would
// free it together. This is the kubelet's rule, reproduced; order or
// filter the running pods yourself if you want otherwise.
//
// Where this package and a kubelet can differ: upstream visits several
// failing extended resources in map order (here sorted by name); the
// kubelet retries a node affinity failure after fetching its Node again
// (here the caller's NodeInfo holds one Node); pods resized in place are
// taken with the resources and the resize status (core.Pod.Resize) they are
// given; requests backed by dynamic
// resource allocation (status.extendedResourceClaimStatus) are not
// modelled. The differential tests in internal/conformance run this
// package and the kubelet's own handler side by side on generated nodes
// and pods.
package admission

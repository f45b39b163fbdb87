package cgroup

import (
	"strconv"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/enum"
)

// SwapBehavior is the kubelet's memorySwap.swapBehavior.
type SwapBehavior string

const (
	// NoSwap: pods use no swap. The default; "" means the same.
	NoSwap SwapBehavior = "NoSwap"
	// LimitedSwap: Burstable pods get swap in proportion to their memory
	// request (KEP-2400; NodeSwap GA in 1.34, kubernetes#132651).
	LimitedSwap SwapBehavior = "LimitedSwap"
	// UnlimitedSwap let workloads use as much swap as the system has. It
	// was removed in 1.30 (kubernetes#122745) and is accepted only with
	// SwapConfig.Legacy.
	UnlimitedSwap SwapBehavior = "UnlimitedSwap"
)

// SwapConfig is what a container's swap decision depends on besides the
// pod.
//
// The zero value is swapBehavior NoSwap on an
// undetected cgroup version without a swap controller.
type SwapConfig struct {
	// Behavior is swapBehavior.
	Behavior SwapBehavior
	// Version is the host's cgroup layout.
	Version Version
	// Controller says whether the swap controller exists (v2: the kubelet's
	// cgroup has memory.swap.max; v1: memory.memsw.limit_in_bytes exists).
	Controller bool
	// NodeMemory and NodeSwap are the machine's memory and swap capacity
	// in bytes (not allocatable).
	NodeMemory, NodeSwap int64
	// Legacy selects the alpha behaviour of 1.22-1.27 that the seeds
	// describe: every container's memory+swap limit is its memory limit
	// (on v1 it can use memory and swap in any mix up to the limit, on v2
	// it cannot swap), or unlimited under UnlimitedSwap; no QoS rule and no
	// proportional limit.
	Legacy bool
}

// SwapReason says why a container got the swap it got.
type SwapReason int

const (
	// SwapGranted: LimitedSwap applies; Limit is the proportional share.
	SwapGranted SwapReason = iota
	// SwapNotConfigured: the behavior is NoSwap (or empty).
	SwapNotConfigured
	// SwapNoController: the swap controller is missing; nothing is written.
	SwapNoController
	// SwapCgroupV1: swap needs cgroup v2.
	SwapCgroupV1
	// SwapCriticalPod: critical pods (static, mirror, priority >= 2e9)
	// never swap.
	SwapCriticalPod
	// SwapNotBurstable: only Burstable pods swap (enhancements#3957).
	SwapNotBurstable
	// SwapNoMemoryRequest: the container declares no memory request or
	// limit.
	SwapNoMemoryRequest
	// SwapRequestEqualsLimit: the container's memory request equals its
	// limit.
	SwapRequestEqualsLimit
	// SwapInvalidCapacity: the proportion cannot be computed (node memory
	// not positive, or a request above it); the kubelet logs and uses
	// NoSwap.
	SwapInvalidCapacity
	// SwapLegacy: the decision follows SwapConfig.Legacy.
	SwapLegacy
)

// String returns the reason's name.
func (r SwapReason) String() string {
	return enum.Name(r, "SwapReason", "Granted", "NotConfigured", "NoController", "CgroupV1", "CriticalPod",
		"NotBurstable", "NoMemoryRequest", "RequestEqualsLimit", "InvalidCapacity", "Legacy")
}

// SwapDecision is the swap setting of one container.
type SwapDecision struct {
	// Behavior is what applies to the container: LimitedSwap when granted,
	// else NoSwap (UnlimitedSwap only under Legacy).
	Behavior SwapBehavior
	// Limit is the swap the container may use in bytes: 0 under NoSwap, -1
	// when unlimited.
	Limit  int64
	Reason SwapReason
	// Message is a sentence saying why.
	Message string
	// SwapMax is the value for cgroup v2 memory.swap.max ("0", a byte
	// count, or "max"); empty when not written (no controller, or v1).
	SwapMax string
	// MemorySwapLimit is the v1 memory.memsw.limit_in_bytes (memory plus
	// swap) to write, or the value runtimes receive as
	// MemorySwapLimitInBytes under Legacy; nil when not written.
	MemorySwapLimit *int64
}

// ContainerSwap decides the swap of container c of pod p. Under the
// current rules a container gets LimitedSwap only when all of these hold,
// checked in this order, the first failing one being the Reason: the
// behavior is LimitedSwap, the swap controller exists, the host runs cgroup
// v2, the pod is not critical, the pod is Burstable, the container has a
// memory request or limit, and its request differs from its limit. The
// limit is int64(request / NodeMemory * NodeSwap) in float64, truncated: a
// 1Gi request on a node with 40Gi of memory and 5Gi of swap may use
// 134217728 bytes.
//
// What is written for NoSwap: memory.swap.max "0" on v2; on v1 with the
// controller the memory+swap limit equals the memory limit; without the
// controller nothing.
func ContainerSwap(p core.Pod, c core.Container, cfg SwapConfig, opts QOSOptions) (SwapDecision, error) {
	memLimit := c.Resources.Limits.Memory()
	if cfg.Legacy {
		return legacySwap(cfg, memLimit)
	}
	switch cfg.Behavior {
	case "", NoSwap, LimitedSwap:
	case UnlimitedSwap:
		return SwapDecision{}, wrap(ErrInvalidInput, "swap behavior UnlimitedSwap was removed in Kubernetes 1.30 (kubernetes#122745); set Legacy to use it")
	default:
		return SwapDecision{}, wrap(ErrInvalidInput, "unknown swap behavior "+quote(string(cfg.Behavior))+" (want NoSwap or LimitedSwap)")
	}
	if !cfg.Controller {
		return SwapDecision{Behavior: NoSwap, Reason: SwapNoController,
			Message: "no swap cgroup controller on the host; swap settings are left untouched"}, nil
	}
	noSwap := func(reason SwapReason, msg string) (SwapDecision, error) {
		d := SwapDecision{Behavior: NoSwap, Reason: reason, Message: msg}
		if cfg.Version.Unified() {
			d.SwapMax = "0"
		} else {
			v := memLimit
			d.MemorySwapLimit = &v
		}
		return d, nil
	}
	if cfg.Behavior != LimitedSwap {
		return noSwap(SwapNotConfigured, "swap behavior is NoSwap")
	}
	if !cfg.Version.Unified() {
		return noSwap(SwapCgroupV1, "swap needs cgroup v2; the host runs "+cfg.Version.String())
	}
	if p.IsCritical() {
		return noSwap(SwapCriticalPod, "critical pods (static, mirror or priority >= 2000000000) do not swap")
	}
	if class := PodQOS(p, opts); class != core.PodQOSBurstable {
		return noSwap(SwapNotBurstable, "only Burstable pods swap; the pod is "+string(class))
	}
	req := c.Resources.Requests[core.ResourceMemory]
	lim := c.Resources.Limits[core.ResourceMemory]
	if req.IsZero() && lim.IsZero() {
		return noSwap(SwapNoMemoryRequest, "container "+quote(c.Name)+" declares no memory request or limit")
	}
	if req.Cmp(lim) == 0 {
		return noSwap(SwapRequestEqualsLimit, "container "+quote(c.Name)+" has a memory request equal to its limit")
	}
	limit, err := SwapLimit(req.Value(), cfg.NodeMemory, cfg.NodeSwap)
	if err != nil {
		return noSwap(SwapInvalidCapacity, err.Error())
	}
	return SwapDecision{
		Behavior: LimitedSwap, Limit: limit, Reason: SwapGranted,
		Message: "LimitedSwap: request " + itoa(req.Value()) + " of node memory " + itoa(cfg.NodeMemory) + " gives " + itoa(limit) + " bytes of the node's " + itoa(cfg.NodeSwap) + " swap",
		SwapMax: strconv.FormatInt(limit, 10),
	}, nil
}

// SwapLimit is the LimitedSwap formula:
// int64(float64(request)/float64(nodeMemory)*float64(nodeSwap)). It fails,
// as upstream, when nodeMemory is not positive or request exceeds it, and
// also on a negative request or swap size.
func SwapLimit(request, nodeMemory, nodeSwap int64) (int64, error) {
	switch {
	case nodeMemory <= 0:
		return 0, wrap(ErrInvalidInput, "node memory capacity "+itoa(nodeMemory)+" is not positive")
	case request > nodeMemory:
		return 0, wrap(ErrInvalidInput, "container memory request "+itoa(request)+" is larger than node memory capacity "+itoa(nodeMemory))
	case request < 0:
		return 0, wrap(ErrInvalidInput, "container memory request "+itoa(request)+" is negative")
	case nodeSwap < 0:
		return 0, wrap(ErrInvalidInput, "node swap capacity "+itoa(nodeSwap)+" is negative")
	}
	return int64(float64(request) / float64(nodeMemory) * float64(nodeSwap)), nil
}

func legacySwap(cfg SwapConfig, memLimit int64) (SwapDecision, error) {
	d := SwapDecision{Reason: SwapLegacy}
	switch cfg.Behavior {
	case UnlimitedSwap:
		v := int64(-1)
		d.Behavior, d.Limit, d.MemorySwapLimit = UnlimitedSwap, -1, &v
		d.Message = "legacy UnlimitedSwap: memory+swap is unlimited"
		if cfg.Version.Unified() {
			d.SwapMax = "max"
		}
	case "", LimitedSwap:
		v := memLimit
		d.Behavior, d.MemorySwapLimit = LimitedSwap, &v
		d.Message = "legacy LimitedSwap: memory+swap is capped at the memory limit"
		if cfg.Version.Unified() {
			d.Message += "; on cgroup v2 that leaves no swap"
			d.SwapMax = "0"
		}
	default:
		return SwapDecision{}, wrap(ErrInvalidInput, "swap behavior "+quote(string(cfg.Behavior))+" did not exist before 1.28 (want LimitedSwap or UnlimitedSwap with Legacy)")
	}
	return d, nil
}

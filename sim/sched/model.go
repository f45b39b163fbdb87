package sched

import (
	"slices"
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/sim/trace"
	"github.com/nodelife/nodelife/taints"
)

// MilliGPU is one whole GPU in thousandths.
const MilliGPU = trace.MilliGPU

// The largest node the FGD paper's scores are normalized by: 128 CPUs and
// 8 GPUs (hkust-adsl/kubernetes-scheduler-simulator's MaxSpecCpu and
// MaxSpecGpu).
const (
	MaxSpecMilliCPU = 128000
	MaxSpecGPUMilli = 8 * MilliGPU
)

// The scores a policy gives, as kube-scheduler's framework bounds them.
const (
	MinScore = 0
	MaxScore = 100
)

// PodInfo is a pod as the scheduler sees it: its name and requests.
type PodInfo struct {
	// Name is the pod's name.
	Name string
	// MilliCPU and MemoryMiB are its requests. A zero CPU request counts
	// as kube-scheduler's default of 100 millicores in ScoreMilliCPU.
	MilliCPU, MemoryMiB int64
	// GPUs is the number of GPUs it needs and GPUMilli the thousandths of
	// each (MilliGPU: whole GPUs).
	GPUs     int
	GPUMilli int64
	// Models are the GPU models it may run on; none means any. ModelKey
	// is them joined by "|", as the trace writes them.
	Models   []string
	ModelKey string
	// Tolerations are the pod's tolerations of node taints (none in the
	// trace formats; a harness that taints nodes gives pods the ones
	// their controllers would).
	Tolerations []taints.Toleration
}

// PodInfoOf returns the scheduler's view of a trace's pod.
func PodInfoOf(p trace.PodRecord) PodInfo {
	return PodInfo{Name: p.Name, MilliCPU: p.MilliCPU, MemoryMiB: p.MemoryMiB, GPUs: p.GPUs, GPUMilli: p.GPUMilli,
		Models: p.Models, ModelKey: strings.Join(p.Models, "|")}
}

// TotalGPUMilli is the pod's GPU request in thousandths: GPUs × GPUMilli.
func (p *PodInfo) TotalGPUMilli() int64 { return int64(p.GPUs) * p.GPUMilli }

// Shares reports whether the pod needs a share of one GPU (less than a
// whole one).
func (p *PodInfo) Shares() bool { return p.GPUs == 1 && p.GPUMilli < MilliGPU }

// ScoreMilliCPU is the CPU request the scores count: a zero request
// counts as 100 millicores, as kube-scheduler's GetNonzeroRequests.
func (p *PodInfo) ScoreMilliCPU() int64 {
	if p.MilliCPU == 0 {
		return 100
	}
	return p.MilliCPU
}

// Class is the pod's GPU class, by which GpuClustering groups pods:
// 0 for a pod without GPUs, -1 for a share of one GPU, n for n whole GPUs.
func (p *PodInfo) Class() int {
	switch {
	case p.GPUs == 0 || p.GPUMilli == 0:
		return 0
	case p.Shares():
		return -1
	}
	return p.GPUs
}

// MayRunOn reports whether a node with GPUs of model may host the pod's
// GPU request: any node for a pod without GPUs or without models, else a
// node whose model is one of the pod's.
func (p *PodInfo) MayRunOn(model string) bool {
	return accessible(p.Models, model)
}

func accessible(models []string, model string) bool {
	if len(models) == 0 {
		return true
	}
	if model == "" {
		return false
	}
	return slices.Contains(models, model)
}

// NodeInfo is a node and what is allocated on it, as the scheduler sees
// it between two pods: read-only to a policy.
type NodeInfo struct {
	// Name and Model are the node's name and GPU model.
	Name, Model string
	// MilliCPU and MemoryMiB are the node's allocatable CPU and memory;
	// MilliCPULeft and MemoryMiBLeft what the pods on it leave.
	MilliCPU, MemoryMiB         int64
	MilliCPULeft, MemoryMiBLeft int64
	// GPUMilliLeft is each GPU's thousandths left, by device index.
	GPUMilliLeft []int64
	// Pods is the number of pods on the node.
	Pods int
	// Taints are the node's taints: a pod that does not tolerate one of
	// effect NoSchedule or NoExecute is not placed on it.
	Taints []taints.Taint
	// classes counts the node's pods by Class (-1 and 1..8 at 0..8, more
	// GPUs at 9); GPU-less pods are not counted.
	classes [10]int
}

// NodeInfoOf returns a trace's node with nothing allocated.
func NodeInfoOf(n trace.NodeRecord) NodeInfo {
	left := make([]int64, n.GPUs)
	for i := range left {
		left[i] = MilliGPU
	}
	return NodeInfo{Name: n.Name, Model: n.Model, MilliCPU: n.MilliCPU, MemoryMiB: n.MemoryMiB,
		MilliCPULeft: n.MilliCPU, MemoryMiBLeft: n.MemoryMiB, GPUMilliLeft: left}
}

// GPUs is the node's number of GPUs.
func (n *NodeInfo) GPUs() int { return len(n.GPUMilliLeft) }

// GPUMilliLeftTotal is the sum of GPUMilliLeft.
func (n *NodeInfo) GPUMilliLeftTotal() int64 {
	var t int64
	for _, l := range n.GPUMilliLeft {
		t += l
	}
	return t
}

// FreeGPUs is the number of GPUs with nothing allocated.
func (n *NodeInfo) FreeGPUs() int {
	c := 0
	for _, l := range n.GPUMilliLeft {
		if l == MilliGPU {
			c++
		}
	}
	return c
}

func classIndex(class int) int {
	switch {
	case class < 0:
		return 0
	case class > 8:
		return 9
	}
	return class
}

// ClassCount is the number of the node's pods of a GPU class (see
// PodInfo.Class); 0 for class 0.
func (n *NodeInfo) ClassCount(class int) int {
	if class == 0 {
		return 0
	}
	return n.classes[classIndex(class)]
}

// Classes is the number of GPU classes among the node's pods.
func (n *NodeInfo) Classes() int {
	c := 0
	for _, v := range n.classes {
		if v > 0 {
			c++
		}
	}
	return c
}

// Why a node cannot take a pod, as Fits says.
const (
	ReasonCPU    = "Insufficient cpu"
	ReasonMemory = "Insufficient memory"
	ReasonNoGPU  = "no GPU"
	ReasonModel  = "GPU model not allowed"
	ReasonGPU    = "Insufficient GPU"
	// ReasonTaint is kube-scheduler v1.37's TaintToleration message.
	ReasonTaint = "node(s) had untolerated taint(s)"
)

// doNotSchedule admits the taints the scheduler's filter looks at.
func doNotSchedule(t taints.Taint) bool {
	return t.Effect == taints.TaintEffectNoSchedule || t.Effect == taints.TaintEffectNoExecute
}

// Tolerates reports whether the pod tolerates every NoSchedule and
// NoExecute taint of the node (kube-scheduler's TaintToleration filter).
func (n *NodeInfo) Tolerates(p *PodInfo) bool {
	_, untolerated := taints.FindMatchingUntoleratedTaint(n.Taints, p.Tolerations, doNotSchedule)
	return !untolerated
}

// Fits reports whether the node takes the pod (kube-scheduler's
// TaintToleration filter, then its NodeResourcesFit for CPU and memory,
// and the GPU-share filter of the FGD paper's harness), and if not, why
// (one of the Reason constants). GPUs: a share needs one GPU with that
// much left, whole GPUs as many free GPUs, of a model the pod allows.
func (n *NodeInfo) Fits(p *PodInfo) (bool, string) {
	if len(n.Taints) > 0 && !n.Tolerates(p) {
		return false, ReasonTaint
	}
	return n.fitsResources(p, n.MilliCPULeft, n.MemoryMiBLeft, n.GPUMilliLeft)
}

// FitsEmpty reports whether the pod fits the node's allocatable, nothing
// allocated and its taints aside (NodeResourcesFit's test of a node that
// was added).
func (n *NodeInfo) FitsEmpty(p *PodInfo) bool {
	full := make([]int64, len(n.GPUMilliLeft))
	for i := range full {
		full[i] = MilliGPU
	}
	ok, _ := n.fitsResources(p, n.MilliCPU, n.MemoryMiB, full)
	return ok
}

func (n *NodeInfo) fitsResources(p *PodInfo, cpuLeft, memLeft int64, gpuLeft []int64) (bool, string) {
	switch {
	case p.MilliCPU > cpuLeft:
		return false, ReasonCPU
	case p.MemoryMiB > memLeft:
		return false, ReasonMemory
	case p.GPUs == 0 || p.GPUMilli == 0:
		return true, ""
	case len(gpuLeft) == 0:
		return false, ReasonNoGPU
	case !accessible(p.Models, n.Model):
		return false, ReasonModel
	}
	need := p.GPUs
	for _, l := range gpuLeft {
		// Each GPU is taken as many times as its share allows, in index
		// order (the harness's greedy packing of a multi-GPU pod).
		for l >= p.GPUMilli && need > 0 {
			l -= p.GPUMilli
			need--
		}
	}
	if need > 0 {
		return false, ReasonGPU
	}
	return true, ""
}

// bind puts the pod on the node, on the GPUs devs.
func (n *NodeInfo) bind(p *PodInfo, devs []int) {
	n.MilliCPULeft -= p.MilliCPU
	n.MemoryMiBLeft -= p.MemoryMiB
	for _, d := range devs {
		n.GPUMilliLeft[d] -= p.GPUMilli
	}
	n.Pods++
	if c := p.Class(); c != 0 {
		n.classes[classIndex(c)]++
	}
}

// unbind takes the pod, bound on the GPUs devs, off the node.
func (n *NodeInfo) unbind(p *PodInfo, devs []int) {
	n.MilliCPULeft += p.MilliCPU
	n.MemoryMiBLeft += p.MemoryMiB
	for _, d := range devs {
		n.GPUMilliLeft[d] += p.GPUMilli
	}
	n.Pods--
	if c := p.Class(); c != 0 {
		n.classes[classIndex(c)]--
	}
}

// BestFitDevices returns the GPUs the FGD paper's harness gives a pod by
// default: for a share, the GPU with the least left that is enough (the
// first such by index); for whole GPUs, the first free ones by index.
// Nil when the pod needs no GPU or the node cannot take it.
func BestFitDevices(p *PodInfo, n *NodeInfo) []int {
	if p.GPUs == 0 || p.GPUMilli == 0 {
		return nil
	}
	if p.Shares() {
		best := -1
		for i, l := range n.GPUMilliLeft {
			if l >= p.GPUMilli && (best < 0 || l < n.GPUMilliLeft[best]) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		return []int{best}
	}
	return exclusiveDevices(p, n)
}

// exclusiveDevices returns the first free GPUs by index, enough for the
// pod's whole GPUs; nil when there are not enough.
func exclusiveDevices(p *PodInfo, n *NodeInfo) []int {
	var devs []int
	for i, l := range n.GPUMilliLeft {
		if len(devs) == p.GPUs {
			break
		}
		if l == MilliGPU {
			devs = append(devs, i)
		}
	}
	if len(devs) < p.GPUs {
		return nil
	}
	return devs
}

// String formats the node's state as "name cpu left/cpu, GPUs left".
func (n *NodeInfo) String() string {
	var b strings.Builder
	b.WriteString(n.Name + " cpu " + strconv.FormatInt(n.MilliCPULeft, 10) + "m/" + strconv.FormatInt(n.MilliCPU, 10) + "m gpu")
	for _, l := range n.GPUMilliLeft {
		b.WriteString(" " + strconv.FormatInt(l, 10))
	}
	return b.String()
}

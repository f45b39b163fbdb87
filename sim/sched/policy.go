package sched

import (
	"math"
	"math/rand"
)

// Policy is a scheduling policy in the shape of a kube-scheduler score
// plugin, the seam a research scheduler plugs into: for each pod, in
// arrival order, the harness filters the nodes that have room for it
// (NodeInfo.Fits: CPU, memory, GPUs of an allowed model), asks the policy
// to Score each of them when there is more than one, and binds the pod to
// the node with the highest score, the first in the run's node order
// among equal ones (the FGD paper's harness breaks ties by the smallest
// node name, its nodes named in a random order: its kube-scheduler fork
// replaces selectHost's random draw for reproducibility). A
// filter-and-score policy is what kube-scheduler's plugins and the FGD
// paper's six policies are, so a policy written here carries over to a
// real scheduler and the paper's baselines are one plugin each; a policy
// that needs the whole queue at once is out of this seam's reach.
//
// Score must not modify the node or the pod. A policy may implement
// PreScorer (a look at the feasible nodes before the scores), Normalizer
// (scores rescaled across the nodes before the choice) and DevicePicker
// (which GPUs of the chosen node the pod gets; without it,
// BestFitDevices).
type Policy interface {
	// Name names the policy in results.
	Name() string
	// Score rates placing pod on node, a node with room for it; higher is
	// better. Kube-scheduler's plugins score from MinScore to MaxScore.
	Score(pod *PodInfo, node *NodeInfo) int64
}

// PreScorer is a Policy that looks at the feasible nodes, in the run's
// node order, before they are scored (kube-scheduler's PreScore); rng is
// the run's randomness.
type PreScorer interface {
	PreScore(pod *PodInfo, feasible []*NodeInfo, rng *rand.Rand)
}

// Normalizer is a Policy whose scores are rescaled across the feasible
// nodes of a pod before the choice (kube-scheduler's NormalizeScore).
type Normalizer interface {
	Normalize(scores []int64)
}

// DevicePicker is a Policy that chooses the GPUs of the chosen node the
// pod gets (the harness's Reserve step). Devices returns one device index
// per GPU the pod needs; rng is the run's randomness.
type DevicePicker interface {
	Devices(pod *PodInfo, node *NodeInfo, rng *rand.Rand) []int
}

// NormalizeMinMax rescales scores to [MinScore, MaxScore] by the lowest
// and highest of them (all MinScore when they are equal), in integers, as
// the FGD paper's harness normalizes BestFit's.
func NormalizeMinMax(scores []int64) {
	if len(scores) == 0 {
		return
	}
	lo, hi := scores[0], scores[0]
	for _, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		if hi == lo {
			scores[i] = MinScore
		} else {
			scores[i] = (s-lo)*(MaxScore-MinScore)/(hi-lo) + MinScore
		}
	}
}

// The FGD paper's six policies, as hkust-adsl/kubernetes-scheduler-simulator
// (commit 8f3d641) scores them, each the only score plugin of its runs.

// Random draws the node uniformly among those with room, and a share's
// GPU uniformly among those with enough left. Its zero value is ready; it
// keeps the pod's draw between PreScore and Score.
type Random struct {
	drawn *NodeInfo
}

// Name is "Random".
func (*Random) Name() string { return "Random" }

// PreScore draws the node.
func (r *Random) PreScore(_ *PodInfo, feasible []*NodeInfo, rng *rand.Rand) {
	r.drawn = feasible[rng.Intn(len(feasible))]
}

// Score is MaxScore for the drawn node, MinScore for the others.
func (r *Random) Score(_ *PodInfo, n *NodeInfo) int64 {
	if n == r.drawn {
		return MaxScore
	}
	return MinScore
}

// Devices draws a share's GPU uniformly among those with enough left (one
// draw per such GPU, in index order, as a reservoir); whole GPUs are the
// first free ones.
func (*Random) Devices(p *PodInfo, n *NodeInfo, rng *rand.Rand) []int {
	if !p.Shares() {
		return BestFitDevices(p, n)
	}
	pick, seen := -1, 0
	for i, l := range n.GPUMilliLeft {
		if l >= p.GPUMilli {
			seen++
			if rng.Intn(seen) == 0 {
				pick = i
			}
		}
	}
	if pick < 0 {
		return nil
	}
	return []int{pick}
}

// DotProduct scores by the dot product of the node's free CPU and GPU
// and the pod's request, each normalized by MaxSpecMilliCPU and
// MaxSpecGPUMilli (GPUs merged into one dimension): the smaller the
// product, the higher the score, 100 × (1 - product/2). Its runs give a
// share the best-fitting GPU.
type DotProduct struct{}

// Name is "DotProd".
func (DotProduct) Name() string { return "DotProd" }

// Score is ⌊100 × (1 - (cpuLeft/128 CPUs × cpu/128 CPUs + gpuLeft/8 GPUs
// × gpu/8 GPUs) / 2)⌋.
func (DotProduct) Score(p *PodInfo, n *NodeInfo) int64 {
	cpu := p.ScoreMilliCPU()
	if n.MilliCPULeft < cpu {
		return MinScore
	}
	dot := float64(n.MilliCPULeft)/MaxSpecMilliCPU*(float64(cpu)/MaxSpecMilliCPU) +
		float64(n.GPUMilliLeftTotal())/MaxSpecGPUMilli*(float64(p.TotalGPUMilli())/MaxSpecGPUMilli)
	return int64(MaxScore * (1 - dot/2))
}

// GPUClustering packs pods of the same GPU class (see PodInfo.Class)
// together: a node whose pods are all of the pod's class scores in
// (75, 100], one with the class among others in (50, 75], a node without
// GPU pods in (25, 50], one with only other classes in (0, 25], each
// higher the less GPU it has left; a pod without GPUs scores 0 everywhere.
type GPUClustering struct{}

// Name is "GpuClustering".
func (GPUClustering) Name() string { return "GpuClustering" }

// Score is 25 × (8 GPUs - GPU left)/8 GPUs (integer division) plus 75,
// 50, 25 or 0 by the node's classes.
func (GPUClustering) Score(p *PodInfo, n *NodeInfo) int64 {
	class := p.Class()
	if class == 0 {
		return MinScore
	}
	used := MaxScore / 4 * (MaxSpecGPUMilli - n.GPUMilliLeftTotal()) / MaxSpecGPUMilli
	switch {
	case n.ClassCount(class) > 0 && n.Classes() == 1:
		return used + MaxScore*3/4
	case n.ClassCount(class) > 0:
		return used + MaxScore*2/4
	case n.Classes() == 0:
		return used + MaxScore/4
	}
	return used
}

// GPUPacking prefers, from high to low: GPUs already shared (less left
// on them is better), free GPUs of a node already in use (fewer is
// better), a node whose GPUs are all free (fewer is better); a pod without
// GPUs scores 0 everywhere.
type GPUPacking struct{}

// Name is "GpuPacking".
func (GPUPacking) Name() string { return "GpuPacking" }

// Score: on a node whose GPUs are all free, max(33 - free GPUs, free
// GPUs); when the pod must take free GPUs of a node in use, max(50 -
// those GPUs, 33); else 100 - (the percent left on the GPUs it takes,
// summed)/10, at least 50. The GPUs it takes are those with enough left,
// the least left first.
func (GPUPacking) Score(p *PodInfo, n *NodeInfo) int64 {
	if p.GPUMilli <= 0 || p.GPUs == 0 {
		return MinScore
	}
	free := n.FreeGPUs()
	if free == n.GPUs() {
		return max(int64(MaxScore/3-free), int64(free))
	}
	need, freeUsed := p.GPUs, 0
	var pctLeft int64
	for _, i := range ascendingLeft(n.GPUMilliLeft) {
		if need == 0 {
			break
		}
		if l := n.GPUMilliLeft[i]; l >= p.GPUMilli {
			need--
			pctLeft += l * 100 / MilliGPU
			if l == MilliGPU {
				freeUsed++
			}
		}
	}
	if need > 0 {
		return MinScore
	}
	if freeUsed > 0 {
		return max(int64(MaxScore/2-freeUsed), MaxScore/3)
	}
	return max(MaxScore-pctLeft/10, MaxScore/2)
}

// ascendingLeft returns the device indices by GPU left, least first,
// equal ones by index.
func ascendingLeft(left []int64) []int {
	idx := make([]int, len(left))
	for i := range idx {
		idx[i] = i
	}
	// insertion sort: stable, and nodes have at most a few GPUs
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && left[idx[j]] < left[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx
}

// BestFit scores by how little the node has left after the pod, CPU and
// GPU weighted alike and normalized by MaxSpecMilliCPU and
// MaxSpecGPUMilli, the scores then rescaled across the nodes
// (NormalizeMinMax).
type BestFit struct{}

// Name is "BestFit".
func (BestFit) Name() string { return "BestFit" }

// Score is ⌊100 × (1 - ((cpuLeft - cpu)/128 CPUs + (gpuLeft - gpu)/8
// GPUs)/2)⌋.
func (BestFit) Score(p *PodInfo, n *NodeInfo) int64 {
	s := float64(n.MilliCPULeft-p.ScoreMilliCPU())/MaxSpecMilliCPU*0.5 +
		float64(n.GPUMilliLeftTotal()-p.TotalGPUMilli())/MaxSpecGPUMilli*0.5
	return int64((1 - s) * MaxScore)
}

// Normalize rescales the scores by NormalizeMinMax.
func (BestFit) Normalize(scores []int64) { NormalizeMinMax(scores) }

// FGD is the FGD paper's Fragmentation Gradient Descent: the node (and,
// for a share, the GPU) where the pod increases the node's fragmentation
// (Frag, for the workload's typical pods) the least, scored 100 ×
// sigmoid(decrease/1000).
//
// Its zero value has no typical pods, so no node is fragmented and every
// node scores 50: set Typical.
type FGD struct {
	// Typical are the workload's typical pods (Typical).
	Typical []TypicalPod
}

// Name is "FGD".
func (f *FGD) Name() string { return "FGD" }

// Score is the best of ⌊100 × sigmoid((Frag before - Frag after)/1000)⌋
// over the GPUs a share could take; for whole GPUs or none, the node after
// the pod takes its CPU and the GPUs with the least left that are enough.
func (f *FGD) Score(p *PodInfo, n *NodeInfo) int64 {
	s, _ := f.best(p, n)
	return s
}

// Devices is the GPU Score chose for a share (the first of the best); for
// whole GPUs, the first free ones.
func (f *FGD) Devices(p *PodInfo, n *NodeInfo, _ *rand.Rand) []int {
	if !p.Shares() {
		return BestFitDevices(p, n)
	}
	_, dev := f.best(p, n)
	if dev < 0 {
		return nil
	}
	return []int{dev}
}

func (f *FGD) best(p *PodInfo, n *NodeInfo) (int64, int) {
	before := Frag(n, f.Typical)
	cpuAfter := n.MilliCPULeft - p.ScoreMilliCPU()
	left := make([]int64, len(n.GPUMilliLeft))
	if p.Shares() {
		score, dev := int64(0), -1
		for i, l := range n.GPUMilliLeft {
			if l < p.GPUMilli {
				continue
			}
			copy(left, n.GPUMilliLeft)
			left[i] -= p.GPUMilli
			s := fgdScore(before, frag(cpuAfter, left, n.Model, f.Typical))
			if dev < 0 || s > score {
				score, dev = s, i
			}
		}
		return score, dev
	}
	copy(left, n.GPUMilliLeft)
	need := p.GPUs
	for _, i := range ascendingLeft(n.GPUMilliLeft) {
		if need == 0 || p.GPUMilli == 0 {
			break
		}
		if left[i] >= p.GPUMilli {
			left[i] -= p.GPUMilli
			need--
		}
	}
	return fgdScore(before, frag(cpuAfter, left, n.Model, f.Typical)), -1
}

func fgdScore(before, after float64) int64 {
	return int64(1 / (1 + math.Exp(-(before-after)/1000)) * MaxScore)
}

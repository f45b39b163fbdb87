package sched

import (
	"cmp"
	"slices"

	"github.com/nodelife/nodelife/sim/trace"
)

// TypicalPod is one kind of pod of a workload (its CPU request, the
// thousandths of each GPU, the number of GPUs and the models allowed) and
// its share of the workload's pods.
type TypicalPod struct {
	MilliCPU int64
	GPUMilli int64
	GPUs     int
	// Models are the GPU models allowed (none: any); ModelKey them
	// joined by "|".
	Models   []string
	ModelKey string
	// Share is the fraction of the typical pods of this kind; the shares
	// add up to 1.
	Share float64
}

// PopularityThreshold is the share of a workload's pods the typical pods
// cover in the FGD paper's experiments (95%), the most frequent kinds
// first.
const PopularityThreshold = 95

// Typical returns the typical pods of a workload as the FGD paper's
// harness computes them: every pod (GPU-less ones included) counted by
// kind (ScoreMilliCPU, GPU thousandths, GPUs, models), the kinds by
// decreasing count (equal counts by decreasing CPU, GPU thousandths,
// GPUs, then models), taken one by one until they cover threshold
// percent of the pods, and their shares scaled to add up to 1.
func Typical(pods []trace.PodRecord, threshold float64) []TypicalPod {
	type kind struct {
		cpu, milli int64
		gpus       int
		models     string
	}
	count := map[kind]int{}
	var models = map[kind][]string{}
	for _, r := range pods {
		p := PodInfoOf(r)
		k := kind{p.ScoreMilliCPU(), p.GPUMilli, p.GPUs, p.ModelKey}
		count[k]++
		models[k] = p.Models
	}
	kinds := make([]kind, 0, len(count))
	for k := range count {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b kind) int {
		return cmp.Or(-cmp.Compare(count[a], count[b]), -cmp.Compare(a.cpu, b.cpu), -cmp.Compare(a.milli, b.milli),
			-cmp.Compare(a.gpus, b.gpus), -cmp.Compare(a.models, b.models))
	})
	total := float64(len(pods))
	want := threshold * total / 100
	var out []TypicalPod
	covered := 0.0
	for _, k := range kinds {
		if covered >= want {
			break
		}
		covered += float64(count[k])
		out = append(out, TypicalPod{MilliCPU: k.cpu, GPUMilli: k.milli, GPUs: k.gpus, Models: models[k], ModelKey: k.models,
			Share: float64(count[k]) / total})
	}
	if len(out) < len(kinds) {
		for i := range out {
			out[i].Share /= covered / total
		}
	}
	return out
}

// Frag is the FGD paper's fragmentation of a node for a workload: the
// GPU thousandths left on the node that the workload's typical pods could
// not use, each pod kind weighted by its share. For a kind that fits the
// node (its GPUs, of an allowed model, and its CPU), the GPUs with less
// left than one of its GPUs count; for any other kind, GPU-less kinds
// included, every thousandth left counts.
func Frag(n *NodeInfo, typical []TypicalPod) float64 {
	return frag(n.MilliCPULeft, n.GPUMilliLeft, n.Model, typical)
}

func frag(cpuLeft int64, left []int64, model string, typical []TypicalPod) float64 {
	var total int64
	for _, l := range left {
		total += l
	}
	if total == 0 {
		return 0
	}
	var f float64
	for i := range typical {
		t := &typical[i]
		if t.GPUMilli > 0 && cpuLeft >= t.MilliCPU && accessible(t.Models, model) {
			// Enough GPUs with that much left: the others are fragments.
			fits, small := 0, int64(0)
			for _, l := range left {
				if l >= t.GPUMilli {
					fits++
				} else {
					small += l
				}
			}
			if fits >= t.GPUs {
				f += t.Share * float64(small)
				continue
			}
		}
		f += t.Share * float64(total)
	}
	return f
}

// ClusterFrag is the sum of Frag over the nodes and the GPU thousandths
// left on them: the cluster's fragmentation, and its ratio to what is left.
func ClusterFrag(nodes []NodeInfo, typical []TypicalPod) (frag float64, left int64) {
	for i := range nodes {
		frag += Frag(&nodes[i], typical)
		left += nodes[i].GPUMilliLeftTotal()
	}
	return frag, left
}

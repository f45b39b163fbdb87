package admission

import (
	"errors"
	"math"
	"strconv"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
)

// What the kubelet writes on a pod it preempts for a critical pod: phase
// Failed with this reason and message, and a DisruptionTarget condition
// with PreemptConditionReason and PreemptConditionMessage.
const (
	PreemptReason           = "Preempting"
	PreemptMessage          = "Preempted in order to admit critical pod"
	PreemptConditionReason  = "TerminationByKubelet"
	PreemptConditionMessage = "Pod was preempted by Kubelet to accommodate a critical pod."
)

// ErrNoPreemptionSet is wrapped by the error of Preempt when the
// preemptable pods cannot free the shortfall.
var ErrNoPreemptionSet = errors.New("no set of running pods found to reclaim resources")

// Need is what a preemption must free: an amount of one resource.
type Need struct {
	// Resource is the resource's name ("pods" counts pods).
	Resource core.ResourceName
	// Amount is what must be freed: millicores for cpu, units otherwise.
	Amount int64
}

// Needs returns the shortfalls of the resource failures, in order.
func Needs(failures []Failure) []Need {
	var out []Need
	for _, f := range failures {
		if f.Resource != "" {
			out = append(out, Need{Resource: f.Resource, Amount: f.Shortfall()})
		}
	}
	return out
}

// needsString prints needs as the kubelet does: "[(res: cpu, q: 100), ]".
func needsString(needs []Need) string {
	b := []byte{'['}
	for _, n := range needs {
		b = append(b, "(res: "...)
		b = append(b, n.Resource...)
		b = append(b, ", q: "...)
		b = strconv.AppendInt(b, n.Amount, 10)
		b = append(b, "), "...)
	}
	return string(append(b, ']'))
}

// candidate is a preemptable pod with its requests of the needed resources.
type candidate struct {
	pod *core.Pod
	req []int64 // per need, in the order of the needs it was built for
	mem int64   // memory and cpu, the tie-break
	cpu int64
}

// PreemptRequest is the request of pod p for resource name as the
// kubelet's preemption counts it (pkg/api/v1/resource.GetResourceRequest):
// 1 for "pods"; otherwise the containers' effective request, or only the
// pod-level one when the pod sets pod-level resources, plus the overhead
// when that is not zero; millicores for cpu.
//
// This differs from what admission counts (cgroup.PodRequests) for a pod
// with pod-level resources, where container requests of other resources
// (ephemeral storage, extended resources) count as zero, and for a request
// of zero with an overhead, which stays zero.
func PreemptRequest(p *core.Pod, name core.ResourceName, opts Options) int64 {
	return preemptRequest(p, name, opts, core.ResourceList{})
}

func preemptRequest(p *core.Pod, name core.ResourceName, opts Options, scratch core.ResourceList) int64 {
	if name == core.ResourcePods {
		return 1
	}
	cp := *p
	cp.Overhead = nil
	if podLevelSet(p, opts) {
		cp.InitContainers, cp.Containers = nil, nil
	}
	q := cgroup.PodRequestsInto(scratch, cp, opts.qos())[name]
	if ov, ok := p.Overhead[name]; ok && !q.IsZero() {
		q.Add(ov)
	}
	if name == core.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// podLevelSet is component-helpers' IsPodLevelResourcesSet under the gate.
func podLevelSet(p *core.Pod, opts Options) bool {
	return !opts.DisablePodLevelResources && p.PodLevelResourcesSet()
}

// Preempt chooses the pods the kubelet evicts so that the critical pod p
// fits, from running (the node's active pods, in the kubelet's order),
// given what p lacks (Needs of its failures). It reproduces upstream's
// choice (pkg/kubelet/preemption):
//
//   - only pods p may preempt count (Preemptable), split by QoS class;
//   - if all of them together cannot free the needs, nothing is evicted
//     and the error wraps ErrNoPreemptionSet, listing what stays short;
//   - otherwise Guaranteed pods are chosen only for what Burstable and
//     BestEffort pods together cannot free, then Burstable pods for what
//     BestEffort pods and those Guaranteed ones cannot, then BestEffort
//     pods for the rest;
//   - within a class, pods are taken one at a time, each the one whose
//     requests leave the least "distance" to the remaining needs (the sum
//     over needs of the squared fraction still missing), ties going to the
//     smaller pod by memory then cpu request, and among equals to the
//     later one.
//
// The result lists BestEffort, then Burstable, then Guaranteed victims.
//
// Priority plays no part in the order. Any pod the critical pod may
// preempt is a candidate, and within a QoS class the one that best fits the
// shortfall goes first, whatever its priority: a critical pod short of
// 500m of cpu evicts a priority-1000 pod requesting exactly 500m before two
// priority-0 pods of 300m and 200m (see the example). The kubelet does the
// same; a kubelet author who wants low priorities to go first has to order
// or filter running before calling Preempt (a pod left out is never
// chosen), knowing the result then differs from upstream's.
func Preempt(p *core.Pod, running []*core.Pod, needs []Need, opts Options) ([]*core.Pod, error) {
	scratch := core.ResourceList{}
	var classes [3][]candidate // BestEffort, Burstable, Guaranteed
	for _, r := range running {
		if !Preemptable(p, r) {
			continue
		}
		c := candidate{pod: r, req: make([]int64, len(needs))}
		for i, n := range needs {
			c.req[i] = preemptRequest(r, n.Resource, opts, scratch)
		}
		c.mem = preemptRequest(r, core.ResourceMemory, opts, scratch)
		c.cpu = preemptRequest(r, core.ResourceCPU, opts, scratch)
		switch cgroup.PodQOS(*r, opts.qos()) {
		case core.PodQOSBestEffort:
			classes[0] = append(classes[0], c)
		case core.PodQOSBurstable:
			classes[1] = append(classes[1], c)
		case core.PodQOSGuaranteed:
			classes[2] = append(classes[2], c)
		}
	}
	be, bu, gu := classes[0], classes[1], classes[2]
	open := make([]remaining, len(needs))
	for i, n := range needs {
		open[i] = remaining{n, i}
	}
	if rest := left(open, be, bu, gu); len(rest) > 0 {
		return nil, noSet(rest)
	}
	guPick, err := byDistance(gu, left(open, be, bu))
	if err != nil {
		return nil, err
	}
	buPick, err := byDistance(bu, left(open, be, guPick))
	if err != nil {
		return nil, err
	}
	bePick, err := byDistance(be, left(open, buPick, guPick))
	if err != nil {
		return nil, err
	}
	out := make([]*core.Pod, 0, len(bePick)+len(buPick)+len(guPick))
	for _, l := range [][]candidate{bePick, buPick, guPick} {
		for _, c := range l {
			out = append(out, c.pod)
		}
	}
	return out, nil
}

// noSet is the error for the needs left open.
func noSet(rest []remaining) error {
	e := &preemptError{}
	for _, r := range rest {
		e.rest = append(e.rest, r.Need)
	}
	return e
}

type preemptError struct{ rest []Need }

// Error lists what stays short, as the kubelet prints it.
func (e *preemptError) Error() string {
	return ErrNoPreemptionSet.Error() + ": " + needsString(e.rest)
}

// Unwrap makes the error match ErrNoPreemptionSet.
func (e *preemptError) Unwrap() error { return ErrNoPreemptionSet }

// remaining is a need still open, with the index of its resource in the
// needs the candidates' requests were computed for.
type remaining struct {
	Need
	at int
}

// left returns what stays of needs once the pods of the groups, taken in
// order, are evicted; a need met drops out.
func left(needs []remaining, groups ...[]candidate) []remaining {
	var out []remaining
	for _, n := range needs {
		q := n.Amount
	pods:
		for _, g := range groups {
			for _, c := range g {
				if q -= c.req[n.at]; q <= 0 {
					break pods
				}
			}
		}
		if q > 0 {
			out = append(out, remaining{Need{n.Resource, q}, n.at})
		}
	}
	return out
}

// byDistance takes pods of one class, one at a time, until rem is met.
func byDistance(pods []candidate, rem []remaining) ([]candidate, error) {
	pods = append([]candidate(nil), pods...)
	var picked []candidate
	for len(rem) > 0 {
		if len(pods) == 0 {
			return nil, noSet(rem)
		}
		best, bestDist := 0, float64(len(rem)+1)
		for i := range pods {
			d := distance(rem, &pods[i])
			if d < bestDist || d == bestDist && smaller(&pods[i], &pods[best]) {
				best, bestDist = i, d
			}
		}
		rem = left(rem, pods[best:best+1])
		picked = append(picked, pods[best])
		pods[best] = pods[len(pods)-1]
		pods = pods[:len(pods)-1]
	}
	return picked, nil
}

// distance is the sum over needs of the squared fraction c leaves missing.
func distance(rem []remaining, c *candidate) float64 {
	d := 0.0
	for _, n := range rem {
		if left := float64(n.Amount - c.req[n.at]); left > 0 {
			d += math.Pow(left/float64(n.Amount), 2)
		}
	}
	return d
}

// smaller reports whether a requests no more than b: less memory, or equal
// memory and no more cpu.
func smaller(a, b *candidate) bool {
	if a.mem != b.mem {
		return a.mem < b.mem
	}
	return a.cpu <= b.cpu
}

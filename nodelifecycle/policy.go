package nodelifecycle

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// NodePolicy bends the node lifecycle per node: edge autonomy (OpenYurt,
// KubeEdge), nodes whose pods another controller evicts, nodes left out of
// their zone's disruption. The Controller asks it once for each version of
// a node it is given (UpsertNode), with the node as given; the rules hold
// until the next upsert of the node. NodeRules must be a function of the
// node alone (no clock, no other state), must not keep the pointer, and
// must not modify the node.
type NodePolicy interface {
	NodeRules(node *core.Node) NodeRules
}

// NodePolicyFunc adapts a function to NodePolicy.
type NodePolicyFunc func(node *core.Node) NodeRules

// NodeRules calls f.
func (f NodePolicyFunc) NodeRules(node *core.Node) NodeRules { return f(node) }

// NodeRules are what a NodePolicy decides for one node. The zero value is
// upstream's lifecycle.
type NodeRules struct {
	// KeepPodsReady: the node's pods are not marked NotReady when its
	// Ready condition leaves True, nor when they are bound to it while
	// it is not Ready (KindPodsNotReady is not emitted for the node).
	// OpenYurt's node lifecycle controller does this for nodes bound to
	// their pods.
	KeepPodsReady bool
	// NoExecuteExempt: the node is never tainted NoExecute with
	// node.kubernetes.io/not-ready or unreachable, and loses those taints
	// at its next pass if it has them (as a node that turned Ready does):
	// its pods are not evicted for its health. Its Ready condition, its
	// NoSchedule condition taints and its zone count are upstream's.
	NoExecuteExempt bool
	// ExcludeFromDisruption: the node is not counted in its zone's
	// states, as a node labelled node.kubernetes.io/exclude-disruption.
	ExcludeFromDisruption bool
	// Zone, when not empty, is the node's zone key in place of the one
	// its topology labels make (eviction.ZoneKey): an edge node pool, say.
	// Config.Zones (eviction.ZoneOverride) gives a zone its own rates and
	// thresholds under the same key.
	Zone string
	// Bind: OpenYurt's pod binding, without its writes. Every NoExecute
	// toleration of node.kubernetes.io/not-ready or unreachable that a pod
	// of the node has is read with BindSeconds in place of its own
	// tolerationSeconds (nil: tolerated for ever), when the pods are
	// planned against the node's NoExecute taints. Pods without such a
	// toleration are planned as they are (the DefaultTolerationSeconds
	// admission plugin gives every pod both). The view keeps the pods'
	// own tolerations (Controller.Pod).
	Bind        bool
	BindSeconds *int64
}

// sameRules reports whether a and b bend the lifecycle alike.
func sameRules(a, b NodeRules) bool {
	if a.KeepPodsReady != b.KeepPodsReady || a.NoExecuteExempt != b.NoExecuteExempt || a.ExcludeFromDisruption != b.ExcludeFromDisruption || a.Bind != b.Bind {
		return false
	}
	if !a.Bind {
		return true
	}
	if (a.BindSeconds == nil) != (b.BindSeconds == nil) {
		return false
	}
	return a.BindSeconds == nil || *a.BindSeconds == *b.BindSeconds
}

// rulesOf asks the policy about ns's node.
func (c *Controller) rulesOf(ns *nodeState) NodeRules {
	if c.cfg.NodePolicy == nil {
		return NodeRules{}
	}
	return c.cfg.NodePolicy.NodeRules(&ns.node)
}

// taintStatus is the Ready status the NoExecute tainting decision reads
// for a node posting s: True for an exempt node, and for every node under
// NoScheduleOnly.
func (c *Controller) taintStatus(ns *nodeState, s conditions.Status) conditions.Status {
	if (ns.rules.NoExecuteExempt || c.cfg.NoScheduleOnly) && s != "" {
		return conditions.True
	}
	return s
}

// bound returns tolerations as the node's rules read them (Bind).
func (r NodeRules) bound(tolerations []taints.Toleration) []taints.Toleration {
	if !r.Bind {
		return tolerations
	}
	var out []taints.Toleration
	for i, t := range tolerations {
		if t.Effect != taints.TaintEffectNoExecute || (t.Key != taints.TaintNodeNotReady && t.Key != taints.TaintNodeUnreachable) {
			continue
		}
		if out == nil {
			out = append([]taints.Toleration(nil), tolerations...)
		}
		out[i].TolerationSeconds = r.BindSeconds
	}
	if out == nil {
		return tolerations
	}
	return out
}

// OpenYurt's node annotations (openyurtio/openyurt: pkg/projectinfo and
// pkg/yurtmanager/controller/util/node).
const (
	// AnnotationOpenYurtAutonomy is node.beta.openyurt.io/autonomy: "true"
	// binds the node's pods to it for ever.
	AnnotationOpenYurtAutonomy = "node.beta.openyurt.io/autonomy"
	// AnnotationOpenYurtBinding is apps.openyurt.io/binding: "true", the
	// same.
	AnnotationOpenYurtBinding = "apps.openyurt.io/binding"
	// AnnotationOpenYurtAutonomyDuration is
	// node.openyurt.io/autonomy-duration: a Go duration ("100s") for
	// which the node's pods tolerate its not-ready and unreachable taints;
	// "0s" or less, for ever.
	AnnotationOpenYurtAutonomyDuration = "node.openyurt.io/autonomy-duration"
	// LabelOpenYurtNodePool is apps.openyurt.io/nodepool, the node's pool
	// (OpenYurt.PoolsAsZones).
	LabelOpenYurtNodePool = "apps.openyurt.io/nodepool"
	// LabelOpenYurtEdgeWorker is openyurt.io/is-edge-worker: "true" marks
	// an edge node, the only nodes whose pods OpenYurt's pod binding
	// rewrites.
	LabelOpenYurtEdgeWorker = "openyurt.io/is-edge-worker"
)

// OpenYurt is the NodePolicy of OpenYurt's yurt-manager: its node
// lifecycle controller (pkg/yurtmanager/controller/nodelifecycle, upstream's
// with one change) and its pod binding controller, composed.
//
//   - A node with any of the three annotations (AnnotationOpenYurtBinding
//     or AnnotationOpenYurtAutonomy "true", or any
//     AnnotationOpenYurtAutonomyDuration) keeps its pods Ready
//     (KeepPodsReady): OpenYurt's IsPodBoundenToNode.
//   - On an edge node (LabelOpenYurtEdgeWorker "true") the autonomy the
//     pod binding reads (binding or autonomy "true": for ever; else the
//     duration when it parses: its whole seconds, for ever when not
//     positive) binds the pods (Bind, BindSeconds). A duration that does
//     not parse binds nothing, as the pod binding then restores the
//     pods' original seconds.
//
// The node is still tainted NoExecute and counted in its zone, the zone
// its topology labels make, as in OpenYurt's controller; PoolsAsZones
// makes each node pool a zone instead.
// Running OpenYurt's own pod binding controller beside it (its rewritten
// pods upserted as they are) changes nothing: Bind reads the seconds it
// writes.
type OpenYurt struct {
	// PoolsAsZones takes a node's pool (LabelOpenYurtNodePool) as its
	// zone key, for a node that has one: the pools' disruption is judged
	// pool by pool, and Config.Zones can give a pool its own rates.
	PoolsAsZones bool
}

// NodeRules implements NodePolicy.
func (o OpenYurt) NodeRules(node *core.Node) NodeRules {
	a := node.Annotations
	r := NodeRules{KeepPodsReady: a[AnnotationOpenYurtBinding] == "true" || a[AnnotationOpenYurtAutonomy] == "true" || a[AnnotationOpenYurtAutonomyDuration] != ""}
	if o.PoolsAsZones {
		r.Zone = node.Labels[LabelOpenYurtNodePool]
	}
	if node.Labels[LabelOpenYurtEdgeWorker] == "true" {
		r.Bind, r.BindSeconds = OpenYurtAutonomy(node)
	}
	return r
}

// OpenYurtAutonomy is the autonomy OpenYurt's pod binding reads from a
// node's annotations: whether its pods are bound to it, and the
// tolerationSeconds they then get (nil: for ever).
func OpenYurtAutonomy(node *core.Node) (bool, *int64) {
	a := node.Annotations
	if a[AnnotationOpenYurtBinding] == "true" || a[AnnotationOpenYurtAutonomy] == "true" {
		return true, nil
	}
	v, ok := a[AnnotationOpenYurtAutonomyDuration]
	if !ok {
		return false, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return false, nil
	}
	if d <= 0 {
		return true, nil
	}
	s := int64(d / time.Second)
	return true, &s
}

// OpenYurt's pod annotations keeping a bound pod's own tolerationSeconds
// (openyurtio/openyurt, its pod binding controller).
const (
	AnnotationOpenYurtOriginalNotReady    = "apps.openyurt.io/original-not-ready-toleration-duration"
	AnnotationOpenYurtOriginalUnreachable = "apps.openyurt.io/original-unreachable-toleration-duration"
)

// OpenYurtBindPod is OpenYurt's pod binding controller's rewrite of one
// pod, a pure function: the pod as the controller would update it and
// whether it would (false: the pod is returned as given). The pod is not
// modified; the result shares no slice or map with it.
//
// Only a scheduled pod on an edge node (LabelOpenYurtEdgeWorker "true";
// node nil: not found) is rewritten, and never a DaemonSet's pod or a
// mirror pod (the controller's watches skip them). On a node whose pods
// are bound (OpenYurtAutonomy), each NoExecute toleration of
// node.kubernetes.io/not-ready or unreachable gets the autonomy's seconds
// (nil: for ever), its own seconds first kept in the annotation of its key
// (AnnotationOpenYurtOriginalNotReady, AnnotationOpenYurtOriginalUnreachable)
// unless one is there already. On any other edge node each such
// toleration whose annotation holds a whole number gets it back; the
// annotations stay.
//
// One difference: a toleration without tolerationSeconds (tolerated for
// ever) has no seconds to keep; upstream dereferences the missing value
// and its reconcile panics, nodelife keeps no annotation for it.
//
// The Controller does not need the rewrite (OpenYurt, Bind); a caller
// that runs it writes the pod and upserts it as written.
func OpenYurtBindPod(node *core.Node, pod core.Pod) (core.Pod, bool) {
	if pod.NodeName == "" || node == nil || node.Labels[LabelOpenYurtEdgeWorker] != "true" || pod.Annotations[core.ConfigMirrorAnnotation] != "" {
		return pod, false
	}
	for _, o := range pod.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return pod, false
		}
	}
	annotation := func(key string) string {
		if key == taints.TaintNodeNotReady {
			return AnnotationOpenYurtOriginalNotReady
		}
		return AnnotationOpenYurtOriginalUnreachable
	}
	out := pod
	out.Tolerations = slices.Clone(pod.Tolerations)
	out.Annotations = maps.Clone(pod.Annotations)
	changed := false
	bound, secs := OpenYurtAutonomy(node)
	for i, t := range out.Tolerations {
		if t.Effect != taints.TaintEffectNoExecute || (t.Key != taints.TaintNodeNotReady && t.Key != taints.TaintNodeUnreachable) {
			continue
		}
		key := annotation(t.Key)
		var want *int64
		if bound {
			if _, ok := out.Annotations[key]; !ok && t.TolerationSeconds != nil {
				if out.Annotations == nil {
					out.Annotations = map[string]string{}
				}
				out.Annotations[key] = strconv.FormatInt(*t.TolerationSeconds, 10)
				changed = true
			}
			want = secs
		} else {
			v, ok := out.Annotations[key]
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue
			}
			want = &n
		}
		if (want == nil) != (t.TolerationSeconds == nil) || (want != nil && *want != *t.TolerationSeconds) {
			out.Tolerations[i].TolerationSeconds = want
			changed = true
		}
	}
	if !changed {
		return pod, false
	}
	return out, true
}

package admission

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// ErrNodeUIDUnset is returned by MirrorPod for a node without a UID: a
// mirror pod is owned by its node, so the kubelet cannot create one.
var ErrNodeUIDUnset = errors.New("admission: UID unset for node")

// StaticPod applies the kubelet's defaults to a pod read from a manifest
// on node nodeName from source (SourceFile or SourceHTTP):
//
//   - the name becomes StaticPodName(name, nodeName), the namespace
//     "default" when empty, spec.nodeName the node;
//   - the UID is uid, and the config hash annotation holds it; the config
//     source annotation names source;
//   - a pod from a file tolerates every NoExecute taint (an Exists
//     toleration replacing any equal one).
//
// The kubelet derives the UID, when the manifest has none, from an FNV-128a
// hash of a printed dump of its internal Pod type, the node and the
// source; that dump depends on k8s.io/kubernetes' internal types and cannot
// be reproduced here, so the caller passes the UID it wants (the kubelet's
// one, when known). m is not modified.
func StaticPod(m core.Pod, nodeName, source, uid string) core.Pod {
	p := m
	if p.UID == "" {
		p.UID = uid
	}
	p.Name = StaticPodName(m.Name, nodeName)
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	p.NodeName = nodeName
	p.Annotations = make(map[string]string, len(m.Annotations)+2)
	for k, v := range m.Annotations {
		p.Annotations[k] = v
	}
	p.Annotations[core.ConfigHashAnnotation] = p.UID
	p.Annotations[core.ConfigSourceAnnotation] = source
	if source == core.SourceFile {
		p.Tolerations, _ = taints.AddOrUpdateToleration(slices.Clone(m.Tolerations),
			taints.Toleration{Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute})
	}
	return p
}

// MirrorPod returns the mirror pod the kubelet creates for static: a copy
// with the mirror annotation set to the static pod's config hash, owned by
// node (a controller owner reference to the Node, by ownerUID).
func MirrorPod(static *core.Pod, node *core.Node) (mirror core.Pod, ownerUID string, err error) {
	if node.UID == "" {
		return core.Pod{}, "", fmt.Errorf("%w %s", ErrNodeUIDUnset, node.Name)
	}
	mirror = *static
	mirror.Annotations = make(map[string]string, len(static.Annotations)+1)
	for k, v := range static.Annotations {
		mirror.Annotations[k] = v
	}
	mirror.Annotations[core.ConfigMirrorAnnotation] = static.Annotations[core.ConfigHashAnnotation]
	return mirror, node.UID, nil
}

// MirrorOp is what a mirror pod action does.
type MirrorOp string

// The mirror pod operations.
const (
	// MirrorCreate creates the mirror pod of a static pod (MirrorPod).
	MirrorCreate MirrorOp = "Create"
	// MirrorDelete deletes a mirror pod at once (grace period 0), with a
	// UID precondition when UID is set.
	MirrorDelete MirrorOp = "Delete"
)

// MirrorAction is one step of the mirror pod reconciliation.
type MirrorAction struct {
	Op MirrorOp
	// Pod is the static pod for MirrorCreate, the mirror pod for
	// MirrorDelete.
	Pod *core.Pod
	// FullName is the pod's PodFullName.
	FullName string
	// UID is the delete's precondition: the stale mirror pod's UID; empty
	// for an orphan, deleted by name.
	UID string
	// AfterDelete marks a create that the kubelet makes only when the
	// delete before it succeeded (a stale mirror pod replaced).
	AfterDelete bool
	// Reason is "Stale", "Deleting", "Missing" or "Orphaned"; Message says
	// it in a sentence.
	Reason, Message string
}

// ReconcileMirror is the kubelet's mirror pod reconciliation for one
// static pod (tryReconcileMirrorPods): a mirror pod being deleted, or one
// that is not IsMirrorPodOf the static pod, is deleted (with its UID as
// precondition) and created again; a missing one is created. No mirror pod
// is created when node is nil (the kubelet could not get its Node) or being
// deleted. A pod that is not static gets no action.
func ReconcileMirror(static, mirror *core.Pod, node *core.Node) []MirrorAction {
	if !static.IsStatic() {
		return nil
	}
	var out []MirrorAction
	name := PodFullName(static)
	if mirror != nil {
		switch {
		case mirror.DeletionTimestamp != nil:
			out = append(out, MirrorAction{Op: MirrorDelete, Pod: mirror, FullName: name, UID: mirror.UID, Reason: "Deleting",
				Message: "the mirror pod of " + name + " is being deleted; it is deleted at once and created again"})
		case !IsMirrorPodOf(mirror, static):
			out = append(out, MirrorAction{Op: MirrorDelete, Pod: mirror, FullName: name, UID: mirror.UID, Reason: "Stale",
				Message: "the mirror pod of " + name + " does not match the static pod's config hash; it is replaced"})
		default:
			return nil
		}
	}
	if node == nil || node.DeletionTimestamp != nil {
		return out
	}
	create := MirrorAction{Op: MirrorCreate, Pod: static, FullName: name, Reason: "Missing",
		Message: "static pod " + name + " has no mirror pod"}
	if len(out) > 0 {
		create.AfterDelete, create.Reason, create.Message = true, out[0].Reason, "static pod "+name+" gets a new mirror pod"
	}
	return append(out, create)
}

// ReconcileMirrors reconciles every static pod of a node with the mirror
// pods in the API server: ReconcileMirror for each static pod in order
// (its mirror found by full name), then a delete, by name, of each mirror
// pod whose static pod is gone, unless terminating reports that the kubelet
// is still stopping the static pod of that full name (nil: none is).
func ReconcileMirrors(node *core.Node, static, mirrors []*core.Pod, terminating func(fullName string) bool) []MirrorAction {
	byName := make(map[string]*core.Pod, len(mirrors))
	for _, m := range mirrors {
		byName[PodFullName(m)] = m
	}
	known := make(map[string]bool, len(static))
	var out []MirrorAction
	for _, s := range static {
		name := PodFullName(s)
		known[name] = true
		out = append(out, ReconcileMirror(s, byName[name], node)...)
	}
	for _, m := range mirrors {
		name := PodFullName(m)
		if known[name] || terminating != nil && terminating(name) {
			continue
		}
		out = append(out, MirrorAction{Op: MirrorDelete, Pod: m, FullName: name, Reason: "Orphaned",
			Message: "mirror pod " + name + " has no static pod on the node"})
	}
	return out
}

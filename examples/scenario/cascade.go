package scenario

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/gc"
)

// CascadingDelete deletes a Deployment (Deployment -> ReplicaSet ->
// Pods) under each propagation policy and prints the garbage collector's
// cascade round by round: background deletes each level once its owner is
// gone, foreground deletes bottom-up behind the foregroundDeletion
// finalizer, orphan strips the owner references and keeps the dependents.
// Options.Size is the number of pods the ReplicaSet owns (default 2).
func CascadingDelete(opts Options) (Report, error) {
	pods := opts.Size
	if pods <= 0 {
		pods = 2
	}
	r := Report{Name: "cascading-delete", Title: fmt.Sprintf("kubectl delete deployment web --cascade=<policy> (web -> ReplicaSet web-5d8f -> %d pods)", pods)}
	yes := true
	ctl := func(apiVersion, kind, name, uid string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: apitypes.UID(uid), Controller: &yes, BlockOwnerDeletion: &yes}}
	}
	objs := []gc.Object{
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", UID: "d-1"},
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "shop", Name: "web-5d8f", UID: "rs-1", OwnerReferences: ctl("apps/v1", "Deployment", "web", "d-1")},
	}
	for i := 0; i < pods; i++ {
		objs = append(objs, gc.Object{APIVersion: "v1", Kind: "Pod", Namespace: "shop", Name: podName(i), UID: apitypes.UID("pod-" + podName(i)),
			OwnerReferences: ctl("apps/v1", "ReplicaSet", "web-5d8f", "rs-1")})
	}
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		res, err := gc.PlanCascade(objs, "d-1", policy, gc.OwnerOptions{})
		if err != nil {
			return r, err
		}
		r.fact("policy", string(policy), "", "%s (%d collector rounds):", policy, res.Rounds)
		for _, s := range res.Steps {
			detail := ""
			switch s.Op {
			case gc.OpDelete:
				detail = fmt.Sprintf(" (%s) %s", s.Policy, s.Reason)
			case gc.OpRemoveFinalizer:
				detail = " " + s.Finalizer
			case gc.OpRemoveRefs:
				detail = fmt.Sprintf(" %v", s.Owners)
			}
			r.fact(s.Op.String(), s.Object.String(), string(s.Reason), "  round %d: %s %s%s", s.Round, s.Op, s.Object, detail)
		}
		kept := []string{"nothing"}
		if len(res.Remaining) > 0 {
			kept = kept[:0]
		}
		for _, o := range res.Remaining {
			kept = append(kept, o.Ref().String())
		}
		r.fact("left", string(policy), "", "  left: %s", strings.Join(kept, ", "))
		r.figure(string(policy)+" rounds", int64(res.Rounds))
	}
	return r, nil
}

// podName names the i-th pod of the ReplicaSet: web-5d8f-a, -b, ... -z,
// then -aa, -ab, ...
func podName(i int) string {
	suffix := ""
	for {
		suffix = string(rune('a'+i%26)) + suffix
		i = i/26 - 1
		if i < 0 {
			break
		}
	}
	return "web-5d8f-" + suffix
}

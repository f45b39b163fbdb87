package admission

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

func actions(as []MirrorAction) string {
	s := ""
	for _, a := range as {
		s += fmt.Sprintf("%s %s uid=%q after=%v %s; ", a.Op, a.FullName, a.UID, a.AfterDelete, a.Reason)
	}
	return s
}

// The kubelet's tryReconcileMirrorPods and orphan cleanup (kubelet.go,
// kubelet_pods.go), case by case.
func TestReconcileMirror(t *testing.T) {
	static := StaticPod(core.Pod{Name: "etcd", Namespace: "kube-system"}, "Node-1", core.SourceFile, "h1")
	node := &core.Node{Name: "Node-1", UID: "n-uid"}
	good, owner, err := MirrorPod(&static, node)
	if err != nil {
		t.Fatal(err)
	}
	if owner != "n-uid" || good.Annotations[core.ConfigMirrorAnnotation] != "h1" || static.Annotations[core.ConfigMirrorAnnotation] != "" {
		t.Fatalf("mirror pod: owner %q, annotations %v", owner, good.Annotations)
	}
	good.UID = "m1"
	stale := good
	stale.Annotations = map[string]string{core.ConfigMirrorAnnotation: "old"}
	deleting := good
	now := time.Unix(100, 0)
	deleting.DeletionTimestamp = &now
	goneNode := *node
	goneNode.DeletionTimestamp = &now

	tests := []struct {
		name   string
		mirror *core.Pod
		node   *core.Node
		want   string
	}{
		{"missing: created", nil, node, `Create etcd-node-1_kube-system uid="" after=false Missing; `},
		{"matching: nothing", &good, node, ``},
		{"stale: deleted with its UID, then created", &stale, node, `Delete etcd-node-1_kube-system uid="m1" after=false Stale; Create etcd-node-1_kube-system uid="" after=true Stale; `},
		{"being deleted: deleted at once, then created", &deleting, node, `Delete etcd-node-1_kube-system uid="m1" after=false Deleting; Create etcd-node-1_kube-system uid="" after=true Deleting; `},
		{"node being deleted: no create", nil, &goneNode, ``},
		{"stale on a node being deleted: delete only", &stale, &goneNode, `Delete etcd-node-1_kube-system uid="m1" after=false Stale; `},
		{"node unknown: no create", nil, nil, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := actions(ReconcileMirror(&static, tt.mirror, tt.node)); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	apiPod := &core.Pod{Name: "web", Namespace: "default"}
	if got := ReconcileMirror(apiPod, nil, node); got != nil {
		t.Fatalf("a pod from the API server got %s", actions(got))
	}

	orphan := core.Pod{Name: "old-node-1", Namespace: "kube-system", UID: "m9", Annotations: map[string]string{core.ConfigMirrorAnnotation: "x"}}
	stopping := core.Pod{Name: "stopping-node-1", Namespace: "kube-system", Annotations: map[string]string{core.ConfigMirrorAnnotation: "y"}}
	got := actions(ReconcileMirrors(node, []*core.Pod{&static}, []*core.Pod{&good, &orphan, &stopping}, func(n string) bool { return n == "stopping-node-1_kube-system" }))
	if want := `Delete old-node-1_kube-system uid="" after=false Orphaned; `; got != want {
		t.Fatalf("orphans: got %s, want %s", got, want)
	}
}

func TestStaticPodDefaults(t *testing.T) {
	m := core.Pod{Name: "kube-apiserver", Tolerations: []taints.Toleration{{Key: "a", Operator: taints.TolerationOpExists}}}
	p := StaticPod(m, "CP-1", core.SourceFile, "abc")
	if p.Name != "kube-apiserver-cp-1" || p.Namespace != "default" || p.NodeName != "CP-1" || p.UID != "abc" {
		t.Fatalf("identity: %+v", p)
	}
	if p.Annotations[core.ConfigHashAnnotation] != "abc" || p.Annotations[core.ConfigSourceAnnotation] != core.SourceFile || !(&p).IsStatic() {
		t.Fatalf("annotations: %v", p.Annotations)
	}
	want := []taints.Toleration{{Key: "a", Operator: taints.TolerationOpExists}, {Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute}}
	if fmt.Sprint(p.Tolerations) != fmt.Sprint(want) || len(m.Tolerations) != 1 || m.Annotations != nil {
		t.Fatalf("tolerations %v (manifest %v, %v)", p.Tolerations, m.Tolerations, m.Annotations)
	}
	if h := StaticPod(core.Pod{Name: "x"}, "n", core.SourceHTTP, "u"); len(h.Tolerations) != 0 {
		t.Fatalf("an http pod gets no toleration: %v", h.Tolerations)
	}
	if _, _, err := MirrorPod(&p, &core.Node{Name: "cp-1"}); !errors.Is(err, ErrNodeUIDUnset) || err.Error() != "admission: UID unset for node cp-1" {
		t.Fatalf("MirrorPod without a node UID: %v", err)
	}
}

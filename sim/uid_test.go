package sim_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/sim"
	"github.com/nodelife/nodelife/taints"
)

// The run finds a pod again in the machines' actions by the UID it gave
// it, the pod's own where it can: here five pods on n-b whose UIDs are
// the same twice, empty, numeric (what the run once wrote itself) and a
// replacement's, and one on n-a whose UID is what the run would make up
// for the third pod ("sim-2"). As in ExampleRun_cluster, zone b is cut off
// at +1m, n-b turns Unknown and is tainted at +105s, and each of its pods,
// tolerating that for 60s, is evicted at +165s: five evictions, one per
// pod; n-a's pod is untouched.
func TestPodsKeepTheirIdentity(t *testing.T) {
	zone := func(z string) map[string]string {
		return map[string]string{"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": z}
	}
	sixty := int64(60)
	tols := []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &sixty}}
	controller := true
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Controller: &controller}}
	ready := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}
	c := &sim.Cluster{Nodes: []core.Node{{Name: "n-a", Labels: zone("a"), Conditions: ready}, {Name: "n-b", Labels: zone("b"), Conditions: ready}}}
	for i, uid := range []string{"x", "x", "", "0", "x-replacement"} {
		c.Pods = append(c.Pods, core.Pod{Namespace: "shop", Name: "web-" + string(rune('1'+i)), UID: uid, NodeName: "n-b", OwnerReferences: owner, Tolerations: tols})
	}
	c.Pods = append(c.Pods, core.Pod{Namespace: "shop", Name: "api-1", UID: "sim-2", NodeName: "n-a", OwnerReferences: owner, Tolerations: tols})
	res, err := sim.Run(sim.Config{Cluster: c, Duration: 5 * time.Minute, Outages: []sim.Outage{{Zone: "b", From: time.Minute}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range res.Pods {
		got[p.Pod] = p.Fate + " " + p.At.String()
	}
	want := map[string]string{}
	for i := 0; i < 5; i++ {
		want["shop/web-"+string(rune('1'+i))] = "evicted 2m45s"
	}
	if len(got) != len(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if res.Totals.Evicted != 5 {
		t.Errorf("totals %+v, want 5 evicted", res.Totals)
	}
}

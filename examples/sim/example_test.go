package sim_test

import (
	"fmt"
	"time"

	"github.com/nodelife/nodelife/examples/sim"
	"github.com/nodelife/nodelife/taints"
)

// An explicit cluster: two zones of one node each; zone b is cut off from
// the API server from +1m to the end. Its node's last lease renewal is at
// +50s, it turns Unknown at +105s and gets the unreachable NoExecute taint
// in the same pass (as upstream since v1.29); the pod tolerating that for
// 60s goes at +165s, the one tolerating it forever stays.
func ExampleRun_cluster() {
	zone := func(z string) map[string]string {
		return map[string]string{"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": z}
	}
	tolerate := func(seconds *int64) []taints.Toleration {
		return []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists,
			Effect: taints.TaintEffectNoExecute, TolerationSeconds: seconds}}
	}
	sixty := int64(60)
	c := &sim.Cluster{
		Nodes: []sim.Node{{Name: "n-a", Labels: zone("a"), Ready: "True"}, {Name: "n-b", Labels: zone("b"), Ready: "True"}},
		Pods: []sim.Pod{
			{Namespace: "shop", Name: "web-1", Node: "n-b", Owner: sim.Owner{Kind: "Deployment", Name: "web"}, Tolerations: tolerate(&sixty)},
			{Namespace: "shop", Name: "db-0", Node: "n-b", Owner: sim.Owner{Kind: "StatefulSet", Name: "db"}, Tolerations: tolerate(nil)},
		},
	}
	fmt.Println(c.Zones())
	res, err := sim.Run(sim.Config{Cluster: c, Duration: 5 * time.Minute, Outages: []sim.Outage{{Zone: "b", From: time.Minute}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Pods {
		fmt.Println(p.Pod, p.Fate, p.At, p.Rule, "replaced at", p.ReplacedAt)
	}
	for _, w := range res.Workloads {
		fmt.Println(w.Name, "lost at most", w.MaxLost, "for", w.LostTime)
	}
	// Output:
	// [r/a r/b]
	// shop/db-0 spared 0s Tolerated replaced at -1ns
	// shop/web-1 evicted 2m45s TaintManagerEviction replaced at 2m45s
	// Deployment shop/web lost at most 1 for 1m0s
	// StatefulSet shop/db lost at most 1 for 3m10s
}

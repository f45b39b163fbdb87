package sim_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/sim"
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
	ready := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}
	owner := func(kind, name string) []metav1.OwnerReference {
		controller := true
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, Controller: &controller}}
	}
	sixty := int64(60)
	c := &sim.Cluster{
		Nodes: []core.Node{{Name: "n-a", Labels: zone("a"), Conditions: ready}, {Name: "n-b", Labels: zone("b"), Conditions: ready}},
		Pods: []core.Pod{
			{Namespace: "shop", Name: "web-1", NodeName: "n-b", OwnerReferences: owner("Deployment", "web"), Tolerations: tolerate(&sixty)},
			{Namespace: "shop", Name: "db-0", NodeName: "n-b", OwnerReferences: owner("StatefulSet", "db"), Tolerations: tolerate(nil)},
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

// The outage grammar of the simulate command and the replay: a zone of a
// synthetic cluster (or its first n nodes), then the window.
func ExampleParseOutage() {
	for _, spec := range []string{"b@1m-10m", "a/10@30s-", "d@1m-2m", "b:1m-10m"} {
		o, err := sim.ParseOutage(spec, sim.SyntheticZones(3))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("zone %s, first %d nodes (0: all), from %v to %v (0: the end)\n", o.Zone, o.Nodes, o.From, o.To)
	}
	// Output:
	// zone b, first 0 nodes (0: all), from 1m0s to 10m0s (0: the end)
	// zone a, first 10 nodes (0: all), from 30s to 0s (0: the end)
	// --outage "d@1m-2m": "d" is not one of the 3 zones (a to c)
	// --outage "b:1m-10m": want SELECTOR@TIME
}

// On an explicit cluster, a selector is a zone, its zone part, or node
// names joined by "+".
func ExampleClusterSelector() {
	c := &sim.Cluster{Nodes: []core.Node{
		{Name: "n1", Labels: map[string]string{"topology.kubernetes.io/region": "eu", "topology.kubernetes.io/zone": "eu-1a"}},
		{Name: "n2", Labels: map[string]string{"topology.kubernetes.io/region": "eu", "topology.kubernetes.io/zone": "eu-1b"}},
	}}
	sel := sim.ClusterSelector(c)
	for _, s := range []string{"eu/eu-1a", "eu-1b/1", "n1+n2", "n3"} {
		zone, count, names, err := sel(s)
		fmt.Printf("%q: zone %q count %d names %v err %v\n", s, zone, count, names, err)
	}
	// Output:
	// "eu/eu-1a": zone "eu/eu-1a" count 0 names [] err <nil>
	// "eu-1b/1": zone "eu-1b" count 1 names [] err <nil>
	// "n1+n2": zone "" count 0 names [n1 n2] err <nil>
	// "n3": zone "" count 0 names [] err "n3" is neither a zone (eu/eu-1a, eu/eu-1b) nor a node of the snapshot
}

// The pieces the other scenario flags of the replay are made of.
func ExampleParseWindow() {
	sel, rest, _ := sim.CutSpec("--shutdown", "w-1c2@2m-")
	from, to, err := sim.ParseWindow("--shutdown", "w-1c2@2m-", rest)
	fmt.Println(sel, from, to, err)
	_, _, err = sim.ParseWindow("--pressure", "n@1x-2m", "1x-2m")
	fmt.Println(err)
	fmt.Println(sim.SpecError("--outage", "b@", "no window"))
	// Output:
	// w-1c2 2m0s 0s <nil>
	// --pressure "n@1x-2m": time: unknown unit "x" in duration "1x"
	// --outage "b@": no window
}

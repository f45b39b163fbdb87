package snapshot_test

import (
	"errors"
	"fmt"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/examples/kubeapi/snapshot"
	"github.com/nodelife/nodelife/sim"
)

func ExampleLoad() {
	s, warnings, err := snapshot.Load("testdata/sample.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(s.Nodes), "nodes,", len(s.Pods), "pods,", len(s.Leases), "leases,", len(warnings), "warnings")
	fmt.Println(s.Validate())
	for _, p := range s.PodsOn()["w-1c1"] {
		ep := kubeapi.Pod(p)
		fmt.Println(ep.Key(), len(ep.Tolerations), "tolerations")
	}
	// Output:
	// 7 nodes, 18 pods, 7 leases, 0 warnings
	// <nil>
	// kube-system/kube-proxy-w-1c1 7 tolerations
	// shop/api-6c4d7f9b8-b 2 tolerations
}

func ExampleDecode() {
	_, warnings, err := snapshot.Decode([]byte(`{"apiVersion":"v1","kind":"List","items":[
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"shop","name":"settings"}},
		{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}]}`), "cluster.json")
	fmt.Println(err, warnings)
	_, _, err = snapshot.Decode([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`), "pod.json")
	fmt.Println(err)
	_, _, err = snapshot.Decode([]byte(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}`), "svc.json")
	fmt.Println(err)
	// Output:
	// <nil> [cluster.json: item 0: kind ConfigMap (apiVersion "v1") shop/settings skipped: the replay does not use it]
	// snapshot: invalid input: pod.json: no Node in it (it has 1 pod, 0 leases, 0 priority classes and 0 skipped items; want the output of kubectl get nodes,pods,leases -A -o json)
	// snapshot: invalid input: svc.json: kind "Service" is not a List; want the output of kubectl get nodes,pods,leases -A -o json
}

func ExampleSnapshot_Validate() {
	s, _, _ := snapshot.Decode([]byte(`{"apiVersion":"v1","kind":"List","items":[
		{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}},
		{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-1"},"spec":{"nodeName":"n1"}},
		{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-1"},"spec":{"nodeName":"n9"}}]}`), "in.json")
	fmt.Println(s.Validate())
	for _, p := range s.Orphans() {
		fmt.Println("bound to a node not in the snapshot:", p.Namespace+"/"+p.Name, p.Spec.NodeName)
	}
	// Output:
	// snapshot: invalid input: pod shop/web-1 appears twice
	// bound to a node not in the snapshot: shop/web-1 n9
}

func ExampleSnapshot_Cluster() {
	s, _, err := snapshot.Load("testdata/sample.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := s.Cluster()
	fmt.Println(len(c.Nodes), "nodes in", c.Zones())
	for _, p := range c.Pods {
		if p.NodeName == "w-1b2" {
			fmt.Println(p.Key(), "->", sim.WorkloadOf(&p))
		}
	}
	// Output:
	// 7 nodes in [eu-1/eu-1a eu-1/eu-1b eu-1/eu-1c]
	// kube-system/kube-proxy-w-1b2 -> DaemonSet kube-system/kube-proxy
	// shop/api-6c4d7f9b8-a -> Deployment shop/api
	// shop/web-7d9f8b6c5-c -> Deployment shop/web
}

// A replay's read: pods kept only in the simulator's form, the bytes read
// bounded.
func ExampleLoadWith() {
	s, _, err := snapshot.LoadWith("testdata/sample.json", snapshot.Options{ReplayOnly: true, MaxBytes: 1 << 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := s.Cluster()
	fmt.Println(len(s.Pods), "API pods kept,", s.PodCount(), "pods,", len(c.Pods), "in the cluster, on", len(c.Nodes), "nodes")

	_, _, err = snapshot.LoadWith("testdata/sample.json", snapshot.Options{MaxBytes: 1024})
	fmt.Println(errors.Is(err, snapshot.ErrTooLarge))
	_, _, err = snapshot.LoadWith("testdata/sample.json", snapshot.Options{MaxBytes: -1})
	fmt.Println(err)
	// Output:
	// 0 API pods kept, 18 pods, 18 in the cluster, on 7 nodes
	// true
	// snapshot: invalid options: Options.MaxBytes -1 is negative
}

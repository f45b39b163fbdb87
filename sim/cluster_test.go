package sim

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/shutdown"
)

// Every problem of an explicit cluster and of its scenarios is reported,
// naming the field and the value; a synthetic cluster refuses the
// scenarios that need real pods, and an empty outage zone is an error,
// not a panic.
func TestValidateCluster(t *testing.T) {
	zone := map[string]string{"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": "z"}
	c := &Cluster{
		Nodes: []core.Node{{Name: "n1", Labels: zone}, {Name: "n1"}, {Name: ""}},
		Pods:  []core.Pod{{Namespace: "a", Name: "p", NodeName: "n9"}, {Namespace: "a", Name: "p"}, {Namespace: "a", Name: "q", NodeName: "n1", TerminationGracePeriodSeconds: new(int64)}},
	}
	*c.Pods[2].TerminationGracePeriodSeconds = -1
	cfg := Config{Cluster: c,
		Outages:                  []Outage{{Zone: "x", From: time.Minute}, {}, {Zone: "z", Nodes: 5}},
		Shutdowns:                []Shutdown{{Names: []string{"n1"}, At: 2 * time.Minute, OutOfServiceAt: time.Minute}, {Names: []string{"n1"}, Graceful: shutdown.Config{ShutdownGracePeriod: time.Millisecond}}},
		Pressures:                []Pressure{{Node: "nx", From: time.Minute, To: time.Second, UsageRatio: -1}},
		CloudDeletions:           []CloudDeletion{{Names: []string{"n1", "n7"}, At: -time.Second}},
		NodeLeaseDurationSeconds: -40,
	}
	err := cfg.Validate()
	for _, want := range []string{
		`Cluster.Nodes[1]: node "n1" appears twice`,
		`Cluster.Nodes[2] has no name`,
		`Cluster.Pods[1]: pod a/p appears twice`,
		`NodeLeaseDurationSeconds -40 is negative`,
		`Cluster.Pods[2]: pod a/q: terminationGracePeriodSeconds -1 is negative`,
		`Outages[0].Zone "x" is not a zone of the cluster`,
		`Outages[1] selects no node: set Zone or Names`,
		`Outages[2].Nodes 5 is not in [0, 1]`,
		`Shutdowns[0].OutOfServiceAt 1m0s is not after At 2m0s`,
		`Shutdowns[1].Graceful:`,
		`Pressures[0].Node "nx" is not a node of the cluster`,
		`Pressures[0].To 1s is not after From 1m0s`,
		`Pressures[0].UsageRatio -1 is not in [0, 1000]`,
		`CloudDeletions[0].Names[1] "n7" is not a node of the cluster`,
		`CloudDeletions[0].At -1s is negative`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() lacks %q:\n%v", want, err)
		}
	}
	err = Config{Shutdowns: []Shutdown{{Zone: "a"}}, Outages: []Outage{{Zone: ""}, {Zone: "a", Names: []string{"x"}}}}.Validate()
	for _, want := range []string{"Shutdowns, Pressures and CloudDeletions need an explicit Cluster", `Outages[0].Zone "" is not one of the 3 zones`,
		"Outages[1].Names needs an explicit Cluster"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("synthetic Validate() lacks %q:\n%v", want, err)
		}
	}
}

// A mirror pod (owned by its Node) reports as the static pod it mirrors;
// a pod bound to a node but still Pending has started no container, so it
// uses no memory when the node comes under pressure.
func TestMirrorAndPendingPods(t *testing.T) {
	controller := true
	mirror := core.Pod{Namespace: "kube-system", Name: "etcd-cp-1", Annotations: map[string]string{core.ConfigMirrorAnnotation: "h"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "cp-1", Controller: &controller}}}
	if got, want := WorkloadOf(&mirror), "static pod kube-system/etcd-cp-1 of node cp-1"; got != want {
		t.Errorf("Workload() = %q, want %q", got, want)
	}
	gi := core.Container{Name: "c", Resources: core.ResourceRequirements{Requests: core.ResourceList{core.ResourceMemory: resource.MustParse("1Gi")}}}
	pending := core.Pod{Phase: core.PodPending, Containers: []core.Container{gi}}
	running := core.Pod{Phase: core.PodRunning, Containers: []core.Container{gi}}
	if got := memoryRequest(&running); got != 1<<30 {
		t.Errorf("memoryRequest = %d, want 1Gi", got)
	}
	if got := workingSet(&pending, memoryRequest(&pending), Pressure{UsageRatio: 2}); got != 0 {
		t.Errorf("a Pending pod's working set is %d", got)
	}
	if got := workingSet(&running, memoryRequest(&running), Pressure{UsageRatio: 2}); got != 2<<30 {
		t.Errorf("a Running pod's working set is %d, want twice its request", got)
	}
}

// A pod's workload is its controller (the first owner when none is marked
// controller), a ReplicaSet named after its pod-template-hash label read
// as its Deployment; a pod without owners has none.
func TestWorkload(t *testing.T) {
	yes := true
	ref := func(kind, name string, controller bool) metav1.OwnerReference {
		r := metav1.OwnerReference{Kind: kind, Name: name}
		if controller {
			r.Controller = &yes
		}
		return r
	}
	for _, c := range []struct {
		owners []metav1.OwnerReference
		hash   string
		want   string
	}{
		{nil, "", ""},
		{[]metav1.OwnerReference{ref("ReplicaSet", "web-5d8f7", true)}, "5d8f7", "Deployment shop/web"},
		{[]metav1.OwnerReference{ref("ReplicaSet", "web-5d8f7", true)}, "other", "ReplicaSet shop/web-5d8f7"},
		{[]metav1.OwnerReference{ref("ReplicaSet", "-5d8f7", true)}, "5d8f7", "ReplicaSet shop/-5d8f7"},
		{[]metav1.OwnerReference{ref("ConfigMap", "cm", false), ref("StatefulSet", "db", true)}, "", "StatefulSet shop/db"},
		{[]metav1.OwnerReference{ref("Job", "j", false), ref("ConfigMap", "cm", false)}, "", "Job shop/j"},
	} {
		p := core.Pod{Namespace: "shop", Name: "p", OwnerReferences: c.owners}
		if c.hash != "" {
			p.Labels = map[string]string{"pod-template-hash": c.hash}
		}
		if got := WorkloadOf(&p); got != c.want {
			t.Errorf("WorkloadOf(owners %v, hash %q) = %q, want %q", c.owners, c.hash, got, c.want)
		}
	}
}

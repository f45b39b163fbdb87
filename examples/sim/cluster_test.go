package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/shutdown"
)

// Every problem of an explicit cluster and of its scenarios is reported,
// naming the field and the value; a synthetic cluster refuses the
// scenarios that need real pods, and an empty outage zone is an error,
// not a panic.
func TestValidateCluster(t *testing.T) {
	zone := map[string]string{"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": "z"}
	c := &Cluster{
		Nodes: []Node{{Name: "n1", Labels: zone}, {Name: "n1"}, {Name: ""}},
		Pods:  []Pod{{Namespace: "a", Name: "p", Node: "n9"}, {Namespace: "a", Name: "p"}, {Namespace: "a", Name: "q", Node: "n1", TerminationGracePeriodSeconds: new(int64)}},
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
	mirror := Pod{Namespace: "kube-system", Name: "etcd-cp-1", Owner: Owner{Kind: "Node", Name: "cp-1"}, Mirror: true}
	if got, want := mirror.Workload(), "static pod kube-system/etcd-cp-1 of node cp-1"; got != want {
		t.Errorf("Workload() = %q, want %q", got, want)
	}
	pending := Pod{Phase: "Pending", MemoryRequest: 1 << 30}
	running := Pod{Phase: "Running", MemoryRequest: 1 << 30}
	if got := workingSet(&pending, Pressure{UsageRatio: 2}); got != 0 {
		t.Errorf("a Pending pod's working set is %d", got)
	}
	if got := workingSet(&running, Pressure{UsageRatio: 2}); got != 2<<30 {
		t.Errorf("a Running pod's working set is %d, want twice its request", got)
	}
}

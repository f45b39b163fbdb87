package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/examples/kubeapi/snapshot"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/sim"
)

var created = metav1.NewTime(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))

func i64(v int64) *int64 { return &v }
func i32(v int32) *int32 { return &v }

// genItems draws a small cluster as the API server would list it: nodes in
// up to three zones (some NotReady already), pods with tolerations from a
// pool (no seconds, 0, 30, 60, 300), owners of every replacement kind,
// priorities, grace periods and memory requests, some unscheduled or
// finished.
func genItems(t *rapid.T) (items []any, nodes []string, used []string) {
	var zones []string
	nz := rapid.IntRange(1, 3).Draw(t, "zones")
	for z := 0; z < nz; z++ {
		zones = append(zones, fmt.Sprintf("z%d", z))
	}
	seen := map[string]bool{}
	nn := rapid.IntRange(1, 8).Draw(t, "nodes")
	for i := 0; i < nn; i++ {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, name)
		ready := corev1.ConditionTrue
		if rapid.IntRange(0, 9).Draw(t, "notready") == 0 {
			ready = corev1.ConditionUnknown
		}
		zone := rapid.SampledFrom(zones).Draw(t, "zone")
		if !seen[zone] {
			seen[zone] = true
			used = append(used, zone)
		}
		items = append(items, corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("u-" + name), CreationTimestamp: created,
				Labels: map[string]string{corev1.LabelTopologyRegion: "r", corev1.LabelTopologyZone: zone}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}})
	}
	seconds := []*int64{nil, i64(0), i64(30), i64(60), i64(300)}
	keys := []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/out-of-service", ""}
	kinds := []string{"ReplicaSet", "StatefulSet", "DaemonSet", "Job", ""}
	np := rapid.IntRange(0, 24).Draw(t, "pods")
	for i := 0; i < np; i++ {
		p := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "ns"), Name: fmt.Sprintf("p%d", i),
				UID: types.UID(fmt.Sprintf("pu%d", i)), CreationTimestamp: created},
			Spec: corev1.PodSpec{Priority: i32(rapid.SampledFrom([]int32{0, 1000, 2000000000, 2000001000}).Draw(t, "priority")),
				TerminationGracePeriodSeconds: rapid.SampledFrom(seconds).Draw(t, "grace")},
			Status: corev1.PodStatus{Phase: rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodRunning, corev1.PodRunning, corev1.PodSucceeded}).Draw(t, "phase")}}
		if rapid.IntRange(0, 7).Draw(t, "unscheduled") > 0 {
			p.Spec.NodeName = rapid.SampledFrom(nodes).Draw(t, "node")
		}
		if kind := rapid.SampledFrom(kinds).Draw(t, "kind"); kind != "" {
			p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: "w" + fmt.Sprint(rapid.IntRange(0, 3).Draw(t, "owner")), Controller: new(bool)}}
			*p.OwnerReferences[0].Controller = true
		}
		for k := rapid.IntRange(0, 3).Draw(t, "tolerations"); k > 0; k-- {
			tol := corev1.Toleration{Key: rapid.SampledFrom(keys).Draw(t, "key"), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
				TolerationSeconds: rapid.SampledFrom(seconds).Draw(t, "seconds")}
			p.Spec.Tolerations = append(p.Spec.Tolerations, tol)
		}
		if mem := rapid.IntRange(0, 4).Draw(t, "memory"); mem > 0 {
			p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceMemory: *resourceMi(int64(mem) * 64)}}}}
		}
		items = append(items, p)
	}
	return items, nodes, used
}

// genScenarios draws scenarios on the drawn nodes and zones.
func genScenarios(t *rapid.T, nodes, zones []string) sim.Config {
	minutes := func(label string, lo, hi int) time.Duration {
		return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Minute
	}
	var cfg sim.Config
	if rapid.Bool().Draw(t, "outage") {
		from := minutes("from", 0, 5)
		o := sim.Outage{From: from, To: from + minutes("length", 1, 12)}
		if rapid.Bool().Draw(t, "byZone") {
			o.Zone = rapid.SampledFrom(zones).Draw(t, "outageZone")
		} else {
			o.Names = []string{rapid.SampledFrom(nodes).Draw(t, "outageNode")}
		}
		cfg.Outages = append(cfg.Outages, o)
	}
	if rapid.Bool().Draw(t, "shutdown") {
		s := sim.Shutdown{Names: []string{rapid.SampledFrom(nodes).Draw(t, "shutdownNode")}, At: minutes("at", 0, 5)}
		if rapid.Bool().Draw(t, "graceful") {
			s.Graceful = shutdown.Config{ShutdownGracePeriod: 60 * time.Second, ShutdownGracePeriodCriticalPods: 20 * time.Second}
		}
		if rapid.Bool().Draw(t, "oos") {
			s.OutOfServiceAt = s.At + minutes("oosAfter", 1, 8)
		}
		cfg.Shutdowns = append(cfg.Shutdowns, s)
	}
	if rapid.Bool().Draw(t, "pressure") {
		from := minutes("pfrom", 0, 5)
		cfg.Pressures = append(cfg.Pressures, sim.Pressure{Node: rapid.SampledFrom(nodes).Draw(t, "pressureNode"), From: from,
			To: from + minutes("plength", 1, 5), AvailableBytes: uint64(rapid.IntRange(0, 200).Draw(t, "availMi")) << 20})
	}
	if rapid.Bool().Draw(t, "cloud") {
		cfg.CloudDeletions = append(cfg.CloudDeletions, sim.CloudDeletion{Names: []string{rapid.SampledFrom(nodes).Draw(t, "deleted")}, At: minutes("delAt", 0, 5)})
	}
	cfg.Duration = 15 * time.Minute
	cfg.Seed = rapid.Int64Range(0, 3).Draw(t, "seed")
	return cfg
}

func runJSON(t *rapid.T, items []any, cfg sim.Config) []byte {
	data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := snapshot.Decode(data, "generated")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Cluster = snap.Cluster()
	return runCluster(t, cfg)
}

func runCluster(t *rapid.T, cfg sim.Config) []byte {
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPropertyReplayDeterministicAndOrderFree: the same snapshot, scenarios
// and seed give byte-identical output, and so does the snapshot with its
// items in any other order, or the simulator's cluster with its nodes and
// pods shuffled.
func TestPropertyReplayDeterministicAndOrderFree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items, nodes, zones := genItems(t)
		cfg := genScenarios(t, nodes, zones)
		first := runJSON(t, items, cfg)
		if again := runJSON(t, items, cfg); !bytes.Equal(first, again) {
			t.Fatal("two runs of the same input differ")
		}
		perm := rapid.Permutation(items).Draw(t, "order")
		if shuffled := runJSON(t, perm, cfg); !bytes.Equal(first, shuffled) {
			t.Fatalf("the output depends on the order of the snapshot's items:\n%s\n%s", first, shuffled)
		}
		data, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		snap, _, _ := snapshot.Decode(data, "generated")
		c := snap.Cluster()
		c.Nodes = rapid.Permutation(c.Nodes).Draw(t, "nodeOrder")
		c.Pods = rapid.Permutation(c.Pods).Draw(t, "podOrder")
		cfg.Cluster = c
		if direct := runCluster(t, cfg); !bytes.Equal(first, direct) {
			t.Fatal("the simulator's output depends on the order of Cluster.Nodes and Cluster.Pods")
		}
	})
}

func resourceMi(mi int64) *resource.Quantity { return resource.NewQuantity(mi<<20, resource.BinarySI) }

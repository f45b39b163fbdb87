package sim

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
)

// hugePageCluster is two Ready nodes; n1 has 1 GiB of 2 MiB huge pages in
// its capacity and runs one pod of a ReplicaSet that requests 256 MiB of
// memory.
func hugePageCluster() *Cluster {
	ready := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}
	zone := map[string]string{"topology.kubernetes.io/zone": "z"}
	capacity := core.ResourceList{"hugepages-2Mi": resource.MustParse("1Gi"), core.ResourceMemory: resource.MustParse("8Gi")}
	yes := true
	return &Cluster{
		Nodes: []core.Node{
			{Name: "n1", Labels: zone, Conditions: ready, Capacity: capacity},
			{Name: "n2", Labels: zone, Conditions: ready},
		},
		Pods: []core.Pod{{Namespace: "a", Name: "web-1", UID: "u1", NodeName: "n1", Phase: core.PodRunning,
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web", Controller: &yes}},
			Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{
				Requests: core.ResourceList{core.ResourceMemory: resource.MustParse("256Mi")}}}}}},
	}
}

// One value runs the simulated kubelets as a release. A pressure episode
// on n1 from +1m: its summary reads 1 GiB + 50 MiB of memory available.
// Worked by hand: the kubelet of v1.37 (HugepageAwareEviction) takes the
// 1 GiB of huge pages off, so memory.available is 50 MiB, below the
// default hard threshold memory.available<100Mi: it evicts the pod at once
// (+1m, grace period 0 for a hard threshold), and the 256 MiB it frees
// ends the pressure. The kubelet of v1.36 reads 1,074 MiB: no pressure,
// so the pod is not affected at all and has no outcome (before, the run
// listed it as spared "under memory pressure", which v1.36's kubelet never
// saw). The controller's settings are those of the release too, and the
// header names the kubelet's gate where it is on.
func TestReleaseRunsTheKubelets(t *testing.T) {
	episode := []Pressure{{Node: "n1", From: time.Minute, AvailableBytes: 1<<30 + 50<<20}}
	for _, c := range []struct {
		release  release.Version
		fate     string
		at       time.Duration
		kubelet  bool // the HugepageAwareEviction setting is listed
		wantGate bool // the controller's NodeControllerLeaseCircuitBreaker is on
	}{
		{0, "pressure-evicted", time.Minute, true, true}, // 0: release.Current
		{release.V1_37, "pressure-evicted", time.Minute, true, true},
		{release.V1_36, "", 0, false, false}, // no outcome: not affected
	} {
		res, err := Run(Config{Cluster: hugePageCluster(), Pressures: episode, Duration: 3 * time.Minute, Release: c.release})
		if err != nil {
			t.Fatalf("%v: %v", c.release, err)
		}
		switch {
		case c.fate == "" && len(res.Pods) != 0:
			t.Errorf("%v: outcomes %+v, want none", c.release, res.Pods)
		case c.fate == "":
		case len(res.Pods) != 1 || res.Pods[0].Pod != "a/web-1":
			t.Fatalf("%v: outcomes %+v, want a/web-1's", c.release, res.Pods)
		default:
			if o := res.Pods[0]; o.Fate != c.fate || o.At != c.at {
				t.Errorf("%v: a/web-1 %s at %v (%s: %s), want %s at %v", c.release, o.Fate, o.At, o.Rule, o.Detail, c.fate, c.at)
			}
		}
		var settings []string
		for _, s := range res.Settings {
			settings = append(settings, s.Component+" "+s.Name+"="+s.Value)
		}
		all := strings.Join(settings, "\n")
		if got := strings.Contains(all, "kubelet --feature-gates=HugepageAwareEviction=true"); got != c.kubelet {
			t.Errorf("%v: the kubelet's gate listed: %v, want %v:\n%s", c.release, got, c.kubelet, all)
		}
		if got := strings.Contains(all, "NodeControllerLeaseCircuitBreaker=true"); got != c.wantGate {
			t.Errorf("%v: the controller's lease circuit breaker listed: %v, want %v:\n%s", c.release, got, c.wantGate, all)
		}
	}
	for _, v := range []release.Version{release.Oldest - 1, release.Current + 1} {
		err := Config{Release: v}.Validate()
		if err == nil || !strings.Contains(err.Error(), "Release "+v.String()+" is not one of 1.27 to 1.37") {
			t.Errorf("Validate(Release %v) = %v", v, err)
		}
	}
}

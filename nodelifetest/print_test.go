package nodelifetest_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/taints"
)

// A pod with every field set prints on one line, each field once, as
// written here by hand.
func TestPodString(t *testing.T) {
	prio, grace, secs := int32(1000), int64(30), int64(300)
	ws, procs, used, inodes := uint64(512<<20), uint64(3), uint64(1<<30), uint64(10)
	q := resource.MustParse
	p := nodelifetest.Pod{Namespace: "ns", Name: "web", UID: "u1", OwnerKind: "ReplicaSet", NodeName: "a-0",
		Priority: &prio, PriorityClassName: "high", Static: true,
		InitContainers: []core.Container{{Name: "proxy", RestartPolicy: "Always",
			Resources: core.ResourceRequirements{Requests: core.ResourceList{"cpu": q("100m")}}}},
		Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{
			Requests: core.ResourceList{"memory": q("1Gi"), "cpu": q("500m")},
			Limits:   core.ResourceList{"memory": q("2Gi")}}}},
		Overhead:                      core.ResourceList{"cpu": q("10m")},
		Resources:                     &core.ResourceRequirements{Limits: core.ResourceList{"cpu": q("2")}},
		HostPorts:                     []core.ContainerPort{{HostPort: 80}, {HostPort: 53, Protocol: "UDP", HostIP: "10.0.0.1"}},
		Tolerations:                   []taints.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &secs}, {Operator: "Exists"}},
		TerminationGracePeriodSeconds: &grace, Ready: true,
		Stats: &pressure.PodStats{WorkingSetBytes: &ws, ProcessCount: &procs,
			Containers: []pressure.ContainerStats{{Name: "app", WorkingSetBytes: &ws, Rootfs: &pressure.FsUsage{UsedBytes: &used, InodesUsed: &inodes}}},
			Volumes:    []pressure.VolumeStats{{Name: "cache", FsUsage: pressure.FsUsage{UsedBytes: &used}}}},
		LocalVolumes: []string{"cache"},
	}
	want := "Pod{ns/web uid=u1 owner=ReplicaSet node=a-0 priority=1000 class=high static" +
		" init=[proxy req{cpu:100m} restart=Always] containers=[app req{cpu:500m memory:1Gi} lim{memory:2Gi}]" +
		" overhead{cpu:10m} pod-resources lim{cpu:2} host-ports=[80 53/UDP@10.0.0.1]" +
		" tolerations=[node.kubernetes.io/unreachable:NoExecute(Exists) for 300s, *(Exists)] grace=30s ready" +
		" stats{ws=512Mi procs=3 containers=[app ws=512Mi rootfs=1Gi/10i] volumes=[cache 1Gi/-]} volumes=[cache]}"
	if got := p.String(); got != want {
		t.Errorf("String:\n got %s\nwant %s", got, want)
	}
	if got := fmt.Sprintf("%#v", p); got != want {
		t.Errorf("%%#v:\n got %s\nwant %s", got, want)
	}
	if got := fmt.Sprint(nodelifetest.Pod{Namespace: "a", Name: "b"}); got != "Pod{a/b}" {
		t.Errorf("empty pod: %s", got)
	}
	zero := int32(0)
	if got := fmt.Sprint(nodelifetest.Pod{Namespace: "a", Name: "b", Priority: &zero}); got != "Pod{a/b priority=0}" {
		t.Errorf("priority 0: %s", got)
	}
}

// Drawn pods print under %#v, as rapid logs them, without a pointer
// address or apimachinery's Quantity internals, and with the priority
// (the field the property is about) when it is set.
func TestPodGoStringDrawn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := nodelifetest.OnePod(nodelifetest.Options{}).Draw(t, "pod")
		s := fmt.Sprintf("%#v", p)
		for _, bad := range []string{"0x", "int64Amount", "infDecAmount", "\n"} {
			if strings.Contains(s, bad) {
				t.Fatalf("%q in %s", bad, s)
			}
		}
		if p.Priority != nil && !strings.Contains(s, " priority="+strconv.Itoa(int(*p.Priority))) {
			t.Fatalf("priority %d missing: %s", *p.Priority, s)
		}
		if len(s) > 2000 {
			t.Fatalf("%d characters: %s", len(s), s)
		}
	})
}

// A scenario prints as a short table: nodes by zone, a pod a line, the
// fault schedule.
func TestScenarioString(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	node := func(name, zone string) core.Node {
		return core.Node{Name: name, Labels: map[string]string{eviction.LabelTopologyZone: zone}}
	}
	prio := int32(0)
	s := nodelifetest.Scenario{Cluster: nodelifetest.Cluster{Start: start,
		Nodes: []core.Node{node("a-0", "a"), node("b-0", "b"), node("a-1", "a")},
		Pods:  []nodelifetest.Pod{{Namespace: "ns", Name: "p0", NodeName: "a-0", Priority: &prio, Ready: true}}},
		Faults:   []nodelifetest.Fault{{Kind: nodelifetest.FaultShutdown, Nodes: []string{"a-0"}, From: time.Minute, To: 3*time.Minute + 20*time.Second}},
		Duration: 10 * time.Minute}
	s.Nodes[2].Unschedulable = true
	want := `Scenario of 10m0s: Cluster at 2026-01-01T00:00:00Z
  zone "a": a-0, a-1 [cordoned]
  zone "b": b-0
  Pod{ns/p0 node=a-0 priority=0 ready}
  fault Shutdown [a-0] +1m0s..+3m20s
`
	if got := fmt.Sprintf("%#v", s); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Drawn scenarios print without addresses or Quantity internals, one
// line per zone, pod and fault plus the header.
func TestScenarioGoStringDrawn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := nodelifetest.Scenarios(nodelifetest.Options{}).Draw(t, "scenario")
		text := fmt.Sprintf("%#v", s)
		for _, bad := range []string{"0x", "int64Amount", "core.Node{"} {
			if strings.Contains(text, bad) {
				t.Fatalf("%q in %s", bad, text)
			}
		}
		zones := map[string]bool{}
		for _, n := range s.Nodes {
			zones[n.Labels[eviction.LabelTopologyZone]] = true
		}
		lines := 1 + len(zones) + len(s.Pods) + max(len(s.Faults), 1)
		if got := strings.Count(text, "\n"); got != lines {
			t.Fatalf("%d lines, want %d:\n%s", got, lines, text)
		}
	})
}

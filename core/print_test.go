package core_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// A pod with every field set prints on one line, each field once, as
// written here by hand.
func TestPodString(t *testing.T) {
	prio, grace, secs := int32(1000), int64(30), int64(300)
	yes := true
	q := resource.MustParse
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := core.Pod{Namespace: "ns", Name: "web", UID: "u1",
		Labels:            map[string]string{"app": "web", "tier": "front"},
		Annotations:       map[string]string{core.ConfigSourceAnnotation: "file", "note": "x"},
		CreationTimestamp: created, DeletionTimestamp: &created,
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", Controller: &yes}, {Kind: "ConfigMap", Name: "cfg"}},
		NodeName:        "a-0", NodeSelector: map[string]string{"disk": "ssd"}, OS: "linux",
		Priority: &prio, PriorityClassName: "high",
		InitContainers: []core.Container{{Name: "proxy", RestartPolicy: "Always",
			Resources: core.ResourceRequirements{Requests: core.ResourceList{"cpu": q("100m")}}}},
		Containers: []core.Container{{Name: "app", Image: "web:1", HasLivenessProbe: true, Resources: core.ResourceRequirements{
			Requests: core.ResourceList{"memory": q("1Gi"), "cpu": q("500m")},
			Limits:   core.ResourceList{"memory": q("2Gi")}}}},
		RestartPolicy: core.RestartPolicyAlways, HostNetwork: true,
		Overhead:                      core.ResourceList{"cpu": q("10m")},
		Resources:                     &core.ResourceRequirements{Limits: core.ResourceList{"cpu": q("2")}},
		HostPorts:                     []core.ContainerPort{{HostPort: 80}, {HostPort: 53, Protocol: "UDP", HostIP: "10.0.0.1"}},
		Tolerations:                   []taints.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &secs}, {Operator: "Exists"}},
		TerminationGracePeriodSeconds: &grace,
		Volumes:                       []core.Volume{{Name: "cache", Source: core.VolumeEmptyDir}},
		Phase:                         core.PodRunning,
		Conditions:                    []core.PodCondition{{Type: core.PodReady, Status: conditions.True}, {Type: core.DisruptionTarget, Status: conditions.False}},
		QOSClass:                      core.PodQOSBurstable, Reason: "Evicted",
	}
	want := "Pod{ns/web uid=u1 owner=ReplicaSet refs=[ConfigMap/cfg] labels={app=web tier=front} annotations={note=x}" +
		" created=2026-01-02T03:04:05Z node=a-0 node-selector={disk=ssd} os=linux priority=1000 class=high static" +
		" init=[proxy req{cpu:100m} restart=Always] containers=[app req{cpu:500m memory:1Gi} lim{memory:2Gi} image=web:1 liveness-probe]" +
		" restart=Always host-network overhead{cpu:10m} pod-resources lim{cpu:2} host-ports=[80 53/UDP@10.0.0.1]" +
		" tolerations=[node.kubernetes.io/unreachable:NoExecute(Exists) for 300s, *(Exists)] grace=30s volumes=[cache]" +
		" phase=Running ready DisruptionTarget=False qos=Burstable reason=Evicted terminating}"
	if got := p.String(); got != want {
		t.Errorf("String:\n got %s\nwant %s", got, want)
	}
	if got := fmt.Sprintf("%#v", p); got != want {
		t.Errorf("%%#v:\n got %s\nwant %s", got, want)
	}
	if got := fmt.Sprint(core.Pod{Namespace: "a", Name: "b"}); got != "Pod{a/b}" {
		t.Errorf("empty pod: %s", got)
	}
	zero := int32(0)
	if got := fmt.Sprint(core.Pod{Namespace: "a", Name: "b", Priority: &zero}); got != "Pod{a/b priority=0}" {
		t.Errorf("priority 0: %s", got)
	}
	mirror := core.Pod{Namespace: "a", Name: "m", Annotations: map[string]string{core.ConfigSourceAnnotation: "file", core.ConfigMirrorAnnotation: "h"},
		Volumes: []core.Volume{{Name: "data", Source: core.VolumeHostPath}}}
	if got := fmt.Sprint(mirror); got != "Pod{a/m static mirror volumes=[data(hostPath)]}" {
		t.Errorf("mirror pod: %s", got)
	}
}

package snapshot

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.json from sampleList")

var created = metav1.NewTime(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))

func ptr[T any](v T) *T { return &v }

// sampleList builds the shipped sample: a three-zone cluster (eu-1a, eu-1b,
// eu-1c; two workers each and a control-plane node in eu-1a) with a
// kube-proxy DaemonSet, two CoreDNS replicas, a web Deployment with the
// tolerations admission adds, an api Deployment that tolerates unreachable
// nodes for 60s only, a db StatefulSet that tolerates them forever, a
// pending pod, and the nodes' leases; written as the API server returns
// them (apiVersion and kind on every item, uid, resourceVersion, owner
// references, status).
func sampleList() map[string]any {
	var items []any
	zones := []string{"eu-1a", "eu-1b", "eu-1c"}
	nodeNames := []string{"cp-1"}
	for _, z := range zones {
		nodeNames = append(nodeNames, "w-"+z[3:]+"1", "w-"+z[3:]+"2")
	}
	uid := 0
	next := func(prefix string) types.UID { uid++; return types.UID(fmt.Sprintf("%s-%04d", prefix, uid)) }
	for i, name := range nodeNames {
		zone := zones[0]
		if i > 0 {
			zone = zones[(i-1)/2]
		}
		n := corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: next("node"), ResourceVersion: fmt.Sprint(1000 + i), CreationTimestamp: created,
				Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", corev1.LabelTopologyZone: zone,
					corev1.LabelTopologyRegion: "eu-1", corev1.LabelInstanceTypeStable: "c6.large"}},
			Spec: corev1.NodeSpec{ProviderID: "fake://" + zone + "/i-" + name, PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", i)}, PodCIDR: fmt.Sprintf("10.244.%d.0/24", i)},
			Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourceMemory: resource.MustParse("7Gi"), corev1.ResourcePods: resource.MustParse("110")},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status",
					LastHeartbeatTime: metav1.NewTime(created.Add(119 * time.Hour)), LastTransitionTime: created}},
				Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", 1+(i+1)/2, 10+i)}, {Type: corev1.NodeHostName, Address: name}},
			}}
		if name == "cp-1" {
			n.Labels["node-role.kubernetes.io/control-plane"] = ""
			n.Labels[corev1.LabelNodeExcludeBalancers] = "true"
			n.Spec.Taints = []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}
		}
		items = append(items, n)
		items = append(items, coordinationv1.Lease{TypeMeta: metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-node-lease", Name: name, UID: next("lease"), ResourceVersion: fmt.Sprint(5000 + i), CreationTimestamp: created,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: n.UID}}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr(name), LeaseDurationSeconds: ptr(int32(40)),
				RenewTime: &metav1.MicroTime{Time: created.Add(119*time.Hour + 50*time.Minute)}}})
	}
	defaultTols := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}
	dsTols := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/disk-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/pid-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/network-unavailable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	pod := func(ns, name, node, ownerKind, owner, priorityClass string, priority int32, tols []corev1.Toleration, cpu string) corev1.Pod {
		p := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: next("pod"), ResourceVersion: fmt.Sprint(9000 + uid), CreationTimestamp: created,
				Labels: map[string]string{"app": owner}},
			Spec: corev1.PodSpec{NodeName: node, PriorityClassName: priorityClass, Priority: ptr(priority), Tolerations: tols,
				TerminationGracePeriodSeconds: ptr(int64(30)), RestartPolicy: corev1.RestartPolicyAlways,
				Containers: []corev1.Container{{Name: owner, Image: "registry.example.com/" + owner + ":1.0",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("128Mi")}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable}}
		if i := strings.LastIndex(owner, "-"); ownerKind == "ReplicaSet" && i > 0 {
			// A Deployment's pod: app is the Deployment's name.
			p.Labels = map[string]string{"app": owner[:i], "pod-template-hash": owner[i+1:]}
		}
		if owner != "" {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: ownerKind, Name: owner, UID: types.UID("owner-" + owner), Controller: ptr(true)}}
		}
		if node == "" {
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable,
				Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable"}}}
		}
		return p
	}
	for _, n := range nodeNames {
		items = append(items, pod("kube-system", "kube-proxy-"+n, n, "DaemonSet", "kube-proxy", "system-node-critical", 2000001000, dsTols, "100m"))
	}
	cpTol := append([]corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}, defaultTols...)
	items = append(items,
		pod("kube-system", "coredns-5d78c9869d-4xq2p", "cp-1", "ReplicaSet", "coredns-5d78c9869d", "system-cluster-critical", 2000000000, cpTol, "100m"),
		pod("kube-system", "coredns-5d78c9869d-9kz7w", "w-1b1", "ReplicaSet", "coredns-5d78c9869d", "system-cluster-critical", 2000000000, cpTol, "100m"))
	for i, n := range []string{"w-1a1", "w-1b1", "w-1b2"} {
		items = append(items, pod("shop", fmt.Sprintf("web-7d9f8b6c5-%c", 'a'+i), n, "ReplicaSet", "web-7d9f8b6c5", "", 0, defaultTols, "250m"))
	}
	apiTols := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(60))},
	}
	for i, n := range []string{"w-1b2", "w-1c1"} {
		items = append(items, pod("shop", fmt.Sprintf("api-6c4d7f9b8-%c", 'a'+i), n, "ReplicaSet", "api-6c4d7f9b8", "", 0, apiTols, "500m"))
	}
	dbTols := []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		defaultTols[0]}
	for i, n := range []string{"w-1a2", "w-1b1", "w-1c2"} {
		items = append(items, pod("shop", fmt.Sprintf("db-%d", i), n, "StatefulSet", "db", "shop-critical", 100000, dbTols, "1"))
	}
	items = append(items, pod("shop", "batch-report-28830", "", "Job", "batch-report", "", 0, defaultTols, "2"))
	return map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
}

func TestSampleFileIsCurrent(t *testing.T) {
	data, err := json.MarshalIndent(sampleList(), "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if *update {
		if err := os.WriteFile("testdata/sample.json", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(data) {
		t.Fatal("testdata/sample.json differs from sampleList (go test -update rewrites it)")
	}
}

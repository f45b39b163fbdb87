package snapshot

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// kubectlPod is a pod as `kubectl get pods -o json` prints one: managed
// fields, a last-applied configuration full of escapes, volumes, probes,
// statuses.
const kubectlPod = `{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "annotations": {
      "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\"},\"note\":\"caf\u00e9 \\\\ \/ \t\"}\n",
      "kubernetes.io/config.source": "api"
    },
    "creationTimestamp": "2026-01-05T08:00:00Z",
    "generateName": "web-",
    "labels": {"app": "web", "pod-template-hash": "5d8f9c7b6"},
    "managedFields": [{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
      "time": "2026-01-05T08:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"k:{\"uid\":\"x\"}": {}}}}],
    "name": "web-5d8f9c7b6-abcde",
    "namespace": "shop",
    "ownerReferences": [{"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true,
      "kind": "ReplicaSet", "name": "web-5d8f9c7b6", "uid": "0a1b2c3d-0000-4000-8000-000000000001"}],
    "resourceVersion": "123456",
    "uid": "0a1b2c3d-0000-4000-8000-000000000002"
  },
  "spec": {
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a", "b"]}]}]}}},
    "containers": [{
      "env": [{"name": "X", "value": "1e3"}],
      "image": "registry.example.com/web:1.0",
      "name": "web",
      "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}, {"containerPort": 9090, "hostPort": 9090, "hostIP": "0.0.0.0", "protocol": "UDP"}],
      "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10, "successThreshold": 1.5e0},
      "resources": {"limits": {"memory": "512Mi"}, "requests": {"cpu": "250m", "memory": 268435456}}
    }],
    "initContainers": [{"name": "log", "restartPolicy": "Always", "resources": {"requests": {"cpu": "10m"}}}],
    "nodeName": "node-7",
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "os": {"name": "linux"},
    "overhead": {"cpu": "10m"},
    "priority": -5,
    "priorityClassName": "low",
    "securityContext": {"runAsUser": 1000},
    "terminationGracePeriodSeconds": 30,
    "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
      {"effect": "NoSchedule", "key": "gpu", "operator": "Equal", "value": "true"}],
    "volumes": [{"name": "data", "emptyDir": {}}]
  },
  "status": {
    "conditions": [{"lastProbeTime": null, "lastTransitionTime": "2026-01-05T08:00:01Z", "status": "True", "type": "Ready"}],
    "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0, "state": {"running": {"startedAt": "2026-01-05T08:00:01Z"}}}],
    "phase": "Running",
    "qosClass": "Burstable",
    "startTime": "2026-01-05T08:00:00Z"
  }
}`

// viaJSON decodes raw into a pod with encoding/json.
func viaJSON(raw []byte) (pod, error) {
	var p pod
	err := json.Unmarshal(raw, &p)
	return p, err
}

// TestFastPodTakesCommonPods: the pods of kubectl's output and of the
// sample take the one-pass decoding (else the speed is not had), with
// encoding/json's result.
func TestFastPodTakesCommonPods(t *testing.T) {
	takesCommon(t, "Pod", kubectlPod, fastPod, viaJSON)
	// spot checks of the kubectl pod, worked out from its text
	var p pod
	fastPod([]byte(kubectlPod), &p)
	if a := p.Metadata.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; a != `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0"},"note":"café \\ / `+"\t\"}\n" {
		t.Errorf("annotation %q", a)
	}
	c := p.Spec.Containers[0]
	if len(c.Ports) != 2 || c.Ports[1].HostPort != 9090 || c.Ports[1].Protocol != "UDP" || c.Resources.Requests.Memory().Value() != 268435456 {
		t.Errorf("container %+v", c)
	}
	if *p.Spec.Priority != -5 || *p.Spec.Tolerations[0].TolerationSeconds != 300 || *p.Spec.InitContainers[0].RestartPolicy != "Always" ||
		p.Spec.Affinity == nil || *p.Spec.SecurityContext.RunAsUser != 1000 || p.Status.QOSClass != "Burstable" {
		t.Errorf("spec %+v", p.Spec)
	}
}

// takesCommon checks that kubectl's object of kind (literal) and the
// sample's take the one-pass decoding fast, with encoding/json's result
// (viaJSON).
func takesCommon[T any](t *testing.T, kind, literal string, fast func([]byte, *T) bool, viaJSON func([]byte) (T, error)) {
	t.Helper()
	raws := [][]byte{[]byte(literal)}
	sample, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	_, _, items, err := splitList(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if v, k, _ := itemKind(it); v == "v1" && k == kind {
			raws = append(raws, it)
		}
	}
	if len(raws) < 3 {
		t.Fatalf("only %d %ss", len(raws), kind)
	}
	for i, raw := range raws {
		var got T
		if !fast(raw, &got) {
			t.Fatalf("%s %d: declined %.200s", kind, i, raw)
		}
		want, err := viaJSON(raw)
		if err != nil {
			t.Fatalf("%s %d: %v", kind, i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %d:\nfast %+v\njson %+v", kind, i, got, want)
		}
	}
}

// fastPodSeeds are inputs where one pass and encoding/json could part:
// keys in another case or escaped, repeated keys, nulls, numbers that are
// no integers, escapes, invalid UTF-8, syntax errors in skipped values.
var fastPodSeeds = []string{
	kubectlPod,
	`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"x","labels":null,"annotations":{"a":null}},"spec":{"nodeName":"n"}}`,
	`{"kind":"Pod","metadata":{"NAME":"p"}}`,
	`{"kind":"Pod","metadata":{"n\u0061me":"p"}}`,
	`{"kind":"Pod","metadata":{"name":"p","name":"q"}}`,
	`{"kind":"Pod","metadata":{"ſtatus":"p"}}`,
	`{"kind":"Pod","metadata":{"deletionTimestamp":null,"creationTimestamp":null}}`,
	`{"kind":"Pod","metadata":{"creationTimestamp":"2026-01-05T08:00:00+02:00"}}`,
	`{"kind":"Pod","metadata":{"creationTimestamp":"yesterday"}}`,
	`{"kind":"Pod","spec":{"priority":1.0,"terminationGracePeriodSeconds":1e2}}`,
	`{"kind":"Pod","spec":{"priority":2147483648}}`,
	`{"kind":"Pod","spec":{"priority":-0,"terminationGracePeriodSeconds":null}}`,
	`{"kind":"Pod","spec":{"containers":[{"resources":{"requests":{"cpu":null}}}]}}`,
	`{"kind":"Pod","spec":{"containers":[{"resources":{"requests":{"cpu":"1\u0030"}}}]}}`,
	`{"kind":"Pod","spec":{"containers":[{"resources":{"requests":{"cpu":2,"memory":" 1Gi "}}}]}}`,
	`{"kind":"Pod","spec":{"containers":[],"initContainers":null,"tolerations":[]}}`,
	`{"kind":"Pod","spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}`,
	`{"kind":"Pod","metadata":{"name":"\ud83d\ude00"}}`,
	`{"kind":"Pod","metadata":{"name":"\ud800"}}`,
	"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"\xff\"}}",
	"{\"kind\":\"Pod\",\"metadata\":{\"x\":\"\xff\"}}",
	"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\tb\"}}",
	`{"kind":"Pod","spec":{"volumes":[01]}}`,
	`{"kind":"Pod","spec":{"volumes":[1.]}}`,
	`{"kind":"Pod","spec":{"volumes":[tru]}}`,
	`{"kind":"Pod","spec":{"volumes":{"a":1,}}}`,
	`{"kind":"Pod"} x`,
	`{"kind":"Pod"}  `,
	`null`,
	`[]`,
	`{"kind":"Pod","spec":null,"status":{"phase":"Failed","reason":"Evicted"},"metadata":{"ownerReferences":[{"controller":false,"blockOwnerDeletion":null}]}}`,
	`{"kind":"Pod","spec":{"affinity":{"podAffinity":5}}}`,
	`{"kind":"Pod","spec":{"resources":{"limits":{"cpu":"1"}},"overhead":{}}}`,
}

// FuzzFastPod holds fastPod to encoding/json: whatever it accepts,
// encoding/json decodes to the same pod.
func FuzzFastPod(f *testing.F) {
	for _, s := range fastPodSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameAsJSON(t, raw, fastPod, viaJSON) })
}

// sameAsJSON fails when fast accepts raw and encoding/json (viaJSON)
// refuses it or decodes another value.
func sameAsJSON[T any](t *testing.T, raw []byte, fast func([]byte, *T) bool, viaJSON func([]byte) (T, error)) {
	var got T
	if !fast(raw, &got) {
		return
	}
	want, err := viaJSON(raw)
	if err != nil {
		t.Fatalf("the one pass accepted what encoding/json refuses (%v): %q", err, raw)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nfast %+v\njson %+v", raw, got, want)
	}
}

// TestFastPodDeclines: the inputs where encoding/json would do something
// one pass does not reproduce are left to it.
func TestFastPodDeclines(t *testing.T) {
	for _, s := range []string{
		`{"kind":"Pod","metadata":{"NAME":"p"}}`,                                    // case-folded key
		`{"kind":"Pod","metadata":{"n\u0061me":"p"}}`,                               // escaped key
		`{"kind":"Pod","metadata":{"name":"p","name":"q"}}`,                         // repeated key
		`{"kind":"Pod","metadata":{"deletionTimestamp":null}}`,                      // null through a method
		`{"kind":"Pod","spec":{"priority":1.0}}`,                                    // not an integer
		`{"kind":"Pod","metadata":{"name":"\ud800"}}`,                               // lone surrogate
		"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"\xff\"}}",                       // invalid UTF-8
		`{"kind":"Pod","spec":{"volumes":[01]}}`,                                    // syntax error in a skipped value
		`{"kind":"Pod"} x`,                                                          // data after
		`{"kind":"Pod","spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}}`, // type mismatch
	} {
		var p pod
		if fastPod([]byte(s), &p) {
			t.Errorf("fastPod accepted %q", s)
		}
	}
}

// kubectlNode is a node as `kubectl get nodes -o json` prints one.
const kubectlNode = `{
  "apiVersion": "v1",
  "kind": "Node",
  "metadata": {
    "annotations": {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
    "creationTimestamp": "2026-01-05T08:00:00Z",
    "labels": {"kubernetes.io/hostname": "node-7", "topology.kubernetes.io/zone": "zone-b", "node.kubernetes.io/instance-type": "m6i.2xlarge"},
    "managedFields": [{"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": "2026-01-05T08:00:00Z",
      "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}}}}}, "subresource": "status"}],
    "name": "node-7",
    "resourceVersion": "987",
    "uid": "6f0e0000-0000-4000-8000-000000000007"
  },
  "spec": {"podCIDR": "10.0.7.0/24", "podCIDRs": ["10.0.7.0/24"], "providerID": "aws:///zone-b/i-07",
    "taints": [{"effect": "NoSchedule", "key": "dedicated", "value": "gpu"}, {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "timeAdded": "2026-01-05T09:00:00Z"}]},
  "status": {
    "addresses": [{"address": "10.1.0.7", "type": "InternalIP"}, {"address": "node-7", "type": "Hostname"}],
    "allocatable": {"cpu": "7910m", "ephemeral-storage": "95491281146", "hugepages-1Gi": "0", "memory": "31709300Ki", "pods": "110"},
    "capacity": {"cpu": "8", "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "memory": "32323700Ki", "pods": "110"},
    "conditions": [
      {"lastHeartbeatTime": "2026-01-05T09:00:00Z", "lastTransitionTime": "2026-01-05T08:00:00Z", "message": "kubelet has sufficient memory available", "reason": "KubeletHasSufficientMemory", "status": "False", "type": "MemoryPressure"},
      {"lastHeartbeatTime": "2026-01-05T09:00:00Z", "lastTransitionTime": "2026-01-05T08:01:00Z", "message": "kubelet is posting ready status", "reason": "KubeletReady", "status": "True", "type": "Ready"}],
    "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
    "images": [{"names": ["registry.example.com/web@sha256:0123", "registry.example.com/web:1.0"], "sizeBytes": 123456789}],
    "nodeInfo": {"architecture": "amd64", "kubeletVersion": "v1.37.0", "osImage": "Linux"}
  }
}`

var fastNodeSeeds = []string{
	kubectlNode,
	`{"kind":"Node","status":{"conditions":[{"type":"Ready","lastHeartbeatTime":null}]}}`,
	`{"kind":"Node","status":{"Conditions":[]}}`,
	`{"kind":"Node","status":{"capacity":{"cpu":"4","cpu":"8"},"addresses":null}}`,
	`{"kind":"Node","spec":{"unschedulable":true,"taints":[{"key":"k","effect":"NoSchedule","timeAdded":null}]},"status":{"conditions":null}}`,
	`{"kind":"Node","spec":{"taints":5}}`,
	`{"kind":"Node","status":{"allocatable":{"memory":"1Gi "},"images":[{"names":[1,]}]}}`,
	`{"kind":"Node","status":{"conditions":[],"conditions":[{"type":"Ready"}]}}`,
}

// viaJSONNode decodes raw into a node with encoding/json.
func viaJSONNode(raw []byte) (node, error) {
	var n node
	err := json.Unmarshal(raw, &n)
	return n, err
}

// TestFastNodeTakesCommonNodes: kubectl's nodes and the sample's take the
// one-pass decoding, with encoding/json's result.
func TestFastNodeTakesCommonNodes(t *testing.T) {
	takesCommon(t, "Node", kubectlNode, fastNode, viaJSONNode)
	var n node
	fastNode([]byte(kubectlNode), &n)
	if len(n.Status.Conditions) != 2 || n.Status.Conditions[1].Reason != "KubeletReady" || n.Status.Allocatable.Cpu().MilliValue() != 7910 ||
		len(n.Spec.Taints) != 2 || n.Spec.Taints[1].TimeAdded == nil || n.Status.Addresses[1].Address != "node-7" {
		t.Errorf("node %+v", n)
	}
	// a repeated field is left to encoding/json (which merges or keeps
	// the last); a repeated map key is not (the last is kept either way)
	if fastNode([]byte(fastNodeSeeds[7]), &node{}) {
		t.Errorf("fastNode accepted %s", fastNodeSeeds[7])
	}
	if n := (node{}); !fastNode([]byte(fastNodeSeeds[3]), &n) || n.Status.Capacity.Cpu().Value() != 8 {
		t.Errorf("fastNode on %s: %+v", fastNodeSeeds[3], n.Status)
	}
}

// FuzzFastNode holds fastNode to encoding/json.
func FuzzFastNode(f *testing.F) {
	for _, s := range append(fastNodeSeeds, fastPodSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameAsJSON(t, raw, fastNode, viaJSONNode) })
}

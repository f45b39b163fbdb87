// Package kubeapi converts real Kubernetes API objects (k8s.io/api/core/v1
// and metav1) into nodelife's inputs and back. It lives in its own module,
// github.com/nodelife/nodelife/examples/kubeapi, so that nodelife itself
// never depends on k8s.io/api: import this package (or copy it) in the
// program that already has a clientset or an informer.
//
// nodelife's small input types use the API's field names and string
// values, so every conversion here is a field copy; times become
// time.Time, with nil pointers as the zero time and back. The round trips
// are lossless for the fields nodelife reads: Taint, Toleration,
// NodeCondition, OwnerReference and the object metadata the garbage
// collector reads.
//
// # Usage
//
//	node := informerNode.DeepCopy()
//	mon := kubeapi.MonitorNode(node, lease)                 // conditions.Monitor input
//	zone := kubeapi.ZoneNode(node)                          // eviction.Config.PlanDisruption input
//	plan := eviction.NoExecuteConfig{}.Plan(now, kubeapi.Taints(node.Spec.Taints),
//		kubeapi.Pod(pod), nil)
//	node.Status.Conditions = kubeapi.FromConditions(newConds) // write back
//
// The tests decode real manifests from testdata: a Node as a kubelet posts
// it, a DaemonSet pod with the tolerations the DaemonSet controller and
// admission add, and a Deployment -> ReplicaSet -> Pod chain.
package kubeapi

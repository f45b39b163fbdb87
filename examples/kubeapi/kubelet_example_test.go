package kubeapi_test

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/shutdown"
)

// A custom kubelet converts its pods once and hands the same core.Pod values to
// each decision: node-pressure eviction, graceful node shutdown, and image
// garbage collection beside them (which reads the runtime's images, not
// the pods). Worked by hand:
//
//   - memory.available is 50Mi, under the default hard threshold of
//     100Mi; web (using 400Mi of its 100Mi request) exceeds its request,
//     db (900Mi of 1Gi) does not, and kube-proxy is critical, so web is
//     evicted;
//   - shutdown with 30s, the last 10s kept for critical pods: web and db
//     get 30 - 10 = 20s (their own 30s is longer) in the first phase,
//     kube-proxy waits for the second;
//   - the image filesystem is 90% full, above the 85% threshold: the
//     kubelet frees down to 80% (4Gi), and only sha256:old, unused, may
//     go.
func Example_customKubelet() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	mem := func(q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(q)}
	}
	pod := func(ns, name string, res corev1.ResourceRequirements, priority int32) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("u-" + name)},
			Spec:   corev1.PodSpec{Priority: &priority, Containers: []corev1.Container{{Name: "c", Resources: res}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	apiPods := []*corev1.Pod{
		pod("shop", "web", corev1.ResourceRequirements{Requests: mem("100Mi")}, 0),
		pod("shop", "db", corev1.ResourceRequirements{Requests: mem("1Gi"), Limits: mem("1Gi")}, 0),
		pod("kube-system", "kube-proxy", corev1.ResourceRequirements{}, 2000001000), // system-node-critical
	}

	// One conversion per pod.
	pods := make([]core.Pod, len(apiPods))
	for i, p := range apiPods {
		pods[i] = kubeapi.Pod(p)
	}

	// Node-pressure eviction, from the summary API's readings.
	cfg := pressure.DefaultConfig()
	m, err := pressure.NewManager(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	bytes := func(n uint64) *uint64 { return &n }
	node := pressure.NodeStats{Memory: &pressure.MemoryStats{Time: now, AvailableBytes: bytes(50 << 20), WorkingSetBytes: bytes(7 << 30)}}
	usage := pressure.Stats{"u-web": {WorkingSetBytes: bytes(400 << 20)}, "u-db": {WorkingSetBytes: bytes(900 << 20)},
		"u-kube-proxy": {WorkingSetBytes: bytes(50 << 20)}}
	if d := m.Step(now, cfg.Observe(node), pods, usage).Decision; d.Evict != nil {
		fmt.Println("pressure: evict", d.Evict.Pod.Name)
	}

	// Graceful node shutdown, when logind announces one.
	sm, err := shutdown.NewManager(shutdown.Config{ShutdownGracePeriod: 30 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	var kills []string
	for _, k := range sm.Start(now, pods).Kills {
		kills = append(kills, fmt.Sprintf("%s (%ds)", k.Pod.Name, k.GracePeriodSeconds))
	}
	slices.Sort(kills)
	fmt.Println("shutdown: kill", kills)

	// Image garbage collection, from the runtime's images.
	images := []gc.Image{{ID: "sha256:web", Size: 1 << 30}, {ID: "sha256:old", Size: 3 << 30}}
	inUse := []gc.ImageRef{{ID: "sha256:web"}}
	policy := gc.DefaultImagePolicy()
	records := gc.DetectImages(now.Add(-time.Hour), policy, nil, images, inUse)
	records = gc.DetectImages(now, policy, records, images, inUse)
	plan, err := gc.PlanImages(now, policy, records, gc.FsStats{Capacity: 40 << 30, Available: 4 << 30}, now.Add(-time.Hour))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range plan.Deletions {
		fmt.Println("image GC: delete", d.Image.ID)
	}
	// Output:
	// pressure: evict web
	// shutdown: kill [db (20s) web (20s)]
	// image GC: delete sha256:old
}

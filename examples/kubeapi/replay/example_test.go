package replay_test

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"time"

	"github.com/nodelife/nodelife/examples/kubeapi/replay"
	"github.com/nodelife/nodelife/examples/kubeapi/snapshot"
	"github.com/nodelife/nodelife/sim"
)

// Zone eu-1b of the sample snapshot loses the API server for ten minutes
// (the timings are worked out in TestSampleZoneOutage).
func ExampleWriteSummary() {
	snap, _, err := snapshot.Load("../snapshot/testdata/sample.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := snap.Cluster()
	o, err := replay.ParseOutage(c, "eu-1b@1m-11m")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(sim.Config{Cluster: c, Duration: 15 * time.Minute, Outages: []sim.Outage{o}})
	if err != nil {
		fmt.Println(err)
		return
	}
	replay.WriteSummary(os.Stdout, res)
	// Output:
	// 7 nodes, 18 pods in the snapshot: 17 simulated, 1 not (1 not scheduled); 15m0s simulated
	//   kube-controller-manager: --node-monitor-period=5s --node-monitor-grace-period=50s --node-startup-grace-period=1m0s --node-eviction-rate=0.1 --secondary-node-eviction-rate=0.01 --unhealthy-zone-threshold=0.55 --large-cluster-size-threshold=50 --feature-gates=NodeControllerLeaseCircuitBreaker=true
	//   kubelet: nodeLeaseDurationSeconds=40 renewInterval=10s
	//   kube-apiserver: --default-not-ready-toleration-seconds=300 --default-unreachable-toleration-seconds=300
	// evicted by taints 4, killed by graceful shutdown 0, evicted under node pressure 0, force deleted by the pod GC 0, nodes deleted 0, evictions cancelled 0
	//
	// ZONE        NODES  READY AT END  NOT READY  UNKNOWN  NOEXECUTE-TAINTED  PODS STOPPED  STATE
	// eu-1/eu-1a  3      3             0          0        0                  0             Normal
	// eu-1/eu-1b  2      2             0          0        0                  4             Normal
	// eu-1/eu-1c  2      2             0          0        0                  0             Normal
	//
	// WORKLOAD                          REPLICAS  MOST LOST AT ONCE  REPLICA-TIME LOST  OF IT WITHOUT ROOM  MOST WITHOUT ROOM  LOST OVER TIME
	// DaemonSet kube-system/kube-proxy  7         2                  18m40s             0s                  0                  1m50s:2 11m10s:0
	// Deployment kube-system/coredns    2         1                  5m0s               0s                  0                  1m50s:1 6m50s:0
	// Deployment shop/api               2         1                  1m10s              0s                  0                  1m50s:1 3m0s:0
	// Deployment shop/web               3         2                  10m10s             0s                  0                  1m50s:2 6m50s:1 7m0s:0
	// StatefulSet shop/db               3         1                  9m20s              0s                  0                  1m50s:1 11m10s:0
	//
	// POD                                   NODE   FATE     AT     RULE                  GONE      REPLACED  ON  LOST   WHY
	// kube-system/coredns-5d78c9869d-9kz7w  w-1b1  evicted  6m45s  TaintManagerEviction  11m30.6s  6m45s     -   5m0s   tolerated node.kubernetes.io/unreachable:NoExecute for 5m0s (its tolerationSeconds)
	// kube-system/kube-proxy-w-1b1          w-1b1  spared   -      Tolerated             -         -         -   9m20s  tolerates node.kubernetes.io/unreachable:NoExecute with no tolerationSeconds
	// kube-system/kube-proxy-w-1b2          w-1b2  spared   -      Tolerated             -         -         -   9m20s  tolerates node.kubernetes.io/unreachable:NoExecute with no tolerationSeconds
	// shop/api-6c4d7f9b8-a                  w-1b2  evicted  2m55s  TaintManagerEviction  11m30.6s  2m55s     -   1m10s  tolerated node.kubernetes.io/unreachable:NoExecute for 1m0s (its tolerationSeconds)
	// shop/db-1                             w-1b1  spared   -      Tolerated             -         -         -   9m20s  tolerates node.kubernetes.io/unreachable:NoExecute with no tolerationSeconds
	// shop/web-7d9f8b6c5-b                  w-1b1  evicted  6m45s  TaintManagerEviction  11m30.6s  6m45s     -   5m0s   tolerated node.kubernetes.io/unreachable:NoExecute for 5m0s (its tolerationSeconds)
	// shop/web-7d9f8b6c5-c                  w-1b2  evicted  6m55s  TaintManagerEviction  11m30.6s  6m55s     -   5m10s  tolerated node.kubernetes.io/unreachable:NoExecute for 5m0s (its tolerationSeconds)
}

func ExampleSelect() {
	snap, _, _ := snapshot.Load("../snapshot/testdata/sample.json")
	c := snap.Cluster()
	fmt.Println(replay.Select(c, "eu-1a/2"))
	fmt.Println(replay.Select(c, "w-1b1+w-1c2"))
	fmt.Println(replay.Select(c, "w-9"))
	// Output:
	// eu-1a 2 [] <nil>
	//  0 [w-1b1 w-1c2] <nil>
	//  0 [] "w-9" is neither a zone (eu-1/eu-1a, eu-1/eu-1b, eu-1/eu-1c) nor a node of the snapshot
}

// A replay command's main tunes the collector before reading a large
// snapshot: the target of 50 with neither GOGC nor a memory limit set, no
// target (-1: collections only near the limit) with a limit (here as
// GOMEMLIMIT=3200MiB at the program's start would set it).
func ExampleTuneCollector() {
	gogc, hadGOGC := os.LookupEnv("GOGC")
	os.Unsetenv("GOGC")
	limit := debug.SetMemoryLimit(math.MaxInt64) // none, for the first call
	replay.TuneCollector()
	fmt.Println(debug.SetGCPercent(100)) // the target it set; put back
	debug.SetMemoryLimit(3200 << 20)
	replay.TuneCollector()
	fmt.Println(debug.SetGCPercent(100))
	debug.SetMemoryLimit(limit)
	if hadGOGC {
		os.Setenv("GOGC", gogc)
	}
	// Output:
	// 50
	// -1
}

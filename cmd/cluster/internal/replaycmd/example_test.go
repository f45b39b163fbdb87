package replaycmd_test

import (
	"os"

	"github.com/nodelife/nodelife/cmd/cluster/internal/replaycmd"
)

// w-1c2 of the sample snapshot powers off at +2m without a graceful
// shutdown; at +7m30s an operator adds the out-of-service taint. Its
// StatefulSet pod db-2 tolerates unreachable forever, so only the taint
// gets it deleted (+450s), and the pod GC's next run force deletes it
// (+460s), when the StatefulSet can replace it.
func ExampleMain() {
	replaycmd.Main([]string{"-snapshot", "../../../../examples/kubeapi/snapshot/testdata/sample.json", "-seed", "0", "-duration", "10m",
		"-shutdown", "w-1c2@2m/7m30s"}, os.Stdout, os.Stderr)
	// Output:
	// 7 nodes, 18 pods in the snapshot: 17 simulated, 1 not (1 not scheduled); 10m0s simulated
	//   kube-controller-manager: --node-monitor-period=5s --node-monitor-grace-period=50s --node-startup-grace-period=1m0s --node-eviction-rate=0.1 --secondary-node-eviction-rate=0.01 --unhealthy-zone-threshold=0.55 --large-cluster-size-threshold=50 --feature-gates=NodeControllerLeaseCircuitBreaker=true
	//   kubelet: nodeLeaseDurationSeconds=40 renewInterval=10s
	//   kube-apiserver: --default-not-ready-toleration-seconds=300 --default-unreachable-toleration-seconds=300
	// evicted by taints 2, killed by graceful shutdown 0, evicted under node pressure 0, force deleted by the pod GC 2, nodes deleted 0, evictions cancelled 0
	//
	// ZONE        NODES  READY AT END  NOT READY  UNKNOWN  NOEXECUTE-TAINTED  PODS STOPPED  STATE
	// eu-1/eu-1a  3      3             0          0        0                  0             Normal
	// eu-1/eu-1b  2      2             0          0        0                  0             Normal
	// eu-1/eu-1c  2      1             0          1        1                  2             Normal
	//
	// WORKLOAD                          REPLICAS  MOST LOST AT ONCE  REPLICA-TIME LOST  OF IT WITHOUT ROOM  MOST WITHOUT ROOM  LOST OVER TIME
	// DaemonSet kube-system/kube-proxy  7         1                  7m10s              0s                  0                  2m50s:1
	// StatefulSet shop/db               3         1                  4m50s              0s                  0                  2m50s:1 7m40s:0
	//
	// POD                           NODE   FATE     AT     RULE              GONE   REPLACED  ON     LOST   WHY
	// kube-system/kube-proxy-w-1c2  w-1c2  evicted  7m30s  UntoleratedTaint  7m40s  -         -      7m10s  does not tolerate node.kubernetes.io/out-of-service=nodeshutdown:NoExecute
	// shop/db-2                     w-1c2  evicted  7m30s  UntoleratedTaint  7m40s  7m40s     w-1c1  4m50s  does not tolerate node.kubernetes.io/out-of-service=nodeshutdown:NoExecute
}

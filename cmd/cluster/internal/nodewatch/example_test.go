package nodewatch_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/internal/nodewatch"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// Line formats an action of the plan (or of -apply) with its time from
// the start; a scheduled eviction shows when it is due.
func ExampleLine() {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	fmt.Println(nodewatch.Line(controller.Action{Action: nodelifecycle.Action{At: start.Add(55 * time.Second), Kind: controller.KindTaints, Node: "n3",
		Add: []taints.Taint{{Key: "node.kubernetes.io/unreachable", Effect: taints.TaintEffectNoSchedule}}}}, start))
	fmt.Println(nodewatch.Line(controller.Action{Action: nodelifecycle.Action{At: start.Add(time.Minute), Kind: controller.KindSchedule, Node: "n3",
		Pod: core.PodRef{Namespace: "shop", Name: "web"}, Due: start.Add(2 * time.Minute)}}, start))
	// Output:
	//      +55s  Taint n3 node.kubernetes.io/unreachable:NoSchedule
	//     +1m0s  Schedule n3 pod shop/web (due +2m0s)
}

// Main reports a missing kubeconfig with where it looked, and exits 1.
func ExampleMain() {
	dir, _ := os.MkdirTemp("", "nodewatch")
	defer os.RemoveAll(dir)
	var stdout, stderr bytes.Buffer
	code := nodewatch.Main([]string{"-kubeconfig", filepath.Join(dir, "config")}, &stdout, &stderr)
	fmt.Println(code, strings.ReplaceAll(stderr.String(), dir, "DIR"))
	// Output:
	// 1 nodewatch: no kubeconfig at DIR/config: stat DIR/config: no such file or directory (set -kubeconfig or KUBECONFIG)
}

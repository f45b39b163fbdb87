package trace_test

import (
	"fmt"
	"strings"

	"github.com/nodelife/nodelife/sim/trace"
)

// A pod list in the openb format: a whole GPU, a share of one restricted
// to two models, and a CPU pod that leaves after an hour.
func ExampleReadPods() {
	pods, err := trace.ReadPods(strings.NewReader(`name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,creation_time,deletion_time
train,12000,16384,1,1000,,0,
infer,6000,12288,1,460,V100M16|V100M32,60,
etl,4000,8192,0,0,,120,3720
`), "pods.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pods {
		stay := "stays"
		if p.HasDeleted {
			stay = "runs " + (p.Deleted - p.Created).String()
		}
		fmt.Println(p.Name, p.MilliCPU, p.GPUs, p.GPUMilli, p.Models, "arrives at", p.Created, stay)
	}
	// Output:
	// train 12000 1 1000 [] arrives at 0s stays
	// infer 6000 1 460 [V100M16 V100M32] arrives at 1m0s stays
	// etl 4000 0 0 [] arrives at 2m0s runs 1h0m0s
}

// A malformed row names the file, line and column.
func ExampleReadNodes() {
	_, err := trace.ReadNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,8,G2\nn2,64000,lots,8,G2\n"), "nodes.csv")
	fmt.Println(err)
	// Output:
	// trace: malformed: nodes.csv:3:10: column memory_mib "lots": want an integer from 0 to 9007199254740992
}

package trace

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const openb = "../../../shared/data/traces/openb/"

// The published lists, as the trace's README describes them: 1,213 GPU
// nodes with 6,212 GPUs; the default pod list's 8,152 pods.
func TestReadOpenB(t *testing.T) {
	nodes, err := ReadNodesFile(openb + "openb_node_list_gpu_node.csv")
	if err != nil {
		t.Fatal(err)
	}
	gpus := 0
	for _, n := range nodes {
		gpus += n.GPUs
	}
	if len(nodes) != 1213 || gpus != 6212 {
		t.Fatalf("%d nodes, %d GPUs; want 1213 and 6212", len(nodes), gpus)
	}
	if n := nodes[0]; n != (NodeRecord{Name: "openb-node-0000", MilliCPU: 64000, MemoryMiB: 262144, GPUs: 2, Model: "P100"}) {
		t.Fatalf("first node %+v", n)
	}
	pods, err := ReadPodsFile(openb + "openb_pod_list_default.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 8152 {
		t.Fatalf("%d pods; want 8152", len(pods))
	}
	// openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
	p := pods[1]
	if p.Name != "openb-pod-0001" || p.MilliCPU != 6000 || p.MemoryMiB != 12288 || p.GPUs != 1 || p.GPUMilli != 460 || p.Models != nil ||
		p.QoS != "LS" || p.Phase != "Running" || p.Created != 427061*time.Second || !p.HasDeleted || p.Deleted != 12902960*time.Second ||
		!p.HasScheduled || p.Scheduled != 427061*time.Second || p.TotalGPUMilli() != 460 {
		t.Fatalf("second pod %+v", p)
	}
	// The multi-GPU lists have the five required columns only.
	pods, err = ReadPodsFile(openb + "openb_pod_list_multigpu20.csv")
	if err != nil {
		t.Fatal(err)
	}
	if pods[0].HasDeleted || pods[0].Created != 0 || pods[0].Name != "openb-pod-0000" {
		t.Fatalf("first multigpu20 pod %+v", pods[0])
	}
	// A GPU-model constraint.
	pods, err = ReadPodsFile(openb + "openb_pod_list_gpuspec33.csv")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range pods {
		if len(p.Models) == 2 && p.Models[0] == "V100M16" && p.Models[1] == "V100M32" {
			found = true
			break
		}
	}
	if !found {
		t.Fatal("no pod of gpuspec33 may run on V100M16 or V100M32 only")
	}
}

// Each malformed input is refused naming the file, the line and the
// column (the byte of the field, counted from 1), worked out by hand.
func TestMalformed(t *testing.T) {
	const head = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
	for _, c := range []struct{ in, want string }{
		{"", "pods.csv: empty: no header line"},
		{"name,cpu_milli\n", "pods.csv:1: no column memory_mib in the header (it has name,cpu_milli)"},
		{head + "p,100,1,1,1000\np2,abc,1,0,0\n", `pods.csv:3:4: column cpu_milli "abc": want an integer from 0 to 9007199254740992`},
		{head + "p,100,1,1,1001\n", `pods.csv:2:11: column gpu_milli "1001": want an integer from 0 to 1000`},
		{head + "p,100,1,2,500\n", `pods.csv:2:11: column gpu_milli "500": a share of a GPU (gpu_milli below 1000) is for one GPU, not 2`},
		{head + "p,100,1,1,0\n", `pods.csv:2:11: column gpu_milli "0": a pod that needs GPUs needs gpu_milli from 1 to 1000`},
		{head + "p,100,1,0,5\n", `pods.csv:2:11: column gpu_milli "5": a pod without GPUs has gpu_milli 0`},
		{head + "p,100,-1,0,0\n", `pods.csv:2:7: column memory_mib "-1": want an integer from 0 to 9007199254740992`},
		{head + "p,100,1\n", "pods.csv:2: 3 fields, too few for column num_gpu"},
		{head + ",100,1,0,0\n", `pods.csv:2:1: column name "": a pod needs a name`},
		{"name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\np,1,1,0,0,50,40\n", `pods.csv:2:14: column deletion_time "40": the pod leaves before it arrives`},
		{"name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\np,1,1,0,0,soon\n", `pods.csv:2:11: column creation_time "soon": want seconds from 0 to 1e9`},
	} {
		_, err := ReadPods(strings.NewReader(c.in), "pods.csv")
		if !errors.Is(err, ErrMalformed) || err.Error() != "trace: malformed: "+c.want {
			t.Errorf("%q:\n got %v\nwant trace: malformed: %s", c.in, err, c.want)
		}
	}
	// encoding/csv's own errors keep its wording, after the file's name.
	if _, err := ReadPods(strings.NewReader(head+"p,\"1\n"), "pods.csv"); !errors.Is(err, ErrMalformed) ||
		!strings.HasPrefix(err.Error(), "trace: malformed: pods.csv: parse error on line 2") {
		t.Errorf("an open quote: %v", err)
	}
	const nhead = "sn,cpu_milli,memory_mib,gpu,model\n"
	for _, c := range []struct{ in, want string }{
		{nhead + "n1,1,1,2,\n", `nodes.csv:2:10: column model "": a node with GPUs needs their model`},
		{nhead + "n1,1,1,0,\nn1,1,1,0,\n", `nodes.csv:3:1: column sn "n1": node "n1" is listed twice`},
		{"name,cpu_milli,memory_mib,gpu\n", "nodes.csv:1: no column model in the header (it has name,cpu_milli,memory_mib,gpu)"},
	} {
		_, err := ReadNodes(strings.NewReader(c.in), "nodes.csv")
		if !errors.Is(err, ErrMalformed) || err.Error() != "trace: malformed: "+c.want {
			t.Errorf("%q:\n got %v\nwant trace: malformed: %s", c.in, err, c.want)
		}
	}
}

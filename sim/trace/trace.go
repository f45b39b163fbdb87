package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrMalformed is wrapped by every error about a trace's content.
var ErrMalformed = errors.New("trace: malformed")

// MilliGPU is one whole GPU in the unit of gpu_milli.
const MilliGPU = 1000

// NodeRecord is one row of a node list: a node of the traced cluster.
type NodeRecord struct {
	// Name is the node's name (column sn).
	Name string
	// MilliCPU and MemoryMiB are its CPU, in millicores, and memory.
	MilliCPU, MemoryMiB int64
	// GPUs is its number of GPUs; Model their model ("" for a CPU node).
	GPUs  int
	Model string
}

// PodRecord is one row of a pod list: a pod of the trace, with its
// requests and times.
type PodRecord struct {
	// Name is the pod's name.
	Name string
	// MilliCPU and MemoryMiB are its requests.
	MilliCPU, MemoryMiB int64
	// GPUs is the number of GPUs it needs, and GPUMilli the thousandths of
	// each of them: MilliGPU for whole GPUs, less for a share of one.
	GPUs     int
	GPUMilli int64
	// Models are the GPU models it may run on; none means any.
	Models []string
	// QoS and Phase are the trace's qos and pod_phase, as they are.
	QoS, Phase string
	// Created is when it arrives, from the trace's start; Deleted when it
	// leaves (HasDeleted false: never, or the trace does not say);
	// Scheduled when the trace's cluster bound it (HasScheduled).
	Created, Deleted, Scheduled time.Duration
	HasDeleted, HasScheduled    bool
}

// TotalGPUMilli is the pod's GPU request in thousandths of a GPU:
// GPUs × GPUMilli.
func (p PodRecord) TotalGPUMilli() int64 { return int64(p.GPUs) * p.GPUMilli }

// ReadNodesFile reads a node list from the file at path.
func ReadNodesFile(path string) ([]NodeRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	return ReadNodes(f, path)
}

// ReadPodsFile reads a pod list from the file at path.
func ReadPodsFile(path string) ([]PodRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	return ReadPods(f, path)
}

// ReadNodes reads a node list; name names the input in errors. Every node
// needs a name not seen before, and a node with GPUs a model.
func ReadNodes(r io.Reader, name string) ([]NodeRecord, error) {
	t, err := open(r, name, []string{"sn|name", "cpu_milli", "memory_mib", "gpu", "model"}, nil)
	if err != nil {
		return nil, err
	}
	var out []NodeRecord
	seen := map[string]bool{}
	for t.next() {
		n := NodeRecord{Name: t.text(0), MilliCPU: t.int(1), MemoryMiB: t.int(2), GPUs: int(t.intMax(3, 1<<16)), Model: t.text(4)}
		if t.err == nil {
			switch {
			case n.Name == "":
				t.fail(0, "a node needs a name")
			case seen[n.Name]:
				t.fail(0, "node "+strconv.Quote(n.Name)+" is listed twice")
			case n.GPUs > 0 && n.Model == "":
				t.fail(4, "a node with GPUs needs their model")
			}
		}
		if t.err != nil {
			return nil, t.err
		}
		seen[n.Name] = true
		out = append(out, n)
	}
	return out, t.err
}

// ReadPods reads a pod list; name names the input in errors. A pod
// needing GPUs needs gpu_milli in 1..1000, a share of a GPU (below 1000)
// only one GPU, and one without GPUs gpu_milli 0; a deletion comes no
// earlier than the creation.
func ReadPods(r io.Reader, name string) ([]PodRecord, error) {
	t, err := open(r, name, []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"},
		[]string{"gpu_spec", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"})
	if err != nil {
		return nil, err
	}
	var out []PodRecord
	for t.next() {
		p := PodRecord{Name: t.text(0), MilliCPU: t.int(1), MemoryMiB: t.int(2), GPUs: int(t.intMax(3, 1<<16)), GPUMilli: t.intMax(4, MilliGPU),
			QoS: t.text(6), Phase: t.text(7)}
		for _, m := range strings.Split(t.text(5), "|") {
			if m != "" {
				p.Models = append(p.Models, m)
			}
		}
		p.Created, _ = t.seconds(8)
		p.Deleted, p.HasDeleted = t.seconds(9)
		p.Scheduled, p.HasScheduled = t.seconds(10)
		if t.err == nil {
			switch {
			case p.Name == "":
				t.fail(0, "a pod needs a name")
			case p.GPUs > 0 && p.GPUMilli == 0:
				t.fail(4, "a pod that needs GPUs needs gpu_milli from 1 to 1000")
			case p.GPUs == 0 && p.GPUMilli != 0:
				t.fail(4, "a pod without GPUs has gpu_milli 0")
			case p.GPUs > 1 && p.GPUMilli < MilliGPU:
				t.fail(4, "a share of a GPU (gpu_milli below 1000) is for one GPU, not "+strconv.Itoa(p.GPUs))
			case p.HasDeleted && p.Deleted < p.Created:
				t.fail(9, "the pod leaves before it arrives")
			}
		}
		if t.err != nil {
			return nil, t.err
		}
		out = append(out, p)
	}
	return out, t.err
}

// table walks the rows of a CSV input, its columns found by name.
type table struct {
	name string
	r    *csv.Reader
	cols []int // the input's column of each wanted one, -1 when absent
	want []string
	row  []string
	err  error
}

func open(r io.Reader, name string, required, optional []string) (*table, error) {
	t := &table{name: name, r: csv.NewReader(r)}
	t.r.FieldsPerRecord = -1
	t.r.ReuseRecord = true
	head, err := t.r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: %s: empty: no header line", ErrMalformed, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMalformed, name, err)
	}
	at := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := at[h]; !dup {
			at[h] = i
		}
	}
	for _, w := range required {
		col := -1
		for _, alt := range strings.Split(w, "|") {
			if i, ok := at[alt]; ok {
				col = i
				break
			}
		}
		if col < 0 {
			return nil, fmt.Errorf("%w: %s:1: no column %s in the header (it has %s)", ErrMalformed, name, strings.ReplaceAll(w, "|", " or "), strings.Join(head, ","))
		}
		t.cols = append(t.cols, col)
		t.want = append(t.want, strings.Split(w, "|")[0])
	}
	for _, w := range optional {
		col := -1
		if i, ok := at[w]; ok {
			col = i
		}
		t.cols = append(t.cols, col)
		t.want = append(t.want, w)
	}
	return t, nil
}

// next reads the next row; false at the end or on an error (t.err).
func (t *table) next() bool {
	if t.err != nil {
		return false
	}
	row, err := t.r.Read()
	if err == io.EOF {
		return false
	}
	if err != nil {
		t.err = fmt.Errorf("%w: %s: %w", ErrMalformed, t.name, err)
		return false
	}
	t.row = row
	for i, c := range t.cols {
		if c >= len(row) {
			line, _ := t.r.FieldPos(0)
			t.err = fmt.Errorf("%w: %s:%d: %d fields, too few for column %s", ErrMalformed, t.name, line, len(row), t.want[i])
			return false
		}
	}
	return true
}

// fail records a problem with wanted column i of the current row.
func (t *table) fail(i int, why string) {
	if t.err != nil {
		return
	}
	c := t.cols[i]
	if c < 0 {
		c = 0
	}
	line, col := t.r.FieldPos(c)
	t.err = fmt.Errorf("%w: %s:%d:%d: column %s %q: %s", ErrMalformed, t.name, line, col, t.want[i], t.row[c], why)
}

func (t *table) text(i int) string {
	if t.cols[i] < 0 {
		return ""
	}
	return strings.TrimSpace(t.row[t.cols[i]])
}

// int reads wanted column i as a non-negative integer.
func (t *table) int(i int) int64 {
	return t.intMax(i, 1<<53)
}

func (t *table) intMax(i int, limit int64) int64 {
	v, err := strconv.ParseInt(t.text(i), 10, 64)
	if err != nil || v < 0 || v > limit {
		t.fail(i, fmt.Sprintf("want an integer from 0 to %d", limit))
		return 0
	}
	return v
}

// seconds reads optional column i as seconds (a number, possibly with a
// fraction); false when the column is absent or empty.
func (t *table) seconds(i int) (time.Duration, bool) {
	s := t.text(i)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1e9 || v != v {
		t.fail(i, "want seconds from 0 to 1e9")
		return 0, false
	}
	return time.Duration(v * float64(time.Second)), true
}

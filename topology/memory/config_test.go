package memory_test

import (
	"strings"
	"testing"

	"github.com/nodelife/nodelife/topology/memory"
)

// TestConfigValidateAll: Config.Validate names every problem at once.
func TestConfigValidateAll(t *testing.T) {
	err := memory.Config{Nodes: []memory.NUMANode{{ID: 64}, {ID: 1}, {ID: 1}}, Reserved: map[int]map[string]uint64{1: {"hugepages-2Mi": 1 << 21}}}.Validate()
	for _, want := range []string{"you should specify the system reserved memory", "NUMA node 64 is outside 0-63", "NUMA node 1 is listed twice"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %q", err, want)
		}
	}
	if err := (memory.Config{Nodes: []memory.NUMANode{{ID: 0}}, Reserved: map[int]map[string]uint64{0: {"memory": 1}}}).Validate(); err != nil {
		t.Fatal(err)
	}
}

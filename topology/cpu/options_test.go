package cpu_test

import (
	"strings"
	"testing"

	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// TestExactFreeCores pins kubernetes#140495 on a hybrid machine: P-core 0
// has threads 0 and 1, E-cores 2 and 3 one thread each, so NumCPUs/NumCores
// is 1. With CPU 0 held, v1.36.3 counts core 0 as free (one free CPU, as
// many as "CPUs per core") and takes it whole for a request of 2, handing
// out CPU 0; with the fix (#140498) core 0 is not free and the two E-cores
// are taken.
func TestExactFreeCores(t *testing.T) {
	m := mustMachine(t, cpu.Topology{NumCPUs: 4, NumCores: 3, NumSockets: 1, NumNUMANodes: 1, CPUs: map[int]cpu.CPUInfo{
		0: {CoreID: 0}, 1: {CoreID: 0}, 2: {CoreID: 2}, 3: {CoreID: 3}}})
	free := mustSet(t, "1-3")
	got, err := m.TakePacked(free, 2, cpu.TakeOptions{})
	if err != nil || got.String() != "0-1" {
		t.Fatalf("v1.36.3: got %s %v, want 0-1 (upstream's bug)", got, err)
	}
	got, err = m.TakePacked(free, 2, cpu.TakeOptions{ExactFreeCores: true})
	if err != nil || got.String() != "2-3" {
		t.Fatalf("ExactFreeCores: got %s %v, want 2-3", got, err)
	}
}

// TestNewStaticRefuses: what upstream's NewStaticPolicy refuses, each error
// naming the value.
func TestNewStaticRefuses(t *testing.T) {
	topos := upstreamTopologies(t)
	dual := mustMachine(t, topos["topoDualSocketHT"])
	quad := mustMachine(t, topos["topoDualSocketMultiNumaPerSocketHT"])
	for _, tc := range []struct {
		name string
		cfg  cpu.Config
		want string
	}{
		{"no machine", cpu.Config{}, "Config.Machine is nil"},
		{"incompatible options", cpu.Config{Machine: dual, Options: cpu.Options{FullPCPUsOnly: true, DistributeCPUsAcrossCores: true}}, "full-pcpus-only and distribute-cpus-across-cores"},
		{"align-by-socket under single-numa-node", cpu.Config{Machine: quad, Options: cpu.Options{AlignBySocket: true}, TopologyPolicy: topology.PolicySingleNUMANode}, "incompatible with CPU manager policy option align-by-socket"},
		{"reserved list of the wrong size", cpu.Config{Machine: dual, NumReserved: 1, Reserved: mustSet(t, "0,6")}, `size of "0,6" did not equal 1`},
		{"more reserved than CPUs", cpu.Config{Machine: dual, NumReserved: 13}, `size of "" did not equal 13`},
		{"negative reservation", cpu.Config{Machine: dual, NumReserved: -1}, "NumReserved -1 is negative"},
		{"reserved CPU not on the machine", cpu.Config{Machine: dual, NumReserved: 1, Reserved: mustSet(t, "40")}, "reserved CPU 40 is not a CPU of the machine"},
	} {
		_, err := cpu.NewStatic(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// align-by-socket with more sockets than NUMA nodes: a hand-made
	// machine of two sockets on one NUMA node.
	m := mustMachine(t, cpu.Topology{NumCPUs: 2, NumCores: 2, NumSockets: 2, NumNUMANodes: 1, CPUs: map[int]cpu.CPUInfo{0: {CoreID: 0}, 1: {CoreID: 1, SocketID: 1}}})
	if _, err := cpu.NewStatic(cpu.Config{Machine: m, Options: cpu.Options{AlignBySocket: true}}); err == nil || !strings.Contains(err.Error(), "number of sockets (2) is more than number of NUMA nodes (1)") {
		t.Errorf("align-by-socket with 2 sockets on 1 NUMA node: %v", err)
	}
}

// TestStartRefuses: upstream's validateState, each error naming the sets.
func TestStartRefuses(t *testing.T) {
	m := mustMachine(t, upstreamTopologies(t)["topoDualSocketHT"])
	for _, tc := range []struct {
		name   string
		strict bool
		def    string
		held   string
		want   string
	}{
		{"empty pool with assignments", false, "", "1", "default cpuset cannot be empty"},
		{"reserved CPU missing from the pool", false, "1-11", "", `not all reserved cpus: "0" are present in defaultCpuSet: "1-11"`},
		{"strict, reserved CPU in the pool", true, "0-11", "", `some of strictly reserved cpus: "0" are present in defaultCpuSet: "0-11"`},
		{"assignment overlapping the pool", false, "0-11", "3", `pod: p, container: c cpuset: "3" overlaps with default cpuset "0-11"`},
		{"a CPU missing", false, "0-10", "", `current set of available CPUs "0-11" doesn't match with CPUs in state "0-10"`},
	} {
		p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: 1, Options: cpu.Options{StrictCPUReservation: tc.strict}})
		if err != nil {
			t.Fatal(err)
		}
		st := checkpointState(t, tc.def, tc.held)
		if err := p.Start(st); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func checkpointState(t *testing.T, def, held string) checkpoint.CPUState {
	st := checkpoint.CPUState{DefaultCPUSet: mustSet(t, def)}
	if held != "" {
		st.Entries = map[string]map[string]cpuset.CPUSet{"p": {"c": mustSet(t, held)}}
	}
	return st
}

// TestKeepBestCombination: 97 CPUs distributed over upstream's empty
// 256-CPU, 8-NUMA test machine (NUMA node n holds CPUs 16n-16n+15 and
// their siblings 128+16n-128+16n+15). Four nodes are needed (32 CPUs each);
// every 4-node combination balances equally (24 CPUs each, the 97th on
// the first node), so the first, nodes 0-3, is kept. Upstream's kept slice
// is overwritten by the later combinations with the same first three
// nodes, the last of which is 0, 1, 2, 7: v1.36.3 takes node 7's cores
// (112-123, 240-251) instead of node 3's (48-59, 176-187). Each node gives
// its 12 lowest whole cores, node 0 one more thread (12).
func TestKeepBestCombination(t *testing.T) {
	m := mustMachine(t, upstreamTopologies(t)["topoDualSocketMultiNumaPerSocketHTLarge"])
	got, err := m.TakeDistributed(m.CPUs(), 97, 1, cpu.TakeOptions{})
	if want := "0-12,16-27,32-43,112-123,128-139,144-155,160-171,240-251"; err != nil || got.String() != want {
		t.Fatalf("v1.36.3: got %s %v, want %s", got, err, want)
	}
	got, err = m.TakeDistributed(m.CPUs(), 97, 1, cpu.TakeOptions{KeepBestCombination: true})
	if want := "0-12,16-27,32-43,48-59,128-139,144-155,160-171,176-187"; err != nil || got.String() != want {
		t.Fatalf("KeepBestCombination: got %s %v, want %s", got, err, want)
	}
}

// TestConfigValidateAll: Config.Validate names every problem at once.
func TestConfigValidateAll(t *testing.T) {
	err := cpu.Config{NumReserved: -2, Options: cpu.Options{FullPCPUsOnly: true, DistributeCPUsAcrossCores: true, AlignBySocket: true},
		TopologyPolicy: topology.PolicySingleNUMANode}.Validate()
	for _, want := range []string{"Config.Machine is nil", "Config.NumReserved -2 is negative",
		"full-pcpus-only and distribute-cpus-across-cores", "single-numa-node is incompatible with CPU manager policy option align-by-socket"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %q", err, want)
		}
	}
}

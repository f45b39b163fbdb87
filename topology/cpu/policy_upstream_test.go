package cpu_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// makePod is upstream's test pod: one container asking request CPUs with
// limit, and 1G of memory.
func makePod(uid, container, request, limit string) core.Pod {
	return core.Pod{UID: uid, Containers: []core.Container{{Name: container, Resources: core.ResourceRequirements{
		Requests: core.ResourceList{core.ResourceCPU: resource.MustParse(request), core.ResourceMemory: resource.MustParse("1G")},
		Limits:   core.ResourceList{core.ResourceCPU: resource.MustParse(limit), core.ResourceMemory: resource.MustParse("1G")},
	}}}}
}

// TestUpstreamStaticPolicyAdd runs upstream's TestStaticPolicyAdd table
// (policy_static_test.go; testdata/upstream_static_add.txt): a state set by
// hand, one allocation, the container's CPUs or the error as upstream
// states them. The options-insensitive rows run without options and with
// full-pcpus-only, as upstream runs them.
func TestUpstreamStaticPolicyAdd(t *testing.T) {
	topos := upstreamTopologies(t)
	f, err := os.Open("testdata/upstream_static_add.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, " | ")
		if len(fs) != 16 {
			t.Fatalf("bad row %q", line)
		}
		rows++
		group, desc := fs[0], fs[1]
		optionSets := []string{fs[5]}
		if group == "optionsInsensitive" {
			optionSets = []string{"-", "full-pcpus-only=true"}
		}
		for _, optText := range optionSets {
			t.Run(group+"/"+desc+"/"+optText, func(t *testing.T) {
				runStaticAddRow(t, topos[fs[2]], fs, optText)
			})
		}
	}
	if rows != 25 {
		t.Fatalf("%d rows, want 25", rows)
	}
}

func runStaticAddRow(t *testing.T, topo cpu.Topology, fs []string, optText string) {
	numReserved, _ := strconv.Atoi(fs[3])
	var reserved cpuset.CPUSet
	if fs[4] != "-" {
		reserved = mustSet(t, fs[4])
	}
	options := map[string]string{}
	if optText != "-" {
		for _, kv := range strings.Split(optText, ",") {
			k, v, _ := strings.Cut(kv, "=")
			options[k] = v
		}
	}
	opts, err := cpu.ParseOptions(options, cpu.OptionGates{AlphaOptions: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := cpu.NewStatic(cpu.Config{Machine: mustMachine(t, topo), NumReserved: numReserved, Reserved: reserved, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	st := checkpoint.CPUState{DefaultCPUSet: mustSet(t, fs[7]), Entries: map[string]map[string]cpuset.CPUSet{}}
	if fs[6] != "-" {
		for _, a := range strings.Split(fs[6], ";") {
			ref, set, _ := strings.Cut(a, "=")
			pod, name, _ := strings.Cut(ref, "/")
			if st.Entries[pod] == nil {
				st.Entries[pod] = map[string]cpuset.CPUSet{}
			}
			st.Entries[pod][name] = mustSet(t, set)
		}
	}
	p.Adopt(st)
	pod := makePod(fs[8], fs[9], fs[10], fs[11])
	hint := topology.Hint{Any: true}
	if fs[12] != "-" {
		nodes, pref, _ := strings.Cut(fs[12], "/")
		var ids []int
		for _, n := range strings.Split(nodes, ",") {
			id, _ := strconv.Atoi(n)
			ids = append(ids, id)
		}
		mask, err := topology.NewBitMask(ids...)
		if err != nil {
			t.Fatal(err)
		}
		hint = topology.Hint{Affinity: mask, Preferred: pref == "t"}
	}
	got, err := p.Allocate(pod, fs[9], hint)
	wantErr := fs[13]
	switch {
	case wantErr == "-" && err != nil:
		t.Fatalf("unexpected error %v", err)
	case strings.HasPrefix(wantErr, "SMT "):
		var smt cpu.SMTAlignmentError
		if !errors.As(err, &smt) {
			t.Fatalf("error %v, want %s", err, wantErr)
		}
		if s := "SMT requested=" + strconv.Itoa(smt.RequestedCPUs) + " perCore=" + strconv.Itoa(smt.CPUsPerCore) +
			" available=" + strconv.Itoa(smt.AvailablePhysicalCPUs) + " physical=" + strconv.FormatBool(smt.CausedByPhysicalCPUs); s != wantErr {
			t.Fatalf("error %s, want %s", s, wantErr)
		}
	case wantErr != "-" && (err == nil || err.Error() != wantErr):
		t.Fatalf("error %v, want %q", err, wantErr)
	}
	cs, found := p.Assigned(fs[8], fs[9])
	if fs[14] == "true" {
		if !found {
			t.Fatalf("container has no CPUs in %v", p.State().Entries)
		}
		if want := mustSet(t, fs[15]); !cs.Equals(want) || !got.Equals(want) {
			t.Fatalf("CPUs %s (returned %s), want %s", cs, got, want)
		}
		if !cs.Intersection(p.Shared()).IsEmpty() {
			t.Fatalf("CPUs %s are still in the shared pool %s", cs, p.Shared())
		}
	} else if found {
		t.Fatalf("container got CPUs %s", cs)
	}
}

// TestUpstreamStaticPolicyStartRemove runs upstream's TestStaticPolicyStart
// and TestStaticPolicyRemove tables (policy_static_test.go;
// testdata/upstream_static_start_remove.json): Start on a state, its error
// or the shared pool it leaves; RemoveContainer on a state set by hand and
// the shared pool after it.
func TestUpstreamStaticPolicyStartRemove(t *testing.T) {
	data, err := os.ReadFile("testdata/upstream_static_start_remove.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Test, Description, Topology, Default, Expected, Error, PodUID, ContainerName string
			NumReserved                                                                  int
			Options                                                                      map[string]string
			Assignments                                                                  map[string]map[string]string
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) != 12 {
		t.Fatalf("%d rows, want 12", len(file.Cases))
	}
	topos := upstreamTopologies(t)
	for _, tc := range file.Cases {
		t.Run(tc.Test+"/"+tc.Description, func(t *testing.T) {
			opts, err := cpu.ParseOptions(tc.Options, cpu.OptionGates{AlphaOptions: true})
			if err != nil {
				t.Fatal(err)
			}
			m := mustMachine(t, topos[tc.Topology])
			p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: tc.NumReserved, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			st := checkpoint.CPUState{DefaultCPUSet: mustSet(t, tc.Default), Entries: map[string]map[string]cpuset.CPUSet{}}
			for pod, cs := range tc.Assignments {
				st.Entries[pod] = map[string]cpuset.CPUSet{}
				for name, set := range cs {
					st.Entries[pod][name] = mustSet(t, set)
				}
			}
			if tc.Test == "TestStaticPolicyRemove" {
				p.Adopt(st)
				p.RemoveContainer(tc.PodUID, tc.ContainerName)
				if _, ok := p.Assigned(tc.PodUID, tc.ContainerName); ok {
					t.Fatal("the container still has CPUs")
				}
			} else {
				err := p.Start(st)
				switch {
				case tc.Error == "" && err != nil:
					t.Fatalf("unexpected error %v", err)
				case tc.Error != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.Error)):
					t.Fatalf("error %v, want %q", err, tc.Error)
				case err != nil:
					return
				}
			}
			if want := mustSet(t, tc.Expected); !p.Shared().Equals(want) {
				t.Fatalf("shared pool %s, want %s", p.Shared(), want)
			}
		})
	}
}

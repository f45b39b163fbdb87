package checkpoint_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/topology/checkpoint"
)

// memoryText prints a state as the kubelet holds it after a restore (its
// copies make nil and empty alike): policy, each node's table, entries and
// pod entries in order.
func memoryText(s checkpoint.MemoryState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy=%s", s.PolicyName)
	for id := 0; id < 64; id++ {
		n, ok := s.MachineState[id]
		if !ok {
			continue
		}
		if n == nil {
			fmt.Fprintf(&b, " node%d=nil", id)
			continue
		}
		fmt.Fprintf(&b, " node%d{n=%d cells=%v", id, n.NumberOfAssignments, n.Cells)
		for _, res := range keys(n.MemoryMap) {
			t := n.MemoryMap[res]
			fmt.Fprintf(&b, " %s=%d/%d/%d/%d/%d", res, t.TotalMemSize, t.SystemReserved, t.Allocatable, t.Reserved, t.Free)
		}
		b.WriteString("}")
	}
	for _, pod := range keys(s.Entries) {
		for _, ctr := range keys(s.Entries[pod]) {
			fmt.Fprintf(&b, " %s/%s=%v", pod, ctr, s.Entries[pod][ctr])
		}
	}
	for _, pod := range keys(s.PodEntries) {
		fmt.Fprintf(&b, " pod:%s=%v", pod, s.PodEntries[pod])
	}
	return b.String()
}

// v1.37.2's restore, after its own table (state_checkpoint_test.go): V3's
// data is authoritative (the V1 fields, damaged in several cases, are not
// read), a V3 file whose data or data checksum is wrong is refused
// without trying older formats, V2 (checksum over the older type name,
// zero not accepted) and V1 (zero accepted) are migrated.
func TestReadMemoryUpstream137(t *testing.T) {
	machine := `"machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}}`
	entries := `"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}}`
	data := `{"policyName":"static",` + machine + `,` + entries + `}`
	dataPods := `{"policyName":"static",` + machine + `,` + entries + `,"podEntries":{"pod":{"memoryBlocks":[{"numaAffinity":[0],"type":"memory","size":512}]}}}`
	outer := `{"policyName":"static",` + machine + `,` + entries + `,"checksum": 4215593881`
	v3 := func(d string, sum uint64) string {
		return outer + `,"data":` + strconv.Quote(d) + `,"dataChecksum":` + strconv.FormatUint(sum, 10) + `}`
	}
	v1 := outer + `}`
	v2 := func(sum uint64) string {
		return `{"policyName":"static",` + machine + `,` + entries + `,"podEntries":{"pod":{"memoryBlocks":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum": ` + strconv.FormatUint(sum, 10) + `}`
	}
	state := "policy=static node0{n=0 cells=[] memory=2048/512/1536/512/1024} pod/container1=[{[0] memory 512}]"
	for _, c := range []struct {
		name, policy, file string
		gate               bool
		want               string
		format             checkpoint.MemoryFormat
		sentry             error
	}{
		{name: "Fail to restore checkpoint without data section", file: outer + `,"dataChecksum": 1234}`,
			want: "could not load v3 checkpoint: unexpected end of JSON input", sentry: checkpoint.ErrCorrupt},
		{name: "Fail to restore checkpoint without dataChecksum section", file: outer + `,"data":` + strconv.Quote(data) + `}`,
			want: "could not load v3 checkpoint", sentry: checkpoint.ErrCorrupt},
		{name: "Restore valid checkpoint", file: v3(data, 1849615440), want: state, format: checkpoint.MemoryFormatV3},
		{name: "Fail to restore checkpoint with invalid dataChecksum", file: v3(data, 1234), want: "could not load v3 checkpoint", sentry: checkpoint.ErrCorrupt},
		{name: "Fail to restore checkpoint with invalid data JSON", file: v3("{", 1234), want: "could not load v3 checkpoint", sentry: checkpoint.ErrCorrupt},
		{name: "Fail to restore checkpoint with invalid JSON", file: `{`, want: "unexpected end of JSON input", sentry: checkpoint.ErrCorrupt},
		{name: "Fail to restore checkpoint with invalid policy name", policy: "None", file: v3(data, 1849615440),
			want: `configured policy "None" differs from state checkpoint policy "static"`, sentry: checkpoint.ErrMismatch},
		{name: "Restore checkpoint ignoring unknown fields in data section",
			file: v3(`{"unknownField":"value",`+data[1:], 2100279793), want: state, format: checkpoint.MemoryFormatV3},
		{name: "Restore checkpoint from v1 (migration)", file: v1, want: state, format: checkpoint.MemoryFormatV1},
		{name: "Restore checkpoint from v1 (migration) with checksum zeroed", file: `{"policyName":"static",` + machine + `,` + entries + `,"checksum": 0}`,
			want: state, format: checkpoint.MemoryFormatV1},
		{name: "Fail to restore checkpoint from v1 with invalid checksum",
			file: `{"policyName":"static",` + machine + `,"entries":{"pod":{"container1":[{"affinity":[0],"type":"memory","size":512}]}},"checksum": 101010}`,
			want: "checksum 101010 does not match", sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint from v2 with PodLevelResourceManagers enabled", file: v2(1278640530), gate: true,
			want: state + " pod:pod=[{[0] memory 512}]", format: checkpoint.MemoryFormatV2},
		{name: "Restore checkpoint from v2 with PodLevelResourceManagers disabled", file: v2(1278640530), want: state, format: checkpoint.MemoryFormatV2},
		// zero fails V2's check; V1 (zero accepted) reads it without its pod blocks
		{name: "Restore checkpoint from v2 with zeroed checksum and with PodLevelResourceManagers disabled", file: v2(0), want: state, format: checkpoint.MemoryFormatV1},
		{name: "Fail to restore checkpoint from v2 with invalid checksum", file: v2(101010), want: "checksum 101010 does not match", sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint from v3 with PodLevelResourceManagers enabled", file: v3(dataPods, 637296054), gate: true,
			want: state + " pod:pod=[{[0] memory 512}]", format: checkpoint.MemoryFormatV3},
		{name: "Restore checkpoint from v3 with PodLevelResourceManagers disabled", file: v3(dataPods, 637296054), want: state, format: checkpoint.MemoryFormatV3},
	} {
		policy := c.policy
		if policy == "" {
			policy = "static"
		}
		s, f, err := checkpoint.ReadMemory([]byte(c.file), checkpoint.MemoryReadOptions{PolicyName: policy, PodLevelResourceManagers: c.gate})
		checkRestore(t, c.name, memoryText(s), f, err, c.want, c.format, c.sentry)
	}
}

// Upstream's TestCheckpointStateRestore
// (pkg/kubelet/cm/memorymanager/state/state_checkpoint_test.go), each file
// and verdict as upstream states it, checksums included; the policy is
// "static" as there. (A missing file is the caller's.)
func TestReadMemoryUpstream(t *testing.T) {
	machine := `"machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}}`
	entries := `"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}}`
	v1 := `{"policyName":"static",` + machine + `,` + entries + `,"checksum": 4215593881}`
	v2 := `{"policyName":"static",` + machine + `,` + entries + `,"podEntries":{"pod":{"memoryBlocks":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum": 1278640530}`
	state := "policy=static node0{n=0 cells=[] memory=2048/512/1536/512/1024} pod/container1=[{[0] memory 512}]"
	for _, c := range []struct {
		name   string
		file   string
		gate   bool
		want   string
		format checkpoint.MemoryFormat
		sentry error
	}{
		{name: "Restore valid checkpoint", file: v1, want: state},
		{name: "Restore checkpoint with invalid checksum",
			file: `{"policyName":"static",` + machine + `,"entries":{"pod":{"container1":[{"affinity":[0],"type":"memory","size":512}]}},"checksum": 101010}`,
			want: "checksum 101010 does not match", sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint with invalid JSON", file: `{`, want: "unexpected end of JSON input", sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint from v1 (migration) with PodLevelResourceManagers enabled", file: v1, gate: true, want: state},
		{name: "Restore checkpoint from v1 (migration) with PodLevelResourceManagers disabled", file: v1, want: state},
		{name: "Restore checkpoint from v2 with PodLevelResourceManagers enabled", file: v2, gate: true,
			want: state + " pod:pod=[{[0] memory 512}]", format: checkpoint.MemoryFormatV2},
		{name: "Restore checkpoint from v2 with PodLevelResourceManagers disabled", file: v2,
			want: "checksum 1278640530 does not match", sentry: checkpoint.ErrCorrupt},
		{name: "Restore corrupt checkpoint with PodLevelResourceManagers enabled", gate: true,
			file: `{"policyName":"static",` + machine + `,"entries":{},"podEntries":{},"checksum": 12345}`,
			want: "checksum 12345 does not match", sentry: checkpoint.ErrCorrupt},
		// not upstream's table: another policy; a null memory table (upstream's
		// kubelet dereferences it and panics); checksum 0
		{name: "another policy", file: v1, want: `[memorymanager] configured policy "None" differs from state checkpoint policy "static"`, sentry: checkpoint.ErrMismatch},
		{name: "null memory table", file: `{"policyName":"static","machineState":{"1":{"memoryMap":{"hugepages-2Mi":null}}},"checksum":0}`,
			want: `NUMA node 1's memory table for "hugepages-2Mi" is null`, sentry: checkpoint.ErrCorrupt},
		{name: "checksum 0", file: `{"policyName":"static","machineState":{"0":null},"checksum":0}`, want: "policy=static node0=nil"},
	} {
		policy := "static"
		if c.name == "another policy" {
			policy = ""
		}
		// v1.36.3's restore (its table's zero format is V1, its default).
		if c.format == checkpoint.MemoryFormatV3 {
			c.format = checkpoint.MemoryFormatV1
		}
		s, f, err := checkpoint.ReadMemory([]byte(c.file), checkpoint.MemoryReadOptions{PolicyName: policy, PodLevelResourceManagers: c.gate, LegacyRestore: true})
		checkRestore(t, c.name, memoryText(s), f, err, c.want, c.format, c.sentry)
	}
}

// The files of upstream's restore table, written anew from their states,
// have upstream's checksums: V1 what the kubelet writes by default (the
// checksum over the legacy type name, upstream's forward-compatibility
// test), V2 with pod-level blocks.
func TestMarshalMemoryChecksums(t *testing.T) {
	s := checkpoint.MemoryState{PolicyName: "static",
		MachineState: map[int]*checkpoint.NUMANodeState{0: {MemoryMap: map[string]*checkpoint.MemoryTable{
			"memory": {TotalMemSize: 2048, SystemReserved: 512, Allocatable: 1536, Reserved: 512, Free: 1024}}}},
		Entries: map[string]map[string][]checkpoint.MemoryBlock{"pod": {"container1": {{NUMAAffinity: []int{0}, Type: "memory", Size: 512}}}}}
	got, err := checkpoint.MarshalMemory(s, checkpoint.MemoryFormatV1)
	want := `{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum":4215593881}`
	if err != nil || string(got) != want {
		t.Errorf("V1:\n got %s %v\nwant %s", got, err, want)
	}
	s.PodEntries = map[string][]checkpoint.MemoryBlock{"pod": {{NUMAAffinity: []int{0}, Type: "memory", Size: 512}}}
	got, err = checkpoint.MarshalMemory(s, checkpoint.MemoryFormatV2)
	want = `{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},"podEntries":{"pod":{"memoryBlocks":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum":1278640530}`
	if err != nil || string(got) != want {
		t.Errorf("V2:\n got %s %v\nwant %s", got, err, want)
	}
	if _, err := checkpoint.MarshalMemory(s, checkpoint.MemoryFormatV1); !errors.Is(err, checkpoint.ErrMismatch) {
		t.Errorf("V1 with pod entries: %v", err)
	}
	s.MachineState[0].MemoryMap["hugepages-1Gi"] = nil
	if _, err := checkpoint.MarshalMemory(s, checkpoint.MemoryFormatV2); !errors.Is(err, checkpoint.ErrCorrupt) {
		t.Errorf("null table: %v", err)
	}
}

// FuzzReadMemory: any bytes, either gate: no panic (upstream's kubelet
// panics on a null table); an accepted state written in its format reads
// back the same.
func FuzzReadMemory(f *testing.F) {
	for _, s := range []string{
		`{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum": 4215593881}`,
		`{"policyName":"static","machineState":{"1":{"memoryMap":{"hugepages-2Mi":null}}},"checksum":0}`,
		`{"policyName":"static","machineState":null,"entries":{"p":{"c":null}},"podEntries":{"p":{}},"checksum":0}`,
		`{`, ``, `null`, `{"machineState":{"x":{}}}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, gate bool) {
		opts := checkpoint.MemoryReadOptions{PolicyName: "static", PodLevelResourceManagers: gate}
		s, f, err := checkpoint.ReadMemory(data, opts)
		if err != nil {
			if !errors.Is(err, checkpoint.ErrCorrupt) && !errors.Is(err, checkpoint.ErrMismatch) {
				t.Fatalf("error wraps neither sentinel: %v", err)
			}
			return
		}
		out, err := checkpoint.MarshalMemory(s, f)
		if err != nil {
			if f == checkpoint.MemoryFormatV1 && len(s.PodEntries) > 0 {
				return // pod entries kept from a failed V2 attempt (see the package doc)
			}
			t.Fatalf("MarshalMemory of a state read as %v: %v", f, err)
		}
		again, f2, err := checkpoint.ReadMemory(out, opts)
		if err != nil || f2 != f || memoryText(again) != memoryText(s) {
			t.Fatalf("%s read as %v, written %s, read back %s (%v): %v", data, f, out, memoryText(again), f2, err)
		}
	})
}

// The text the checksum hashes, worked out by hand from go-spew's rules
// (types on struct fields, none on map keys and values, "<*>" for a
// pointer value, "<nil>" for nil), including its quirk: a nil pointer that
// ends a map leaves types off for the next field (here Entries, then
// Cells).
func TestMemoryHashText(t *testing.T) {
	for _, c := range []struct {
		s    checkpoint.MemoryState
		want string
	}{
		{checkpoint.MemoryState{PolicyName: "Static", MachineState: map[int]*checkpoint.NUMANodeState{0: nil}},
			"(*state.MemoryManagerCheckpoint){PolicyName:(string)Static MachineState:(state.NUMANodeMap)map[0:<nil>] Entries:map[] Checksum:(checksum.Checksum)0}"},
		{checkpoint.MemoryState{PolicyName: "Static", MachineState: map[int]*checkpoint.NUMANodeState{0: nil, 1: {}}},
			"(*state.MemoryManagerCheckpoint){PolicyName:(string)Static MachineState:(state.NUMANodeMap)map[0:<nil> 1:<*>{NumberOfAssignments:(int)0 MemoryMap:(map[v1.ResourceName]*state.MemoryTable)<nil> Cells:([]int)[]}] Entries:(state.ContainerMemoryAssignments)map[] Checksum:(checksum.Checksum)0}"},
		{checkpoint.MemoryState{PolicyName: "None", MachineState: map[int]*checkpoint.NUMANodeState{2: {NumberOfAssignments: -1, Cells: []int{2, 0},
			MemoryMap: map[string]*checkpoint.MemoryTable{"memory": {TotalMemSize: 5, Free: 1}}}},
			Entries: map[string]map[string][]checkpoint.MemoryBlock{"p": {"c": {{Type: "hugepages-2Mi", Size: 7}}}}},
			"(*state.MemoryManagerCheckpoint){PolicyName:(string)None MachineState:(state.NUMANodeMap)map[2:<*>{NumberOfAssignments:(int)-1 " +
				"MemoryMap:(map[v1.ResourceName]*state.MemoryTable)map[memory:<*>{TotalMemSize:(uint64)5 SystemReserved:(uint64)0 Allocatable:(uint64)0 Reserved:(uint64)0 Free:(uint64)1}] Cells:([]int)[2 0]}] " +
				"Entries:(state.ContainerMemoryAssignments)map[p:map[c:[{NUMAAffinity:([]int)<nil> Type:(v1.ResourceName)hugepages-2Mi Size:(uint64)7}]]] Checksum:(checksum.Checksum)0}"},
	} {
		if got := checkpoint.MemoryHashText(c.s); got != c.want {
			t.Errorf("\n got %s\nwant %s", got, c.want)
		}
	}
}

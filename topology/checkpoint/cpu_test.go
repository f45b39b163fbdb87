package checkpoint_test

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpuset"
)

func set(t *testing.T, s string) cpuset.CPUSet {
	t.Helper()
	c, err := cpuset.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stateString prints a state for comparison: policy, pool, entries and pod
// entries in name order.
func stateString(s checkpoint.CPUState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy=%s default=%s", s.PolicyName, s.DefaultCPUSet)
	for _, pod := range keys(s.Entries) {
		for _, ctr := range keys(s.Entries[pod]) {
			fmt.Fprintf(&b, " %s/%s=%s", pod, ctr, s.Entries[pod][ctr])
		}
	}
	for _, pod := range keys(s.PodEntries) {
		fmt.Fprintf(&b, " pod:%s=%s", pod, s.PodEntries[pod])
	}
	return b.String()
}

// Upstream's TestCheckpointStateRestore
// (pkg/kubelet/cm/cpumanager/state/state_checkpoint_test.go), each file and
// verdict as upstream states it; the checksums are upstream's. (Its first
// case, a missing file, is the caller's: ReadCPU reads bytes.)
func TestReadCPUUpstream(t *testing.T) {
	migration := map[string]checkpoint.ContainerRef{
		"containerID1": {PodUID: "pod", Container: "container1"},
		"containerID2": {PodUID: "pod", Container: "container2"},
	}
	v2 := `{"policyName": "none", "defaultCPUSet": "1-3",
		"entries": {"pod": {"container1": "4-6", "container2": "1-3"}}, "checksum": 3610638499}`
	v1 := `{"policyName": "none", "defaultCPUSet": "1-3",
		"entries": {"containerID1": "4-6", "containerID2": "1-3"}, "checksum": 3680390589}`
	v3 := `{"policyName": "none", "defaultCPUSet": "1-3",
		"entries": {"pod": {"container1": "4-6", "container2": "1-3"}},
		"podEntries": {"pod": {"cpuSet": "4-6"}}, "checksum": 2649431787}`
	for _, c := range []struct {
		name    string
		file    string
		gate    bool
		initial map[string]checkpoint.ContainerRef
		want    string // the state, or the error's text
		format  checkpoint.CPUFormat
		sentry  error
	}{
		{name: "Restore default cpu set", file: `{"policyName": "none", "defaultCPUSet": "4-6", "entries": {}, "checksum": 354655845}`,
			want: "policy=none default=4-6"},
		{name: "Restore valid checkpoint", file: v2, want: "policy=none default=1-3 pod/container1=4-6 pod/container2=1-3"},
		{name: "Restore checkpoint with invalid checksum", file: `{"policyName": "none", "defaultCPUSet": "4-6", "entries": {}, "checksum": 1337}`,
			want: "checksum 1337 does not match", sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint with invalid JSON", file: `{`, want: "unexpected end of JSON input", sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint with invalid policy name", file: `{"policyName": "other", "defaultCPUSet": "1-3", "entries": {}, "checksum": 1394507217}`,
			want: `configured policy "none" differs from state checkpoint policy "other"`, sentry: checkpoint.ErrMismatch},
		{name: "Restore checkpoint with unparsable default cpu set", file: `{"policyName": "none", "defaultCPUSet": "1.3", "entries": {}, "checksum": 3021697696}`,
			want: `could not parse default cpu set "1.3"`, sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint with unparsable assignment entry",
			file: `{"policyName": "none", "defaultCPUSet": "1-3", "entries": {"pod": {"container1": "4-6", "container2": "asd"}}, "checksum": 962272150}`,
			want: `could not parse cpuset "asd" for container "container2" in pod "pod"`, sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint from checkpoint with v1 checksum", file: `{"policyName": "none", "defaultCPUSet": "1-3", "checksum": 1694838852}`,
			want: "policy=none default=1-3", format: checkpoint.CPUFormatV1}, // V2's checksum fails, V1's holds
		{name: "Restore checkpoint with migration", file: v1, initial: migration,
			want: "policy=none default=1-3 pod/container1=4-6 pod/container2=1-3", format: checkpoint.CPUFormatV1},
		{name: "Restore checkpoint from v1 (migration) with PodLevelResourceManagers enabled", file: v1, initial: migration, gate: true,
			want: "policy=none default=1-3 pod/container1=4-6 pod/container2=1-3", format: checkpoint.CPUFormatV1},
		{name: "Restore checkpoint from v2 (migration) with PodLevelResourceManagers enabled", file: v2, gate: true,
			want: "policy=none default=1-3 pod/container1=4-6 pod/container2=1-3"},
		{name: "Restore checkpoint from v2 (migration) with PodLevelResourceManagers disabled", file: v2,
			want: "policy=none default=1-3 pod/container1=4-6 pod/container2=1-3"},
		{name: "Restore valid v3 checkpoint with PodLevelResourceManagers enabled", file: v3, gate: true,
			want: "policy=none default=1-3 pod/container1=4-6 pod/container2=1-3 pod:pod=4-6", format: checkpoint.CPUFormatV3},
		{name: "Restore valid v3 checkpoint with PodLevelResourceManagers disabled", file: v3,
			want: "as V2: checkpoint: corrupt: checksum 2649431787 does not match", sentry: checkpoint.ErrCorrupt},
		{name: "Restore corrupt checkpoint with PodLevelResourceManagers enabled", gate: true,
			file: `{"policyName": "none", "defaultCPUSet": "1-3", "entries": {}, "podEntries": {}, "checksum": 12345}`,
			want: "checksum 12345 does not match", sentry: checkpoint.ErrCorrupt},
		// not upstream's table: a V3 file with checksum 0 under the gate: V3's
		// check fails, V2 takes it (checksum 0), and the migration keeps
		// the pod entries the V3 attempt read (see the package doc)
		{name: "V3 with checksum 0, gate on", gate: true,
			file: `{"policyName":"none","defaultCpuSet":"1-3","podEntries":{"pod":{"cpuSet":"4-6"}},"checksum":0}`,
			want: "policy=none default=1-3 pod:pod=4-6", format: checkpoint.CPUFormatV2},
		// and with the gate off, the pod entries are not read at all
		{name: "V3 with checksum 0, gate off",
			file: `{"policyName":"none","defaultCpuSet":"1-3","podEntries":{"pod":{"cpuSet":"4-6"}},"checksum":0}`,
			want: "policy=none default=1-3", format: checkpoint.CPUFormatV2},
		// not upstream's: a V1 file with a container the runtime no longer has
		{name: "V1 with an unknown container ID", file: v1, initial: map[string]checkpoint.ContainerRef{"containerID1": {PodUID: "pod", Container: "container1"}},
			want: "containerID 'containerID2' not found in initial containers list", sentry: checkpoint.ErrMismatch},
	} {
		// v1.36.3's restore (its table's zero format is V2, its default).
		if c.format == checkpoint.CPUFormatV4 {
			c.format = checkpoint.CPUFormatV2
		}
		s, f, err := checkpoint.ReadCPU([]byte(c.file), checkpoint.CPUReadOptions{PolicyName: "none", PodLevelResourceManagers: c.gate, InitialContainers: c.initial, LegacyRestore: true})
		checkRestore(t, c.name, stateString(s), f, err, c.want, c.format, c.sentry)
	}
}

// checkRestore checks one restore's verdict: with sentry, an error
// wrapping it whose text holds want; else the state, printed as got, is
// want and was read in format.
func checkRestore[F comparable](t *testing.T, name, got string, f F, err error, want string, format F, sentry error) {
	t.Helper()
	switch {
	case sentry != nil:
		if err == nil || !errors.Is(err, sentry) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v (state %s), want an error wrapping %v with %q", name, err, got, sentry, want)
		}
	case err != nil:
		t.Errorf("%s: %v", name, err)
	case got != want || f != format:
		t.Errorf("%s: %s (%v), want %s (%v)", name, got, f, want, format)
	}
}

// v1.37.2's restore, after its own table (state_checkpoint_test.go): the
// V4 file's data is authoritative (the V2 fields, deliberately wrong in
// several cases, are not read), a bad data checksum is not retried as an
// older format, V3 and V2 files are migrated, V1 files are no longer read.
func TestReadCPUUpstream137(t *testing.T) {
	v4 := func(data string, sum uint64) string {
		return `{"policyName": "other", "defaultCPUSet": "1-9", "checksum": 1234, "data": ` + strconv.Quote(data) + `, "dataChecksum": ` + strconv.FormatUint(sum, 10) + `}`
	}
	v2 := `{"policyName": "static", "defaultCPUSet": "7-9", "entries": {"pod": {"container1": "4-6", "container2": "1-3"}}, "checksum": 1942532442}`
	v3 := `{"policyName": "static", "defaultCPUSet": "1-2", "entries": {"pod1": {"container1": "5-6", "container2": "3-4"}},
		"podEntries": {"pod2": {"cpuSet":"7-9"}}, "checksum": 766259872}`
	v1 := `{"policyName": "none", "defaultCPUSet": "1-3", "entries": {"containerID1": "4-6", "containerID2": "1-3"}, "checksum": 3680390589}`
	v136v2 := `{"policyName": "none", "defaultCPUSet": "1-3", "entries": {"pod": {"container1": "4-6", "container2": "1-3"}}, "checksum": 3610638499}`
	full := `{"policyName":"static","defaultCPUSet":"1-3","entries":{"pod":{"container1":"4-6","container2":"7-9"}},"podEntries":{"pod":{"cpuSet":"4-10"}},"baselines":{"pod":{"container1":{"baseline":"4-5"},"container2":{"baseline":"7-8"}}}}`
	for _, c := range []struct {
		name, policy, file string
		gate               bool
		want               string
		format             checkpoint.CPUFormat
		sentry             error
	}{
		{name: "Restore default CPU set", policy: "none", file: v4(`{"policyName":"none","defaultCPUSet":"4-6"}`, 657950972),
			want: "policy=none default=4-6", format: checkpoint.CPUFormatV4},
		{name: "Restore valid checkpoint", policy: "static", file: v4(`{"policyName":"static","defaultCPUSet":"7-9","entries":{"pod":{"container1":"4-6","container2":"1-3"}}}`, 1420829534),
			want: "policy=static default=7-9 pod/container1=4-6 pod/container2=1-3", format: checkpoint.CPUFormatV4},
		{name: "Fail to restore checkpoint with invalid checksum", policy: "static",
			file: `{"policyName": "static", "defaultCPUSet": "7-9", "entries": {"pod": {"container1": "4-6", "container2": "1-3"}}, "checksum": 1942532442,
				"data": "{\"policyName\":\"static\",\"defaultCPUSet\":\"7-9\",\"entries\":{\"pod\":{\"container1\":\"4-6\",\"container2\":\"1-3\"}}}", "dataChecksum": 1234}`,
			want: "could not load v4 checkpoint", sentry: checkpoint.ErrCorrupt},
		{name: "Fail to restore checkpoint with invalid JSON", policy: "none", file: `{`, want: "unexpected end of JSON input", sentry: checkpoint.ErrCorrupt},
		{name: "Fail to restore checkpoint with invalid policy name", policy: "none",
			file: v4(`{"policyName":"other","defaultCPUSet":"7-9","entries":{"pod":{"container1":"4-6","container2":"1-3"}}}`, 1432271708),
			want: `configured policy "none" differs from state checkpoint policy "other"`, sentry: checkpoint.ErrMismatch},
		{name: "Fail to restore checkpoint with unparsable default CPU set", policy: "none", file: v4(`{"policyName":"none","defaultCPUSet":"1.3"}`, 3033143655),
			want: `could not parse default cpu set "1.3"`, sentry: checkpoint.ErrCorrupt},
		{name: "Fail to restore checkpoint with unparsable assignment entry", policy: "static",
			file: v4(`{"policyName":"static","defaultCPUSet":"1-3","entries":{"pod":{"container1":"4-6","container2":"asd"}}}`, 3794806925),
			want: `could not parse cpuset "asd" for container "container2" in pod "pod"`, sentry: checkpoint.ErrCorrupt},
		{name: "Restore checkpoint ignoring unknown fields in data section", policy: "none",
			file: v4(`{"policyName":"none","defaultCPUSet":"4-6","unknownField":"value"}`, 3492408555), want: "policy=none default=4-6", format: checkpoint.CPUFormatV4},
		// upstream's "v2" fixture carries the checksum of the V3 shape (its
		// text with "PodEntries:(state.PodCPUAssignments)map[]"): V3 reads it
		{name: "Restore checkpoint from v2 (migration)", policy: "static", file: v2,
			want: "policy=static default=7-9 pod/container1=4-6 pod/container2=1-3", format: checkpoint.CPUFormatV3},
		// a V2 file as v1.36 writes it (the v1.36 table's): V3 fails, V2 reads it
		{name: "a v1.36 V2 file", policy: "none", file: v136v2, want: "policy=none default=1-3 pod/container1=4-6 pod/container2=1-3", format: checkpoint.CPUFormatV2},
		{name: "Restore checkpoint from v3 (migration) with PodLevelResourceManagers disabled", policy: "static", file: v3,
			want: "policy=static default=1-2 pod1/container1=5-6 pod1/container2=3-4", format: checkpoint.CPUFormatV3},
		{name: "Restore checkpoint from v3 (migration) with PodLevelResourceManagers enabled", policy: "static", file: v3, gate: true,
			want: "policy=static default=1-2 pod1/container1=5-6 pod1/container2=3-4 pod:pod2=7-9", format: checkpoint.CPUFormatV3},
		{name: "Restore valid v4 checkpoint with PodLevelResourceManagers disabled", policy: "static", file: v4(full, 1032795074),
			want: "policy=static default=1-3 pod/container1=4-6 pod/container2=7-9", format: checkpoint.CPUFormatV4},
		{name: "Restore valid v4 checkpoint with PodLevelResourceManagers enabled", policy: "static", file: v4(full, 1032795074), gate: true,
			want: "policy=static default=1-3 pod/container1=4-6 pod/container2=7-9 pod:pod=4-10", format: checkpoint.CPUFormatV4},
		// not upstream's table: a V1 file, which v1.37 no longer migrates
		{name: "V1 is no longer read", policy: "none", file: v1, want: "cannot unmarshal", sentry: checkpoint.ErrCorrupt},
	} {
		s, f, err := checkpoint.ReadCPU([]byte(c.file), checkpoint.CPUReadOptions{PolicyName: c.policy, PodLevelResourceManagers: c.gate})
		checkRestore(t, c.name, stateString(s), f, err, c.want, c.format, c.sentry)
	}
}

// What v1.36.3 writes is what it reads back, and the checksums are
// upstream's own: TestCheckpointStateRestore's files, written anew from
// their states, have the checksums upstream's table gives them (V2 under
// the legacy type name, as TestCPUManagerCheckpointV2_MarshalCheckpoint_
// ForwardCompatibility requires; V3 with its pod entries).
func TestMarshalCPUChecksums(t *testing.T) {
	pod := map[string]map[string]cpuset.CPUSet{"pod": {"container1": set(t, "4-6"), "container2": set(t, "1-3")}}
	for _, c := range []struct {
		state  checkpoint.CPUState
		format checkpoint.CPUFormat
		want   string
	}{
		{checkpoint.CPUState{PolicyName: "none", DefaultCPUSet: set(t, "4-6")}, checkpoint.CPUFormatV2,
			`{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`},
		{checkpoint.CPUState{PolicyName: "none", DefaultCPUSet: set(t, "1-3"), Entries: pod}, checkpoint.CPUFormatV2,
			`{"policyName":"none","defaultCpuSet":"1-3","entries":{"pod":{"container1":"4-6","container2":"1-3"}},"checksum":3610638499}`},
		{checkpoint.CPUState{PolicyName: "other", DefaultCPUSet: set(t, "1-3")}, checkpoint.CPUFormatV2,
			`{"policyName":"other","defaultCpuSet":"1-3","checksum":1394507217}`},
		{checkpoint.CPUState{PolicyName: "none", DefaultCPUSet: set(t, "1-3"), Entries: pod, PodEntries: map[string]cpuset.CPUSet{"pod": set(t, "4-6")}}, checkpoint.CPUFormatV3,
			`{"policyName":"none","defaultCpuSet":"1-3","entries":{"pod":{"container1":"4-6","container2":"1-3"}},"podEntries":{"pod":{"cpuSet":"4-6"}},"checksum":2649431787}`},
	} {
		got, err := checkpoint.MarshalCPU(c.state, c.format)
		if err != nil || string(got) != c.want {
			t.Errorf("MarshalCPU(%s, %v) = %s, %v\nwant %s", stateString(c.state), c.format, got, err, c.want)
		}
	}
	v1, err := checkpoint.MarshalCPUV1("none", set(t, "1-3"), map[string]cpuset.CPUSet{"containerID1": set(t, "4-6"), "containerID2": set(t, "1-3")})
	if want := `{"policyName":"none","defaultCpuSet":"1-3","entries":{"containerID1":"4-6","containerID2":"1-3"},"checksum":3680390589}`; err != nil || string(v1) != want {
		t.Errorf("MarshalCPUV1 = %s, %v\nwant %s", v1, err, want)
	}
	if _, err := checkpoint.MarshalCPU(checkpoint.CPUState{PodEntries: map[string]cpuset.CPUSet{"p": set(t, "1")}}, checkpoint.CPUFormatV2); !errors.Is(err, checkpoint.ErrMismatch) {
		t.Errorf("V2 with pod entries: %v", err)
	}
	if _, err := checkpoint.MarshalCPU(checkpoint.CPUState{}, checkpoint.CPUFormatV1); !errors.Is(err, checkpoint.ErrMismatch) {
		t.Errorf("MarshalCPU V1: %v", err)
	}
}

// FuzzReadCPU: any bytes, either gate: no panic; an accepted file's state
// written in its format (V1 read as V2; V3 when a V2 read kept pod-level
// entries, the documented quirk) reads back the same.
func FuzzReadCPU(f *testing.F) {
	for _, s := range []string{
		`{"policyName": "none", "defaultCPUSet": "4-6", "entries": {}, "checksum": 354655845}`,
		`{"policyName":"none","defaultCpuSet":"1-3","entries":{"pod":{"container1":"4-6","container2":"1-3"}},"podEntries":{"pod":{"cpuSet":"4-6"}},"checksum":2649431787}`,
		`{"policyName":"none","defaultCpuSet":"1-3","entries":{"containerID1":"4-6"},"checksum":0}`,
		`{"policyName":"none","entries":null,"checksum":0}`,
		`{`, ``, `null`, `[]`, `{"checksum":-1}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, gate bool) {
		opts := checkpoint.CPUReadOptions{PolicyName: "none", PodLevelResourceManagers: gate,
			InitialContainers: map[string]checkpoint.ContainerRef{"containerID1": {PodUID: "pod", Container: "c"}}}
		s, f, err := checkpoint.ReadCPU(data, opts)
		if err != nil {
			if !errors.Is(err, checkpoint.ErrCorrupt) && !errors.Is(err, checkpoint.ErrMismatch) {
				t.Fatalf("error wraps neither sentinel: %v", err)
			}
			return
		}
		if f == checkpoint.CPUFormatV1 {
			f = checkpoint.CPUFormatV2
		}
		if f == checkpoint.CPUFormatV2 && len(s.PodEntries) > 0 {
			// The documented quirk: under the gate a V2 (or V1) read keeps the
			// pod-level entries the failed V3 attempt filled in; only V3
			// holds them.
			f = checkpoint.CPUFormatV3
		}
		out, err := checkpoint.MarshalCPU(s, f)
		if err != nil {
			t.Fatalf("MarshalCPU of a state read as %v: %v", f, err)
		}
		again, f2, err := checkpoint.ReadCPU(out, opts)
		if err != nil || f2 != f || stateString(again) != stateString(s) {
			t.Fatalf("%s read as %v, written %s, read back %s (%v): %v", data, f, out, stateString(again), f2, err)
		}
	})
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

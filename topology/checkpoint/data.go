package checkpoint

import (
	"encoding/json"
	"fmt"
)

// The formats of v1.37, which every kubelet of that release writes: the
// previous format's fields, kept for a kubelet rolled back, plus "data",
// the state as a JSON string, and "dataChecksum", the checksum of that
// string (the authoritative one). The CPU Manager's is V4, the Memory
// Manager's V3.

type (
	// cpuV4 is the outer file: V2's fields, then data.
	cpuV4 struct {
		PolicyName    string                       `json:"policyName"`
		DefaultCPUSet string                       `json:"defaultCpuSet"`
		Entries       map[string]map[string]string `json:"entries,omitempty"`
		Checksum      uint64                       `json:"checksum"`
		Data          string                       `json:"data"`
		DataChecksum  uint64                       `json:"dataChecksum"`
	}
	// cpuData is what data holds (upstream's CPUManagerCheckpointData).
	cpuData struct {
		PolicyName    string                                  `json:"policyName"`
		DefaultCPUSet string                                  `json:"defaultCpuSet"`
		Entries       map[string]map[string]string            `json:"entries,omitempty"`
		PodEntries    map[string]podEntry                     `json:"podEntries,omitempty"`
		Baselines     map[string]map[string]containerBaseline `json:"baselines,omitempty"`
	}
	// containerBaseline is a container's CPUs at admission, kept under the
	// alpha InPlacePodVerticalScalingExclusiveCPUs gate; read and dropped.
	containerBaseline struct {
		Baseline string `json:"baseline"`
	}

	// memV3 is the outer memory file: V1's fields, then data.
	memV3 struct {
		PolicyName   string                              `json:"policyName"`
		MachineState map[int]*NUMANodeState              `json:"machineState"`
		Entries      map[string]map[string][]MemoryBlock `json:"entries,omitempty"`
		Checksum     uint64                              `json:"checksum"`
		Data         string                              `json:"data"`
		DataChecksum uint64                              `json:"dataChecksum"`
	}
	// memData is what its data holds.
	memData struct {
		PolicyName   string                              `json:"policyName"`
		MachineState map[int]*NUMANodeState              `json:"machineState"`
		Entries      map[string]map[string][]MemoryBlock `json:"entries,omitempty"`
		PodEntries   map[string]memPodEntry              `json:"podEntries,omitempty"`
	}
)

// stringSum is the kubelet's checksum of a string (checksum.New over the
// data string): the FNV-32a hash of "(string)" and the string.
func stringSum(s string) uint64 {
	h := hashText{sum: fnvOffset}
	h.str("(string)")
	h.str(s)
	return uint64(h.sum)
}

// marshalCPUV4 writes s as a V4 file.
func marshalCPUV4(s CPUState) ([]byte, error) {
	d := cpuData{PolicyName: s.PolicyName, DefaultCPUSet: s.DefaultCPUSet.String(), Entries: entryStrings(s)}
	if len(s.PodEntries) > 0 {
		d.PodEntries = make(map[string]podEntry, len(s.PodEntries))
		for pod, cpus := range s.PodEntries {
			d.PodEntries[pod] = podEntry{cpus: cpus}
		}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	c := &cpuV4{PolicyName: d.PolicyName, DefaultCPUSet: d.DefaultCPUSet, Entries: d.Entries, Data: string(data), DataChecksum: stringSum(string(data))}
	v2 := cpuV2{PolicyName: c.PolicyName, DefaultCPUSet: c.DefaultCPUSet, Entries: c.Entries}
	c.Checksum = checksumOf(&v2, "CPUManagerCheckpoint")
	return json.Marshal(c)
}

// loadCPUV4 is v1.37's restore: V4; when the file has no data (nor data
// checksum), V3, then V2, migrated forward. V1 is no longer read.
func loadCPUV4(data []byte, opts CPUReadOptions) (cpuV3, CPUFormat, error) {
	outer := cpuV4{Entries: map[string]map[string]string{}}
	d := cpuData{Entries: map[string]map[string]string{}, PodEntries: map[string]podEntry{}, Baselines: map[string]map[string]containerBaseline{}}
	if found, err := loadData(data, &outer, &d, &outer.Data, &outer.DataChecksum); found {
		if err != nil {
			return cpuV3{}, 0, corrupt("could not load v4 checkpoint", err)
		}
		return cpuV3{PolicyName: d.PolicyName, DefaultCPUSet: d.DefaultCPUSet, Entries: d.Entries, PodEntries: d.PodEntries}, CPUFormatV4, nil
	}
	v3 := cpuV3{Entries: map[string]map[string]string{}, PodEntries: map[string]podEntry{}}
	err3 := json.Unmarshal(data, &v3)
	if err3 == nil {
		if checksumOf(&v3, "CPUManagerCheckpointV3") == v3.Checksum {
			return migrateCPU(v3), CPUFormatV3, nil
		}
		if sum := checksumOf(&v3, "CPUManagerCheckpoint"); sum == v3.Checksum {
			return migrateCPU(v3), CPUFormatV3, nil
		} else {
			err3 = badSum(v3.Checksum, sum)
		}
	}
	v2 := cpuV2{Entries: map[string]map[string]string{}}
	err2 := json.Unmarshal(data, &v2)
	if err2 == nil {
		switch {
		case v2.Checksum == 0,
			!opts.PodLevelResourceManagers && checksumOf(&v2, "CPUManagerCheckpointV2") == v2.Checksum:
			return migrateCPU(cpuV3{PolicyName: v2.PolicyName, DefaultCPUSet: v2.DefaultCPUSet, Entries: v2.Entries}), CPUFormatV2, nil
		}
		if sum := checksumOf(&v2, "CPUManagerCheckpoint"); sum == v2.Checksum {
			return migrateCPU(cpuV3{PolicyName: v2.PolicyName, DefaultCPUSet: v2.DefaultCPUSet, Entries: v2.Entries}), CPUFormatV2, nil
		} else {
			err2 = badSum(v2.Checksum, sum)
		}
	}
	return cpuV3{}, 0, fmt.Errorf("%w (as V3: %v)", corrupt("as V2", err2), err3)
}

// loadData reads a v1.37 file: its fields into outer, which holds the data
// string and checksum at data and sum, and the data string into inner, as
// the kubelet's UnmarshalCheckpoint and VerifyChecksum do. found is false
// when the file has neither data nor a data checksum (an older format, to
// read as one); with found, err says why the file does not read.
func loadData[O, I any](file []byte, outer *O, inner *I, data *string, sum *uint64) (found bool, err error) {
	err = json.Unmarshal(file, outer)
	if err == nil {
		err = json.Unmarshal([]byte(*data), inner)
	}
	if err == nil {
		if got := stringSum(*data); got != *sum {
			err = badSum(*sum, got)
		}
	}
	return *data != "" || *sum != 0, err
}

// migrateCPU is the kubelet's migration of an older file into a fresh V4
// state: what the file has replaces the empty defaults, the rest stays
// empty (never nil).
func migrateCPU(src cpuV3) cpuV3 {
	out := cpuV3{Entries: map[string]map[string]string{}, PodEntries: map[string]podEntry{}, PolicyName: src.PolicyName, DefaultCPUSet: src.DefaultCPUSet}
	for pod, ctrs := range src.Entries {
		out.Entries[pod] = make(map[string]string, len(ctrs))
		for ctr, cpus := range ctrs {
			out.Entries[pod][ctr] = cpus
		}
	}
	for pod, e := range src.PodEntries {
		out.PodEntries[pod] = e
	}
	return out
}

// corrupt wraps err (or says what) as ErrCorrupt unless it is already.
func corrupt(what string, err error) error {
	if err == nil {
		return fmt.Errorf("%w: %s", ErrCorrupt, what)
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, what, err)
}

// marshalMemoryV3 writes the kubelet's copy of s as a V3 file.
func marshalMemoryV3(s MemoryState, machine map[int]*NUMANodeState, entries map[string]map[string][]MemoryBlock) ([]byte, error) {
	d := memData{PolicyName: s.PolicyName, MachineState: machine, Entries: entries}
	if s.PodEntries != nil {
		d.PodEntries = make(map[string]memPodEntry, len(s.PodEntries))
		for pod, bs := range s.PodEntries {
			d.PodEntries[pod] = memPodEntry{MemoryBlocks: bs}
		}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	c := &memV3{PolicyName: d.PolicyName, MachineState: machine, Entries: entries, Data: string(data), DataChecksum: stringSum(string(data))}
	v1 := memV1{PolicyName: c.PolicyName, MachineState: machine, Entries: entries}
	c.Checksum = checksumOf(&v1, "MemoryManagerCheckpoint")
	return json.Marshal(c)
}

// loadMemoryV3 is v1.37's restore: V3; when the file has no data (nor
// data checksum), V2 (its checksum over the older type name only, zero
// not accepted), then V1 (zero accepted), each migrated forward through
// the kubelet's state copies.
func loadMemoryV3(data []byte) (memV2, MemoryFormat, error) {
	outer := memV3{Entries: map[string]map[string][]MemoryBlock{}, MachineState: map[int]*NUMANodeState{}}
	d := memData{Entries: map[string]map[string][]MemoryBlock{}, PodEntries: map[string]memPodEntry{}, MachineState: map[int]*NUMANodeState{}}
	if found, err := loadData(data, &outer, &d, &outer.Data, &outer.DataChecksum); found {
		if err != nil {
			return memV2{}, 0, corrupt("could not load v3 checkpoint", err)
		}
		return memV2{PolicyName: d.PolicyName, MachineState: d.MachineState, Entries: d.Entries, PodEntries: d.PodEntries}, MemoryFormatV3, nil
	}
	v2 := memV2{Entries: map[string]map[string][]MemoryBlock{}, PodEntries: map[string]memPodEntry{}, MachineState: map[int]*NUMANodeState{}}
	err2 := json.Unmarshal(data, &v2)
	if err2 == nil {
		if sum := checksumOf(&v2, ""); sum == v2.Checksum {
			m, err := migrateMemory(v2)
			return m, MemoryFormatV2, err
		} else {
			err2 = badSum(v2.Checksum, sum)
		}
	}
	v1 := memV1{Entries: map[string]map[string][]MemoryBlock{}, MachineState: map[int]*NUMANodeState{}}
	err1 := json.Unmarshal(data, &v1)
	if err1 == nil && v1.Checksum != 0 {
		if sum := checksumOf(&v1, "MemoryManagerCheckpoint"); sum != v1.Checksum {
			err1 = badSum(v1.Checksum, sum)
		}
	}
	if err1 != nil {
		return memV2{}, 0, fmt.Errorf("%w (as V2: %v)", corrupt("as V1", err1), err2)
	}
	m, err := migrateMemory(memV2{PolicyName: v1.PolicyName, MachineState: v1.MachineState, Entries: v1.Entries})
	if err != nil {
		return memV2{}, 0, err
	}
	// Twice migrated (V1 to V2 to V3): the copies of copies are the same.
	m, err = migrateMemory(m)
	return m, MemoryFormatV1, err
}

// migrateMemory is the kubelet's migration of an older memory file: its
// state copies (Clone) of the machine state, the entries and the pod
// entries. A null memory table, which that copy dereferences, is refused.
func migrateMemory(src memV2) (memV2, error) {
	if err := checkTables(src.MachineState); err != nil {
		return memV2{}, err
	}
	machine, entries := kubeletCopy(MemoryState{MachineState: src.MachineState, Entries: src.Entries})
	out := memV2{PolicyName: src.PolicyName, MachineState: machine, Entries: entries, PodEntries: make(map[string]memPodEntry, len(src.PodEntries))}
	for pod, e := range src.PodEntries {
		out.PodEntries[pod] = memPodEntry{MemoryBlocks: append([]MemoryBlock{}, e.MemoryBlocks...)}
	}
	return out, nil
}

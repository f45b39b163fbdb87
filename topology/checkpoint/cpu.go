package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// CPUCheckpointName is the file the kubelet keeps the CPU Manager's state
// in, under its root directory (/var/lib/kubelet).
const CPUCheckpointName = "cpu_manager_state"

// Errors callers can branch on; every error of this package wraps one.
var (
	// ErrCorrupt: the file does not parse as any format, or its checksum
	// does not match its content.
	ErrCorrupt = errors.New("checkpoint: corrupt")
	// ErrMismatch: the file is sound but does not fit the configuration:
	// another policy, a container ID the caller does not know, or content
	// the format cannot hold.
	ErrMismatch = errors.New("checkpoint: does not fit the configuration")
)

// CPUFormat is a version of the cpu_manager_state format.
type CPUFormat int

// The formats; the zero value is what v1.37 writes.
const (
	// CPUFormatV4: V2's fields, kept for a kubelet rolled back, plus the
	// state (pod-level entries included) as a JSON string under "data"
	// with its own checksum: what every v1.37 kubelet writes.
	CPUFormatV4 CPUFormat = iota
	// CPUFormatV2: entries by pod UID and container name (what v1.36 and
	// earlier write by default).
	CPUFormatV2
	// CPUFormatV3: V2 plus pod-level entries (podEntries), written by
	// v1.36 with the PodLevelResourceManagers gate.
	CPUFormatV3
	// CPUFormatV1: entries by container ID, the format before v1.18.
	CPUFormatV1
)

// CPUFormatFor returns the format the kubelet of release v writes by
// default: V4 since 1.37, V2 before.
func CPUFormatFor(v release.Version) CPUFormat {
	if v.Clamp().AtLeast(release.V1_37) {
		return CPUFormatV4
	}
	return CPUFormatV2
}

func (f CPUFormat) String() string {
	switch f {
	case CPUFormatV1:
		return "V1"
	case CPUFormatV2:
		return "V2"
	case CPUFormatV3:
		return "V3"
	case CPUFormatV4:
		return "V4"
	}
	return fmt.Sprintf("CPUFormat(%d)", int(f))
}

// CPUState is the CPU Manager's state as its checkpoint holds it.
type CPUState struct {
	// PolicyName is the --cpu-manager-policy that wrote it ("none",
	// "static").
	PolicyName string
	// DefaultCPUSet is the shared pool: the CPUs no container holds
	// exclusively.
	DefaultCPUSet cpuset.CPUSet
	// Entries are the exclusive CPUs, by pod UID and container name.
	Entries map[string]map[string]cpuset.CPUSet
	// PodEntries are pod-level CPUs by pod UID: written in formats V3 and
	// V4, read (possibly empty) when the PodLevelResourceManagers gate is
	// on.
	PodEntries map[string]cpuset.CPUSet
}

// The files' shapes, as upstream's checkpoint structs (state package).
type (
	cpuV1 struct {
		PolicyName    string            `json:"policyName"`
		DefaultCPUSet string            `json:"defaultCpuSet"`
		Entries       map[string]string `json:"entries,omitempty"`
		Checksum      uint64            `json:"checksum"`
	}
	cpuV2 struct {
		PolicyName    string                       `json:"policyName"`
		DefaultCPUSet string                       `json:"defaultCpuSet"`
		Entries       map[string]map[string]string `json:"entries,omitempty"`
		Checksum      uint64                       `json:"checksum"`
	}
	cpuV3 struct {
		PolicyName    string                       `json:"policyName"`
		DefaultCPUSet string                       `json:"defaultCpuSet"`
		Entries       map[string]map[string]string `json:"entries,omitempty"`
		PodEntries    map[string]podEntry          `json:"podEntries,omitempty"`
		Checksum      uint64                       `json:"checksum"`
	}
	// podEntry is a pod-level entry: a CPU list in JSON, a set inside.
	podEntry struct{ cpus cpuset.CPUSet }
	// podEntryJSON is podEntry on the wire.
	podEntryJSON struct {
		CPUSet string `json:"cpuSet,omitempty"`
	}
)

// MarshalJSON writes {"cpuSet":"<list>"}, {} when empty.
func (p podEntry) MarshalJSON() ([]byte, error) {
	return json.Marshal(podEntryJSON{CPUSet: p.cpus.String()})
}

// UnmarshalJSON reads what MarshalJSON writes; the list must parse.
func (p *podEntry) UnmarshalJSON(b []byte) error {
	var e podEntryJSON
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	s, err := cpuset.Parse(e.CPUSet)
	if err != nil {
		return fmt.Errorf("failed to parse cpuset: %w", err)
	}
	p.cpus = s
	return nil
}

// write writes the text the kubelet hashes for a V1 checkpoint, typ its
// type name.
func (c *cpuV1) write(h *hashText, typ string) {
	h.open(typ)
	h.field(true, "PolicyName", "string")
	h.str(c.PolicyName)
	h.field(false, "DefaultCPUSet", "string")
	h.str(c.DefaultCPUSet)
	h.field(false, "Entries", "map[string]string")
	h.stringMap(c.Entries)
	h.close()
}

// write writes the text the kubelet hashes for a V2 checkpoint, typ its
// type name.
func (c *cpuV2) write(h *hashText, typ string) {
	h.open(typ)
	h.cpuFields(c.PolicyName, c.DefaultCPUSet, c.Entries)
	h.close()
}

// cpuFields writes the fields V2 and V3 share.
func (h *hashText) cpuFields(policy, defaultCPUSet string, entries map[string]map[string]string) {
	h.field(true, "PolicyName", "string")
	h.str(policy)
	h.field(false, "DefaultCPUSet", "string")
	h.str(defaultCPUSet)
	h.field(false, "Entries", "map[string]map[string]string")
	h.nestedMap(entries)
}

// write writes the text the kubelet hashes for a V3 checkpoint, typ its
// type name ("" for the name V3 had in v1.36, CPUManagerCheckpoint).
func (c *cpuV3) write(h *hashText, typ string) {
	if typ == "" {
		typ = "CPUManagerCheckpoint"
	}
	h.open(typ)
	h.cpuFields(c.PolicyName, c.DefaultCPUSet, c.Entries)
	h.field(false, "PodEntries", "state.PodCPUAssignments")
	spewMap(h, c.PodEntries, func(e podEntry) {
		h.str("{CPUSet:(cpuset.CPUSet)")
		h.cpuSetStruct(e.cpus)
		h.char('}')
	})
	h.close()
}

// entryStrings is s's entries as the file holds them.
func entryStrings(s CPUState) map[string]map[string]string {
	out := make(map[string]map[string]string, len(s.Entries))
	for pod, ctrs := range s.Entries {
		out[pod] = make(map[string]string, len(ctrs))
		for ctr, cpus := range ctrs {
			out[pod][ctr] = cpus.String()
		}
	}
	return out
}

// MarshalCPU returns the cpu_manager_state file the kubelet writes for s
// in format f (V4, V2 or V3), checksums included. V2 cannot hold pod-level
// entries: a state with some is refused (ErrMismatch). For V1, whose
// entries are keyed by container ID, use MarshalCPUV1.
func MarshalCPU(s CPUState, f CPUFormat) ([]byte, error) {
	switch f {
	case CPUFormatV4:
		return marshalCPUV4(s)
	case CPUFormatV2:
		if len(s.PodEntries) > 0 {
			return nil, fmt.Errorf("%w: format V2 has no pod-level entries, and the state has %d", ErrMismatch, len(s.PodEntries))
		}
		c := &cpuV2{PolicyName: s.PolicyName, DefaultCPUSet: s.DefaultCPUSet.String(), Entries: entryStrings(s)}
		// Upstream hashes V2 under the type name of the versions before
		// V3, so that older kubelets verify it.
		c.Checksum = checksumOf(c, "CPUManagerCheckpoint")
		return json.Marshal(c)
	case CPUFormatV3:
		c := &cpuV3{PolicyName: s.PolicyName, DefaultCPUSet: s.DefaultCPUSet.String(), Entries: entryStrings(s),
			PodEntries: make(map[string]podEntry, len(s.PodEntries))}
		for pod, cpus := range s.PodEntries {
			c.PodEntries[pod] = podEntry{cpus: cpus}
		}
		c.Checksum = checksumOf(c, "")
		return json.Marshal(c)
	}
	return nil, fmt.Errorf("%w: MarshalCPU writes formats V4, V2 and V3, not %v (V1: MarshalCPUV1)", ErrMismatch, f)
}

// MarshalCPUV1 returns a V1 cpu_manager_state file: the policy, the shared
// pool and the exclusive CPUs by container ID, with the checksum the V1
// kubelets wrote (the one v1.36.3 verifies).
func MarshalCPUV1(policy string, defaultCPUSet cpuset.CPUSet, byContainerID map[string]cpuset.CPUSet) ([]byte, error) {
	c := &cpuV1{PolicyName: policy, DefaultCPUSet: defaultCPUSet.String(), Entries: make(map[string]string, len(byContainerID))}
	for id, cpus := range byContainerID {
		c.Entries[id] = cpus.String()
	}
	c.Checksum = checksumOf(c, "CPUManagerCheckpoint")
	return json.Marshal(c)
}

// ContainerRef names a container by its pod's UID and its name.
type ContainerRef struct{ PodUID, Container string }

// CPUReadOptions is what the kubelet knows when it restores the state.
// The zero value is a v1.37 kubelet with its default policy (none) and
// default gates.
type CPUReadOptions struct {
	// PolicyName is the configured --cpu-manager-policy; the file must
	// have been written under it. Empty means "none", the kubelet's
	// default.
	PolicyName string
	// PodLevelResourceManagers is the kubelet's feature gate (off by
	// default: alpha in v1.36, beta in v1.37): with it the pod-level
	// entries are read, a V2 file's checksum must be over the older type
	// name, and (LegacyRestore) V3 is read first.
	PodLevelResourceManagers bool
	// LegacyRestore reads the file as kubelets before 1.37 do: V2 (or,
	// with the gate, V3 then V2), then V1 migrated by container ID. Off
	// (1.37): V4; when the file has no data, V3, then V2; V1 is no longer
	// read, and a file whose data or data checksum is damaged is refused
	// without trying the older formats.
	LegacyRestore bool
	// InitialContainers maps the container IDs of the runtime's containers
	// to their pods and names, to migrate a V1 file (upstream's
	// initialContainers; LegacyRestore only).
	InitialContainers map[string]ContainerRef
}

// CPUReadOptionsFor returns how the kubelet of release v (taken as
// release.Oldest or release.Current when outside them) reads its
// cpu_manager_state file with its default gates: LegacyRestore before
// 1.37. PolicyName and InitialContainers are the caller's.
func CPUReadOptionsFor(v release.Version) CPUReadOptions {
	return CPUReadOptions{LegacyRestore: !v.Clamp().AtLeast(release.V1_37)}
}

// ReadCPU restores the CPU Manager's state from a cpu_manager_state file
// as the kubelet does, and says which format it read. Errors wrap
// ErrCorrupt (nothing reads the file, or a checksum is wrong; the error
// gives each format's reason) or ErrMismatch (another policy, an unknown
// container ID in a V1 file), or name the CPU list that does not parse.
func ReadCPU(data []byte, opts CPUReadOptions) (CPUState, CPUFormat, error) {
	policy := opts.PolicyName
	if policy == "" {
		policy = "none"
	}
	c, f, err := loadCPU(data, opts)
	if err != nil {
		return CPUState{}, 0, err
	}
	if c.PolicyName != policy {
		return CPUState{}, 0, fmt.Errorf("%w: configured policy %q differs from state checkpoint policy %q", ErrMismatch, policy, c.PolicyName)
	}
	s := CPUState{PolicyName: c.PolicyName}
	if s.DefaultCPUSet, err = cpuset.Parse(c.DefaultCPUSet); err != nil {
		return CPUState{}, 0, fmt.Errorf("%w: could not parse default cpu set %q: %w", ErrCorrupt, c.DefaultCPUSet, err)
	}
	s.Entries = make(map[string]map[string]cpuset.CPUSet, len(c.Entries))
	for _, pod := range keys.Sorted(c.Entries) {
		s.Entries[pod] = make(map[string]cpuset.CPUSet, len(c.Entries[pod]))
		for _, ctr := range keys.Sorted(c.Entries[pod]) {
			cpus, err := cpuset.Parse(c.Entries[pod][ctr])
			if err != nil {
				return CPUState{}, 0, fmt.Errorf("%w: could not parse cpuset %q for container %q in pod %q: %w", ErrCorrupt, c.Entries[pod][ctr], ctr, pod, err)
			}
			s.Entries[pod][ctr] = cpus
		}
	}
	if opts.PodLevelResourceManagers {
		s.PodEntries = make(map[string]cpuset.CPUSet, len(c.PodEntries))
		for pod, e := range c.PodEntries {
			s.PodEntries[pod] = e.cpus
		}
	}
	return s, f, nil
}

// loadCPU tries the formats in the kubelet's order: since 1.37 the V4
// chain (loadCPUV4); before (LegacyRestore), with the gate, V3 and then
// the V2 chain (migrated to V3 as read), and without it, V2 and then V1.
func loadCPU(data []byte, opts CPUReadOptions) (cpuV3, CPUFormat, error) {
	if !opts.LegacyRestore {
		return loadCPUV4(data, opts)
	}
	if opts.PodLevelResourceManagers {
		v3 := cpuV3{Entries: map[string]map[string]string{}, PodEntries: map[string]podEntry{}}
		err3 := json.Unmarshal(data, &v3)
		if err3 == nil {
			if sum := checksumOf(&v3, ""); sum == v3.Checksum {
				return v3, CPUFormatV3, nil
			} else {
				err3 = badSum(v3.Checksum, sum)
			}
		}
		v2, f, err := loadCPUV2(data, opts, false)
		if err != nil {
			return cpuV3{}, 0, fmt.Errorf("%w (as V3: %v)", err, err3)
		}
		// Upstream migrates into the V3 struct its failed attempt left
		// filled: the V2 read's policy, pool and entries replace only what
		// they have, and the pod entries stay (a V3 file with checksum 0
		// is thus read whole).
		if v2.PolicyName != "" {
			v3.PolicyName = v2.PolicyName
		}
		if v2.DefaultCPUSet != "" {
			v3.DefaultCPUSet = v2.DefaultCPUSet
		}
		if len(v2.Entries) > 0 {
			v3.Entries = v2.Entries
		}
		return v3, f, nil
	}
	v2, f, err := loadCPUV2(data, opts, true)
	return cpuV3{PolicyName: v2.PolicyName, DefaultCPUSet: v2.DefaultCPUSet, Entries: v2.Entries}, f, err
}

// loadCPUV2 reads V2, else V1 migrated to V2. Without the
// PodLevelResourceManagers gate (eitherName), V2's checksum may be over
// either type name (the V3 kubelets' own, or the older one the V2 writer
// uses); with it, only the older.
func loadCPUV2(data []byte, opts CPUReadOptions, eitherName bool) (cpuV2, CPUFormat, error) {
	v2 := cpuV2{Entries: map[string]map[string]string{}}
	err2 := json.Unmarshal(data, &v2)
	if err2 == nil {
		switch {
		case v2.Checksum == 0: // the old file backend wrote none
			return v2, CPUFormatV2, nil
		case eitherName && checksumOf(&v2, "CPUManagerCheckpointV2") == v2.Checksum:
			return v2, CPUFormatV2, nil
		}
		if sum := checksumOf(&v2, "CPUManagerCheckpoint"); sum == v2.Checksum {
			return v2, CPUFormatV2, nil
		} else {
			err2 = badSum(v2.Checksum, sum)
		}
	}
	v1 := cpuV1{Entries: map[string]string{}}
	err1 := json.Unmarshal(data, &v1)
	if err1 == nil && v1.Checksum != 0 {
		if sum := checksumOf(&v1, "CPUManagerCheckpoint"); sum != v1.Checksum {
			err1 = badSum(v1.Checksum, sum)
		}
	}
	if err1 != nil {
		if !errors.Is(err1, ErrCorrupt) {
			err1 = fmt.Errorf("%w: %v", ErrCorrupt, err1)
		}
		return cpuV2{}, 0, fmt.Errorf("%w (as V1; as V2: %v)", err1, err2)
	}
	out := cpuV2{PolicyName: v1.PolicyName, DefaultCPUSet: v1.DefaultCPUSet, Entries: map[string]map[string]string{}}
	for _, id := range keys.Sorted(v1.Entries) {
		ref, ok := opts.InitialContainers[id]
		if !ok {
			return cpuV2{}, 0, fmt.Errorf("%w: failed to migrate checkpoint from v1 to v2: containerID '%v' not found in initial containers list", ErrMismatch, id)
		}
		if out.Entries[ref.PodUID] == nil {
			out.Entries[ref.PodUID] = map[string]string{}
		}
		out.Entries[ref.PodUID][ref.Container] = v1.Entries[id]
	}
	return out, CPUFormatV1, nil
}

// badSum is the error of a checksum that does not match.
func badSum(file, content uint64) error {
	return fmt.Errorf("%w: checksum %d does not match the content (%d)", ErrCorrupt, file, content)
}

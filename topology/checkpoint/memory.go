package checkpoint

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/release"
)

// MemoryCheckpointName is the file the kubelet keeps the Memory Manager's
// state in, under its root directory (/var/lib/kubelet).
const MemoryCheckpointName = "memory_manager_state"

// MemoryFormat is a version of the memory_manager_state format.
type MemoryFormat int

// The formats; the zero value is what v1.37 writes.
const (
	// MemoryFormatV3: V1's fields, kept for a kubelet rolled back, plus
	// the state (pod-level blocks included) as a JSON string under "data"
	// with its own checksum: what every v1.37 kubelet writes.
	MemoryFormatV3 MemoryFormat = iota
	// MemoryFormatV1: the machine state and the containers' blocks (what
	// v1.36 and earlier write by default).
	MemoryFormatV1
	// MemoryFormatV2: V1 plus pod-level blocks (podEntries), written by
	// v1.36 with the PodLevelResourceManagers gate.
	MemoryFormatV2
)

// MemoryFormatFor returns the format the kubelet of release v writes by
// default: V3 since 1.37, V1 before.
func MemoryFormatFor(v release.Version) MemoryFormat {
	if v.Clamp().AtLeast(release.V1_37) {
		return MemoryFormatV3
	}
	return MemoryFormatV1
}

func (f MemoryFormat) String() string {
	switch f {
	case MemoryFormatV1:
		return "V1"
	case MemoryFormatV2:
		return "V2"
	case MemoryFormatV3:
		return "V3"
	}
	return fmt.Sprintf("MemoryFormat(%d)", int(f))
}

// MemoryTable is one resource's memory on one NUMA node, in bytes
// (upstream's state.MemoryTable, with its JSON names).
type MemoryTable struct {
	TotalMemSize   uint64 `json:"total"`
	SystemReserved uint64 `json:"systemReserved"`
	Allocatable    uint64 `json:"allocatable"`
	Reserved       uint64 `json:"reserved"`
	Free           uint64 `json:"free"`
}

// NUMANodeState is one NUMA node's memory state (upstream's
// state.NUMANodeState).
type NUMANodeState struct {
	// NumberOfAssignments counts the blocks placed on the node (a
	// container with memory and huge pages counts two).
	NumberOfAssignments int `json:"numberOfAssignments"`
	// MemoryMap is the node's table per resource ("memory",
	// "hugepages-2Mi", ...).
	MemoryMap map[string]*MemoryTable `json:"memoryMap"`
	// Cells are the nodes of the group this node belongs to while a
	// multi-node allocation uses it.
	Cells []int `json:"cells"`
}

// MemoryBlock is an amount of one resource placed on a set of NUMA nodes
// (upstream's state.Block).
type MemoryBlock struct {
	NUMAAffinity []int  `json:"numaAffinity"`
	Type         string `json:"type"`
	Size         uint64 `json:"size"`
}

// MemoryState is the Memory Manager's state as its checkpoint holds it.
// Its maps and slices are the file's: a nil one is written as null and an
// empty one as {} or [], as upstream distinguishes them.
type MemoryState struct {
	// PolicyName is the --memory-manager-policy that wrote it ("None",
	// "Static").
	PolicyName string
	// MachineState is the table of each NUMA node.
	MachineState map[int]*NUMANodeState
	// Entries are the containers' blocks, by pod UID and container name.
	Entries map[string]map[string][]MemoryBlock
	// PodEntries are pod-level blocks by pod UID: written in format V2
	// only, read (possibly empty) when the PodLevelResourceManagers gate is
	// on.
	PodEntries map[string][]MemoryBlock
}

// The files' shapes, as upstream's checkpoint structs.
type (
	memV1 struct {
		PolicyName   string                              `json:"policyName"`
		MachineState map[int]*NUMANodeState              `json:"machineState"`
		Entries      map[string]map[string][]MemoryBlock `json:"entries,omitempty"`
		Checksum     uint64                              `json:"checksum"`
	}
	memV2 struct {
		PolicyName   string                              `json:"policyName"`
		MachineState map[int]*NUMANodeState              `json:"machineState"`
		Entries      map[string]map[string][]MemoryBlock `json:"entries,omitempty"`
		PodEntries   map[string]memPodEntry              `json:"podEntries,omitempty"`
		Checksum     uint64                              `json:"checksum"`
	}
	memPodEntry struct {
		MemoryBlocks []MemoryBlock `json:"memoryBlocks,omitempty"`
	}
)

// ints writes a []int: "<nil>" or "[0 1]".
func (h *hashText) ints(v []int) {
	if v == nil {
		h.str("<nil>")
		return
	}
	h.char('[')
	for i, x := range v {
		if i > 0 {
			h.char(' ')
		}
		h.int(x)
	}
	h.char(']')
}

// machine writes a state.NUMANodeMap; a map value that is a pointer
// prints as "<*>" and its struct.
func (h *hashText) machine(m map[int]*NUMANodeState) {
	if m == nil {
		h.str("<nil>")
		return
	}
	ids := make([]int, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	h.str("map[")
	for i, id := range ids {
		if i > 0 {
			h.char(' ')
		}
		h.int(id)
		h.char(':')
		n := m[id]
		// A nil value sets go-spew's sticky "no type" flag; any other value
		// clears it (see hashText).
		h.skipType = n == nil
		if n == nil {
			h.str("<nil>")
			continue
		}
		h.str("<*>{")
		h.field(true, "NumberOfAssignments", "int")
		h.int(n.NumberOfAssignments)
		h.field(false, "MemoryMap", "map[v1.ResourceName]*state.MemoryTable")
		spewMap(h, n.MemoryMap, func(t *MemoryTable) {
			h.skipType = t == nil
			if t == nil {
				h.str("<nil>")
				return
			}
			h.str("<*>{TotalMemSize:(uint64)")
			h.uint(t.TotalMemSize)
			h.str(" SystemReserved:(uint64)")
			h.uint(t.SystemReserved)
			h.str(" Allocatable:(uint64)")
			h.uint(t.Allocatable)
			h.str(" Reserved:(uint64)")
			h.uint(t.Reserved)
			h.str(" Free:(uint64)")
			h.uint(t.Free)
			h.char('}')
		})
		h.field(false, "Cells", "[]int")
		h.ints(n.Cells)
		h.char('}')
	}
	h.char(']')
}

// blocks writes a []state.Block (its type already written, or not shown).
func (h *hashText) blocks(bs []MemoryBlock) {
	if bs == nil {
		h.str("<nil>")
		return
	}
	h.char('[')
	for i, b := range bs {
		if i > 0 {
			h.char(' ')
		}
		h.char('{')
		h.field(true, "NUMAAffinity", "[]int")
		h.ints(b.NUMAAffinity)
		h.field(false, "Type", "v1.ResourceName")
		h.str(b.Type)
		h.field(false, "Size", "uint64")
		h.uint(b.Size)
		h.char('}')
	}
	h.char(']')
}

// memEntries writes a state.ContainerMemoryAssignments.
func (h *hashText) memEntries(m map[string]map[string][]MemoryBlock) {
	spewMap(h, m, func(ctrs map[string][]MemoryBlock) { spewMap(h, ctrs, h.blocks) })
}

// write writes the text the kubelet hashes for a V1 checkpoint, typ its
// type name.
func (c *memV1) write(h *hashText, typ string) {
	h.open(typ)
	h.memFields(c.PolicyName, c.MachineState, c.Entries)
	h.close()
}

// memFields writes the fields V1 and V2 share.
func (h *hashText) memFields(policy string, machine map[int]*NUMANodeState, entries map[string]map[string][]MemoryBlock) {
	h.field(true, "PolicyName", "string")
	h.str(policy)
	h.field(false, "MachineState", "state.NUMANodeMap")
	h.machine(machine)
	h.field(false, "Entries", "state.ContainerMemoryAssignments")
	h.memEntries(entries)
}

// write writes the text the kubelet hashes for a V2 checkpoint (always
// under the type name V2 had in v1.36).
func (c *memV2) write(h *hashText, _ string) {
	h.open("MemoryManagerCheckpoint")
	h.memFields(c.PolicyName, c.MachineState, c.Entries)
	h.field(false, "PodEntries", "state.PodMemoryAssignments")
	spewMap(h, c.PodEntries, func(e memPodEntry) {
		h.str("{MemoryBlocks:([]state.Block)")
		h.blocks(e.MemoryBlocks)
		h.char('}')
	})
	h.close()
}

// checkTables refuses a memory table that is null: upstream's state
// cloning dereferences it (the kubelet panics on such a file).
func checkTables(m map[int]*NUMANodeState) error {
	// Most files have none: look first, sort only to name the first one.
	found := false
	for _, n := range m {
		for _, t := range nodeTables(n) {
			if t == nil {
				found = true
			}
		}
	}
	if !found {
		return nil
	}
	for _, id := range keys.Sorted(m) {
		if n := m[id]; n != nil {
			for _, res := range keys.Sorted(n.MemoryMap) {
				if n.MemoryMap[res] == nil {
					return fmt.Errorf("%w: NUMA node %d's memory table for %q is null", ErrCorrupt, id, res)
				}
			}
		}
	}
	return nil
}

// nodeTables is n's memory tables (none for a null node).
func nodeTables(n *NUMANodeState) map[string]*MemoryTable {
	if n == nil {
		return nil
	}
	return n.MemoryMap
}

// kubeletCopy is s as the kubelet's state holds it when it writes (its
// Clone): the machine state and entries never nil, each node's cells and
// each container's blocks never nil, the rest as given.
func kubeletCopy(s MemoryState) (map[int]*NUMANodeState, map[string]map[string][]MemoryBlock) {
	machine := make(map[int]*NUMANodeState, len(s.MachineState))
	for id, n := range s.MachineState {
		if n == nil {
			machine[id] = nil
			continue
		}
		c := &NUMANodeState{NumberOfAssignments: n.NumberOfAssignments, Cells: append([]int{}, n.Cells...)}
		if n.MemoryMap != nil {
			c.MemoryMap = make(map[string]*MemoryTable, len(n.MemoryMap))
			for res, t := range n.MemoryMap {
				tc := *t
				c.MemoryMap[res] = &tc
			}
		}
		machine[id] = c
	}
	entries := make(map[string]map[string][]MemoryBlock, len(s.Entries))
	for pod, ctrs := range s.Entries {
		entries[pod] = make(map[string][]MemoryBlock, len(ctrs))
		for ctr, bs := range ctrs {
			entries[pod][ctr] = append([]MemoryBlock{}, bs...)
		}
	}
	return machine, entries
}

// MarshalMemory returns the memory_manager_state file the kubelet writes
// for s in format f, checksum included: V1 by default, V2 (with pod-level
// blocks) with PodLevelResourceManagers. As the kubelet writes a copy of
// its state, a nil machine state, entries, cells or block list is written
// empty. A null memory table, which the kubelet cannot hold, and pod-level
// blocks in V1 are refused.
func MarshalMemory(s MemoryState, f MemoryFormat) ([]byte, error) {
	if err := checkTables(s.MachineState); err != nil {
		return nil, err
	}
	machine, entries := kubeletCopy(s)
	switch f {
	case MemoryFormatV1:
		if len(s.PodEntries) > 0 {
			return nil, fmt.Errorf("%w: format V1 has no pod-level entries, and the state has %d", ErrMismatch, len(s.PodEntries))
		}
		c := &memV1{PolicyName: s.PolicyName, MachineState: machine, Entries: entries}
		c.Checksum = checksumOf(c, "MemoryManagerCheckpoint")
		return json.Marshal(c)
	case MemoryFormatV3:
		return marshalMemoryV3(s, machine, entries)
	case MemoryFormatV2:
		c := &memV2{PolicyName: s.PolicyName, MachineState: machine, Entries: entries, PodEntries: make(map[string]memPodEntry, len(s.PodEntries))}
		for pod, bs := range s.PodEntries {
			c.PodEntries[pod] = memPodEntry{MemoryBlocks: bs}
		}
		c.Checksum = checksumOf(c, "")
		return json.Marshal(c)
	}
	return nil, fmt.Errorf("%w: MarshalMemory writes formats V3, V1 and V2, not %v", ErrMismatch, f)
}

// MemoryReadOptions is what the kubelet knows when it restores the state.
// The zero value is a v1.37 kubelet with its default policy (None) and
// default gates.
type MemoryReadOptions struct {
	// PolicyName is the configured --memory-manager-policy; the file must
	// have been written under it. Empty means "None", the kubelet's
	// default.
	PolicyName string
	// PodLevelResourceManagers is the kubelet's feature gate (off by
	// default: alpha in v1.36, beta in v1.37): with it the pod-level blocks
	// are read and (LegacyRestore) V2 is read first.
	PodLevelResourceManagers bool
	// LegacyRestore reads the file as kubelets before 1.37 do: V1 (or,
	// with the gate, V2 then V1). Off (1.37): V3; when the file has no
	// data, V2, then V1, migrated forward; a file whose data or data
	// checksum is damaged is refused without trying the older formats.
	LegacyRestore bool
}

// MemoryReadOptionsFor returns how the kubelet of release v (taken as
// release.Oldest or release.Current when outside them) reads its
// memory_manager_state file with its default gates: LegacyRestore before
// 1.37. PolicyName is the caller's.
func MemoryReadOptionsFor(v release.Version) MemoryReadOptions {
	return MemoryReadOptions{LegacyRestore: !v.Clamp().AtLeast(release.V1_37)}
}

// ReadMemory restores the Memory Manager's state from a
// memory_manager_state file as the kubelet does, and says which format it
// read. Errors wrap ErrCorrupt (nothing reads the file, a checksum is
// wrong, a memory table is null) or ErrMismatch (another policy).
func ReadMemory(data []byte, opts MemoryReadOptions) (MemoryState, MemoryFormat, error) {
	policy := opts.PolicyName
	if policy == "" {
		policy = "None"
	}
	var c memV2
	f := MemoryFormatV1
	if !opts.LegacyRestore {
		var err error
		if c, f, err = loadMemoryV3(data); err != nil {
			return MemoryState{}, 0, err
		}
	} else if opts.PodLevelResourceManagers {
		c = memV2{Entries: map[string]map[string][]MemoryBlock{}, PodEntries: map[string]memPodEntry{}, MachineState: map[int]*NUMANodeState{}}
		err2 := json.Unmarshal(data, &c)
		if err2 == nil {
			if sum := checksumOf(&c, ""); sum == c.Checksum {
				f = MemoryFormatV2
			} else {
				err2 = badSum(c.Checksum, sum)
			}
		}
		if f != MemoryFormatV2 {
			v1, err := loadMemoryV1(data, false)
			if err != nil {
				return MemoryState{}, 0, fmt.Errorf("%w (as V2: %v)", err, err2)
			}
			// As upstream, the migration writes over what the failed V2
			// attempt read: only what V1 has replaces it. Upstream copies the
			// machine state here, before it checks the policy, so a null
			// table is found first.
			if v1.PolicyName != "" {
				c.PolicyName = v1.PolicyName
			}
			if v1.MachineState != nil {
				if err := checkTables(v1.MachineState); err != nil {
					return MemoryState{}, 0, err
				}
				c.MachineState = v1.MachineState
			}
			if len(v1.Entries) > 0 {
				c.Entries = v1.Entries
			}
		}
	} else {
		v1, err := loadMemoryV1(data, true)
		if err != nil {
			return MemoryState{}, 0, err
		}
		c = memV2{PolicyName: v1.PolicyName, MachineState: v1.MachineState, Entries: v1.Entries}
	}
	if c.PolicyName != policy {
		return MemoryState{}, 0, fmt.Errorf("%w: [memorymanager] configured policy %q differs from state checkpoint policy %q", ErrMismatch, policy, c.PolicyName)
	}
	if err := checkTables(c.MachineState); err != nil {
		return MemoryState{}, 0, err
	}
	s := MemoryState{PolicyName: c.PolicyName, MachineState: c.MachineState, Entries: c.Entries}
	if opts.PodLevelResourceManagers {
		s.PodEntries = make(map[string][]MemoryBlock, len(c.PodEntries))
		for pod, e := range c.PodEntries {
			s.PodEntries[pod] = e.MemoryBlocks
		}
	}
	return s, f, nil
}

// loadMemoryV1 reads V1: checksum 0 accepted (the old file backend);
// without the gate (eitherName) the checksum may be over either type
// name, with it only over the older one.
func loadMemoryV1(data []byte, eitherName bool) (memV1, error) {
	v1 := memV1{Entries: map[string]map[string][]MemoryBlock{}, MachineState: map[int]*NUMANodeState{}}
	if err := json.Unmarshal(data, &v1); err != nil {
		return memV1{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	switch {
	case v1.Checksum == 0:
		return v1, nil
	case eitherName && checksumOf(&v1, "MemoryManagerCheckpointV1") == v1.Checksum:
		return v1, nil
	}
	if sum := checksumOf(&v1, "MemoryManagerCheckpoint"); sum != v1.Checksum {
		return memV1{}, badSum(v1.Checksum, sum)
	}
	return v1, nil
}

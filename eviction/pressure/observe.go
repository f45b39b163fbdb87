package pressure

import "time"

// MemoryStats are a memory reading from the kubelet's stats summary
// (statsapi.MemoryStats): available bytes and working-set bytes. A nil
// field means the reading is missing, and no observation is made.
type MemoryStats struct {
	// Time is when the reading was taken.
	Time time.Time
	// AvailableBytes is memory available for use.
	AvailableBytes *uint64
	// WorkingSetBytes is the working set (on Windows, fill in the commit
	// usage of the "windows-global-commit-memory" system container).
	WorkingSetBytes *uint64
}

// FsStats are a filesystem reading (statsapi.FsStats).
type FsStats struct {
	// Time is when the reading was taken.
	Time time.Time
	// AvailableBytes and CapacityBytes make the *.available signal.
	AvailableBytes, CapacityBytes *uint64
	// InodesFree and Inodes make the *.inodesFree signal.
	InodesFree, Inodes *uint64
}

// RlimitStats are the node's process limits (statsapi.RlimitStats).
type RlimitStats struct {
	// Time is when the reading was taken.
	Time time.Time
	// MaxPID is the node's pid_max.
	MaxPID *int64
	// NumOfRunningProcesses is how many processes run now.
	NumOfRunningProcesses *int64
}

// NodeStats is the node part of the kubelet's stats summary that the
// eviction signals are read from. A nil part yields no observation for
// its signals, and thresholds on them are then never met.
type NodeStats struct {
	// Memory is the node's memory (Node.Memory).
	Memory *MemoryStats
	// AllocatableMemory is the memory of the "pods" system container
	// (allocatableMemory.available).
	AllocatableMemory *MemoryStats
	// NodeFs is the kubelet's root filesystem (Node.Fs).
	NodeFs *FsStats
	// ImageFs is the runtime's image filesystem (Node.Runtime.ImageFs).
	ImageFs *FsStats
	// ContainerFs is the filesystem of the writable layers
	// (Node.Runtime.ContainerFs).
	ContainerFs *FsStats
	// Rlimit is the node's process limits (Node.Rlimit).
	Rlimit *RlimitStats
	// HugePagesCapacityBytes is the node's huge page capacity: the sum of
	// its hugepages-* entries in node.status.capacity. Under the
	// HugepageAwareEviction gate (beta and on since 1.37) the summary's
	// Memory.AvailableBytes is reduced by it, floored at 0, because the
	// root cgroup's limit counts the reserved huge pages while its working
	// set does not; 0 changes nothing.
	HugePagesCapacityBytes uint64
}

// Observation is one signal's reading: how much is available, of what
// capacity, and when it was read.
type Observation struct {
	// Available is the amount left: bytes, inodes or PIDs. It can be
	// negative for pid.available.
	Available int64
	// Capacity is the total; percentage thresholds are fractions of it.
	Capacity int64
	// Time is the stats timestamp; the zero time means "always fresh".
	Time time.Time
}

// Observations maps each observed signal to its reading.
type Observations map[Signal]Observation

// Observe derives the signal observations from the node stats as upstream's
// makeSignalObservations does:
//
//   - memory.available and allocatableMemory.available: available, and
//     capacity = available + working set;
//   - nodefs.*, imagefs.*, containerfs.*: available bytes / capacity
//     bytes, free inodes / inodes;
//   - pid.available: MaxPID - running processes, capacity MaxPID.
//
// A signal whose readings are incomplete is left out. Unsigned readings
// above 2^63-1 wrap to negative numbers, as upstream's int64 conversion
// does. The node's memory available is first reduced by
// HugePagesCapacityBytes, as the summary provider of v1.37 does
// (HugepageAwareEviction); Config.Observe follows the Config's gate.
func Observe(stats NodeStats) Observations { return observe(stats, true) }

// Observe is the package's Observe under c's HugepageAwareEviction gate
// (off with DisableHugepageAwareEviction: the summary's memory available
// as read, as in 1.36 and before).
func (c Config) Observe(stats NodeStats) Observations {
	return observe(stats, !c.DisableHugepageAwareEviction)
}

func observe(stats NodeStats, hugePageAware bool) Observations {
	obs := make(Observations, numSignals)
	if m := stats.Memory; hugePageAware && stats.HugePagesCapacityBytes > 0 && m != nil && m.AvailableBytes != nil {
		adjusted := *m
		available := uint64(0)
		if *m.AvailableBytes > stats.HugePagesCapacityBytes {
			available = *m.AvailableBytes - stats.HugePagesCapacityBytes
		}
		adjusted.AvailableBytes = &available
		stats.Memory = &adjusted
	}
	mem := func(sig Signal, m *MemoryStats) {
		if m != nil && m.AvailableBytes != nil && m.WorkingSetBytes != nil {
			obs[sig] = Observation{Available: int64(*m.AvailableBytes), Capacity: int64(*m.AvailableBytes + *m.WorkingSetBytes), Time: m.Time}
		}
	}
	fs := func(bytes, inodes Signal, f *FsStats) {
		if f == nil {
			return
		}
		if f.AvailableBytes != nil && f.CapacityBytes != nil {
			obs[bytes] = Observation{Available: int64(*f.AvailableBytes), Capacity: int64(*f.CapacityBytes), Time: f.Time}
		}
		if f.InodesFree != nil && f.Inodes != nil {
			obs[inodes] = Observation{Available: int64(*f.InodesFree), Capacity: int64(*f.Inodes), Time: f.Time}
		}
	}
	mem(SignalMemoryAvailable, stats.Memory)
	mem(SignalAllocatableMemoryAvailable, stats.AllocatableMemory)
	fs(SignalNodeFsAvailable, SignalNodeFsInodesFree, stats.NodeFs)
	fs(SignalImageFsAvailable, SignalImageFsInodesFree, stats.ImageFs)
	fs(SignalContainerFsAvailable, SignalContainerFsInodesFree, stats.ContainerFs)
	if r := stats.Rlimit; r != nil && r.MaxPID != nil && r.NumOfRunningProcesses != nil {
		obs[SignalPIDAvailable] = Observation{Available: *r.MaxPID - *r.NumOfRunningProcesses, Capacity: *r.MaxPID, Time: r.Time}
	}
	return obs
}

// Met returns the thresholds met by the observations, in their order
// (upstream's thresholdsMet): the threshold quantity (the value, or the
// percentage of capacity truncated), plus the minimum reclaim when
// enforceMinReclaim is set, is strictly greater than what is available.
// Equal is not met. A threshold without an observation is not met.
func Met(ths []Threshold, obs Observations, enforceMinReclaim bool) []Threshold {
	var out []Threshold
	for i := range ths {
		if o, ok := obs[ths[i].Signal]; ok && ths[i].met(o, enforceMinReclaim) {
			out = append(out, ths[i])
		}
	}
	return out
}

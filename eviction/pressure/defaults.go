package pressure

import "time"

// Upstream constants of the eviction manager.
const (
	// DefaultPressureTransitionPeriod is evictionPressureTransitionPeriod's
	// default: how long a pressure condition stays reported after the
	// last observation that met one of its thresholds.
	DefaultPressureTransitionPeriod = 5 * time.Minute
	// MonitoringPeriod is how often the kubelet runs its eviction cycle
	// (evictionMonitoringPeriod).
	MonitoringPeriod = 10 * time.Second
	// PodCleanupTimeout is how long the kubelet waits, after an eviction,
	// for the pod to be cleaned up before the next cycle.
	PodCleanupTimeout = 30 * time.Second
	// ImmediateEvictionGracePeriodSeconds is the grace period a pod gets
	// when a hard threshold evicts it.
	ImmediateEvictionGracePeriodSeconds int64 = 1
)

// DefaultEvictionHard returns the kubelet's default evictionHard for the
// operating system goos (a GOOS value):
//
//   - "linux": memory.available<100Mi, nodefs.available<10%,
//     nodefs.inodesFree<5%, imagefs.available<15%, imagefs.inodesFree<5%
//     (the last one since kubernetes#121834, which fixed #121728);
//   - "windows": memory.available<500Mi, nodefs.available<10% (Windows
//     runtimes publish no imagefs stats);
//   - anything else: memory.available<100Mi, nodefs.available<10%,
//     imagefs.available<15%.
//
// The map is new on every call.
func DefaultEvictionHard(goos string) map[string]string {
	switch goos {
	case "linux":
		return map[string]string{
			string(SignalMemoryAvailable):   "100Mi",
			string(SignalNodeFsAvailable):   "10%",
			string(SignalNodeFsInodesFree):  "5%",
			string(SignalImageFsAvailable):  "15%",
			string(SignalImageFsInodesFree): "5%",
		}
	case "windows":
		return map[string]string{
			string(SignalMemoryAvailable): "500Mi",
			string(SignalNodeFsAvailable): "10%",
		}
	}
	return map[string]string{
		string(SignalMemoryAvailable):  "100Mi",
		string(SignalNodeFsAvailable):  "10%",
		string(SignalImageFsAvailable): "15%",
	}
}

// EvictionHardWithDefaults returns the evictionHard the kubelet runs with
// when the user wrote user (nil: not set at all):
//
//   - nil: the OS defaults;
//   - set, mergeDefaultEvictionSettings false (the default): exactly the
//     user's map, so setting one key drops every other default
//     (kubernetes#119985);
//   - set, mergeDefaultEvictionSettings true: the defaults with the
//     user's keys winning.
//
// An empty, non-nil map means no hard thresholds. Use "0%" for a key to
// switch one default off while merging. The result is a new map.
func EvictionHardWithDefaults(user map[string]string, goos string, mergeDefaultEvictionSettings bool) map[string]string {
	if user == nil {
		return DefaultEvictionHard(goos)
	}
	out := make(map[string]string, len(user)+5)
	if mergeDefaultEvictionSettings {
		for k, v := range DefaultEvictionHard(goos) {
			out[k] = v
		}
	}
	for k, v := range user {
		out[k] = v
	}
	return out
}

// DefaultSettings returns the kubelet's default eviction settings for
// goos: the default evictionHard, no soft thresholds, grace periods or
// minimum reclaims, and enforceNodeAllocatable ["pods"].
func DefaultSettings(goos string) Settings {
	return Settings{
		EvictionHard:           DefaultEvictionHard(goos),
		EnforceNodeAllocatable: []string{NodeAllocatableEnforcementKey},
	}
}

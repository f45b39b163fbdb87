package taints

// Well-known taint keys, as k8s.io/api/core/v1 (well_known_taints.go) and
// k8s.io/cloud-provider/api name them.
const (
	// TaintNodeNotReady: the node's Ready condition is False. The node
	// lifecycle controller sets it with NoSchedule and NoExecute.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable: the node's Ready condition is Unknown (the node
	// controller cannot hear from the kubelet). Set with NoSchedule and
	// NoExecute.
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	// TaintNodeUnschedulable: the node is cordoned (spec.unschedulable).
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
	// TaintNodeMemoryPressure: the MemoryPressure condition is True.
	TaintNodeMemoryPressure = "node.kubernetes.io/memory-pressure"
	// TaintNodeDiskPressure: the DiskPressure condition is True.
	TaintNodeDiskPressure = "node.kubernetes.io/disk-pressure"
	// TaintNodeNetworkUnavailable: the NetworkUnavailable condition is True.
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	// TaintNodePIDPressure: the PIDPressure condition is True.
	TaintNodePIDPressure = "node.kubernetes.io/pid-pressure"
	// TaintNodeOutOfService: set by an administrator on a node that is shut
	// down for good, so that its pods and volumes are force-detached
	// (non-graceful node shutdown).
	TaintNodeOutOfService = "node.kubernetes.io/out-of-service"
	// TaintExternalCloudProvider: the kubelet registers with it (NoSchedule)
	// when started with an external cloud provider; the cloud node controller
	// removes it once it has initialized the node.
	TaintExternalCloudProvider = "node.cloudprovider.kubernetes.io/uninitialized"
	// TaintNodeShutdown: the cloud node lifecycle controller sets it
	// (NoSchedule) on a node whose cloud instance is shut down.
	TaintNodeShutdown = "node.cloudprovider.kubernetes.io/shutdown"
)

// DefaultTolerationSeconds is how long the DefaultTolerationSeconds admission
// plugin lets a pod tolerate not-ready and unreachable NoExecute taints: the
// default of kube-apiserver's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds.
const DefaultTolerationSeconds int64 = 300

// DefaultNoExecuteTolerations returns the two tolerations that the
// DefaultTolerationSeconds admission plugin adds to a pod with its default
// flags: not-ready and unreachable, Operator Exists, Effect NoExecute,
// TolerationSeconds 300. Each call returns new pointers.
func DefaultNoExecuteTolerations() []Toleration {
	return []Toleration{
		noExecuteToleration(TaintNodeNotReady, DefaultTolerationSeconds),
		noExecuteToleration(TaintNodeUnreachable, DefaultTolerationSeconds),
	}
}

func noExecuteToleration(key string, seconds int64) Toleration {
	return Toleration{Key: key, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: &seconds}
}

// WithDefaultTolerationSeconds returns tols as the DefaultTolerationSeconds
// admission plugin leaves them. A toleration "covers" not-ready when its key
// is not-ready or empty and its effect is NoExecute or empty (its operator and
// value are not looked at); likewise for unreachable. For each of the two
// keys that no toleration covers, an Exists/NoExecute toleration with the
// given seconds is added with AddOrUpdateToleration. The seconds are used as
// given; the API server's flags are int64 and unchecked.
func WithDefaultTolerationSeconds(tols []Toleration, notReadySeconds, unreachableSeconds int64) []Toleration {
	out := append([]Toleration(nil), tols...)
	coversNotReady, coversUnreachable := false, false
	for _, t := range tols {
		if t.Effect != "" && t.Effect != TaintEffectNoExecute {
			continue
		}
		if t.Key == "" || t.Key == TaintNodeNotReady {
			coversNotReady = true
		}
		if t.Key == "" || t.Key == TaintNodeUnreachable {
			coversUnreachable = true
		}
	}
	if !coversNotReady {
		out, _ = AddOrUpdateToleration(out, noExecuteToleration(TaintNodeNotReady, notReadySeconds))
	}
	if !coversUnreachable {
		out, _ = AddOrUpdateToleration(out, noExecuteToleration(TaintNodeUnreachable, unreachableSeconds))
	}
	return out
}

// DaemonSetTolerations returns the tolerations the DaemonSet controller adds
// to every daemon pod (AddOrUpdateDaemonPodTolerations): not-ready and
// unreachable NoExecute with no TolerationSeconds (tolerated forever), and
// NoSchedule for disk-pressure, memory-pressure, pid-pressure and
// unschedulable, plus network-unavailable NoSchedule for host-network pods.
// All use Operator Exists.
func DaemonSetTolerations(hostNetwork bool) []Toleration {
	out := []Toleration{
		{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoExecute},
		{Key: TaintNodeUnreachable, Operator: TolerationOpExists, Effect: TaintEffectNoExecute},
		{Key: TaintNodeDiskPressure, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule},
		{Key: TaintNodeMemoryPressure, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule},
		{Key: TaintNodePIDPressure, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule},
		{Key: TaintNodeUnschedulable, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule},
	}
	if hostNetwork {
		out = append(out, Toleration{Key: TaintNodeNetworkUnavailable, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule})
	}
	return out
}

// AddOrUpdateToleration returns tols with tol added, or with every toleration
// that MatchToleration(tol) replaced by tol, as upstream's
// AddOrUpdateTolerationInPodSpec. updated is false, and the result holds the
// same tolerations as tols, when a matching toleration already equals tol
// (Toleration.Equal).
func AddOrUpdateToleration(tols []Toleration, tol Toleration) (out []Toleration, updated bool) {
	return addOrUpdate(tols, tol, Toleration.MatchToleration, Toleration.Equal)
}

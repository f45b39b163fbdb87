package admission

import (
	"maps"
	"slices"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
)

// hostPort is a sanitized (ip, protocol, port) reservation.
type hostPort struct {
	ip, protocol string
	port         int32
}

// protoPort is a reservation on any address.
type protoPort struct {
	protocol string
	port     int32
}

func sanitize(p core.ContainerPort) hostPort {
	hp := hostPort{ip: p.HostIP, protocol: p.Protocol, port: p.HostPort}
	if hp.ip == "" {
		hp.ip = BindAllHostIP
	}
	if hp.protocol == "" {
		hp.protocol = core.ProtocolTCP
	}
	return hp
}

// NodeInfo is a node and the pods admitted to it: what the kubelet checks
// a new pod against (upstream builds a scheduler NodeInfo from its other
// pods for each admission; a NodeInfo here is kept up to date with AddPod
// and RemovePod, so that an admission costs the same whatever the number of
// pods).
//
// The pods' requests are read from their spec (cgroup.PodRequests). For a
// pod resized in place, pass it with the resources the kubelet allocated to
// it, as upstream's allocation manager does, and its status in core.Pod.Resize:
// it then counts with the larger of those and the runtime's
// (cgroup.EffectivePodRequests), summed as the release of Options says.
//
// A NodeInfo is not safe for concurrent use. Its zero value is not usable:
// create one with NewNodeInfo.
type NodeInfo struct {
	node core.Node
	opts Options

	alloc       amounts
	allowedPods int64
	used        amounts
	pods        []*core.Pod
	// ports counts each sanitized reservation and byPort each (protocol,
	// port) over all addresses, so that removing a pod restores exactly
	// the state of the others.
	ports  map[hostPort]int
	byPort map[protoPort]int

	// scratch space for one admission
	list     core.ResourceList
	req      amounts
	failures []Failure
}

// NewNodeInfo returns the NodeInfo of node with pods admitted, in order.
// Neither node nor the pods are copied: they must not change while the
// NodeInfo holds them.
func NewNodeInfo(node core.Node, opts Options, pods ...*core.Pod) *NodeInfo {
	ni := &NodeInfo{opts: opts, list: core.ResourceList{}}
	ni.SetNode(node)
	for _, p := range pods {
		ni.AddPod(p)
	}
	return ni
}

// SetNode replaces the node (a status update), keeping the pods.
func (ni *NodeInfo) SetNode(node core.Node) {
	ni.node = node
	ni.alloc = amounts{}
	ni.allowedPods = 0
	ni.alloc.add(node.Allocatable, 1)
	if q, ok := node.Allocatable[core.ResourcePods]; ok {
		ni.allowedPods = q.Value()
	}
}

// Node returns the node.
func (ni *NodeInfo) Node() core.Node { return ni.node }

// Options returns the options given to NewNodeInfo.
func (ni *NodeInfo) Options() Options { return ni.opts }

// Pods returns the admitted pods in the order they were added. The slice
// is the NodeInfo's own: do not modify it.
func (ni *NodeInfo) Pods() []*core.Pod { return ni.pods }

// Requested returns what the admitted pods request of resource name and
// the node's allocatable amount of it: millicores for cpu, units
// otherwise ("pods": the number of pods and the pod capacity). A scheduler
// scores nodes with it.
func (ni *NodeInfo) Requested(name core.ResourceName) (requested, allocatable int64) {
	switch name {
	case core.ResourceCPU:
		return ni.used.milliCPU, ni.alloc.milliCPU
	case core.ResourceMemory:
		return ni.used.memory, ni.alloc.memory
	case core.ResourceEphemeralStorage:
		return ni.used.ephemeral, ni.alloc.ephemeral
	case core.ResourcePods:
		return int64(len(ni.pods)), ni.allowedPods
	}
	return ni.used.scalar(name), ni.alloc.scalar(name)
}

// AddPod counts p as admitted: its requests and host ports.
func (ni *NodeInfo) AddPod(p *core.Pod) {
	ni.pods = append(ni.pods, p)
	ni.update(p, 1)
}

// RemovePod removes the pod with UID uid and reports whether there was
// one. The other pods keep their order.
func (ni *NodeInfo) RemovePod(uid string) bool {
	i := slices.IndexFunc(ni.pods, func(p *core.Pod) bool { return p.UID == uid })
	if i < 0 {
		return false
	}
	p := ni.pods[i]
	ni.pods = slices.Delete(ni.pods, i, i+1)
	ni.update(p, -1)
	return true
}

func (ni *NodeInfo) update(p *core.Pod, sign int64) {
	ni.used.add(ni.podRequests(p), sign)
	if len(p.HostPorts) > 0 && ni.ports == nil {
		ni.ports, ni.byPort = map[hostPort]int{}, map[protoPort]int{}
	}
	for _, cp := range p.HostPorts {
		if cp.HostPort <= 0 {
			continue
		}
		hp := sanitize(cp)
		pp := protoPort{hp.protocol, hp.port}
		if sign > 0 {
			if ni.ports[hp] == 0 {
				ni.byPort[pp]++
			}
			ni.ports[hp]++
			continue
		}
		if ni.ports[hp] > 0 {
			if ni.ports[hp]--; ni.ports[hp] == 0 {
				delete(ni.ports, hp)
				if ni.byPort[pp]--; ni.byPort[pp] == 0 {
					delete(ni.byPort, pp)
				}
			}
		}
	}
}

// portConflict reports whether cp collides with a reserved port: on the
// wildcard address with the same protocol and port on any address,
// otherwise with the same one on that address or on the wildcard.
func (ni *NodeInfo) portConflict(cp core.ContainerPort) bool {
	if cp.HostPort <= 0 || len(ni.ports) == 0 {
		return false
	}
	hp := sanitize(cp)
	if hp.ip == BindAllHostIP {
		return ni.byPort[protoPort{hp.protocol, hp.port}] > 0
	}
	return ni.ports[hp] > 0 || ni.ports[hostPort{BindAllHostIP, hp.protocol, hp.port}] > 0
}

// podRequests returns p's requests: cgroup.PodRequests written into the
// NodeInfo's scratch list, or cgroup.EffectivePodRequests for a pod with a
// resize status.
func (ni *NodeInfo) podRequests(p *core.Pod) core.ResourceList {
	if p.Resize != nil {
		return cgroup.EffectivePodRequests(*p, *p.Resize, ni.opts.qos())
	}
	return cgroup.PodRequestsInto(ni.list, *p, ni.opts.qos())
}

// requests computes p's requests as the fit check sees them: extended
// resources the node does not list in its allocatable are dropped from the
// containers (the kubelet leaves them to cluster-level resources), the
// overhead is added, and negative values count as zero.
func (ni *NodeInfo) requests(p *core.Pod) *amounts {
	return ni.dropUnlisted(p, ni.podRequests(p))
}

// dropUnlisted is requests from p's requests l, which it may modify.
func (ni *NodeInfo) dropUnlisted(p *core.Pod, l core.ResourceList) *amounts {
	for name := range l {
		if IsExtendedResource(name) && !ni.alloc.has(name) {
			if q, ok := p.Overhead[name]; ok {
				l[name] = q
			} else {
				delete(l, name)
			}
		}
	}
	ni.req.setMax(l)
	return &ni.req
}

// Requests are a pod's requests computed once (RequestsOf), so that a
// scheduler filtering many nodes for the pod (FilterRequests) does not
// compute them again for each node. They are read, never written: one
// value serves any number of nodes.
type Requests struct {
	list     core.ResourceList
	amounts  amounts // the list's amounts, when no node drops anything
	extended bool    // the list has extended resources, which a node may drop
}

// RequestsOf computes p's requests as Filter does under opts (those of the
// NodeInfos it will be checked on), before any node's allocatable drops
// the extended resources it does not list.
func RequestsOf(p *core.Pod, opts Options) Requests {
	var l core.ResourceList
	if p.Resize != nil {
		l = cgroup.EffectivePodRequests(*p, *p.Resize, opts.qos())
	} else {
		l = cgroup.PodRequests(*p, opts.qos())
	}
	r := Requests{list: l}
	for name := range l {
		r.extended = r.extended || IsExtendedResource(name)
	}
	r.amounts.setMax(l)
	return r
}

// requestsFrom is requests with p's requests r computed already.
func (ni *NodeInfo) requestsFrom(p *core.Pod, r *Requests) *amounts {
	if !r.extended {
		return &r.amounts
	}
	if ni.list == nil {
		ni.list = core.ResourceList{}
	}
	clear(ni.list)
	maps.Copy(ni.list, r.list)
	return ni.dropUnlisted(p, ni.list)
}

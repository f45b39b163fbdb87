package shutdown

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/taints"
)

// FuzzManager: any config, pods and sequence of inputs never panics;
// configs Validate rejects are refused by NewManager, and for accepted ones
// every kill lands in the phase PhaseIndex picks with a grace period not
// above the phase's.
func FuzzManager(f *testing.F) {
	f.Add(int64(30), int64(10), []byte{1, 2, 3, 4}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add(int64(0), int64(0), []byte{0xff, 0x80, 0, 0, 7, 7, 7, 7}, []byte{3, 3, 3, 200, 1, 0})
	f.Add(int64(-1), int64(1<<62), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, total, critical int64, phaseBytes, ops []byte) {
		cfg := Config{ShutdownGracePeriod: time.Duration(total) * time.Second, ShutdownGracePeriodCriticalPods: time.Duration(critical) * time.Second}
		for i := 0; i+4 <= len(phaseBytes) && i < 64; i += 4 {
			v := binary.LittleEndian.Uint32(phaseBytes[i:])
			cfg.ShutdownGracePeriodByPodPriority = append(cfg.ShutdownGracePeriodByPodPriority,
				PhaseConfig{Priority: int32(v), ShutdownGracePeriodSeconds: int64(int16(v >> 8))})
		}
		cfg.CancelImmediately = len(ops)%2 == 1
		cfg.ResolvePriorityClass = len(ops)%3 == 0
		m, err := NewManager(cfg)
		if (err == nil) != (cfg.Validate() == nil) {
			t.Fatalf("NewManager error %v, Validate %v", err, cfg.Validate())
		}
		if err != nil {
			return
		}
		var pods []core.Pod
		for i, b := range ops {
			p := core.Pod{Namespace: "ns", Name: string(rune('a' + i%26)), PriorityClassName: []string{"", SystemNodeCritical, SystemClusterCritical, "x"}[b&3]}
			if b&4 != 0 {
				v := int32(b) << 24
				p.Priority = &v
			}
			if b&8 != 0 {
				g := int64(b) - 128
				p.TerminationGracePeriodSeconds = &g
			}
			pods = append(pods, p)
		}
		phases := cfg.Phases()
		now := t0
		for i, b := range ops {
			now = now.Add(time.Duration(int8(b)) * time.Second) // sometimes backwards
			var s Step
			switch b % 5 {
			case 0:
				s = m.Start(now, pods[i:])
			case 1:
				s = m.Cancel(now)
			case 2:
				s = m.PodTerminated(now, pods[int(b)%len(pods)].Key())
			default:
				s = m.Step(now)
			}
			for _, k := range s.Kills {
				prio, _ := cfg.PodPriority(k.Pod)
				j := PhaseIndex(phases, prio)
				if k.Phase != j || k.GracePeriodSeconds > phases[j].ShutdownGracePeriodSeconds {
					t.Fatalf("kill %+v, want phase %d (%+v)", k, j, phases[j])
				}
			}
			_ = m.Admit(core.Pod{})
		}
	})
}

// FuzzAddToPreshutdownOrder: kubelet appears once when there are
// dependencies, before every dependency; every dependency is present; the
// other services keep their order.
func FuzzAddToPreshutdownOrder(f *testing.F) {
	f.Add("a,b,c,d", "x,b,y,c,z")
	f.Add("", "kubelet,x")
	f.Add("KUBELET", "Kubelet,kubelet")
	f.Fuzz(func(t *testing.T, deps, order string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		d, o := split(deps), split(order)
		got := AddToPreshutdownOrder(d, o)
		if len(d) == 0 {
			if !slices.Equal(got, o) {
				t.Fatalf("no dependencies changed the order: %q -> %q", o, got)
			}
			return
		}
		k := slices.Index(got, KubeletServiceName)
		if k < 0 {
			t.Fatalf("kubelet missing from %q", got)
		}
		for i, s := range got {
			if i != k && strings.EqualFold(s, KubeletServiceName) && !slices.Contains(d, s) {
				t.Fatalf("second kubelet at %d in %q", i, got)
			}
		}
		for _, dep := range d {
			i := slices.Index(got, dep)
			if i < 0 {
				t.Fatalf("dependency %q missing from %q", dep, got)
			}
			if !strings.EqualFold(dep, KubeletServiceName) && i < k {
				t.Fatalf("dependency %q at %d before kubelet at %d in %q", dep, i, k, got)
			}
		}
	})
}

// FuzzOutOfService: any node and pods never panic; force deletions happen
// only on a not-ready out-of-service node, only for terminating pods, and
// come out sorted.
func FuzzOutOfService(f *testing.F) {
	f.Add(byte(1), []byte{1, 2, 3, 4, 5, 6}, []byte{1, 0, 3})
	f.Add(byte(0), []byte{}, []byte{255})
	f.Fuzz(func(t *testing.T, nodeByte byte, podBytes, volBytes []byte) {
		statuses := []conditions.Status{conditions.True, conditions.False, conditions.Unknown, ""}
		node := core.Node{Conditions: coretest.Ready(statuses[nodeByte&3])}
		if nodeByte&4 != 0 {
			node.Taints = append(node.Taints, taints.Taint{Key: taints.TaintNodeOutOfService, Effect: taints.TaintEffectNoExecute})
		}
		var pods []core.Pod
		for i, b := range podBytes {
			p := core.Pod{Namespace: "ns", Name: string(rune('a' + i%7)), CreationTimestamp: at(float64(b >> 4)),
				Phase: []core.PodPhase{core.PodRunning, core.PodFailed, core.PodSucceeded, core.PodPending}[b&3]}
			if b&4 != 0 {
				d := at(100)
				p.DeletionTimestamp = &d
			}
			if b&8 != 0 {
				p.Reason = "Evicted"
			}
			pods = append(pods, p)
		}
		var vols []AttachedVolume
		for i, b := range volBytes {
			vols = append(vols, AttachedVolume{Name: string(rune('A' + i)), MountedByNode: b&1 != 0,
				Pods: []string{"ns/" + string(rune('a'+int(b>>1)%8))}, UnneededSince: at(-float64(b))})
		}
		c := OutOfServiceConfig{SkipTolerating: nodeByte&8 != 0, DisableForceDetachOnTimeout: nodeByte&16 != 0}
		p := c.Plan(at(0), node, pods, vols)
		if len(p.ForceDelete) > 0 && (!OutOfService(&node) || node.Ready()) {
			t.Fatalf("force deletions on node %+v", node)
		}
		for i, fd := range p.ForceDelete {
			if fd.Pod.DeletionTimestamp == nil {
				t.Fatalf("force deleting %s, which is not terminating", fd.Pod.Name)
			}
			if i > 0 && compareForDeletion(&p.ForceDelete[i-1].Pod, &fd.Pod) > 0 {
				t.Fatalf("force deletions out of order at %d", i)
			}
		}
		if len(p.Volumes) != len(vols) {
			t.Fatalf("%d decisions for %d volumes", len(p.Volumes), len(vols))
		}
	})
}

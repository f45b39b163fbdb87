package conformance

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	libcontainercgroups "github.com/opencontainers/cgroups"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/component-helpers/node/topology"
	nodeutil "k8s.io/component-helpers/node/util"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	kubeletapis "k8s.io/kubelet/pkg/apis"
	v1qos "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubeeviction "k8s.io/kubernetes/pkg/kubelet/eviction"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerframework "k8s.io/kubernetes/pkg/scheduler/framework"
	utilnode "k8s.io/kubernetes/pkg/util/node"
	utiltaints "k8s.io/kubernetes/pkg/util/taints"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/taints"
	nltopology "github.com/nodelife/nodelife/topology"
)

// A pair times nodelife and its upstream counterpart on identical inputs,
// each side given its own representation of them, built before the clock
// starts. The loops call the functions directly (no function values), so
// that inlining is what each side's code allows.
type pair struct {
	name               string
	nodelife, upstream func(b *testing.B)
}

var (
	sinkBool   bool
	sinkU64    uint64
	sinkI64    int64
	sinkString string
	sinkAny    any
)

// benchInputs is how many distinct inputs a conversion cycles through, so
// that neither side is timed on one constant.
const benchInputs = 1024

func pairs() []pair {
	r := rand.New(rand.NewSource(99))

	// Toleration matching: the scheduler's and the taint manager's hot path.
	tolEq := v1.Toleration{Key: "example.com/dedicated", Operator: v1.TolerationOpEqual, Value: "gpu", Effect: v1.TaintEffectNoSchedule}
	taintEq := v1.Taint{Key: "example.com/dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}
	nTolEq, nTaintEq := oneTol(tolEq), one(taintEq)
	tolGt := v1.Toleration{Key: "example.com/sla", Operator: v1.TolerationOpGt, Value: "950", Effect: v1.TaintEffectNoSchedule}
	taintSLA := v1.Taint{Key: "example.com/sla", Value: "999", Effect: v1.TaintEffectNoSchedule}
	nTolGt, nTaintSLA := oneTol(tolGt), one(taintSLA)
	cmpOn := taints.Matcher{ComparisonOperators: true}
	// Two tolerations against one taint: the default not-ready and
	// unreachable NoExecute tolerations every pod gets, against not-ready.
	sec := int64(300)
	twoTols := []v1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &sec},
		{Key: "node.kubernetes.io/unreachable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &sec},
	}
	notReady := v1.Taint{Key: "node.kubernetes.io/unreachable", Effect: v1.TaintEffectNoExecute}
	nTwoTols, nNotReady := kubeapi.Tolerations(twoTols), one(notReady)
	// Eight taints and eight tolerations, every taint tolerated (the scan
	// goes to the end), with the scheduler's NoSchedule/NoExecute filter.
	var eightTaints []v1.Taint
	var eightTols []v1.Toleration
	effects := []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute}
	for i := 0; i < 8; i++ {
		t := v1.Taint{Key: fmt.Sprintf("example.com/taint-%03d", i), Value: fmt.Sprintf("v%03d", i), Effect: effects[i%3]}
		eightTaints = append(eightTaints, t)
		eightTols = append([]v1.Toleration{{Key: t.Key, Operator: v1.TolerationOpEqual, Value: t.Value, Effect: t.Effect}}, eightTols...)
	}
	nEightTaints, nEightTols := kubeapi.Taints(eightTaints), kubeapi.Tolerations(eightTols)
	hardUp := func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}
	hardNL := func(t taints.Taint) bool {
		return t.Effect == taints.TaintEffectNoSchedule || t.Effect == taints.TaintEffectNoExecute
	}
	specs := []string{"example.com/dedicated=gpu:NoSchedule", "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute", "old-"}
	nodeWith := &v1.Node{Spec: v1.NodeSpec{Taints: eightTaints}}
	addTaint := v1.Taint{Key: "example.com/taint-004", Value: "new", Effect: effects[1]}
	nAddTaint := one(addTaint)

	// Conversions, over benchInputs values each.
	millis, periods, shares, quotas := make([]int64, benchInputs), make([]int64, benchInputs), make([]uint64, benchInputs), make([]int64, benchInputs)
	for i := range millis {
		millis[i] = int64(r.Intn(64_000))
		periods[i] = []int64{100000, 50000, 1000000}[r.Intn(3)]
		shares[i] = uint64(2 + r.Intn(262143))
		quotas[i] = int64(1000 + r.Intn(6_400_000))
	}

	// Names.
	podName := cm.NewCgroupName(cm.RootCgroupName, "kubepods", "burstable", "pod0b7a4c2e-6f0e-4a6b-9d8e-2b3c4d5e6f70")
	nPodName, _ := cgroup.NewName(nil, podName...)
	sdPath := podName.ToSystemd()
	fsPath := podName.ToCgroupfs()

	// Pods for QoS, the pod cgroup and huge pages.
	var pods []*v1.Pod
	var nPods []core.Pod
	for i := 0; i < 64; i++ {
		p := randomPod(r, i)
		pods = append(pods, p)
		nPods = append(nPods, kubeapi.Pod(p))
	}
	// The same kind of pods mid-resize, for the resize-aware sums.
	var resized []*v1.Pod
	var nResized []core.Pod
	var nResizeStatus []core.ResizeStatus
	for i := 0; i < 64; i++ {
		p := randomPod(r, i)
		randomResizeStatus(r, p)
		st, _ := kubeapi.ResizeStatus(p)
		resized, nResized, nResizeStatus = append(resized, p), append(nResized, kubeapi.Pod(p)), append(nResizeStatus, st)
	}
	huge := v1.ResourceList{"hugepages-2Mi": resourceQ("4Mi"), "hugepages-1Gi": resourceQ("1Gi"), "cpu": resourceQ("2"), "memory": resourceQ("1Gi")}
	nHuge := toCgroupList(huge)

	// The kubelet's default eviction settings plus soft thresholds.
	hard := map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%"}
	soft := map[string]string{"memory.available": "300Mi", "nodefs.available": "15%"}
	grace := map[string]string{"memory.available": "1m30s", "nodefs.available": "2m"}
	reclaim := map[string]string{"memory.available": "0Mi", "nodefs.available": "500Mi"}
	enforce := []string{"pods"}

	labelKeys := []string{"kubernetes.io/hostname", "node.kubernetes.io/instance-type", "example.com/team", "kubelet.kubernetes.io/x", "node-role.kubernetes.io/worker"}
	zoneLabels := map[string]string{v1.LabelTopologyZone: "us-east-1a", v1.LabelTopologyRegion: "us-east-1", "kubernetes.io/hostname": "n1"}
	zoneNode := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: zoneLabels}}

	// Node addresses, --node-ip, a taint to validate, thresholds to derive
	// containerfs ones from, a restart decision and a back-off step.
	nodeAddrs := []v1.NodeAddress{{Type: v1.NodeHostName, Address: "n1"}, {Type: v1.NodeInternalIP, Address: "10.0.0.7"},
		{Type: v1.NodeInternalIP, Address: "fd00::7"}, {Type: v1.NodeExternalIP, Address: "203.0.113.7"}}
	addrNode := &v1.Node{Status: v1.NodeStatus{Addresses: nodeAddrs}}
	var nAddrs []conditions.NodeAddress
	for _, a := range nodeAddrs {
		nAddrs = append(nAddrs, conditions.NodeAddress{Type: conditions.NodeAddressType(a.Type), Address: a.Address})
	}
	upThs, _ := kubeeviction.ParseThresholdConfig(nil, hard, soft, grace, reclaim)
	nlThs, _ := pressure.ParseThresholdConfig(nil, hard, soft, grace, reclaim)
	restartPod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyOnFailure, Containers: []v1.Container{{Name: "app"}}}}
	restartStatus := &kubecontainer.PodStatus{ContainerStatuses: []*kubecontainer.Status{{Name: "app", State: kubecontainer.ContainerStateExited, ExitCode: 1}}}
	nRestartPod := core.Pod{Name: "p", RestartPolicy: core.RestartPolicyOnFailure, Containers: []core.Container{{Name: "app"}}}
	nRestartStatus := &cri.ContainerStatus{Name: "app", State: gc.ContainerExited, ExitCode: 1}
	backoffStart := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)

	return append([]pair{
		{"Toleration.ToleratesTaint/Equal",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = nTolEq.ToleratesTaint(&nTaintEq)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = tolEq.ToleratesTaint(discard, &taintEq, false)
				}
			}},
		{"Toleration.ToleratesTaint/Gt",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = cmpOn.ToleratesTaint(&nTolGt, &nTaintSLA)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = tolGt.ToleratesTaint(discard, &taintSLA, true)
				}
			}},
		{"TolerationsTolerateTaint/2-tolerations",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = taints.TolerationsTolerateTaint(nTwoTols, &nNotReady)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = corev1helpers.TolerationsTolerateTaint(discard, twoTols, &notReady, false)
				}
			}},
		{"FindMatchingUntoleratedTaint/8x8-filtered",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					_, sinkBool = taints.FindMatchingUntoleratedTaint(nEightTaints, nEightTols, hardNL)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					_, sinkBool = corev1helpers.FindMatchingUntoleratedTaint(discard, eightTaints, eightTols, hardUp, false)
				}
			}},
		{"ParseTaints/3-specs",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					a, _, _ := taints.ParseTaints(specs)
					sinkAny = a
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					a, _, _ := utiltaints.ParseTaints(specs)
					sinkAny = a
				}
			}},
		{"Taint.String",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = nTaintEq.String()
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = taintEq.ToString()
				}
			}},
		{"AddOrUpdate/8-taints",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					out, _ := taints.AddOrUpdate(nEightTaints, nAddTaint)
					sinkAny = out
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					n, _, _ := utiltaints.AddOrUpdateTaint(nodeWith, &addTaint)
					sinkAny = n
				}
			}},
		{"MilliCPUToShares",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkU64 = cgroup.MilliCPUToShares(millis[i%benchInputs])
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkU64 = cm.MilliCPUToShares(millis[i%benchInputs])
				}
			}},
		{"MilliCPUToQuota",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkI64 = cgroup.MilliCPUToQuota(millis[i%benchInputs], periods[i%benchInputs])
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkI64 = cm.MilliCPUToQuota(millis[i%benchInputs], periods[i%benchInputs])
				}
			}},
		{"SharesToMilliCPU",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkI64 = cgroup.SharesToMilliCPU(shares[i%benchInputs])
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkI64 = cm.SharesToMilliCPU(int64(shares[i%benchInputs]))
				}
			}},
		{"QuotaToMilliCPU",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkI64 = cgroup.QuotaToMilliCPU(quotas[i%benchInputs], periods[i%benchInputs])
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkI64 = cm.QuotaToMilliCPU(quotas[i%benchInputs], periods[i%benchInputs])
				}
			}},
		{"CPUWeight/linear",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkU64 = cgroup.WeightLinear.Weight(shares[i%benchInputs])
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkU64 = kubeletCPUWeight(&shares[i%benchInputs])
				}
			}},
		{"CPUWeight/quadratic",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkU64 = cgroup.WeightQuadratic.Weight(shares[i%benchInputs])
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkU64 = libcontainercgroups.ConvertCPUSharesToCgroupV2Value(shares[i%benchInputs])
				}
			}},
		{"CgroupName.Systemd",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString, _ = nPodName.Systemd()
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = podName.ToSystemd()
				}
			}},
		{"ParseSystemd",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					n, _ := cgroup.ParseSystemd(sdPath)
					sinkAny = n
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cm.ParseSystemdToCgroupName(sdPath)
				}
			}},
		{"CgroupName.Cgroupfs",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = nPodName.Cgroupfs()
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = podName.ToCgroupfs()
				}
			}},
		{"ParseCgroupfs",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cgroup.ParseCgroupfs(fsPath)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cm.ParseCgroupfsToCgroupName(fsPath)
				}
			}},
		{"HugePageLimits",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cgroup.HugePageLimits(nHuge)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cm.HugePageLimits(huge)
				}
			}},
		{"PodQOS/64-pods",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = string(cgroup.PodQOS(nPods[i%64], cgroup.QOSOptions{}))
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = string(v1qos.GetPodQOS(pods[i%64]))
				}
			}},
		{"EffectivePodRequests/64-resized-pods",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cgroup.EffectivePodRequests(nResized[i%64], nResizeStatus[i%64], cgroup.QOSOptions{})
				}
			},
			func(b *testing.B) {
				ro := resourcehelper.PodResourcesOptions{UseStatusResources: true, InPlacePodLevelResourcesVerticalScalingEnabled: true}
				for i := 0; i < b.N; i++ {
					sinkAny = resourcehelper.PodRequests(resized[i%64], ro)
				}
			}},
		{"ResourceConfigForPod/64-pods",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cgroup.ResourceConfigForPod(nPods[i%64], cgroup.PodConfigOptions{})
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = cm.ResourceConfigForPod(pods[i%64], true, 100000, false, "")
				}
			}},
		{"HashContainer",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkU64 = cri.HashContainer("app", "registry.k8s.io/pause:3.10")
				}
			},
			func(b *testing.B) {
				c := &v1.Container{Name: "app", Image: "registry.k8s.io/pause:3.10"}
				for i := 0; i < b.N; i++ {
					sinkU64 = kubecontainer.HashContainer(c)
				}
			}},
		{"ParseThresholdConfig",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ths, _ := pressure.ParseThresholdConfig(enforce, hard, soft, grace, reclaim)
					sinkAny = ths
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ths, _ := kubeeviction.ParseThresholdConfig(enforce, hard, soft, grace, reclaim)
					sinkAny = ths
				}
			}},
		{"IsKubeletLabel",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = conditions.IsKubeletLabel(labelKeys[i%len(labelKeys)])
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = kubeletapis.IsKubeletLabel(labelKeys[i%len(labelKeys)])
				}
			}},
		{"NodeHostIPs/dual-stack",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ips, _ := conditions.NodeHostIPs(nAddrs)
					sinkAny = ips
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ips, _ := utilnode.GetNodeHostIPs(addrNode)
					sinkAny = ips
				}
			}},
		{"ParseNodeIPs/dual-stack",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ips, _ := conditions.ParseNodeIPs("10.0.0.7,fd00::7")
					sinkAny = ips
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ips, _, _ := nodeutil.ParseNodeIPArgument("10.0.0.7,fd00::7", "")
					sinkAny = ips
				}
			}},
		{"Taint.Validate",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = nTaintEq.Validate()
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = utiltaints.CheckTaintValidation(taintEq)
				}
			}},
		{"UpdateContainerFsThresholds",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					out, _ := pressure.UpdateContainerFsThresholds(nlThs, pressure.LayoutImageFs)
					sinkAny = out
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					out, _ := kubeeviction.UpdateContainerFsThresholds(slices.Clone(upThs), true, false)
					sinkAny = out
				}
			}},
		{"ShouldRestart",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = cri.ShouldRestart(nRestartPod, nRestartStatus)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = kubecontainer.ShouldContainerBeRestarted(discard, &restartPod.Spec.Containers[0], restartPod, restartStatus)
				}
			}},
		{"CrashLoopBackoff/step",
			func(b *testing.B) {
				cfg := cri.DefaultBackoffConfig()
				var e cri.BackoffEntry
				now := backoffStart
				for i := 0; i < b.N; i++ {
					now = now.Add(7 * time.Second)
					d, _ := cfg.Decide(now, e, now.Add(-3*time.Second))
					e = d.Entry
					sinkBool = d.InBackoff
				}
			},
			func(b *testing.B) {
				clk := clocktesting.NewFakeClock(backoffStart)
				bo := flowcontrol.NewFakeBackOff(10*time.Second, 300*time.Second, clk)
				now := backoffStart
				for i := 0; i < b.N; i++ {
					now = now.Add(7 * time.Second)
					clk.SetTime(now)
					in := bo.IsInBackOffSince("k", now.Add(-3*time.Second))
					if !in {
						bo.Next("k", now.Add(-3*time.Second))
					}
					sinkBool = in
				}
			}},
		{"ZoneKey",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = eviction.ZoneKey(zoneLabels)
				}
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkString = topology.GetZoneKey(zoneNode)
				}
			}},
		// The fit check alone, both sides with the node's 110 pods already
		// summed (a scheduler NodeInfo, an admission.NodeInfo).
		{"AdmissionFitCheck/pods=110",
			func(b *testing.B) {
				var buf []admission.Failure
				for i := 0; i < b.N; i++ {
					buf = admitNI.Filter(&admitNL, buf)
				}
				sinkAny = buf
			},
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkAny = scheduler.AdmissionCheck(admitPod, admitUpNI, true)
				}
			}},
		// The kubelet's whole predicate admit handler, as it runs: upstream
		// builds a NodeInfo from the 110 other pods for every admission.
		{"KubeletAdmit/pods=110",
			func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkBool = admitNI.Admit(&admitNL).Admit
				}
			},
			func(b *testing.B) {
				h := lifecycle.NewPredicateAdmitHandler(func(context.Context, bool) (*v1.Node, error) { return admitNode, nil },
					lifecycle.NewAdmissionFailureHandlerStub(), func(*schedulerframework.NodeInfo, *lifecycle.PodAdmitAttributes) error { return nil })
				attrs := &lifecycle.PodAdmitAttributes{Pod: admitPod, OtherPods: admitOthers, Operation: lifecycle.AddOperation}
				for i := 0; i < b.N; i++ {
					sinkBool = h.Admit(context.Background(), attrs).Admit
				}
			}},
		topologyPair(4, 3),
		topologyPair(8, 2),
	}, slices.Concat(checkpointPairs(), cpuPairs(), memoryPairs(), managerPairs(), lifecyclePairs())...)
}

// The admission pairs' inputs: a 32-cpu, 128Gi node with 110 of 111 pod
// slots taken by pods of 250m and 1Gi, a NoExecute taint the pod tolerates,
// and a pod of 500m and 1Gi with a node selector; it fits.
var (
	admitNode, admitPod, admitOthers, admitNL, admitNI, admitUpNI = admissionBench()
)

func admissionBench() (*v1.Node, *v1.Pod, []*v1.Pod, core.Pod, *admission.NodeInfo, *schedulerframework.NodeInfo) {
	node := &v1.Node{}
	node.Name = "n1"
	node.Labels = map[string]string{"kubernetes.io/os": "linux", "disk": "ssd", "topology.kubernetes.io/zone": "a"}
	node.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "web", Effect: v1.TaintEffectNoExecute}}
	node.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resourceQ("32"), v1.ResourceMemory: resourceQ("128Gi"), v1.ResourcePods: resourceQ("111")}
	mk := func(name, cpu, mem string) *v1.Pod {
		p := &v1.Pod{}
		p.Namespace, p.Name, p.UID = "ns", name, types.UID(name)
		p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resourceQ(cpu), v1.ResourceMemory: resourceQ(mem)}}}}
		p.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "web", Effect: v1.TaintEffectNoExecute}}
		return p
	}
	var others []*v1.Pod
	var nl []*core.Pod
	for i := 0; i < 110; i++ {
		o := mk(fmt.Sprintf("o%d", i), "250m", "1Gi")
		others = append(others, o)
		ap := kubeapi.Pod(o)
		nl = append(nl, &ap)
	}
	pod := mk("new", "500m", "1Gi")
	pod.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	upNI := schedulerframework.NewNodeInfo(others...)
	upNI.SetNode(node)
	return node, pod, others, kubeapi.Pod(pod), admission.NewNodeInfo(kubeapi.Node(node), admission.Options{}, nl...), upNI
}

func BenchmarkPairs(b *testing.B) {
	for _, p := range pairs() {
		b.Run(p.name+"/nodelife", func(b *testing.B) { b.ReportAllocs(); p.nodelife(b) })
		b.Run(p.name+"/upstream", func(b *testing.B) { b.ReportAllocs(); p.upstream(b) })
	}
}

// Never more allocations than upstream: each pair measured with
// testing.Benchmark over 200 calls (allocation counts of these functions do
// not depend on timing, so the check runs in CI).
func TestPairsAllocateNoMore(t *testing.T) {
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("200x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	for _, p := range pairs() {
		nl := testing.Benchmark(func(b *testing.B) { b.ReportAllocs(); p.nodelife(b) })
		up := testing.Benchmark(func(b *testing.B) { b.ReportAllocs(); p.upstream(b) })
		if nl.AllocsPerOp() > up.AllocsPerOp() || nl.AllocedBytesPerOp() > up.AllocedBytesPerOp() {
			t.Errorf("%s: nodelife %d allocs %d B/op, upstream %d allocs %d B/op", p.name,
				nl.AllocsPerOp(), nl.AllocedBytesPerOp(), up.AllocsPerOp(), up.AllocedBytesPerOp())
		}
	}
}

// TestRatioTable prints the side-by-side table of BENCHMARKS.md: each pair
// timed NODELIFE_RATIO_ROUNDS times (default 7) with testing.Benchmark, the
// two sides interleaved round by round so that both see the same machine,
// and the median round of each side kept (NODELIFE_RATIO_PAIRS=a,b times
// only the pairs whose name holds one of the substrings). Run with
// NODELIFE_RATIOS=1:
//
//	cd internal/conformance && NODELIFE_RATIOS=1 go test -count=1 -run TestRatioTable -v .
func TestRatioTable(t *testing.T) {
	if os.Getenv("NODELIFE_RATIOS") != "1" {
		t.Skip("set NODELIFE_RATIOS=1 to time every pair (several minutes)")
	}
	rounds := 7
	if v := os.Getenv("NODELIFE_RATIO_ROUNDS"); v != "" {
		if _, err := fmt.Sscan(v, &rounds); err != nil || rounds < 1 {
			t.Fatalf("NODELIFE_RATIO_ROUNDS=%q: want a positive count", v)
		}
	}
	ns := func(r testing.BenchmarkResult) float64 { return float64(r.T.Nanoseconds()) / float64(r.N) }
	median := func(rs []testing.BenchmarkResult) testing.BenchmarkResult {
		sort.Slice(rs, func(i, j int) bool { return ns(rs[i]) < ns(rs[j]) })
		return rs[len(rs)/2]
	}
	var b strings.Builder
	b.WriteString("| pair | nodelife ns/op | upstream ns/op | ns ratio | nodelife allocs/op | upstream allocs/op |\n|---|---:|---:|---:|---:|---:|\n")
	var slower []string
	only := strings.Split(os.Getenv("NODELIFE_RATIO_PAIRS"), ",") // substrings: time only the pairs whose name holds one
	for _, p := range pairs() {
		if !slices.ContainsFunc(only, func(o string) bool { return strings.Contains(p.name, o) }) {
			continue
		}
		var nls, ups []testing.BenchmarkResult
		for i := 0; i < rounds; i++ {
			nls = append(nls, testing.Benchmark(func(b *testing.B) { b.ReportAllocs(); p.nodelife(b) }))
			ups = append(ups, testing.Benchmark(func(b *testing.B) { b.ReportAllocs(); p.upstream(b) }))
		}
		nl, up := median(nls), median(ups)
		ratio := ns(nl) / ns(up)
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.2fx | %d | %d |\n", p.name, ns(nl), ns(up), ratio, nl.AllocsPerOp(), up.AllocsPerOp())
		if ratio > 1.0 {
			slower = append(slower, fmt.Sprintf("%s %.2fx", p.name, ratio))
		}
	}
	t.Logf("\n%s", b.String())
	if len(slower) > 0 {
		t.Errorf("slower than upstream: %s", strings.Join(slower, ", "))
	}
}

func resourceQ(s string) resource.Quantity { return resource.MustParse(s) }

// topologyPair times the best-effort merge of n-node hint lists holding
// every mask (what an empty machine's providers return for a Guaranteed
// pod), lists of them: cpu, memory, then huge pages.
func topologyPair(nodes, lists int) pair {
	info := topologyMachines[map[int]int{2: 0, 4: 1, 8: 2}[nodes]]
	var all []nltopology.Hint
	for m := nltopology.BitMask(1); m < 1<<uint(nodes); m++ {
		all = append(all, nltopology.Hint{Affinity: m, Preferred: m.Count() == 1})
	}
	var providers []nltopology.ProviderHints
	for i := 0; i < lists; i++ {
		providers = append(providers, nltopology.ProviderHints{[]string{"cpu", "memory", "hugepages-2Mi"}[i]: all})
	}
	up := upstreamHints(providers)
	policy := upstreamPolicy(nltopology.PolicyBestEffort, info, false)
	logger := logr.Discard()
	return pair{fmt.Sprintf("topology.Merge/best-effort/numa=%d/lists=%d", nodes, lists),
		func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h, _, _ := nltopology.Merge(nltopology.PolicyBestEffort, info, nltopology.PolicyOptions{}, providers)
				sinkBool = h.Preferred
			}
		},
		func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h, _ := policy.Merge(logger, up)
				sinkBool = h.Preferred
			}
		}}
}

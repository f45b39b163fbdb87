package conformance

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-helpers/node/topology"
	kubeletapis "k8s.io/kubelet/pkg/apis"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubeeviction "k8s.io/kubernetes/pkg/kubelet/eviction"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/lease"
)

// textPool holds names and images with what JSON encoding treats specially:
// quotes, backslashes, control characters, <, >, &, U+2028/U+2029,
// non-ASCII and invalid UTF-8.
var textPool = []string{
	"", "nginx", "app", "registry.k8s.io/pause:3.10", "docker.io/library/nginx@sha256:" + strings.Repeat("ab", 32),
	"quote\"d", "back\\slash", "tab\tnew\nline", "<script>&amp;", "\u2028\u2029", "é", "日本", "\xff\xfe", "a\x00b",
	"\x7f", strings.Repeat("long-", 60),
}

func randomText(r *rand.Rand) string {
	s := oneOf(r, textPool)
	if r.Intn(3) == 0 {
		s += oneOf(r, textPool)
	}
	return mangle(r, s)
}

func TestDifferentialHashContainer(t *testing.T) {
	c := compare(t, "cri.HashContainer", "pkg/kubelet/container.HashContainer",
		"container name and image from a pool with JSON-escaped characters (quotes, backslash, controls, <>&, U+2028), non-ASCII and invalid UTF-8, mangled")
	r := rand.New(rand.NewSource(31))
	for i, n := 0, inputs(t); i < n; i++ {
		name, image := randomText(r), randomText(r)
		up := kubecontainer.HashContainer(&v1.Container{Name: name, Image: image})
		if nl := cri.HashContainer(name, image); nl != up {
			c.disagree("name %q image %q: upstream %d, nodelife %d", name, image, up, nl)
		} else {
			c.agree()
		}
	}
}

var (
	signalPool = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree",
		"containerfs.available", "containerfs.inodesFree", "pid.available", "allocatableMemory.available", "memory.Available", "cpu", ""}
	thresholdPool = []string{"100Mi", "1Gi", "500Mi", "10%", "5%", "0%", "100%", "15.5%", "0.1%", "-1Mi", "-5%", "110%",
		"NaN%", "nan%", "Inf%", "abc", "", "%", "1e3", "0", "1", "1.5Gi", "10 %", "100.0%", "0.0%"}
	gracePool   = []string{"1m30s", "30s", "0s", "1h", "-1s", "abc", "", "1.5m", "90"}
	reclaimPool = []string{"500Mi", "5%", "0", "0%", "-1%", "-1Mi", "abc", "", "101%", "NaN%"}
)

// randomSettings draws up to max settings over the known signals, the
// value from the first valid entries of pool four times in five.
func randomSettings(r *rand.Rand, pool []string, valid, max int) map[string]string {
	m := map[string]string{}
	for i := r.Intn(max + 1); i > 0; i-- {
		v := oneOf(r, pool[:valid])
		if r.Intn(5) == 0 {
			v = oneOf(r, pool)
		}
		m[oneOf(r, signalPool[:8])] = v
		if r.Intn(10) == 0 {
			m[oneOf(r, signalPool)] = mangle(r, oneOf(r, pool))
		}
	}
	return m
}

// canonical renders thresholds order-free (upstream's order follows map
// iteration): one sorted line per threshold, "signal operator value grace
// minReclaim", from either side's type through get.
func canonical[T any](ths []T, get func(T) (signal, op string, value string, grace time.Duration, minReclaim string)) []string {
	out := make([]string, len(ths))
	for i, th := range ths {
		signal, op, value, grace, mr := get(th)
		out[i] = fmt.Sprintf("%s %s %s %v %s", signal, op, value, grace, mr)
	}
	sort.Strings(out)
	return out
}

func thresholdValue(q *resource.Quantity, pct float32) string {
	if q != nil {
		return "q" + q.String()
	}
	return fmt.Sprintf("p%v", pct)
}

func canonicalUpstream(ths []evictionapi.Threshold) []string {
	return canonical(ths, func(th evictionapi.Threshold) (string, string, string, time.Duration, string) {
		mr := "-"
		if th.MinReclaim != nil {
			mr = thresholdValue(th.MinReclaim.Quantity, th.MinReclaim.Percentage)
		}
		return string(th.Signal), string(th.Operator), thresholdValue(th.Value.Quantity, th.Value.Percentage), th.GracePeriod, mr
	})
}

func canonicalNodelife(ths []pressure.Threshold) []string {
	return canonical(ths, func(th pressure.Threshold) (string, string, string, time.Duration, string) {
		mr := "-"
		if th.MinReclaim != nil {
			mr = thresholdValue(th.MinReclaim.Quantity, th.MinReclaim.Percentage)
		}
		return string(th.Signal), string(th.Operator), thresholdValue(th.Value.Quantity, th.Value.Percentage), th.GracePeriod, mr
	})
}

func hasNaN(ms ...map[string]string) bool {
	for _, m := range ms {
		for _, v := range m {
			if strings.Contains(strings.ToLower(v), "nan") {
				return true
			}
		}
	}
	return false
}

func TestDifferentialParseThresholdConfig(t *testing.T) {
	c := compare(t, "pressure.ParseThresholdConfig", "pkg/kubelet/eviction.ParseThresholdConfig",
		"0-4 hard, soft, grace-period and minimum-reclaim settings over the signals (unknown and misspelt ones too), values valid, 0%/100%, negative, over 100%, NaN, malformed; enforce-node-allocatable with and without pods")
	r := rand.New(rand.NewSource(32))
	ok := 0
	for i, n := 0, inputs(t); i < n; i++ {
		hard, soft := randomSettings(r, thresholdPool, 9, 3), randomSettings(r, thresholdPool, 9, 2)
		grace := randomSettings(r, gracePool, 4, 2)
		for _, s := range slices.Sorted(maps.Keys(soft)) { // sorted: map order would change the draws
			if r.Intn(4) > 0 {
				grace[s] = oneOf(r, gracePool[:4])
			}
		}
		reclaim := randomSettings(r, reclaimPool, 4, 2)
		var enforce []string
		if r.Intn(2) == 0 {
			enforce = []string{"pods"}
		}
		up, upErr := kubeeviction.ParseThresholdConfig(enforce, hard, soft, grace, reclaim)
		nl, nlErr := pressure.ParseThresholdConfig(enforce, hard, soft, grace, reclaim)
		switch {
		case (upErr == nil) != (nlErr == nil):
			if upErr == nil && hasNaN(hard, soft, reclaim) {
				c.deviate("nan-percentage")
				continue
			}
			c.disagree("hard %v soft %v grace %v reclaim %v: upstream error %v, nodelife error %v", hard, soft, grace, reclaim, upErr, nlErr)
		case upErr != nil:
			c.agree()
		case !slices.Equal(canonicalUpstream(up), canonicalNodelife(nl)):
			c.disagree("hard %v soft %v grace %v reclaim %v:\n upstream %q\n nodelife %q", hard, soft, grace, reclaim, canonicalUpstream(up), canonicalNodelife(nl))
		default:
			ok++
			c.agree()
		}
	}
	t.Logf("%d configurations parsed on both sides", ok)
}

func TestDifferentialIdentityLeaseName(t *testing.T) {
	c := compare(t, "lease.IdentityLeaseName", "k8s.io/apiserver/pkg/server.NewConfig(...).APIServerID (hostname set with SetHostnameFuncForTests)",
		"hostnames: DNS names, empty, upper case, non-ASCII, invalid UTF-8, 64-300 bytes")
	r := rand.New(rand.NewSource(33))
	codecs := serializer.NewCodecFactory(runtime.NewScheme())
	hosts := []string{"", "node-1", "control-plane-0.example.com", "LOCALHOST", "ip-10-0-0-1.ec2.internal", "é", "\xff", strings.Repeat("h", 300)}
	defer genericapiserver.SetHostnameFuncForTests("")
	for i, n := 0, inputs(t); i < n; i++ {
		host := mangle(r, oneOf(r, hosts))
		if r.Intn(2) == 0 {
			host = fmt.Sprintf("node-%d", r.Intn(1_000_000))
		}
		genericapiserver.SetHostnameFuncForTests(host)
		c.check(diffString(genericapiserver.NewConfig(codecs).APIServerID, lease.IdentityLeaseName(host)))
	}
}

func TestDifferentialKubeletLabels(t *testing.T) {
	if up, nl := kubeletapis.KubeletLabels(), conditions.KubeletLabels(); !slices.Equal(slices.Sorted(slices.Values(up)), slices.Sorted(slices.Values(nl))) {
		t.Errorf("KubeletLabels: upstream %q, nodelife %q", up, nl)
	}
	if up, nl := kubeletapis.KubeletLabelNamespaces(), conditions.KubeletLabelNamespaces(); !slices.Equal(slices.Sorted(slices.Values(up)), slices.Sorted(slices.Values(nl))) {
		t.Errorf("KubeletLabelNamespaces: upstream %q, nodelife %q", up, nl)
	}
	c := compare(t, "conditions.IsKubeletLabel", "k8s.io/kubelet/pkg/apis.IsKubeletLabel",
		"label keys: the kubelet's own, their namespaces and subdomains of them, look-alikes (kubernetes.io.evil.com, xkubelet.kubernetes.io), other prefixes, mangled")
	r := rand.New(rand.NewSource(34))
	keys := append(kubeletapis.KubeletLabels(), "kubernetes.io/role", "node-role.kubernetes.io/worker", "node.kubernetes.io/instance-type",
		"kubelet.kubernetes.io/x", "a.kubelet.kubernetes.io/x", "xkubelet.kubernetes.io/x", "node.kubernetes.io/x", "foo.node.kubernetes.io/x",
		"kubernetes.io.evil.com/x", "example.com/x", "x", "", "/", "kubelet.kubernetes.io/", ".kubelet.kubernetes.io/x", "KUBELET.kubernetes.io/x")
	for i, n := 0, inputs(t); i < n; i++ {
		k := mangle(r, oneOf(r, keys))
		c.check(diffBool(k, kubeletapis.IsKubeletLabel(k), conditions.IsKubeletLabel(k)))
	}
}

func TestDifferentialZoneKey(t *testing.T) {
	c := compare(t, "eviction.ZoneKey", "component-helpers/node/topology.GetZoneKey",
		"node labels with the GA and beta zone and region labels each absent, empty or set, values with colons, nil label maps")
	r := rand.New(rand.NewSource(35))
	keys := []string{v1.LabelTopologyZone, v1.LabelFailureDomainBetaZone, v1.LabelTopologyRegion, v1.LabelFailureDomainBetaRegion}
	values := []string{"", "a", "us-east-1a", "eu:west", "b", "\x00"}
	for i, n := 0, inputs(t); i < n; i++ {
		var labels map[string]string
		if r.Intn(10) > 0 {
			labels = map[string]string{}
			for _, k := range keys {
				if r.Intn(2) == 0 {
					labels[k] = oneOf(r, values)
				}
			}
		}
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
		c.check(diffString(topology.GetZoneKey(node), eviction.ZoneKey(labels)))
	}
}

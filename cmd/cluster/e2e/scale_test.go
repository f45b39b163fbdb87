package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/lease"
)

// counting counts the requests of a config's clients.
type counting struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c counting) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(req)
}

// Scale, as kwok does with fake nodes but with nodelife's kubelet
// decisions: many agents renew their leases (10s, with upstream's 4%
// jitter, started spread over the first renew interval) and post status
// against the one in-process API server, on the real clock, while the
// controller watches them all. Each agent has its own node's identity
// (system:node:<name>), so the API server's Node authorizer and
// NodeRestriction pass every request it makes. The controller keeps up when it never
// finds a live node silent: no Ready=Unknown, no taint. Figures: monitor
// pass times, API requests per second, heap. 50 agents for 20s in CI;
// NODELIFE_LONG=1 runs 1,000 for 90s, without the race detector
// (NODELIFE_SCALE_AGENTS and NODELIFE_SCALE_SECONDS override).
func TestScale(t *testing.T) {
	agents, secs := 50, 20
	if os.Getenv("NODELIFE_LONG") == "1" && !raceEnabled {
		agents, secs = 1000, 90
	}
	if v := os.Getenv("NODELIFE_SCALE_AGENTS"); v != "" {
		_, err := fmt.Sscan(v, &agents)
		require.NoError(t, err)
	}
	if v := os.Getenv("NODELIFE_SCALE_SECONDS"); v != "" {
		_, err := fmt.Sscan(v, &secs)
		require.NoError(t, err)
	}
	s := testcluster.Shared(t)
	t.Cleanup(func() { cleanup(t, s.Client, "scale") })
	_, err := s.Client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "scale"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	var agentReqs, ctrlReqs atomic.Int64
	client := func(cfg *rest.Config, n *atomic.Int64) kubernetes.Interface {
		cfg = rest.CopyConfig(cfg)
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return counting{next: rt, n: n} }
		c, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		return c
	}
	ctrlClient := client(s.Config, &ctrlReqs)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	var passes []time.Duration
	var unknown []string
	var stepTimes []time.Duration
	ctrl, err := controller.New(ctrlClient, controller.Options{
		Record: func(a controller.Action) {
			if a.Kind == controller.KindNodeStatus || (a.Kind == controller.KindTaints && len(a.Add) > 0) {
				mu.Lock()
				unknown = append(unknown, a.String())
				mu.Unlock()
			}
		},
		OnStep: func(d time.Duration, pass bool) {
			mu.Lock()
			defer mu.Unlock()
			stepTimes = append(stepTimes, d)
			if pass {
				passes = append(passes, d)
			}
		},
	})
	require.NoError(t, err)
	require.NoError(t, ctrl.Start(ctx))

	var wg sync.WaitGroup
	began := time.Now()
	for i := 0; i < agents; i++ {
		rnd := rand.New(rand.NewSource(int64(i + 1)))
		hc := lease.DefaultHeartbeatConfig(fmt.Sprintf("scale-%04d", i))
		hc.Rand = rnd.Float64
		// Each agent with its own node's certificate and connection, as
		// kubelets: the Node authorizer and NodeRestriction judge each.
		cfg, err := s.NodeConfig(hc.HolderIdentity)
		require.NoError(t, err)
		a, err := agent.New(client(cfg, &agentReqs), agent.Options{NodeName: hc.HolderIdentity, Heartbeat: &hc,
			Labels: map[string]string{corev1.LabelTopologyRegion: "r", corev1.LabelTopologyZone: string(rune('a' + i%3))}})
		require.NoError(t, err)
		delay := time.Duration(rnd.Int63n(int64(hc.RenewInterval())))
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			_ = a.Run(ctx)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = ctrl.Run(ctx)
	}()
	time.Sleep(time.Duration(secs) * time.Second)
	elapsed := time.Since(began)
	cancel()
	wg.Wait()

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	nodes, err := s.Client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	ready := 0
	for _, n := range nodes.Items {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(stepTimes)
	slices.Sort(passes)
	pct := func(xs []time.Duration, p float64) time.Duration {
		if len(xs) == 0 {
			return 0
		}
		return xs[int(float64(len(xs)-1)*p)]
	}
	report := fmt.Sprintf("scale: %d agents for %v: %d Ready; agents %.0f req/s, controller %.0f req/s; controller steps %d (p50 %v, p99 %v, max %v); monitor-pass steps %d (p50 %v, max %v); heap in use %d MiB, sys %d MiB (API server, etcd and all agents in this process)",
		agents, elapsed.Round(time.Second), ready, float64(agentReqs.Load())/elapsed.Seconds(), float64(ctrlReqs.Load())/elapsed.Seconds(),
		len(stepTimes), pct(stepTimes, .5), pct(stepTimes, .99), pct(stepTimes, 1), len(passes), pct(passes, .5), pct(passes, 1),
		ms.HeapInuse>>20, ms.Sys>>20)
	t.Log(report)
	fmt.Println(report)
	require.Equal(t, agents, ready, "every agent's node Ready")
	require.Empty(t, unknown, "the controller kept up: no live node found silent")
}

// Package replaycmd is the replay command: what-if scenarios (connectivity
// loss, graceful and non-graceful shutdown, memory pressure, cloud
// deletion, node conditions under node readiness rules) played by nodelife's simulator on a snapshot of a real
// cluster, read from kubectl's JSON or live, read-only, from the API
// server.
//
//	kubectl get nodes,pods,leases -A -o json > cluster.json
//	go run ./cmd/replay -snapshot cluster.json -outage eu-1b@1m-11m
//	go run ./cmd/replay -kubeconfig ~/.kube/config -shutdown w-1a2@2m -shutdown-grace 60s
//
// It prints the totals, the zones at the end, the workloads that lost
// replicas (when and how many) and every pod the scenarios touched, with
// its fate, the rule that decided it and why; -json prints the whole
// result, -svg draws the timeline, -events lists every event.
//
// A large snapshot is read fastest when the command is given the memory it
// may use: with GOMEMLIMIT set, the collector runs only near that limit
// (replay.TuneCollector). A 100,000-node, 1,000,000-pod snapshot (4.6 GB
// of JSON) holds about 2 GB live; GOMEMLIMIT=3200MiB reads and replays it
// in 43-47 s on 2 cores at 3.2 GiB of peak RSS, against 57-67 s and
// 3.4-3.6 GiB without (a collector target of 50).
package replaycmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/nodelife/nodelife/cmd/cluster/internal/kubeconfig"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/examples/kubeapi/replay"
	"github.com/nodelife/nodelife/examples/kubeapi/snapshot"
	"github.com/nodelife/nodelife/internal/quantity"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/sim"
	"github.com/nodelife/nodelife/taints"
)

// ErrNoKubeconfig is wrapped when the kubeconfig file does not exist.
var ErrNoKubeconfig = errors.New("replay: no kubeconfig")

// ErrUnauthorized is wrapped when the API server refuses the kubeconfig's
// credentials (invalid or expired).
var ErrUnauthorized = errors.New("replay: unauthorized")

// ProgressNodes is the snapshot size from which the command reports its
// progress on stderr (unless -quiet).
const ProgressNodes = 10_000

// applySettings sets cfg's cluster settings: the release's defaults
// (replay.Preset), then every settings flag given on the command line.
func applySettings(fs *flag.FlagSet, cfg *sim.Config, version string) error {
	if _, err := replay.Preset(cfg, version); err != nil {
		return err
	}
	lc := cfg.Controller
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		v := g.Get()
		switch f.Name {
		case "node-monitor-period":
			lc.NodeMonitorPeriod = v.(time.Duration)
		case "node-monitor-grace-period":
			lc.NodeMonitorGracePeriod = v.(time.Duration)
		case "node-startup-grace-period":
			lc.NodeStartupGracePeriod = v.(time.Duration)
		case "node-eviction-rate":
			lc.NodeEvictionRate = v.(float64)
		case "secondary-node-eviction-rate":
			lc.SecondaryNodeEvictionRate = v.(float64)
		case "unhealthy-zone-threshold":
			lc.UnhealthyZoneThreshold = float32(v.(float64))
		case "large-cluster-size-threshold":
			lc.LargeClusterSizeThreshold = v.(int)
		case "node-lease-duration-seconds":
			if n := v.(int); n < 1 || n > math.MaxInt32 {
				errs = append(errs, fmt.Errorf("%w: -node-lease-duration-seconds %d: want a positive number of seconds", replay.ErrSetting, n))
			} else {
				cfg.NodeLeaseDurationSeconds = int32(n)
			}
		case "default-not-ready-toleration-seconds":
			s := v.(int64)
			cfg.NotReadyTolerationSeconds = &s
		case "default-unreachable-toleration-seconds":
			s := v.(int64)
			cfg.UnreachableTolerationSeconds = &s
		}
	})
	if err := lc.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// maxBytes reads -max-input-bytes: a positive quantity of bytes.
func maxBytes(v string) (int64, error) {
	q, err := quantity.Parse(v)
	if err != nil {
		return 0, fmt.Errorf("%w: -max-input-bytes %q: %v", replay.ErrSetting, v, err)
	}
	n, ok := q.AsInt64()
	if !ok || n <= 0 {
		return 0, fmt.Errorf("%w: -max-input-bytes %q: want a positive whole number of bytes, e.g. 16Gi", replay.ErrSetting, v)
	}
	return n, nil
}

// specs is a repeatable string flag.
type specs []string

// String joins the values.
func (s *specs) String() string { return strings.Join(*s, " ") }

// Set appends a value.
func (s *specs) Set(v string) error { *s = append(*s, v); return nil }

// Main is the replay command: it parses args, runs, and returns the exit
// code (0 ok, 1 failure, 2 bad usage).
func Main(args []string, stdout, stderr io.Writer) int {
	return MainWith(context.Background(), nil, args, stdout, stderr)
}

// MainWith is Main with a client configuration to read a live cluster
// from instead of a kubeconfig (tests pass the in-process API server's).
func MainWith(ctx context.Context, live *rest.Config, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var outages, shutdowns, pressures, deletions, condSpecs specs
	snapPath := fs.String("snapshot", "", "kubectl get nodes,pods,leases -A -o json (or -o yaml) output, or kubectl cluster-info dump's, gzip-compressed or not: a file, - for standard input, or a directory (cluster-info dump --output-directory)")
	kc := fs.String("kubeconfig", "", "read the cluster live, read-only, with this kubeconfig (instead of -snapshot)")
	kctx := fs.String("context", "", "kubeconfig context (default: the current one)")
	duration := fs.Duration("duration", 30*time.Minute, "simulated time")
	seed := fs.Int64("seed", 1, "seed of the kubelets' start offsets and heartbeat jitter; 0: none")
	fs.Var(&outages, "outage", "SEL@FROM-TO: the nodes lose the API server (repeatable; SEL: zone, zone/n, or node+node)")
	fs.Var(&shutdowns, "shutdown", "SEL@AT[/OOS]: the nodes shut down at AT; the out-of-service taint at OOS (repeatable)")
	grace := fs.Duration("shutdown-grace", 0, "kubelet shutdownGracePeriod for -shutdown (0: no graceful shutdown)")
	graceCritical := fs.Duration("shutdown-grace-critical", 0, "kubelet shutdownGracePeriodCriticalPods for -shutdown")
	byPriority := fs.String("shutdown-grace-by-priority", "", "kubelet shutdownGracePeriodByPodPriority, as PRIORITY=PERIOD,... (e.g. 100000=20s,0=10s)")
	resolve := fs.Bool("resolve-priority-class", false, "for -shutdown: a pod without spec.priority (a static pod) gets its priorityClassName's value, from the snapshot's priority classes (not upstream: kubernetes#113940)")
	fs.Var(&pressures, "pressure", "NODE@FROM-TO:AVAILABLE: memory.available on NODE drops to AVAILABLE (repeatable)")
	usage := fs.Float64("usage-ratio", 1, "pods' working set as a multiple of their memory request, for -pressure")
	fs.Var(&deletions, "cloud-delete", "SEL@AT: the nodes' instances are deleted from the cloud at AT (repeatable)")
	rulesPath := fs.String("readiness-rules", "", "NodeReadinessRule objects (kubectl get nodereadinessrules -o yaml or -o json) enforced beside the node lifecycle controller; every node starts with the rules' conditions met")
	fs.Var(&condSpecs, "condition", "SEL@FROM-TO:TYPE=STATUS: the nodes post condition TYPE at STATUS from FROM to TO, e.g. b/2@1m-5m:cni.example.com/NetworkReady=False (repeatable)")
	asJSON := fs.Bool("json", false, "print the whole result as JSON (sim.Result's fields; durations as Go duration strings, null for never: see package replay)")
	svg := fs.String("svg", "", "write the timeline as SVG to this file")
	events := fs.Bool("events", false, "print every event before the summary")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	maxInput := fs.String("max-input-bytes", quantity.Bytes(snapshot.DefaultMaxBytes), "the most bytes -snapshot may hold after decompression, over all its files (a quantity; the default fits 1,000,000 pods of 10 KB each); more is an error as soon as it is read, whatever the compression")
	noPlacement := fs.Bool("no-placement", false, "assume every replacement finds room at once (by default each is placed, roughly as kube-scheduler would, on a node whose kubelet admits it, or waits)")
	// The cluster's settings, under upstream's names; the defaults shown
	// are v1.37's, and -kubernetes-version changes the ones that differ.
	dc := nodelifecycle.DefaultConfig()
	version := fs.String("kubernetes-version", release.Current.String(), "the release whose kube-controller-manager defaults to start from (1.27 to 1.37; before 1.37 no lease circuit breaker, before 1.32 --node-monitor-grace-period is 40s, before 1.29 the unreachable taint follows the Unknown rewrite one monitor period later); the flags below override them")
	fs.Duration("node-monitor-period", dc.NodeMonitorPeriod, "kube-controller-manager --node-monitor-period")
	fs.Duration("node-monitor-grace-period", dc.NodeMonitorGracePeriod, "kube-controller-manager --node-monitor-grace-period")
	fs.Duration("node-startup-grace-period", dc.NodeStartupGracePeriod, "kube-controller-manager --node-startup-grace-period")
	fs.Float64("node-eviction-rate", dc.NodeEvictionRate, "kube-controller-manager --node-eviction-rate (nodes per second per zone)")
	fs.Float64("secondary-node-eviction-rate", dc.SecondaryNodeEvictionRate, "kube-controller-manager --secondary-node-eviction-rate")
	fs.Float64("unhealthy-zone-threshold", shortestFloat64(dc.UnhealthyZoneThreshold), "kube-controller-manager --unhealthy-zone-threshold")
	fs.Int("large-cluster-size-threshold", dc.LargeClusterSizeThreshold, "kube-controller-manager --large-cluster-size-threshold")
	fs.Int("node-lease-duration-seconds", int(lease.DefaultNodeLeaseDurationSeconds), "kubelet nodeLeaseDurationSeconds (the kubelet renews every quarter of it)")
	fs.Int64("default-not-ready-toleration-seconds", taints.DefaultTolerationSeconds, "kube-apiserver --default-not-ready-toleration-seconds, for pods that lack the toleration")
	fs.Int64("default-unreachable-toleration-seconds", taints.DefaultTolerationSeconds, "kube-apiserver --default-unreachable-toleration-seconds, for pods that lack the toleration")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: replay (-snapshot file|dir | -kubeconfig file) [scenarios] [-duration 30m] [-json] [-svg file] [-events]")
		fmt.Fprintln(stderr, "Plays outages, shutdowns, memory pressure, cloud deletions and node conditions under readiness rules on a snapshot of a real cluster with")
		fmt.Fprintln(stderr, "nodelife's decisions, and reports which pods go, when, by which rule, and what each workload loses.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*snapPath == "") == (*kc == "" && live == nil) {
		fmt.Fprintln(stderr, "replay: give exactly one of -snapshot and -kubeconfig")
		fs.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, err)
		return 1
	}
	progress := func(format string, args ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, "replay: "+format+"\n", args...)
		}
	}

	var snap *snapshot.Snapshot
	var err error
	if *snapPath != "" {
		limit, lerr := maxBytes(*maxInput)
		if lerr != nil {
			return fail(lerr)
		}
		if st, err := os.Stat(*snapPath); err == nil && st.Size() >= 100<<20 {
			progress("reading %s (%d MB)", *snapPath, st.Size()>>20)
		}
		var ws []snapshot.Warning
		snap, ws, err = snapshot.LoadWith(*snapPath, snapshot.Options{MaxBytes: limit, ReplayOnly: true, Progress: func(read int64, objects int) {
			if read >= 100<<20 {
				progress("reading: %d MB, %d nodes, pods and leases so far", read>>20, objects)
			}
		}})
		if errors.Is(err, snapshot.ErrTooLarge) {
			err = fmt.Errorf("%w; -max-input-bytes raises the limit", err)
		}
		for _, w := range ws {
			fmt.Fprintln(stderr, "replay: warning:", w)
		}
	} else {
		cfg := live
		if cfg == nil {
			var who kubeconfig.Identity
			if cfg, who, err = kubeconfig.LoadNamed(*kc, *kctx, "replay", ErrNoKubeconfig); err != nil {
				return fail(err)
			}
			snap, err = Live(ctx, cfg)
			if apierrors.IsUnauthorized(err) {
				err = who.Refused(ErrUnauthorized, err)
			}
		} else {
			snap, err = Live(ctx, cfg)
		}
	}
	if err != nil {
		return fail(err)
	}
	if err := snap.Validate(); err != nil {
		return fail(err)
	}
	big := len(snap.Nodes) >= ProgressNodes
	if big {
		progress("read %d nodes, %d pods, %d leases", len(snap.Nodes), snap.PodCount(), len(snap.Leases))
	}
	c := snap.Cluster()

	cfg := sim.Config{Cluster: c, Duration: *duration, Seed: *seed, Placement: !*noPlacement}
	if err := applySettings(fs, &cfg, *version); err != nil {
		return fail(err)
	}
	graceful := shutdown.Config{ShutdownGracePeriod: *grace, ShutdownGracePeriodCriticalPods: *graceCritical}
	if *resolve {
		graceful.ResolvePriorityClass = true
		graceful.PriorityClasses = map[string]int32{}
		for _, pc := range snap.PriorityClasses {
			graceful.PriorityClasses[pc.Name] = pc.Value
		}
	}
	if *byPriority != "" {
		if graceful.ShutdownGracePeriodByPodPriority, err = parseByPriority(*byPriority); err != nil {
			return fail(err)
		}
	}
	for _, s := range outages {
		o, err := replay.ParseOutage(c, s)
		if err != nil {
			return fail(err)
		}
		cfg.Outages = append(cfg.Outages, o)
	}
	for _, s := range shutdowns {
		sd, err := replay.ParseShutdown(c, s, graceful)
		if err != nil {
			return fail(err)
		}
		cfg.Shutdowns = append(cfg.Shutdowns, sd)
	}
	for _, s := range pressures {
		p, err := replay.ParsePressure(c, s, *usage)
		if err != nil {
			return fail(err)
		}
		cfg.Pressures = append(cfg.Pressures, p)
	}
	if *rulesPath != "" {
		data, err := os.ReadFile(*rulesPath)
		if err != nil {
			return fail(err)
		}
		if cfg.ReadinessRules, err = kubeapi.ReadinessRules(data); err != nil {
			return fail(err)
		}
	}
	for _, s := range condSpecs {
		ep, err := replay.ParseCondition(c, s)
		if err != nil {
			return fail(err)
		}
		cfg.ConditionEpisodes = append(cfg.ConditionEpisodes, ep)
	}
	for _, s := range deletions {
		d, err := replay.ParseCloudDeletion(c, s)
		if err != nil {
			return fail(err)
		}
		cfg.CloudDeletions = append(cfg.CloudDeletions, d)
	}
	if big && !*quiet {
		cfg.Progress = func(done, total time.Duration) { progress("simulated %v of %v", done, total) }
	}
	res, err := sim.Run(cfg)
	if err != nil {
		return fail(err)
	}
	if w := replay.OrphanWarning(res); w != "" {
		fmt.Fprintln(stderr, "replay: warning:", w)
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, []byte(res.SVG()), 0o644); err != nil {
			return fail(err)
		}
	}
	if *asJSON {
		data, err := replay.MarshalResult(res)
		if err != nil {
			return fail(err)
		}
		stdout.Write(data)
		return 0
	}
	if *events {
		if err := replay.WriteEvents(stdout, res); err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout)
	}
	if err := replay.WriteSummary(stdout, res); err != nil {
		return fail(err)
	}
	return 0
}

// parseByPriority reads PRIORITY=PERIOD,...
func parseByPriority(v string) ([]shutdown.PhaseConfig, error) {
	var out []shutdown.PhaseConfig
	for _, part := range strings.Split(v, ",") {
		p, d, ok := strings.Cut(strings.TrimSpace(part), "=")
		var pc shutdown.PhaseConfig
		if !ok {
			return nil, fmt.Errorf("replay: -shutdown-grace-by-priority %q: want PRIORITY=PERIOD, got %q", v, part)
		}
		if _, err := fmt.Sscan(p, &pc.Priority); err != nil {
			return nil, fmt.Errorf("replay: -shutdown-grace-by-priority %q: priority %q: %v", v, p, err)
		}
		period, err := time.ParseDuration(d)
		if err != nil || period%time.Second != 0 || period < 0 {
			return nil, fmt.Errorf("replay: -shutdown-grace-by-priority %q: period %q is not a whole, non-negative number of seconds", v, d)
		}
		pc.ShutdownGracePeriodSeconds = int64(period / time.Second)
		out = append(out, pc)
	}
	return out, nil
}

// Live reads a snapshot from the API server, read-only: every node and
// pod, the leases of kube-node-lease and the priority classes, listed in
// pages of 500.
func Live(ctx context.Context, cfg *rest.Config) (*snapshot.Snapshot, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	nodes, err := list(ctx, "nodes", func(o metav1.ListOptions) ([]corev1.Node, string, error) {
		l, err := client.CoreV1().Nodes().List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return nil, err
	}
	pods, err := list(ctx, "pods", func(o metav1.ListOptions) ([]corev1.Pod, string, error) {
		l, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return nil, err
	}
	leases, err := list(ctx, "leases", func(o metav1.ListOptions) ([]coordinationv1.Lease, string, error) {
		l, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return nil, err
	}
	classes, err := list(ctx, "priorityclasses", func(o metav1.ListOptions) ([]schedulingv1.PriorityClass, string, error) {
		l, err := client.SchedulingV1().PriorityClasses().List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	if err != nil {
		return nil, err
	}
	return snapshot.New(nodes, pods, leases, classes), nil
}

// list reads every page of one resource, with an error naming it.
func list[T any](ctx context.Context, what string, page func(metav1.ListOptions) ([]T, string, error)) ([]*T, error) {
	var out []*T
	opts := metav1.ListOptions{Limit: 500}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, next, err := page(opts)
		if err != nil {
			return nil, fmt.Errorf("replay: listing %s: %w", what, err)
		}
		for i := range items {
			out = append(out, &items[i])
		}
		if next == "" {
			return out, nil
		}
		opts.Continue = next
	}
}

// shortestFloat64 returns the float64 that prints as the float32 x is
// written (0.55 for float32(0.55), not 0.550000011920929), so a flag's
// default reads as a person would write it and converts back to x.
func shortestFloat64(x float32) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return f
}

package nodewatch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/internal/kubeconfig"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/lease"
)

// Options configure Run.
type Options struct {
	// Kubeconfig is the kubeconfig file ("" means $KUBECONFIG, then
	// ~/.kube/config); Context is the context in it ("" means current).
	Kubeconfig, Context string
	// Config, when set, is used instead of a kubeconfig.
	Config *rest.Config
	// Apply makes the command act: it runs the controller against the
	// cluster for Horizon, writing taints, node status and evictions.
	// Without it nothing is written.
	Apply bool
	// Horizon is how far ahead to plan, or how long to act (10m when 0).
	Horizon time.Duration
	// Controller is the decision configuration (controller.DefaultConfig
	// when nil).
	Controller *controller.Config
	// Clock is the command's clock (the real one when nil).
	Clock clock.Clock
	// Sleep waits for d on Clock; nil waits on a Clock timer. Tests pass
	// one that moves a fake clock on.
	Sleep func(ctx context.Context, d time.Duration) error
	// Out receives the report.
	Out io.Writer
}

// The errors Run reports, wrapped with the details.
var (
	// ErrNoKubeconfig: the kubeconfig file does not exist.
	ErrNoKubeconfig = errors.New("nodewatch: no kubeconfig")
	// ErrUnreachable: the API server did not answer.
	ErrUnreachable = errors.New("nodewatch: cannot reach the API server")
	// ErrForbidden: the user may not do what the mode needs.
	ErrForbidden = errors.New("nodewatch: forbidden")
	// ErrUnauthorized: the API server refused the credentials (invalid or
	// expired: the server answers both with 401).
	ErrUnauthorized = errors.New("nodewatch: unauthorized")
)

// Main is the nodewatch command: it parses args and runs, and returns the
// exit code (0 ok, 1 failure, 2 bad usage).
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nodewatch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&o.Context, "context", "", "kubeconfig context (default: the current one)")
	fs.BoolVar(&o.Apply, "apply", false, "act: taint nodes, write node status and evict pods (default: print the plan, write nothing)")
	fs.DurationVar(&o.Horizon, "horizon", 10*time.Minute, "how far ahead to plan, or how long to act with -apply")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: nodewatch [-kubeconfig file] [-context name] [-horizon 10m] [-apply]")
		fmt.Fprintln(stderr, "Prints each node's health and what nodelife's node lifecycle controller would do from now on:")
		fmt.Fprintln(stderr, "the taints it would add or remove and the pods it would evict, when. Writes nothing unless -apply.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || o.Horizon <= 0 {
		fs.Usage()
		return 2
	}
	o.Out = stdout
	if err := Run(context.Background(), o); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// restConfig loads the kubeconfig, with a clear error when there is none,
// and names whom it connects as.
func restConfig(o Options) (*rest.Config, kubeconfig.Identity, error) {
	if o.Config != nil {
		return o.Config, kubeconfig.Identity{Server: o.Config.Host, User: "(given)", Context: "(given)", Path: "(no file)"}, nil
	}
	return kubeconfig.LoadNamed(o.Kubeconfig, o.Context, "nodewatch", ErrNoKubeconfig)
}

// need is one permission a mode needs.
type need struct {
	verb, resource, subresource, group, namespace string
}

func (n need) String() string {
	r := n.resource
	if n.group != "" {
		r += "." + n.group
	}
	if n.subresource != "" {
		r += "/" + n.subresource
	}
	where := "all namespaces"
	if n.namespace != "" {
		where = "namespace " + n.namespace
	}
	if n.resource == "nodes" {
		where = "cluster"
	}
	return fmt.Sprintf("%s %s (%s)", n.verb, r, where)
}

var (
	readNeeds = []need{
		{verb: "list", resource: "nodes"}, {verb: "watch", resource: "nodes"},
		{verb: "list", resource: "pods"}, {verb: "watch", resource: "pods"},
		{verb: "list", resource: "leases", group: "coordination.k8s.io", namespace: lease.NodeLeaseNamespace},
		{verb: "watch", resource: "leases", group: "coordination.k8s.io", namespace: lease.NodeLeaseNamespace},
	}
	applyNeeds = []need{
		{verb: "get", resource: "nodes"}, {verb: "update", resource: "nodes"}, {verb: "update", resource: "nodes", subresource: "status"},
		{verb: "get", resource: "pods"}, {verb: "update", resource: "pods", subresource: "status"}, {verb: "delete", resource: "pods"},
	}
)

// checkAccess asks the API server, with SelfSubjectAccessReviews, whether
// the user may do what the mode needs, and names every refused verb.
func checkAccess(ctx context.Context, client kubernetes.Interface, apply bool) error {
	needs := readNeeds
	if apply {
		needs = append(slices.Clone(readNeeds), applyNeeds...)
	}
	var denied []string
	for _, n := range needs {
		r, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: n.verb, Resource: n.resource, Subresource: n.subresource, Group: n.group, Namespace: n.namespace}},
		}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("nodewatch: checking permissions: %w", err)
		}
		if !r.Status.Allowed {
			denied = append(denied, n.String())
		}
	}
	if len(denied) > 0 {
		mode := "the read-only mode"
		if apply {
			mode = "-apply"
		}
		return fmt.Errorf("%w: %s needs %s; this user may not: %s", ErrForbidden, mode, strings.Join(needStrings(needs), ", "), strings.Join(denied, ", "))
	}
	return nil
}

func needStrings(ns []need) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.String()
	}
	return out
}

// Run reports the cluster's nodes and the controller's plan from now,
// or with Apply acts on it for Horizon.
func Run(ctx context.Context, o Options) error {
	if o.Horizon <= 0 {
		o.Horizon = 10 * time.Minute
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	cfg := controller.DefaultConfig()
	if o.Controller != nil {
		cfg = *o.Controller
	}
	rc, who, err := restConfig(o)
	if err != nil {
		return err
	}
	host := rc.Host
	rc = rest.CopyConfig(rc)
	if rc.Timeout == 0 {
		rc.Timeout = 30 * time.Second
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("nodewatch: %w", err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		if apierrors.IsUnauthorized(err) {
			return who.Refused(ErrUnauthorized, err)
		}
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, host, err)
	}
	if err := checkAccess(ctx, client, o.Apply); err != nil {
		return err
	}
	snap, err := controller.List(ctx, client)
	if err != nil {
		return fmt.Errorf("nodewatch: %w", err)
	}
	start := o.Clock.Now()
	report(o.Out, snap, start)
	if !o.Apply {
		acts, err := controller.Plan(ctx, cfg, snap, start, o.Horizon)
		if err != nil {
			return fmt.Errorf("nodewatch: %w", err)
		}
		fmt.Fprintf(o.Out, "\nplan for the next %v, if this controller started now (read-only: nothing was written; -apply acts):\n", o.Horizon)
		for _, a := range acts {
			fmt.Fprintln(o.Out, Line(a, start))
		}
		if len(acts) == 0 {
			fmt.Fprintln(o.Out, "  nothing to do")
		}
		return nil
	}
	return apply(ctx, client, cfg, o, start)
}

// apply runs the controller step by step for the horizon, each step on
// informers caught up with the API server, printing what it does.
func apply(ctx context.Context, client kubernetes.Interface, cfg controller.Config, o Options, start time.Time) error {
	fmt.Fprintf(o.Out, "\nacting for %v (-apply):\n", o.Horizon)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := controller.New(client, controller.Options{Config: &cfg, Clock: o.Clock,
		Record: func(a controller.Action) { fmt.Fprintln(o.Out, Line(a, start)) }})
	if err != nil {
		return fmt.Errorf("nodewatch: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("nodewatch: %w", err)
	}
	sleep := o.Sleep
	if sleep == nil {
		sleep = func(ctx context.Context, d time.Duration) error {
			t := o.Clock.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C():
				return nil
			}
		}
	}
	end := start.Add(o.Horizon)
	for {
		if err := c.WaitCaughtUp(ctx); err != nil {
			return fmt.Errorf("nodewatch: %w", err)
		}
		next, err := c.Step(ctx)
		if err != nil {
			return fmt.Errorf("nodewatch: %w", err)
		}
		now := o.Clock.Now()
		if next.IsZero() || next.After(end) {
			next = end
		}
		if !now.Before(end) {
			return nil
		}
		if err := sleep(ctx, next.Sub(now)); err != nil {
			return err
		}
	}
}

// report prints one line per node: zone, Ready, lease age, taints, pods.
func report(w io.Writer, s controller.Snapshot, now time.Time) {
	pods := map[string]int{}
	for _, p := range s.Pods {
		if p.DeletionTimestamp == nil {
			pods[p.Spec.NodeName]++
		}
	}
	nodes := slices.Clone(s.Nodes)
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	fmt.Fprintf(w, "%d nodes, %d bound pods\n", len(nodes), len(s.Pods))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tZONE\tREADY\tLEASE RENEWED\tPODS\tTAINTS")
	for _, n := range nodes {
		ready := string(kubeapi.ReadyStatus(n))
		if ready == "" {
			ready = "none"
		}
		renewed := "no lease"
		if l := s.Leases[n.Name]; l != nil && l.Spec.RenewTime != nil {
			renewed = now.Sub(l.Spec.RenewTime.Time).Round(time.Second).String() + " ago"
		}
		var ts []string
		for _, t := range n.Spec.Taints {
			ts = append(ts, t.Key+":"+string(t.Effect))
		}
		zone := eviction.ZoneName(eviction.ZoneKey(n.Labels))
		if zone == "" {
			zone = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", n.Name, zone, ready, renewed, pods[n.Name], strings.Join(ts, ","))
	}
	tw.Flush()
}

// Line formats an action with its time from start: "  +55s  Taint ...".
// A scheduled eviction shows when it is due instead of its message.
func Line(a controller.Action, start time.Time) string {
	at := "+" + a.At.Sub(start).Round(time.Millisecond).String()
	if a.Kind == controller.KindSchedule {
		a.Message = ""
		return fmt.Sprintf("  %7s  %s (due +%v)", at, a, a.Due.Sub(start).Round(time.Millisecond))
	}
	return fmt.Sprintf("  %7s  %s", at, a)
}

package replay

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/sim"
)

// ErrSpec is wrapped by every error about a scenario spec.
var ErrSpec = errors.New("replay: invalid scenario")

func specError(flag, spec, format string, args ...any) error {
	return wrapSpec(sim.SpecError(flag, spec, format, args...))
}

// Select resolves a node selector against the cluster: a zone name (as
// sim.Cluster.Zones prints it, or its zone part), optionally followed by
// "/n" for the zone's first n nodes; otherwise node names joined by "+"
// (sim.ClusterSelector).
func Select(c *sim.Cluster, sel string) (zone string, count int, names []string, err error) {
	return sim.ClusterSelector(c)(sel)
}

// cut splits "SEL@REST".
func cut(flag, spec string) (sel, rest string, err error) {
	sel, rest, err = sim.CutSpec(flag, spec)
	return sel, rest, wrapSpec(err)
}

// window parses "FROM-TO" ("FROM-" lasts to the end).
func window(flag, spec, s string) (from, to time.Duration, err error) {
	from, to, err = sim.ParseWindow(flag, spec, s)
	return from, to, wrapSpec(err)
}

// wrapSpec marks an error of the shared grammar as a replay spec error.
func wrapSpec(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrSpec, err)
}

// ParseOutage reads --outage SEL@FROM-TO (sim.ParseOutage, the grammar the
// simulate command takes too): the selected nodes lose their connection to
// the API server from FROM to TO (TO empty: to the end).
func ParseOutage(c *sim.Cluster, spec string) (sim.Outage, error) {
	o, err := sim.ParseOutage(spec, sim.ClusterSelector(c))
	return o, wrapSpec(err)
}

// ParseShutdown reads --shutdown SEL@AT[/OOS]: the selected nodes shut
// down at AT, gracefully when graceful enables it; OOS is when the
// out-of-service taint is added.
func ParseShutdown(c *sim.Cluster, spec string, graceful shutdown.Config) (sim.Shutdown, error) {
	sel, rest, err := cut("--shutdown", spec)
	if err != nil {
		return sim.Shutdown{}, err
	}
	s := sim.Shutdown{Graceful: graceful}
	if s.Zone, s.Nodes, s.Names, err = Select(c, sel); err != nil {
		return s, specError("--shutdown", spec, "%v", err)
	}
	at, oos, hasOOS := strings.Cut(rest, "/")
	if s.At, err = time.ParseDuration(at); err != nil {
		return s, specError("--shutdown", spec, "%v", err)
	}
	if hasOOS {
		if s.OutOfServiceAt, err = time.ParseDuration(oos); err != nil {
			return s, specError("--shutdown", spec, "out-of-service time: %v", err)
		}
		if s.OutOfServiceAt <= s.At {
			return s, specError("--shutdown", spec, "the out-of-service taint (%v) must come after the shutdown (%v)", s.OutOfServiceAt, s.At)
		}
	}
	return s, nil
}

// ParsePressure reads --pressure NODE@FROM-TO:AVAILABLE: memory.available
// on NODE drops to AVAILABLE (a quantity, e.g. 50Mi) from FROM to TO.
func ParsePressure(c *sim.Cluster, spec string, usageRatio float64) (sim.Pressure, error) {
	sel, rest, err := cut("--pressure", spec)
	if err != nil {
		return sim.Pressure{}, err
	}
	_, _, names, err := Select(c, sel)
	if err != nil || len(names) != 1 {
		if err == nil {
			err = errors.New("select one node by name")
		}
		return sim.Pressure{}, specError("--pressure", spec, "%v", err)
	}
	w, avail, ok := strings.Cut(rest, ":")
	if !ok {
		return sim.Pressure{}, specError("--pressure", spec, "want NODE@FROM-TO:AVAILABLE, e.g. w-1@3m-8m:50Mi")
	}
	p := sim.Pressure{Node: names[0], UsageRatio: usageRatio}
	if p.From, p.To, err = window("--pressure", spec, w); err != nil {
		return p, err
	}
	q, err := resource.ParseQuantity(avail)
	if err != nil || q.Sign() < 0 {
		return p, specError("--pressure", spec, "available memory %q is not a non-negative quantity", avail)
	}
	p.AvailableBytes = uint64(q.Value())
	return p, nil
}

// ParseCloudDeletion reads --cloud-delete SEL@AT: the selected nodes'
// instances are deleted from the cloud at AT.
func ParseCloudDeletion(c *sim.Cluster, spec string) (sim.CloudDeletion, error) {
	sel, rest, err := cut("--cloud-delete", spec)
	if err != nil {
		return sim.CloudDeletion{}, err
	}
	var d sim.CloudDeletion
	if d.Zone, d.Nodes, d.Names, err = Select(c, sel); err != nil {
		return d, specError("--cloud-delete", spec, "%v", err)
	}
	if d.At, err = time.ParseDuration(rest); err != nil {
		return d, specError("--cloud-delete", spec, "%v", err)
	}
	return d, nil
}

// NameWidth is the most characters a name takes in WriteSummary's
// tables; a longer one (a static pod named after a long node name, say)
// is shortened in the middle, keeping its start and its end, so that one
// name does not widen a whole table. -json prints every name whole.
const NameWidth = 48

// shorten returns name, or its first and last characters around "…" when
// it has more than NameWidth, and whether it shortened it.
func shorten(name string) (string, bool) {
	r := []rune(name)
	if len(r) <= NameWidth {
		return name, false
	}
	head := (NameWidth - 1) / 2
	tail := NameWidth - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:]), true
}

// WriteSummary writes the run's summary: totals, zones at the end, the
// workloads that lost replicas and the pods the scenarios touched. Names
// longer than NameWidth are shortened in the middle, said under the
// tables.
func WriteSummary(w io.Writer, res sim.Result) error {
	cut := false
	name := func(s string) string {
		out, shortened := shorten(s)
		cut = cut || shortened
		return out
	}
	t := res.Totals
	refused := ""
	if t.Refused > 0 {
		what := "objects"
		if t.Refused == 1 {
			what = "object"
		}
		refused = fmt.Sprintf(" (and %d %s left out as invalid, see the warnings)", t.Refused, what)
	}
	fmt.Fprintf(w, "%d nodes, %d pods in the snapshot%s: %d simulated, %d not%s; %v simulated\n", t.Nodes, t.Pods+t.Skipped, refused, t.Pods, t.Skipped, skippedWhy(t), res.Duration)
	if err := WriteSettings(w, res); err != nil {
		return err
	}
	fmt.Fprintf(w, "evicted by taints %d, killed by graceful shutdown %d, evicted under node pressure %d, force deleted by the pod GC %d, nodes deleted %d, evictions cancelled %d\n",
		t.Evicted, t.Killed, t.PressureEvicted, t.ForceDeleted, t.NodesDeleted, t.Cancelled)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nZONE\tNODES\tREADY AT END\tNOT READY\tUNKNOWN\tNOEXECUTE-TAINTED\tPODS STOPPED\tSTATE")
	if k := len(res.Timeline); k > 0 {
		for z, zs := range res.Timeline[k-1].Zones {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", name(zs.Zone), res.ZoneNodes[z], zs.Ready, zs.NotReady, zs.Unknown, zs.Tainted, zs.Evicted, zs.State)
		}
	}
	if len(res.Workloads) > 0 {
		fmt.Fprintln(tw, "\nWORKLOAD\tREPLICAS\tMOST LOST AT ONCE\tREPLICA-TIME LOST\tOF IT WITHOUT ROOM\tMOST WITHOUT ROOM\tLOST OVER TIME")
		for _, wl := range res.Workloads {
			var pts []string
			for _, p := range wl.Lost {
				pts = append(pts, fmt.Sprintf("%s:%d", when(p.At), p.Lost))
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%v\t%d\t%s\n", name(wl.Name), wl.Replicas, wl.MaxLost, wl.LostTime, wl.LostForRoom, wl.MostPending, strings.Join(pts, " "))
		}
	}
	if len(res.Pods) > 0 {
		fmt.Fprintln(tw, "\nPOD\tNODE\tFATE\tAT\tRULE\tGONE\tREPLACED\tON\tLOST\tWHY")
		var pending []string
		for _, p := range res.Pods {
			at := "-"
			if p.Fate != "spared" {
				at = when(p.At)
			}
			on := p.PlacedOn
			switch {
			case p.Pending != "":
				on = "(pending)"
				pending = append(pending, p.Pod+": "+p.Pending)
			case on == "":
				on = "-"
			default:
				on = name(on)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%v\t%s\n", name(p.Pod), name(p.Node), p.Fate, at, p.Rule, when(p.GoneAt), when(p.ReplacedAt), on, p.Lost, p.Detail)
		}
		if len(pending) > 0 {
			fmt.Fprintln(tw, "\nREPLACEMENTS STILL PENDING AT THE END")
			for _, p := range pending {
				fmt.Fprintln(tw, p)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cut {
		_, err := fmt.Fprintf(w, "\n(names longer than %d characters are shortened in the middle; -json prints them whole)\n", NameWidth)
		return err
	}
	return nil
}

// skippedWhy says why pods were not simulated: " (1 not scheduled, 2
// finished, 1 bound to a node not in the snapshot)", or "".
func skippedWhy(t sim.Totals) string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{t.Unscheduled, "not scheduled"}, {t.Finished, "finished"}, {t.Orphaned, "bound to a node not in the snapshot"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// OrphanWarning is the warning about pods bound to nodes the snapshot
// does not have: how many, and the first few with their node; "" when
// there are none.
func OrphanWarning(res sim.Result) string {
	const first = 5
	n := len(res.Orphans)
	if n == 0 {
		return ""
	}
	var names []string
	for _, o := range res.Orphans[:min(n, first)] {
		names = append(names, o.Pod+" (node "+o.Node+")")
	}
	more := ""
	if n > first {
		more = fmt.Sprintf(" and %d more", n-first)
	}
	verb := "pods are"
	if n == 1 {
		verb = "pod is"
	}
	return fmt.Sprintf("%d %s bound to a node not in the snapshot and not simulated: %s%s", n, verb, strings.Join(names, ", "), more)
}

// when prints a time since the start to the millisecond, "-" for never
// (-1).
func when(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return d.Round(time.Millisecond).String()
}

// WriteEvents writes every event, one per line.
func WriteEvents(w io.Writer, res sim.Result) error {
	for _, e := range res.Events {
		if _, err := fmt.Fprintf(w, "%10s  %-16s %-26s %s\n", when(e.At), e.Kind, e.Reason, e.Message); err != nil {
			return err
		}
	}
	return nil
}

// ParseCondition reads --condition SEL@FROM-TO:TYPE=STATUS: the selected
// nodes post the node condition TYPE at STATUS (True, False or Unknown)
// from FROM to TO, then its status before (what node readiness rules,
// --readiness-rules, react to).
func ParseCondition(c *sim.Cluster, spec string) (sim.ConditionEpisode, error) {
	sel, rest, err := cut("--condition", spec)
	if err != nil {
		return sim.ConditionEpisode{}, err
	}
	var ep sim.ConditionEpisode
	if ep.Zone, ep.Nodes, ep.Names, err = Select(c, sel); err != nil {
		return ep, specError("--condition", spec, "%v", err)
	}
	w, cond, ok := strings.Cut(rest, ":")
	typ, status, okEq := strings.Cut(cond, "=")
	if !ok || !okEq || typ == "" {
		return ep, specError("--condition", spec, "want SEL@FROM-TO:TYPE=STATUS, e.g. b/2@1m-5m:cni.example.com/NetworkReady=False")
	}
	ep.Type, ep.Status = conditions.Type(typ), conditions.Status(status)
	if !ep.Status.Valid() {
		return ep, specError("--condition", spec, "status %q is not True, False or Unknown", status)
	}
	if ep.From, ep.To, err = window("--condition", spec, w); err != nil {
		return ep, err
	}
	return ep, nil
}

package scenario

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Start is the simulated wall-clock time every scenario begins at.
var Start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Options tune a scenario run. The zero value runs the scenario as the tour
// shows it.
type Options struct {
	// Size scales the scenario where it has a natural size (see
	// Scenario.SizeHelp); 0 means the scenario's default. Scenarios without
	// a size ignore it.
	Size int
	// Seed feeds the scenario's random choices (heartbeat jitter in the
	// zone outage, election retry jitter); 0 means no randomness at all, which
	// keeps the tour's times round and checkable by hand.
	Seed int64
	// Progress, when set, receives one line now and then during the longer
	// runs. It never receives the report itself.
	Progress io.Writer
}

// Event is one thing that happened in a scenario.
type Event struct {
	// At is the time since the scenario's start; meaningful only when
	// Timed.
	At time.Duration
	// Timed is false for facts that have no time (a cgroup path, say).
	Timed bool
	// Kind groups events for machines: "taint", "evict", "phase", "lease",
	// "plan", ...
	Kind string
	// Object names what the event is about (a node, a pod, a zone, an
	// image), if anything.
	Object string
	// Reason is the machine-readable reason nodelife returned, if any.
	Reason string
	// Message is the sentence printed for people.
	Message string
}

// Report is what a scenario returns: a title, its events in order, and
// the figures that sum it up.
type Report struct {
	// Name is the scenario's name ("zone-outage").
	Name string
	// Title is a one-line description of the setup.
	Title string
	// Events are in the order they happened.
	Events []Event
	// Summary holds named totals (nodes tainted, pods evicted, ...), in
	// the order they were added.
	Summary []Figure
}

// Figure is one named total of a report.
type Figure struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
	// Unit is "bytes" for an amount of bytes, which the text prints as a
	// quantity (14Gi); empty for a count.
	Unit string `json:"unit,omitempty"`
}

// at adds a timed event.
func (r *Report) at(d time.Duration, kind, object, reason, format string, args ...any) {
	r.Events = append(r.Events, Event{At: d, Timed: true, Kind: kind, Object: object, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// fact adds an event without a time.
func (r *Report) fact(kind, object, reason, format string, args ...any) {
	r.Events = append(r.Events, Event{Kind: kind, Object: object, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// figure adds a summary figure.
func (r *Report) figure(name string, v int64) {
	r.Summary = append(r.Summary, Figure{Name: name, Value: v})
}

// bytesFigure adds a summary figure counting bytes.
func (r *Report) bytesFigure(name string, v int64) {
	r.Summary = append(r.Summary, Figure{Name: name, Value: v, Unit: "bytes"})
}

// String prints the figure as the text report does: "evicted 1",
// "image GC freed 14Gi".
func (f Figure) String() string {
	if f.Unit == "bytes" {
		return f.Name + " " + gib(f.Value)
	}
	return f.Name + " " + strconv.FormatInt(f.Value, 10)
}

// Offset formats a time since the start as the reports print it, in
// seconds to the millisecond without trailing zeros: "+105s", "+604.6s",
// "+47.042s".
func Offset(d time.Duration) string {
	return "+" + strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', -1, 64) + "s"
}

// WriteText prints the report for people: a "== name: title" line, one
// line per event (timed ones prefixed with their offset), then the summary.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "== %s: %s\n", r.Name, r.Title)
	for _, e := range r.Events {
		if e.Timed {
			fmt.Fprintf(&b, "  %8s  %s\n", Offset(e.At), e.Message)
		} else {
			fmt.Fprintf(&b, "  %s\n", e.Message)
		}
	}
	if len(r.Summary) > 0 {
		parts := make([]string, len(r.Summary))
		for i, f := range r.Summary {
			parts[i] = f.String()
		}
		fmt.Fprintf(&b, "  -- %s\n", strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonEvent is the JSON form of an Event: the time in seconds, absent for
// untimed facts.
type jsonEvent struct {
	AtSeconds *float64 `json:"at_seconds,omitempty"`
	Kind      string   `json:"kind"`
	Object    string   `json:"object,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Message   string   `json:"message"`
}

// MarshalJSON encodes the report as {"name", "title", "events",
// "summary"}, each event with "at_seconds" (when timed), "kind",
// "object", "reason" and "message".
func (r Report) MarshalJSON() ([]byte, error) {
	events := make([]jsonEvent, len(r.Events))
	for i, e := range r.Events {
		events[i] = jsonEvent{Kind: e.Kind, Object: e.Object, Reason: e.Reason, Message: e.Message}
		if e.Timed {
			s := e.At.Seconds()
			events[i].AtSeconds = &s
		}
	}
	return json.Marshal(struct {
		Name    string      `json:"name"`
		Title   string      `json:"title"`
		Events  []jsonEvent `json:"events"`
		Summary []Figure    `json:"summary,omitempty"`
	}{r.Name, r.Title, events, r.Summary})
}

// Scenario is one entry of the tour.
type Scenario struct {
	// Name is what -scenario takes.
	Name string
	// About says in one line what it shows.
	About string
	// SizeHelp says what Options.Size means for it; "" when it has no size.
	SizeHelp string
	// Run runs it.
	Run func(Options) (Report, error)
}

// All returns the tour's scenarios in tour order.
func All() []Scenario {
	return []Scenario{
		{"taints", "a node registers with taints, is edited with kubectl's grammar, and pods are checked against it", "", Taints},
		{"zone-outage", "one zone of three loses connectivity: Unknown, taints at the zone's rate, evictions, recovery", "nodes per zone (default 50)", ZoneOutage},
		{"shutdown", "a graceful node shutdown with pod-priority phases", "", Shutdown},
		{"disk-pressure", "image GC, dead-container trim, then node-pressure eviction ranking", "pods on the node (default 6)", DiskPressure},
		{"leader-election", "a leader stops renewing its lease and another candidate takes over", "candidates (default 2)", LeaderElection},
		{"cascading-delete", "a Deployment deleted under each propagation policy", "pods per ReplicaSet (default 2)", CascadingDelete},
		{"cgroup", "cgroup names and values of a Burstable pod under systemd and cgroupfs", "", Cgroup},
		{"cloud-node", "a node initialized by the cloud controller manager, routed, shut down, then deleted from the cloud", "", CloudNode},
		{"readiness", "a continuous readiness rule taints the nodes whose CNI agent crashed; pods that do not tolerate it are evicted", "", Readiness},
		{"numa", "a Guaranteed pod on a two-socket machine under each topology manager policy: CPU and memory hints, merge, allocation", "", NUMA},
	}
}

// Find returns the scenario called name.
func Find(name string) (Scenario, bool) {
	for _, s := range All() {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// Names lists the scenarios' names in tour order.
func Names() []string {
	var names []string
	for _, s := range All() {
		names = append(names, s.Name)
	}
	return names
}

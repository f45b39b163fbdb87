package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"time"
)

// FaultType is a fault's class, as the InfiniteHBD trace writes it: a
// level ("Hardware Failure", "Software Failure"), a class ("GPU", "NIC",
// ...) and a description ("GPU xid Error").
type FaultType struct {
	Level string `json:"Level"`
	Class string `json:"Class"`
	Desc  string `json:"Desc"`
}

// FaultWindow is one fault of one node: from Start, when the node became
// unavailable, to End, when it was repaired (Ongoing: not repaired by the
// trace's end, End then meaningless). Times are from the trace's start.
type FaultWindow struct {
	Node       string
	Start, End time.Duration
	Ongoing    bool
	Type       FaultType
}

// Day is the unit of the InfiniteHBD trace's event_time.
const Day = 24 * time.Hour

// ReadFaultsFile reads a fault trace from the file at path.
func ReadFaultsFile(path string) ([]FaultWindow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	return ReadFaults(f, path)
}

// faultEvent is one element of the trace's array.
type faultEvent struct {
	Node *string    `json:"node_id"`
	Time *float64   `json:"event_time"`
	Kind *string    `json:"event_type"`
	Type *FaultType `json:"fault_type"`
}

// maxFaultDays bounds event_time so that it fits a time.Duration.
const maxFaultDays = 100000

// ReadFaults reads a fault trace in the format of StepFun's InfiniteHBD
// trace (SIGCOMM'25): a JSON array of events, each with node_id,
// event_time (days from the trace's start, at least 0, in order),
// event_type (fault_start or fault_end) and fault_type (Level, Class,
// Desc). A fault_end closes the earliest open fault_start of the same node
// and fault type; a node may have faults of other types open meanwhile
// (the windows then overlap, and the node is down while any is open). The
// windows are returned in the order of their starts; a start never ended
// is Ongoing. name names the input in errors, which give the line and
// column of the event at fault.
func ReadFaults(r io.Reader, name string) ([]FaultWindow, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("trace: %s: %w", name, err)
	}
	at := func(off int64) string {
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		col := int(off) - bytes.LastIndexByte(data[:off], '\n')
		return fmt.Sprintf("%s:%d:%d", name, line, col)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '[' {
		return nil, fmt.Errorf("%w: %s: want a JSON array of fault events", ErrMalformed, at(skipSpace(data, 0)))
	}
	type key struct {
		node string
		typ  FaultType
	}
	open := map[key][]int{}
	var out []FaultWindow
	var last float64
	for dec.More() {
		off := skipSpace(data, dec.InputOffset())
		var e faultEvent
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, at(off), err)
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s: %s", ErrMalformed, at(off), fmt.Sprintf(format, args...))
		}
		switch {
		case e.Node == nil || *e.Node == "":
			return nil, bad("no node_id")
		case e.Time == nil:
			return nil, bad("no event_time")
		case e.Kind == nil:
			return nil, bad("no event_type")
		case e.Type == nil:
			return nil, bad("no fault_type")
		case math.IsNaN(*e.Time) || *e.Time < 0 || *e.Time > maxFaultDays:
			return nil, bad("event_time %v: want days from 0 to %d", *e.Time, maxFaultDays)
		case *e.Time < last:
			return nil, bad("event_time %v before the event before it (%v): want events in time order", *e.Time, last)
		}
		last = *e.Time
		t := time.Duration(math.Round(*e.Time * float64(Day)))
		k := key{*e.Node, *e.Type}
		switch *e.Kind {
		case "fault_start":
			open[k] = append(open[k], len(out))
			out = append(out, FaultWindow{Node: *e.Node, Start: t, Ongoing: true, Type: *e.Type})
		case "fault_end":
			if len(open[k]) == 0 {
				return nil, bad("fault_end of node %s (%s/%s/%s) with no fault_start of that type open", *e.Node, e.Type.Level, e.Type.Class, e.Type.Desc)
			}
			w := &out[open[k][0]]
			open[k] = open[k][1:]
			w.End, w.Ongoing = t, false
		default:
			return nil, bad("event_type %q: want fault_start or fault_end", *e.Kind)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, at(skipSpace(data, dec.InputOffset())), err)
	}
	return out, nil
}

// skipSpace returns the offset of the first byte at or after off that is
// not JSON white space or a comma.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	return off
}

// AssignFaults puts a fault trace's windows on a cluster's nodes: the
// trace's node ids, sorted, are given the cluster's nodes in the order of
// a random permutation drawn from seed (the cluster's names sorted
// first), the k-th trace node the k-th node of that order, wrapping
// around when the trace has more nodes than the cluster (those cluster
// nodes then take the faults of several). Each window keeps its times
// and type; the result is in the order of windows. A cluster without
// nodes gets no windows.
func AssignFaults(windows []FaultWindow, nodes []string, seed int64) []FaultWindow {
	if len(nodes) == 0 {
		return nil
	}
	var ids []string
	for _, w := range windows {
		ids = append(ids, w.Node)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	order := slices.Clone(nodes)
	slices.Sort(order)
	rand.New(rand.NewSource(seed)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	to := make(map[string]string, len(ids))
	for k, id := range ids {
		to[id] = order[k%len(order)]
	}
	out := slices.Clone(windows)
	for i := range out {
		out[i].Node = to[out[i].Node]
	}
	return out
}

// ScaleFaults multiplies the windows' times by factor (a 348-day trace
// scaled by 149/348 fits a 149-day run; the repairs shrink with it).
// factor must be positive and finite.
func ScaleFaults(windows []FaultWindow, factor float64) ([]FaultWindow, error) {
	if factor <= 0 || math.IsInf(factor, 0) || math.IsNaN(factor) {
		return nil, fmt.Errorf("trace: scale factor %v: want a positive finite number", factor)
	}
	out := slices.Clone(windows)
	scale := func(d time.Duration) time.Duration {
		v := float64(d) * factor
		if v >= math.MaxInt64 {
			return math.MaxInt64
		}
		return time.Duration(v)
	}
	for i := range out {
		out[i].Start, out[i].End = scale(out[i].Start), scale(out[i].End)
	}
	return out, nil
}

// CutFaults keeps the windows that start before until, ending those
// still open at until at until (Ongoing then false).
func CutFaults(windows []FaultWindow, until time.Duration) []FaultWindow {
	var out []FaultWindow
	for _, w := range windows {
		if w.Start >= until {
			continue
		}
		if w.Ongoing || w.End > until {
			w.End, w.Ongoing = until, false
		}
		out = append(out, w)
	}
	return out
}

package sim

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The scenario grammar shared by the simulate command and the replay:
// SEL@FROM-TO for an outage, where SEL names nodes (a zone, "zone/n" for
// its first n nodes, or node names joined by "+") and FROM-TO is a window
// of durations from the start ("FROM-" lasts to the end).

// Selector resolves the SEL of a spec: a zone and how many of its nodes
// (0: all), or node names.
type Selector func(sel string) (zone string, count int, names []string, err error)

// SpecError is the error of a spec given to flag: `--flag "spec": detail`.
func SpecError(flag, spec, format string, args ...any) error {
	return fmt.Errorf("%s %q: %s", flag, spec, fmt.Sprintf(format, args...))
}

// CutSpec splits "SEL@REST".
func CutSpec(flag, spec string) (sel, rest string, err error) {
	sel, rest, ok := strings.Cut(strings.TrimSpace(spec), "@")
	if !ok {
		return "", "", SpecError(flag, spec, "want SELECTOR@TIME")
	}
	return sel, rest, nil
}

// ParseWindow parses the "FROM-TO" part of spec ("FROM-" lasts to the end).
func ParseWindow(flag, spec, s string) (from, to time.Duration, err error) {
	f, t, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, SpecError(flag, spec, "want FROM-TO, e.g. 1m-11m")
	}
	if from, err = time.ParseDuration(f); err != nil {
		return 0, 0, SpecError(flag, spec, "%v", err)
	}
	if t != "" {
		if to, err = time.ParseDuration(t); err != nil {
			return 0, 0, SpecError(flag, spec, "%v", err)
		}
	}
	return from, to, nil
}

// ParseOutage reads an --outage spec, SEL@FROM-TO: the nodes sel selects
// lose the API server from FROM to TO (TO empty: to the end of the run).
// Errors name the flag, the spec and the bad part.
func ParseOutage(spec string, sel Selector) (Outage, error) {
	s, rest, err := CutSpec("--outage", spec)
	if err != nil {
		return Outage{}, err
	}
	var o Outage
	if o.Zone, o.Nodes, o.Names, err = sel(s); err != nil {
		return o, SpecError("--outage", spec, "%v", err)
	}
	o.From, o.To, err = ParseWindow("--outage", spec, rest)
	return o, err
}

// SyntheticZones is the Selector of a synthetic cluster of n zones, a, b,
// ...: a zone's letter, or "letter/count" for its first count nodes.
func SyntheticZones(n int) Selector {
	return func(sel string) (string, int, []string, error) {
		zone, count, hasCount := strings.Cut(sel, "/")
		if len(zone) != 1 || zone[0] < 'a' || int(zone[0]-'a') >= n {
			return "", 0, nil, fmt.Errorf("%q is not one of the %d zones (a to %c)", zone, n, rune('a'+max(n, 1)-1))
		}
		c := 0
		if hasCount {
			if _, err := fmt.Sscan(count, &c); err != nil || c < 1 {
				return "", 0, nil, fmt.Errorf("node count %q is not a positive number", count)
			}
		}
		return zone, c, nil, nil
	}
}

// errNoNodes is the error of an empty selector.
var errNoNodes = errors.New("no nodes selected")

// ClusterSelector is the Selector of an explicit cluster: a zone name as
// Cluster.Zones prints it (or its zone part), optionally followed by "/n"
// for the zone's first n nodes; otherwise node names joined by "+".
func ClusterSelector(c *Cluster) Selector {
	return func(sel string) (zone string, count int, names []string, err error) {
		if sel == "" {
			return "", 0, nil, errNoNodes
		}
		// The count follows the last "/", so that "region/zone/n" works too.
		base, n, hasCount := sel, "", false
		if i := strings.LastIndex(sel, "/"); i >= 0 {
			base, n, hasCount = sel[:i], sel[i+1:], true
		}
		for _, z := range c.Zones() {
			for _, cand := range []string{sel, base} {
				if MatchZone(cand, z) {
					if cand == base && hasCount {
						if _, err := fmt.Sscan(n, &count); err != nil || count < 1 {
							return "", 0, nil, fmt.Errorf("node count %q is not a positive number", n)
						}
					}
					return cand, count, nil, nil
				}
			}
		}
		known := map[string]bool{}
		for _, node := range c.Nodes {
			known[node.Name] = true
		}
		for _, name := range strings.Split(sel, "+") {
			if !known[name] {
				return "", 0, nil, fmt.Errorf("%q is neither a zone (%s) nor a node of the snapshot", name, strings.Join(c.Zones(), ", "))
			}
			names = append(names, name)
		}
		return "", 0, names, nil
	}
}

package sim

import (
	"encoding/xml"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// SVG draws the run's timeline: one panel per zone where something
// happened, time across, with the fraction of the zone's nodes not Ready
// (orange), NoExecute-tainted (red) and the fraction of its pods evicted
// so far (blue), and the scenarios' windows shaded behind (Result.Windows,
// named in a tooltip and above the panel). Zones where nothing happened
// (no node ever not Ready or tainted, no pod stopped, no scenario) share
// one line of text. For an explicit cluster, each zone panel also marks
// when its pods stopped (a tick per pod under the panel, colored by fate),
// and a last panel draws the replicas lost over time by the workloads that
// lost the most (replica time), up to eight, saying how many more there
// are. Legend lines longer than the picture is wide are cut with "…" and
// kept whole in a tooltip. The output is plain SVG 1.1 and the same for
// the same Result.
func (res Result) SVG() string {
	const (
		width, left, right = 900, 60, 20
		panel, gap, top    = 110, 30, 40
		charW              = 6.2 // the width of an 11px sans-serif character, roughly
	)
	plotW := float64(width - left - right)
	busy, quiet := res.busyZones()
	height := top + len(busy)*(panel+gap) + 20
	if len(quiet) > 0 {
		height += 20
	}
	wls, more := topWorkloads(res.Workloads, 8)
	if len(wls) > 0 {
		height += panel + gap + 16*len(wls)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13">fraction of each zone's nodes not Ready (orange) and NoExecute-tainted (red), and of its pods evicted (blue)</text>`+"\n", left)
	x := func(d time.Duration) float64 {
		if res.Duration <= 0 {
			return float64(left)
		}
		return float64(left) + plotW*float64(d)/float64(res.Duration)
	}
	tick := time.Minute
	for res.Duration/tick > 15 {
		tick *= 2
	}
	fit := func(text string, px float64) string {
		max := int(px / charW)
		if r := []rune(text); len(r) > max && max > 1 {
			return escape(string(r[:max-1])+"…") + "<title>" + escape(text) + "</title>"
		}
		return escape(text)
	}
	if len(quiet) > 0 {
		var names []string
		nodes, pods := 0, 0
		for _, z := range quiet {
			names = append(names, res.Zones[z])
			nodes += res.ZoneNodes[z]
			pods += res.ZonePods[z]
		}
		line := fmt.Sprintf("%s where nothing happened (%s, %s): %s", plural(len(quiet), "zone"), plural(nodes, "node"), plural(pods, "pod"), strings.Join(names, ", "))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666">%s</text>`+"\n", left, top-6, fit(line, float64(width-left-right)))
	}
	offset := 0
	if len(quiet) > 0 {
		offset = 20
	}
	for k, z := range busy {
		name := res.Zones[z]
		y0 := float64(top + offset + k*(panel+gap))
		y := func(frac float64) float64 { return y0 + float64(panel)*(1-frac) }
		nodes, pods := res.ZoneNodes[z], res.ZonePods[z]
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12">zone %s <tspan fill="#666">(%d nodes, %d pods)</tspan></text>`+"\n", left, y0-5, escape(name), nodes, pods)
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panel)
		for _, w := range res.Windows {
			if !slices.Contains(w.Zones, name) {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s" fill-opacity="0.15"><title>%s from %v to %v</title></rect>`+"\n",
				x(w.From), y0, max(x(w.To)-x(w.From), 2), panel, windowColors[w.Kind], escape(w.Label), w.From, w.To)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555" font-size="10">%s</text>`+"\n", x(w.From)+2, y0+11, fit(w.Label, float64(width-right)-x(w.From)-4))
		}
		for t := time.Duration(0); t <= res.Duration; t += tick {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x(t), y0, x(t), y0+float64(panel))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#666">%s</text>`+"\n", x(t), y0+float64(panel)+12, t)
		}
		series := []struct {
			color string
			value func(ZoneSample) float64
		}{
			{"#f39c12", func(s ZoneSample) float64 { return ratio(s.NotReady+s.Unknown, nodes) }},
			{"#c0392b", func(s ZoneSample) float64 { return ratio(s.Tainted, nodes) }},
			{"#2e86c1", func(s ZoneSample) float64 { return ratio(s.Evicted, pods) }},
		}
		for _, s := range series {
			var pts []string
			for _, smp := range res.Timeline {
				if z < len(smp.Zones) {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(smp.At), y(s.value(smp.Zones[z]))))
				}
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
		}
		for _, p := range res.Pods {
			if p.Zone == name && p.Fate != "spared" {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"><title>%s %s at %v</title></line>`+"\n",
					x(p.At), y0+float64(panel)-8, x(p.At), y0+float64(panel), fateColors[p.Fate], escape(p.Pod), p.Fate, p.At)
			}
		}
	}
	if len(wls) > 0 {
		y0 := float64(top + offset + len(busy)*(panel+gap))
		most := 1
		for _, w := range wls {
			most = max(most, w.MaxLost)
		}
		y := func(n int) float64 { return y0 + float64(panel)*(1-float64(n)/float64(most)) }
		shown := ""
		if more > 0 {
			shown = fmt.Sprintf("; the %d that lost the most replica-time, %d more not shown", len(wls), more)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12">replicas lost per workload <tspan fill="#666">(0 to %d%s)</tspan></text>`+"\n", left, y0-5, most, shown)
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panel)
		for k, w := range wls {
			color := workloadColors[k%len(workloadColors)]
			pts := []string{fmt.Sprintf("%.1f,%.1f", x(0), y(0))}
			last := 0
			for _, p := range w.Lost {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(p.At), y(last), x(p.At), y(p.Lost)))
				last = p.Lost
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(res.Duration), y(last)))
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", color, strings.Join(pts, " "))
			ly := y0 + float64(panel) + 28 + float64(16*k)
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", left, ly-4, left+20, ly-4, color)
			text := fmt.Sprintf("%s: %s, at most %d lost, %v replica-time", w.Name, plural(w.Replicas, "replica"), w.MaxLost, w.LostTime)
			if w.LostForRoom > 0 {
				text += fmt.Sprintf(" (%v of it without room)", w.LostForRoom)
			}
			fmt.Fprintf(&b, `<text x="%d" y="%.1f">%s</text>`+"\n", left+26, ly, fit(text, float64(width-right-left-26)))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// ratio is n/d, 0 when d is 0.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// fateColors color the pod ticks.
var fateColors = map[string]string{"evicted": "#2e86c1", "killed": "#8e44ad", "pressure-evicted": "#d35400", "deleted": "#2c3e50"}

// workloadColors color the workload lines.
var workloadColors = []string{"#c0392b", "#2e86c1", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#f1c40f"}

// topWorkloads returns up to n workloads that lost replicas, most replica
// time first (ties by name), and how many more lost some.
func topWorkloads(ws []Workload, n int) ([]Workload, int) {
	var out []Workload
	for _, w := range ws {
		if w.MaxLost > 0 {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LostTime > out[j].LostTime })
	if len(out) > n {
		return out[:n], len(out) - n
	}
	return out, 0
}

// busyZones splits the zones (indices, in order) into those where
// something happened and the quiet rest.
func (res Result) busyZones() (busy, quiet []int) {
	for z, name := range res.Zones {
		happened := slices.ContainsFunc(res.Windows, func(w Window) bool { return slices.Contains(w.Zones, name) }) ||
			slices.ContainsFunc(res.Pods, func(p Outcome) bool { return p.Zone == name && p.Fate != "spared" })
		for _, s := range res.Timeline {
			if z < len(s.Zones) {
				zs := s.Zones[z]
				happened = happened || zs.NotReady+zs.Unknown+zs.Tainted+zs.Evicted > 0
			}
		}
		if happened {
			busy = append(busy, z)
		} else {
			quiet = append(quiet, z)
		}
	}
	return busy, quiet
}

// plural is "1 replica", "3 replicas".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// windowColors shade the scenario windows.
var windowColors = map[string]string{"outage": "#7f8c8d", "shutdown": "#8e44ad", "pressure": "#d35400", "cloud-delete": "#2c3e50"}

// escape makes s safe inside SVG text.
func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

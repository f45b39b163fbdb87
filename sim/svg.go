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
// named in a tooltip and above the panel). The three lines are drawn wide
// (orange), medium (red) and thin (blue), one over the other, so that
// where they coincide each still shows, and the panel's title says which
// coincide for how long. Zones where nothing happened (no node ever not
// Ready or tainted, no pod stopped, no scenario) share one line of text.
// For an explicit cluster, each zone panel also marks when its pods
// stopped (a tick per pod under the panel, colored by fate), and a last
// panel gives each of the workloads that lost the most (replica time, up
// to eight) a lane of its own with its replicas lost over time, under a
// lane that counts the workloads short at once (all of them, those not
// drawn included). Every text longer than the room for it is cut with
// "…" and kept whole in a tooltip (<title>). The output is plain SVG 1.1
// and the same for the same Result.
func (res Result) SVG() string {
	const (
		width, left, right = 900, 60, 20
		panel, gap, top    = 110, 30, 48
		lane               = 34 // a workload's lane: a line of text over its lost replicas
	)
	plotW := float64(width - left - right)
	busy, quiet := res.busyZones()
	wls, more := topWorkloads(res.Workloads, 8)
	offset := 0
	if len(quiet) > 0 {
		offset = 20
	}
	height := top + offset + len(busy)*(panel+gap) + 10
	if len(wls) > 0 {
		height += (len(wls)+1)*lane + gap + 20
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	x := func(d time.Duration) float64 {
		if res.Duration <= 0 {
			return float64(left)
		}
		return float64(left) + plotW*float64(d)/float64(res.Duration)
	}
	ticks := func(y0 float64) {
		tick := time.Minute
		for res.Duration/tick > 15 {
			tick *= 2
		}
		for t := time.Duration(0); t <= res.Duration; t += tick {
			anchor := "middle"
			if x(t)+float64(len(t.String()))*charW/2 > width-2 {
				anchor = "end"
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s" fill="#666">%s</text>`+"\n", x(t), y0+12, anchor, t)
		}
	}
	grid := func(y0, h float64) {
		tick := time.Minute
		for res.Duration/tick > 15 {
			tick *= 2
		}
		for t := time.Duration(0); t <= res.Duration; t += tick {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x(t), y0, x(t), y0+h)
		}
	}
	// The legend: each series drawn as it is in the panels.
	lx := float64(left)
	fmt.Fprintf(&b, `<text x="%.1f" y="18" font-size="13">each zone, as a fraction:</text>`+"\n", lx)
	lx += 13 * 0.6 * float64(len("each zone, as a fraction: "))
	for _, s := range zoneSeries {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="14" x2="%.1f" y2="14" stroke="%s" stroke-width="%g"/>`+"\n", lx, lx+22, s.color, s.width)
		fmt.Fprintf(&b, `<text x="%.1f" y="18">%s</text>`+"\n", lx+27, s.name)
		lx += 27 + charW*float64(len(s.name)) + 16
	}
	fmt.Fprintf(&b, `<text x="%d" y="34" fill="#666">where lines coincide, the wider shows around the narrower; ticks under a panel are pods stopping (hover for the pod)</text>`+"\n", left)
	if len(quiet) > 0 {
		var names []string
		nodes, pods := 0, 0
		for _, z := range quiet {
			names = append(names, res.Zones[z])
			nodes += res.ZoneNodes[z]
			pods += res.ZonePods[z]
		}
		line := fmt.Sprintf("%s where nothing happened (%s, %s): %s", plural(len(quiet), "zone"), plural(nodes, "node"), plural(pods, "pod"), strings.Join(names, ", "))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666">%s</text>`+"\n", left, top+6, fit(line, plotW, 11))
	}
	for k, z := range busy {
		name := res.Zones[z]
		y0 := float64(top + offset + 20 + k*(panel+gap))
		y := func(frac float64) float64 { return y0 + float64(panel)*(1-frac) }
		nodes, pods := res.ZoneNodes[z], res.ZonePods[z]
		values := make([][]float64, len(zoneSeries))
		for i, s := range zoneSeries {
			for _, smp := range res.Timeline {
				if z < len(smp.Zones) {
					values[i] = append(values[i], s.value(smp.Zones[z], nodes, pods))
				}
			}
		}
		title := fmt.Sprintf("zone %s (%d nodes, %d pods)", name, nodes, pods)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12">%s</text>`+"\n", left, y0-5, fit(title, plotW/2, 12))
		if c := res.coinciding(values); c != "" {
			room := plotW - min(float64(len([]rune(title)))*12*em, plotW/2) - 16 // what the title leaves
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-size="10" fill="#555">%s</text>`+"\n", float64(left)+plotW, y0-5, fit(c, room, 10))
		}
		fmt.Fprintf(&b, `<rect class="panel" x="%d" y="%.1f" width="%.1f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panel)
		shaded := 0
		for _, w := range res.Windows {
			if !slices.Contains(w.Zones, name) {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s" fill-opacity="0.15"><title>%s from %v to %v</title></rect>`+"\n",
				x(w.From), y0, max(x(w.To)-x(w.From), 2), panel, windowColors[w.Kind], escape(w.Label), w.From, w.To)
			// one line each, so that labels of windows that start close
			// together do not overprint (the first six; all in tooltips)
			if shaded < 6 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555" font-size="10">%s</text>`+"\n", x(w.From)+2, y0+11+float64(11*shaded), fit(w.Label, float64(width-right)-x(w.From)-4, 10))
			}
			shaded++
		}
		grid(y0, float64(panel))
		ticks(y0 + float64(panel))
		for i, s := range zoneSeries {
			var pts []string
			k := 0
			for _, smp := range res.Timeline {
				if z < len(smp.Zones) {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(smp.At), y(values[i][k])))
					k++
				}
			}
			fmt.Fprintf(&b, `<polyline class="series" fill="none" stroke="%s" stroke-width="%g" stroke-linejoin="round" points="%s"><title>%s</title></polyline>`+"\n", s.color, s.width, strings.Join(pts, " "), s.name)
		}
		for _, p := range res.Pods {
			if p.Zone == name && p.Fate != "spared" {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"><title>%s %s at %v</title></line>`+"\n",
					x(p.At), y0+float64(panel)-8, x(p.At), y0+float64(panel), fateColors[p.Fate], escape(p.Pod), p.Fate, p.At)
			}
		}
	}
	if len(wls) > 0 {
		y0 := float64(top + offset + 20 + len(busy)*(panel+gap))
		most := 1
		for _, w := range wls {
			most = max(most, w.MaxLost)
		}
		shown := ""
		if more > 0 {
			shown = fmt.Sprintf("; the %d that lost the most replica-time, %d more not shown", len(wls), more)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12">replicas lost per workload <tspan fill="#666">(a lane each, 0 to %d%s)</tspan></text>`+"\n", left, y0-5, most, shown)
		h := float64((len(wls) + 1) * lane)
		fmt.Fprintf(&b, `<rect class="panel" x="%d" y="%.1f" width="%.1f" height="%.0f" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, h)
		grid(y0, h)
		// step draws a count over time as a filled step line in a lane
		// whose bottom is at base, full height at most.
		step := func(base float64, points []LostPoint, most int, color, tip string) {
			yv := func(n int) float64 { return base - 18*float64(n)/float64(most) }
			pts := []string{fmt.Sprintf("%.1f,%.1f", x(0), yv(0))}
			last := 0
			for _, p := range points {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(p.At), yv(last), x(p.At), yv(p.Lost)))
				last = p.Lost
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(res.Duration), yv(last)))
			fmt.Fprintf(&b, `<polygon fill="%s" fill-opacity="0.25" points="%s %.1f,%.1f"/>`+"\n", color, strings.Join(pts, " "), x(0), base)
			fmt.Fprintf(&b, `<polyline class="series" fill="none" stroke="%s" stroke-width="2" points="%s"><title>%s</title></polyline>`+"\n", color, strings.Join(pts, " "), escape(tip))
		}
		short, atMost, from := shortAtOnce(res.Workloads)
		text := fmt.Sprintf("workloads short at once: at most %d", atMost)
		if atMost > 0 {
			text += fmt.Sprintf(", from %v", from)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="10" fill="#333">%s</text>`+"\n", left+4, y0+11, fit(text, plotW-8, 10))
		step(y0+float64(lane)-2, short, max(atMost, 1), "#34495e", text)
		for k, w := range wls {
			base := y0 + float64((k+2)*lane)
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, base-float64(lane), float64(left)+plotW, base-float64(lane))
			color := workloadColors[k%len(workloadColors)]
			text := fmt.Sprintf("%s: %s, at most %d lost, %v replica-time", w.Name, plural(w.Replicas, "replica"), w.MaxLost, w.LostTime)
			if w.LostForRoom > 0 {
				text += fmt.Sprintf(" (%v of it without room)", w.LostForRoom)
			}
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="10">%s</text>`+"\n", left+4, base-float64(lane)+11, fit(text, plotW-8, 10))
			step(base-2, w.Lost, most, color, w.Name)
		}
		ticks(y0 + h)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// em is the width of an average character as a fraction of the font
// size, generously: the widest common sans fonts (DejaVu Sans, librsvg's
// and Chromium's default on Linux) average about 0.6.
const em = 0.63

// charW is the width of an 11px character.
const charW = 11 * em

// fit escapes text for SVG and, when it is wider than px at the font size
// size, cuts it with "…" and keeps the whole text in a tooltip.
func fit(text string, px, size float64) string {
	max := int(px / (size * em))
	if r := []rune(text); len(r) > max && max > 1 {
		return escape(string(r[:max-1])+"…") + "<title>" + escape(text) + "</title>"
	}
	return escape(text)
}

// zoneSeries are the lines of a zone panel, widest first: each is drawn
// over the one before, so that where they coincide all three show.
var zoneSeries = []struct {
	name  string
	color string
	width float64
	value func(s ZoneSample, nodes, pods int) float64
}{
	{"nodes not Ready", "#f39c12", 7, func(s ZoneSample, nodes, _ int) float64 { return ratio(s.NotReady+s.Unknown, nodes) }},
	{"nodes NoExecute-tainted", "#c0392b", 3.5, func(s ZoneSample, nodes, _ int) float64 { return ratio(s.Tainted, nodes) }},
	{"pods evicted", "#2e86c1", 1.5, func(s ZoneSample, _, pods int) float64 { return ratio(s.Evicted, pods) }},
}

// coinciding says which of a panel's lines lie on each other above zero,
// and for how long: "lines coincide: not Ready = tainted for 8m50s". Samples
// where both are zero do not count: every line starts there.
func (res Result) coinciding(values [][]float64) string {
	var parts []string
	for i := 0; i < len(values); i++ {
		for j := i + 1; j < len(values); j++ {
			var same time.Duration
			for k := 1; k < len(values[i]) && k < len(values[j]) && k < len(res.Timeline); k++ {
				if values[i][k] == values[j][k] && values[i][k] > 0 {
					same += res.Timeline[k].At - res.Timeline[k-1].At
				}
			}
			if same > 0 {
				parts = append(parts, fmt.Sprintf("%s = %s for %v", shortName[i], shortName[j], same))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "lines coincide: " + strings.Join(parts, ", ")
}

// shortName names the zone series in a panel's title.
var shortName = []string{"not Ready", "tainted", "evicted"}

// shortAtOnce counts the workloads short of replicas over time (all of
// them), as step points, and returns the most at once and when that
// began.
func shortAtOnce(ws []Workload) ([]LostPoint, int, time.Duration) {
	type change struct {
		at    time.Duration
		delta int
	}
	var changes []change
	for _, w := range ws {
		last := 0
		for _, p := range w.Lost {
			switch {
			case last == 0 && p.Lost > 0:
				changes = append(changes, change{p.At, 1})
			case last > 0 && p.Lost == 0:
				changes = append(changes, change{p.At, -1})
			}
			last = p.Lost
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].at < changes[j].at })
	var out []LostPoint
	n, most, from := 0, 0, time.Duration(0)
	for i, c := range changes {
		n += c.delta
		if i+1 < len(changes) && changes[i+1].at == c.at {
			continue // one point per instant
		}
		out = append(out, LostPoint{At: c.at, Lost: n})
		if n > most {
			most, from = n, c.at
		}
	}
	return out, most, from
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

package sim

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
	"time"
)

// SVG draws the run's timeline: one panel per zone, time across, with the
// fraction of the zone's nodes not Ready (orange), NoExecute-tainted (red)
// and the fraction of its pods evicted so far (blue). For an explicit
// cluster, each zone panel also marks when its pods stopped (a tick per
// pod under the panel, colored by fate), and a last panel draws the
// replicas lost over time by the workloads that lost the most (replica
// time), up to eight. The output is plain SVG 1.1 and the same for the
// same Result.
func (res Result) SVG() string {
	const (
		width, left, right = 900, 60, 20
		panel, gap, top    = 110, 30, 40
	)
	plotW := float64(width - left - right)
	height := top + len(res.Zones)*(panel+gap) + 20
	wls := topWorkloads(res.Workloads, 8)
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
	for z, name := range res.Zones {
		y0 := float64(top + z*(panel+gap))
		y := func(frac float64) float64 { return y0 + float64(panel)*(1-frac) }
		nodes, pods := res.ZoneNodes[z], res.ZonePods[z]
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12">zone %s <tspan fill="#666">(%d nodes, %d pods)</tspan></text>`+"\n", left, y0-5, escape(name), nodes, pods)
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panel)
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
		y0 := float64(top + len(res.Zones)*(panel+gap))
		most := 1
		for _, w := range wls {
			most = max(most, w.MaxLost)
		}
		y := func(n int) float64 { return y0 + float64(panel)*(1-float64(n)/float64(most)) }
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="12">replicas lost per workload <tspan fill="#666">(0 to %d)</tspan></text>`+"\n", left, y0-5, most)
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
			fmt.Fprintf(&b, `<text x="%d" y="%.1f">%s: %d replicas, at most %d lost, %v replica-time</text>`+"\n", left+26, ly, escape(w.Name), w.Replicas, w.MaxLost, w.LostTime)
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
// time first (ties by name).
func topWorkloads(ws []Workload, n int) []Workload {
	var out []Workload
	for _, w := range ws {
		if w.MaxLost > 0 {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LostTime > out[j].LostTime })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// escape makes s safe inside SVG text.
func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

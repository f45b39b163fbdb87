package sim

import (
	"fmt"
	"strings"
	"time"
)

// SVG draws the run's timeline: one panel per zone, time across, with the
// fraction of the zone's nodes not Ready (orange), NoExecute-tainted (red)
// and the fraction of its pods evicted so far (blue). The output is plain
// SVG 1.1 and the same for the same Result.
func (res Result) SVG() string {
	const (
		width, left, right = 900, 60, 20
		panel, gap, top    = 110, 30, 40
	)
	plotW := float64(width - left - right)
	height := top + len(res.Zones)*(panel+gap) + 20
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
		fmt.Fprintf(&b, `<text x="8" y="%.1f" font-size="13">zone %s</text>`+"\n", y0+float64(panel)/2, name)
		fmt.Fprintf(&b, `<text x="8" y="%.1f" fill="#666">%d nodes</text>`+"\n", y0+float64(panel)/2+14, nodes)
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

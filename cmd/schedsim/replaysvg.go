package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/sim/sched"
	"github.com/nodelife/nodelife/sim/trace"
)

// curvePoints is how many times a replay's allocation is drawn at.
const curvePoints = 600

// allocCurve is the GPU allocation, in percent of the GPUs, at
// curvePoints times spread evenly over [0, span].
func allocCurve(res sched.ReplayResult, span time.Duration) []float64 {
	out := make([]float64, curvePoints)
	total := float64(max(int64(res.GPUs)*sched.MilliGPU, 1))
	k := 0
	var used int64
	for p := range out {
		t := time.Duration(float64(span) * float64(p) / float64(curvePoints-1))
		for k < len(res.Samples) && res.Samples[k].At <= t {
			used = res.Samples[k].UsedGPUMilli
			k++
		}
		out[p] = float64(used) / total * 100
	}
	return out
}

// downStep is how many nodes are down from At on.
type downStep struct {
	At    time.Duration
	Nodes int
}

// downSteps counts the nodes down over time: a node is down while any of
// its windows is open (an ongoing one to the end).
func downSteps(ws []trace.FaultWindow) []downStep {
	type edge struct {
		at   time.Duration
		by   int
		node string
	}
	var edges []edge
	for _, w := range ws {
		edges = append(edges, edge{w.Start, 1, w.Node})
		if !w.Ongoing {
			edges = append(edges, edge{w.End, -1, w.Node})
		}
	}
	slices.SortStableFunc(edges, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(b.by, a.by)) })
	open := map[string]int{}
	var out []downStep
	down := 0
	for _, e := range edges {
		before := open[e.node]
		open[e.node] += e.by
		switch {
		case before == 0 && open[e.node] > 0:
			down++
		case before > 0 && open[e.node] == 0:
			down--
		}
		if n := len(out); n > 0 && out[n-1].At == e.at {
			out[n-1].Nodes = down
		} else {
			out = append(out, downStep{e.at, down})
		}
	}
	return out
}

// drawReplaySVG draws, per pod list, the GPU allocation over time of each
// policy (the median over seeds), without the faults dashed and with them
// solid, over the times nodes were down, shaded by how many (the faults of
// the list's first run with them).
func drawReplaySVG(jobs []job, out []outcome) string {
	gs := groups(jobs)
	var lists []string
	for _, g := range gs {
		if base := strings.TrimSuffix(g.workload, "+faults"); !slices.Contains(lists, base) {
			lists = append(lists, base)
		}
	}
	const pw, ph, margin = 900.0, 320.0, 60.0
	width, height := pw+2*margin+170, float64(len(lists))*(ph+2*margin)+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for li, list := range lists {
		top := 40 + float64(li)*(ph+2*margin)
		var span time.Duration
		var down []downStep
		yMax := 1.0
		for _, g := range gs {
			if strings.TrimSuffix(g.workload, "+faults") != list {
				continue
			}
			for _, k := range g.runs {
				o := out[k].replay
				span = max(span, o.span)
				if o.faults && down == nil {
					down = o.down
				}
				for _, v := range o.curve {
					yMax = max(yMax, v)
				}
			}
		}
		yMax = math.Ceil(yMax/5) * 5
		days := span.Hours() / 24
		px := func(t time.Duration) float64 { return margin + t.Hours()/24/math.Max(days, 1e-9)*pw }
		py := func(y float64) float64 { return top + ph - y/yMax*ph }
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="14" font-weight="bold">%s: GPUs allocated over time, median over seeds (dashed: without faults; solid: with them; grey: nodes down)</text>`+"\n",
			margin, top-15, esc(list))
		maxDown := 0
		for _, d := range down {
			maxDown = max(maxDown, d.Nodes)
		}
		for i, d := range down {
			if d.Nodes == 0 || d.At > span {
				continue
			}
			end := span
			if i+1 < len(down) {
				end = min(down[i+1].At, span)
			}
			fmt.Fprintf(&b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="#555" fill-opacity="%.3f"/>`+"\n",
				px(d.At), top, math.Max(px(end)-px(d.At), 0.3), ph, 0.08+0.4*float64(d.Nodes)/float64(maxDown))
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", margin, top, pw, ph)
		dayStep := math.Max(1, math.Ceil(days/15))
		for d := 0.0; d <= days; d += dayStep {
			x := px(time.Duration(d * 24 * float64(time.Hour)))
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n",
				x, top, x, top+ph, x, top+ph+15, d)
		}
		for y := 0.0; y <= yMax; y += yMax / 5 {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n",
				margin, py(y), margin+pw, py(y), margin-5, py(y)+4, y)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">days from the trace's start</text>`+"\n", margin+pw/2, top+ph+32)
		fmt.Fprintf(&b, `<text transform="translate(%.1f,%.1f) rotate(-90)" text-anchor="middle">GPUs allocated, %%</text>`+"\n", margin-40, top+ph/2)
		legend := 0
		for _, g := range gs {
			if strings.TrimSuffix(g.workload, "+faults") != list {
				continue
			}
			faults := strings.HasSuffix(g.workload, "+faults")
			color := colors[g.policy%len(colors)]
			pts := make([]string, 0, curvePoints)
			for p := range curvePoints {
				var v []float64
				for _, k := range g.runs {
					if c := out[k].replay.curve; p < len(c) {
						v = append(v, c[p])
					}
				}
				if len(v) == 0 {
					continue
				}
				t := time.Duration(float64(span) * float64(p) / float64(curvePoints-1))
				pts = append(pts, pt(px(t), py(median(v))))
			}
			dash := ` stroke-dasharray="5,3"`
			if faults {
				dash = ""
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.2"%s/>`+"\n", strings.Join(pts, " "), color, dash)
			y := top + 10 + float64(legend)*16
			legend++
			label := policies[g.policy].label
			if faults {
				label += " + faults"
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/><text x="%.1f" y="%.1f">%s</text>`+"\n",
				margin+pw+10, y, margin+pw+30, y, color, dash, margin+pw+35, y+4, esc(label))
		}
		if maxDown > 0 {
			y := top + 10 + float64(legend)*16
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="20" height="10" fill="#555" fill-opacity="0.48"/><text x="%.1f" y="%.1f">%d nodes down</text>`+"\n",
				margin+pw+10, y-5, margin+pw+35, y+4, maxDown)
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

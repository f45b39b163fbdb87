package main

import (
	"bufio"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// group is the runs of one (workload, policy), in seed order.
type group struct {
	workload string
	policy   int
	runs     []int // indices into jobs
}

func groups(jobs []job) []group {
	var gs []group
	for k, j := range jobs {
		if n := len(gs); n > 0 && gs[n-1].workload == j.w.name && gs[n-1].policy == j.policy {
			gs[n-1].runs = append(gs[n-1].runs, k)
			continue
		}
		gs = append(gs, group{workload: j.w.name, policy: j.policy, runs: []int{k}})
	}
	return gs
}

// median is the middle value, or the mean of the two middle ones.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// signed formats a difference with its sign and two decimals; one that
// rounds to zero is " 0.00", neither "+0.00" nor "-0.00".
func signed(d float64) string {
	s := fmt.Sprintf("%+.2f", d)
	if s == "+0.00" || s == "-0.00" {
		return " 0.00"
	}
	return s
}

func printTable(w *bufio.Writer, jobs []job, out []outcome, expected map[string][]float64, gpus int) {
	fmt.Fprintf(w, "GPU allocation (%% of %d GPUs) at 100%% and 130%% of arrived GPU requests: median over seeds [lowest, highest];\n", gpus)
	fmt.Fprintf(w, "at the end, medians over seeds: pods failed, fragmentation (%% of the GPU left), CPU and memory allocated (%%)\n")
	head := fmt.Sprintf("%-26s %-17s %5s  %-22s %-22s %8s %7s %6s %6s", "workload", "policy", "seeds", "at 100%", "at 130%", "failed", "frag%", "cpu%", "mem%")
	if expected != nil {
		head += fmt.Sprintf("  %-16s %-16s", "paper 100% (diff)", "paper 130% (diff)")
	}
	fmt.Fprintln(w, head)
	for _, g := range groups(jobs) {
		var a100, a130, failed, frag, cpu, mem []float64
		for _, k := range g.runs {
			c := out[k].curve
			if c.OK[100] {
				a100 = append(a100, c.Alloc[100])
			}
			if c.OK[130] {
				a130 = append(a130, c.Alloc[130])
			}
			failed = append(failed, float64(out[k].failed))
			frag = append(frag, out[k].frag)
			cpu = append(cpu, out[k].cpu)
			mem = append(mem, out[k].mem)
		}
		span := func(v []float64) string {
			if len(v) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f [%.2f, %.2f]", median(v), slices.Min(v), slices.Max(v))
		}
		line := fmt.Sprintf("%-26s %-17s %5d  %-22s %-22s %8.0f %7.2f %6.2f %6.2f", g.workload, policies[g.policy].label, len(g.runs), span(a100), span(a130),
			median(failed), median(frag), median(cpu), median(mem))
		if expected != nil {
			if e := expected[g.workload+"\x00"+policies[g.policy].label]; len(e) > 0 {
				var p100, p130 []float64
				for i := 0; i+1 < len(e); i += 2 {
					p100, p130 = append(p100, e[i]), append(p130, e[i+1])
				}
				line += fmt.Sprintf("  %6.2f (%s)   %6.2f (%s)", median(p100), signed(median(a100)-median(p100)), median(p130), signed(median(a130)-median(p130)))
			}
		}
		fmt.Fprintln(w, line)
	}
}

var colors = []string{"#7f7f7f", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#d62728"}

// drawSVG draws, per workload, the median allocation curve of each
// policy over the seeds with the band between the lowest and highest,
// whole (0-130% arrived, 0-100% allocated) and zoomed on the top
// (80-130%, 80-100%).
func drawSVG(jobs []job, out []outcome) string {
	gs := groups(jobs)
	var workloads []string
	for _, g := range gs {
		if !slices.Contains(workloads, g.workload) {
			workloads = append(workloads, g.workload)
		}
	}
	const pw, ph, margin = 420.0, 300.0, 50.0
	width, height := 2*(pw+margin)+margin, float64(len(workloads))*(ph+2*margin)+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for wi, wl := range workloads {
		top := 40 + float64(wi)*(ph+2*margin)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="14" font-weight="bold">%s: GPU allocation against arrived GPU requests (median over seeds, band: lowest to highest)</text>`+"\n",
			margin, top-15, esc(wl))
		for pi, zoom := range []bool{false, true} {
			x0, x1, y0, y1 := 0.0, 130.0, 0.0, 100.0
			if zoom {
				x0, y0 = 80, 80
			}
			left := margin + float64(pi)*(pw+margin)
			px := func(x float64) float64 { return left + (x-x0)/(x1-x0)*pw }
			py := func(y float64) float64 { return top + ph - (y-y0)/(y1-y0)*ph }
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
			for x := x0; x <= x1; x += 10 {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n",
					px(x), top, px(x), top+ph, px(x), top+ph+15, x)
			}
			step := 10.0
			if zoom {
				step = 5
			}
			for y := y0; y <= y1; y += step {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n",
					left, py(y), left+pw, py(y), left-5, py(y)+4, y)
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">arrived GPU requests, %% of the cluster's GPUs</text>`+"\n", left+pw/2, top+ph+32)
			fmt.Fprintf(&b, `<text transform="translate(%.1f,%.1f) rotate(-90)" text-anchor="middle">GPUs allocated, %%</text>`+"\n", left-35, top+ph/2)
			for _, g := range gs {
				if g.workload != wl {
					continue
				}
				color := colors[g.policy%len(colors)]
				var upper, lower, mid []string
				for p := int(x0); p <= int(x1); p++ {
					var v []float64
					for _, k := range g.runs {
						if out[k].curve.OK[p] {
							v = append(v, out[k].curve.Alloc[p])
						}
					}
					if len(v) == 0 {
						continue
					}
					clip := func(y float64) float64 { return math.Max(y0, math.Min(y1, y)) }
					upper = append(upper, pt(px(float64(p)), py(clip(slices.Max(v)))))
					lower = append(lower, pt(px(float64(p)), py(clip(slices.Min(v)))))
					mid = append(mid, pt(px(float64(p)), py(clip(median(v)))))
				}
				slices.Reverse(lower)
				fmt.Fprintf(&b, `<polygon points="%s" fill="%s" fill-opacity="0.2" stroke="none"/>`+"\n", strings.Join(append(upper, lower...), " "), color)
				fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(mid, " "), color)
			}
			if zoom {
				for i, g := range gs {
					if g.workload != wl {
						continue
					}
					y := top + ph - 20 - float64(len(policies)-1-g.policy)*16
					_ = i
					fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
						left+pw-140, y, left+pw-120, y, colors[g.policy%len(colors)], left+pw-115, y+4, policies[g.policy].label)
				}
			}
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func pt(x, y float64) string {
	return strconv.FormatFloat(x, 'f', 1, 64) + "," + strconv.FormatFloat(y, 'f', 1, 64)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

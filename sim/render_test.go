package sim

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The timeline is checked as a person sees it: rendered by librsvg
// (rsvg-convert, Debian's librsvg2-bin), the picture decoded, and each
// line of each panel looked for in the pixels. Without rsvg-convert the
// tests skip, unless NODELIFE_RENDER=1 (CI installs it and sets that), when
// its absence fails them.

// rsvg returns the path of rsvg-convert.
func rsvg(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv("NODELIFE_RENDER") == "1" {
			t.Fatalf("NODELIFE_RENDER=1 but rsvg-convert is not installed (apt-get install librsvg2-bin): %v", err)
		}
		t.Skip("rsvg-convert is not installed (apt-get install librsvg2-bin); NODELIFE_RENDER=1 makes that a failure")
	}
	return path
}

var rootSize = regexp.MustCompile(`^<svg ([^>]*?)width="(\d+)" height="(\d+)" viewBox="0 0 (\d+) (\d+)"`)

// render draws svg with margin pixels of room on every side of its
// viewBox, so that anything drawn outside the picture shows there.
func render(t *testing.T, tool, svg string, margin int) *image.NRGBA {
	t.Helper()
	m := rootSize.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("the SVG does not start with its size and viewBox:\n%.300s", svg)
	}
	w, _ := strconv.Atoi(m[2])
	h, _ := strconv.Atoi(m[3])
	grown := fmt.Sprintf(`<svg %swidth="%d" height="%d" viewBox="%d %d %d %d"`, m[1], w+2*margin, h+2*margin, -margin, -margin, w+2*margin, h+2*margin)
	cmd := exec.Command(tool, "--format", "png")
	cmd.Stdin = strings.NewReader(grown + svg[len(m[0]):])
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("rsvg-convert: %v: %s", err, errs.String())
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	n := image.NewNRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			n.Set(x, y, img.At(x, y))
		}
	}
	return n
}

var (
	panelRect = regexp.MustCompile(`<rect class="panel" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"`)
	seriesTag = regexp.MustCompile(`<polyline class="series" fill="none" stroke="#([0-9a-f]{6})"[^>]*>(?:<title>([^<]*)</title></polyline>)?`)
)

// series is one line of a panel, where it is in the SVG text.
type series struct {
	panel      image.Rectangle
	color      color.NRGBA
	name       string
	start, end int
}

// linesOf finds the panels and their lines: a line belongs to the panel
// drawn last before it.
func linesOf(t *testing.T, svg string, margin int) []series {
	t.Helper()
	var out []series
	panels := panelRect.FindAllStringSubmatchIndex(svg, -1)
	for _, loc := range seriesTag.FindAllStringSubmatchIndex(svg, -1) {
		var r image.Rectangle
		for _, p := range panels {
			if p[0] < loc[0] {
				f := func(k int) int { v, _ := strconv.ParseFloat(svg[p[2*k]:p[2*k+1]], 64); return int(v) }
				r = image.Rect(f(1), f(2), f(1)+f(3), f(2)+f(4)).Inset(-5).Add(image.Pt(margin, margin))
			}
		}
		if r.Empty() {
			t.Fatalf("a line before any panel: %s", svg[loc[0]:loc[1]])
		}
		c, _ := strconv.ParseUint(svg[loc[2]:loc[3]], 16, 32)
		s := series{panel: r, color: color.NRGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 255}, start: loc[0], end: loc[1]}
		if loc[4] >= 0 {
			s.name = svg[loc[4]:loc[5]]
		}
		out = append(out, s)
	}
	return out
}

// near reports whether a is opaque and within tol of b in each channel.
func near(a, b color.NRGBA, tol int) bool {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return a.A == 255 && d(a.R, b.R) <= tol && d(a.G, b.G) <= tol && d(a.B, b.B) <= tol
}

// checkPicture renders svg and fails unless nothing is drawn outside the
// picture and every line of every panel can be seen: its color is in the
// panel, and taking the line out changes the panel's pixels (a line
// hidden under another changes nothing). It returns the rendering.
func checkPicture(t *testing.T, svg string) *image.NRGBA {
	t.Helper()
	const margin = 40
	tool := rsvg(t)
	base := render(t, tool, svg, margin)
	inside := base.Bounds().Inset(margin)
	outside := 0
	for y := base.Bounds().Min.Y; y < base.Bounds().Max.Y; y++ {
		for x := base.Bounds().Min.X; x < base.Bounds().Max.X; x++ {
			if !image.Pt(x, y).In(inside) && base.NRGBAAt(x, y).A != 0 {
				outside++
			}
		}
	}
	if outside > 0 {
		t.Errorf("%d pixels drawn outside the picture's viewBox", outside)
	}
	lines := linesOf(t, svg, margin)
	if len(lines) == 0 {
		t.Fatal("no lines found in the SVG")
	}
	for _, s := range lines {
		colored := 0
		for y := s.panel.Min.Y; y < s.panel.Max.Y; y++ {
			for x := s.panel.Min.X; x < s.panel.Max.X; x++ {
				if near(base.NRGBAAt(x, y), s.color, 12) {
					colored++
				}
			}
		}
		without := render(t, tool, svg[:s.start]+svg[s.end:], margin)
		changed := 0
		for y := s.panel.Min.Y; y < s.panel.Max.Y; y++ {
			for x := s.panel.Min.X; x < s.panel.Max.X; x++ {
				// a clear change, not the shading of an edge that another
				// line runs along
				if !near(base.NRGBAAt(x, y), without.NRGBAAt(x, y), 60) {
					changed++
				}
			}
		}
		if colored < 20 || changed < 20 {
			t.Errorf("the line %q (#%02x%02x%02x) in the panel at %v cannot be seen: %d pixels of its color, %d change without it",
				s.name, s.color.R, s.color.G, s.color.B, s.panel, colored, changed)
		}
	}
	return base
}

// savePNG writes the picture where NODELIFE_RENDER_DIR says, to look at.
func savePNG(t *testing.T, img image.Image, name string) {
	dir := os.Getenv("NODELIFE_RENDER_DIR")
	if dir == "" {
		return
	}
	f, err := os.Create(dir + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// The README's picture, as committed.
func TestRenderReadmeReplay(t *testing.T) {
	t.Parallel() // rsvg-convert runs as a child process: the renders of the three tests overlap
	data, err := os.ReadFile("../docs/replay-sample.svg")
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, checkPicture(t, string(data)), "replay-sample.png")
}

// A generated cluster with zone b cut off: its not Ready and tainted
// lines coincide for most of the outage.
func TestRenderOutage(t *testing.T) {
	t.Parallel() // rsvg-convert runs as a child process: the renders of the three tests overlap
	res, err := Run(Config{NodesPerZone: 10, Outages: outageB})
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, checkPicture(t, res.SVG()), "outage.png")
}

// A hostile result: a zone name and workload names far wider than the
// picture, windows whose labels start together, an hour and a half (tick
// labels up to the right edge), the three lines of a zone equal all along,
// and ten workloads that lose the same replicas at the same times.
func TestRenderLongNamesAndCoincidingLines(t *testing.T) {
	t.Parallel() // rsvg-convert runs as a child process: the renders of the three tests overlap
	long := strings.Repeat("a-very-long-zone-name-", 8)
	d := 90 * time.Minute
	res := Result{Zones: []string{long, "quiet"}, ZoneNodes: []int{4, 2}, ZonePods: []int{4, 2}, Duration: d}
	for at := time.Duration(0); at <= d; at += time.Minute {
		n := 0
		if at >= 10*time.Minute && at < 70*time.Minute {
			n = 2
		}
		res.Timeline = append(res.Timeline, Sample{At: at, Zones: []ZoneSample{{Zone: long, NotReady: n, Tainted: n, Evicted: n}, {Zone: "quiet"}}})
	}
	for i := 0; i < 3; i++ {
		res.Windows = append(res.Windows, Window{Kind: "outage", Label: fmt.Sprintf("outage %d %s", i, long), From: 10 * time.Minute, To: 70 * time.Minute, Zones: []string{long}})
	}
	for i := 0; i < 10; i++ {
		res.Workloads = append(res.Workloads, Workload{Name: fmt.Sprintf("StatefulSet ns/%d-%s", i, strings.Repeat("x", 300)), Replicas: 3, MaxLost: 2,
			LostTime: time.Hour, Lost: []LostPoint{{At: 10 * time.Minute, Lost: 2}, {At: 70 * time.Minute, Lost: 0}}})
		res.Pods = append(res.Pods, Outcome{Pod: fmt.Sprintf("ns/%d-%s", i, strings.Repeat("y", 200)), Zone: long, Fate: "evicted", At: 15 * time.Minute})
	}
	svg := res.SVG()
	for _, want := range []string{
		"lines coincide: not Ready = tainted for 1h0m0s, not Ready = evicted for 1h0m0s, tainted = evicted for 1h0m0s",
		"workloads short at once: at most 10, from 10m0s",
		"the 8 that lost the most replica-time, 2 more not shown",
		"<title>zone " + long + " (4 nodes, 4 pods)</title>",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	savePNG(t, checkPicture(t, svg), "hostile.png")
}

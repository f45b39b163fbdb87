package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/release"
)

// hangingWatches makes a client's watches hang silently during a window of
// the harness's fake clock: no error and no event reaches the informers
// (their reads block), while lists and GETs go through. At the window's
// end the reads resume and the events held back arrive.
type hangingWatches struct {
	h    *harness
	win  window
	next http.RoundTripper
}

// hanging reports whether the clock is in the window.
func (w *hangingWatches) hanging() bool {
	off := w.h.clock.Now().Sub(w.h.start)
	return off >= w.win.from && off < w.win.to
}

func (w *hangingWatches) wrap(rt http.RoundTripper) http.RoundTripper {
	w.next = rt
	return w
}

func (w *hangingWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err == nil && req.URL.Query().Get("watch") == "true" {
		resp.Body = &hangingBody{ReadCloser: resp.Body, w: w}
	}
	return resp, err
}

// hangingBody is a watch's stream whose reads wait out the window.
type hangingBody struct {
	io.ReadCloser
	w      *hangingWatches
	closed atomic.Bool
}

func (b *hangingBody) Read(p []byte) (int, error) {
	for b.w.hanging() && !b.closed.Load() {
		time.Sleep(time.Millisecond)
	}
	return b.ReadCloser.Read(p)
}

func (b *hangingBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

// The controller's watches hang silently from +130s to +190s (no error,
// no event; lists and GETs work) during TestZoneOutage's zone outage
// (zone b's agents stop after +60s). Every agent renews its lease every
// 10s from +0s and the controller passes every 5s: the renewal of +120s
// is the last the controller's lease cache holds before the hang, so for
// the healthy nodes of zones a and c the cached lease's probe is +120s and
// the first pass strictly after +120s + 50s is +175s.
//
//   - v1.37 (the lease circuit breaker, the default): at +175s a-0's live
//     lease (GET) is newer than its cached one, so the controller blames
//     its cache, holds every node until the lease informer's store has
//     synced past that version, which it does when the watches resume at
//     +190s. No node of zones a and c is marked Unknown, and zone b's
//     timeline is TestZoneOutage's: Unknown at +115s, NoExecute on b-i at
//     +115s + 10s*i, its 60s pods deleted 60s after the taint, its 300s
//     pods 300s after.
//   - v1.36 (ConfigFor(release.V1_36)): at +175s the ten healthy nodes are
//     marked Unknown, every zone is then fully disrupted, the controller
//     enters master disruption mode and takes the NoExecute taints off
//     zone b's nodes: b-3's and b-4's 60s pods, due at +205s and +215s,
//     are not deleted then.
func TestControllerWatchesHang(t *testing.T) {
	run := func(t *testing.T, cfg *controller.Config) *harness {
		h := newHarness(t)
		h.zoneAgents([]string{"a", "b", "c"}, []string{"default", "60s"}, "b")
		hw := &hangingWatches{h: h, win: window{from: 130 * time.Second, to: 190 * time.Second}}
		h.addControllerOn("controller", h.clientVia(hw.wrap), controller.Options{Config: cfg}, func(c *controller.Controller) {
			if !hw.hanging() {
				h.waitCaughtUp(c) // after the hang too: until the held events have arrived
			}
		})
		h.run(470 * time.Second)
		return h
	}
	s := time.Second

	t.Run("circuit-breaker-v1_37", func(t *testing.T) {
		h := run(t, nil)
		require.Equal(t, sorted(zoneBOutage("default", "60s")), h.timeline("b-"))
		h.requireQuiet("a-", "c-")
	})

	t.Run("v1_36", func(t *testing.T) {
		cfg := nodelifecycle.ConfigFor(release.V1_36)
		h := run(t, &cfg)
		events := strings.Join(h.timeline(""), "\n")
		for _, z := range []string{"a", "c"} {
			for i := 0; i < 5; i++ {
				require.Contains(t, events, ev(175*s, fmt.Sprintf("%s-%d Ready=Unknown", z, i)), "a healthy node blamed at +175s")
			}
		}
		for i := 0; i < 5; i++ {
			require.Contains(t, events, ev(175*s, fmt.Sprintf("b-%d %s=off", i, unreachableNoExecute)), "master disruption mode untaints zone b")
		}
		for i, due := range map[int]time.Duration{3: 205 * s, 4: 215 * s} {
			require.NotContains(t, events, ev(due, fmt.Sprintf("b-%d-60s deleted=yes", i)), "the eviction due then is lost")
		}
		var deleted []string
		for _, e := range h.timeline("b-") {
			if strings.HasSuffix(e, "deleted=yes") {
				deleted = append(deleted, e)
			}
		}
		t.Logf("zone b's evictions on v1.36 (TestZoneOutage's: the 60s pods at +175s..+215s, the 300s pods at +415s..+455s):\n%s", strings.Join(deleted, "\n"))
	})
}

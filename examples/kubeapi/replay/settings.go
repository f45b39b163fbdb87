package replay

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/sim"
)

// ErrSetting is wrapped by every error about a cluster setting.
var ErrSetting = errors.New("replay: invalid setting")

// The Kubernetes releases Preset knows, oldest and newest (minor
// versions of 1.x).
const (
	OldestVersion = int(release.Oldest)
	NewestVersion = int(release.Current)
)

// Preset runs every simulated component as the Kubernetes release
// version ("1.31", "v1.31" or "1.31.4"), from 1.27 to 1.37: it sets
// cfg.Release, and cfg's controller to kube-controller-manager's defaults
// of that release (nodelifecycle.ConfigFor); the simulated kubelets'
// node-pressure eviction (pressure.ConfigFor) and admission
// (admission.OptionsFor) follow cfg.Release. It returns the release as
// "1.31". The defaults that changed in that span:
//
//   - --node-monitor-grace-period: 40s before 1.32, 50s since (kubernetes
//     PR #126287);
//   - the NoExecute tainting decision read the Ready condition as observed
//     before the monitor pass's own Unknown rewrite before 1.29, so the
//     unreachable taint came one monitor period later
//     (nodelifecycle.Config.TaintOnObservedReady, kubernetes#120815);
//   - the lease circuit breaker (gate NodeControllerLeaseCircuitBreaker,
//     beta and on since 1.37), which reads a node's live Lease before it
//     marks the node Unknown for an expired cached one;
//   - the kubelet's memory.available net of the node's huge pages (gate
//     HugepageAwareEviction, beta and on since 1.37), which a pressure
//     episode on a node with huge pages meets sooner.
//
// The other settings a replay takes (eviction rates, thresholds, the
// kubelet's 40s node lease, the API server's 300s tolerations) kept their
// defaults over these releases. 1.26 and older are refused: their node
// lifecycle controller still had --pod-eviction-timeout and the in-process
// taint manager.
func Preset(cfg *sim.Config, version string) (string, error) {
	v, err := release.Parse(version)
	switch {
	case errors.Is(err, release.ErrUnknown):
		return "", fmt.Errorf("%w: -kubernetes-version %q: the replay knows releases 1.%d to 1.%d", ErrSetting, version, OldestVersion, NewestVersion)
	case err != nil:
		return "", fmt.Errorf("%w: -kubernetes-version %q: want a release as 1.MINOR, e.g. 1.31", ErrSetting, version)
	}
	lc := nodelifecycle.ConfigFor(v)
	cfg.Controller, cfg.Release = &lc, v
	return v.String(), nil
}

// WriteSettings writes the settings a run used, a line per component,
// each as name=value under the upstream flag or field name:
//
//	kube-controller-manager: --node-monitor-period=5s --node-monitor-grace-period=50s ...
func WriteSettings(w io.Writer, res sim.Result) error {
	var b strings.Builder
	for i, s := range res.Settings {
		if i == 0 || s.Component != res.Settings[i-1].Component {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("  " + s.Component + ":")
		}
		b.WriteString(" " + s.Name + "=" + s.Value)
	}
	_, err := fmt.Fprintln(w, b.String())
	return err
}

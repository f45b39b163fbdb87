package replay

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/examples/sim"
	"github.com/nodelife/nodelife/nodelifecycle"
)

// ErrSetting is wrapped by every error about a cluster setting.
var ErrSetting = errors.New("replay: invalid setting")

// The Kubernetes releases Preset knows, oldest and newest.
const (
	OldestVersion = 27
	NewestVersion = 36
)

// Preset sets cfg's controller to kube-controller-manager's defaults of
// the Kubernetes release version ("1.31", "v1.31" or "1.31.4"), from 1.27
// to 1.36, and returns the release as "1.31". The defaults that changed
// in that span:
//
//   - --node-monitor-grace-period: 40s before 1.32, 50s since (kubernetes
//     PR #126287);
//   - the NoExecute tainting decision read the Ready condition as observed
//     before the monitor pass's own Unknown rewrite before 1.29, so the
//     unreachable taint came one monitor period later
//     (nodelifecycle.Config.TaintOnObservedReady, kubernetes#120815).
//
// The other settings a replay takes (eviction rates, thresholds, the
// kubelet's 40s node lease, the API server's 300s tolerations) kept their
// defaults over these releases. 1.26 and older are refused: their node
// lifecycle controller still had --pod-eviction-timeout and the in-process
// taint manager.
func Preset(cfg *sim.Config, version string) (string, error) {
	v := strings.TrimPrefix(version, "v")
	parts := strings.Split(v, ".")
	minor := -1
	if len(parts) >= 2 && len(parts) <= 3 && parts[0] == "1" {
		if m, err := strconv.Atoi(parts[1]); err == nil && strconv.Itoa(m) == parts[1] {
			minor = m
		}
		if len(parts) == 3 {
			if _, err := strconv.Atoi(parts[2]); err != nil {
				minor = -1
			}
		}
	}
	if minor < 0 {
		return "", fmt.Errorf("%w: -kubernetes-version %q: want a release as 1.MINOR, e.g. 1.31", ErrSetting, version)
	}
	if minor < OldestVersion || minor > NewestVersion {
		return "", fmt.Errorf("%w: -kubernetes-version %q: the replay knows releases 1.%d to 1.%d", ErrSetting, version, OldestVersion, NewestVersion)
	}
	lc := nodelifecycle.DefaultConfig()
	if minor < 32 {
		lc.NodeMonitorGracePeriod = conditions.LegacyNodeMonitorGracePeriod
	}
	if minor < 29 {
		lc.TaintOnObservedReady = true
	}
	cfg.Controller = &lc
	return fmt.Sprintf("1.%d", minor), nil
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

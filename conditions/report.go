package conditions

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/reentry"
)

// StatusChanged reports whether the conditions in new differ from those in
// old, as the kubelet's nodeConditionsHaveChanged: a different number of
// conditions is a change; otherwise both lists are sorted by type and
// compared field by field with LastHeartbeatTime ignored (times compared
// with time.Time.Equal). The order of the lists does not matter.
func StatusChanged(old, new []Condition) bool {
	if len(old) != len(new) {
		return true
	}
	a, b := slices.Clone(old), slices.Clone(new)
	byType := func(x, y Condition) int { return strings.Compare(string(x.Type), string(y.Type)) }
	slices.SortStableFunc(a, byType)
	slices.SortStableFunc(b, byType)
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			!x.LastTransitionTime.Equal(y.LastTransitionTime) {
			return true
		}
	}
	return false
}

// Kubelet status-reporting defaults (KubeletConfiguration).
const (
	// DefaultNodeStatusUpdateFrequency is nodeStatusUpdateFrequency
	// (--node-status-update-frequency): how often the kubelet computes its
	// node status.
	DefaultNodeStatusUpdateFrequency = 10 * time.Second
	// DefaultNodeStatusReportFrequency is nodeStatusReportFrequency: how often
	// the kubelet posts an unchanged status.
	DefaultNodeStatusReportFrequency = 5 * time.Minute
)

// ReportConfig configures a Reporter.
//
// The zero value is not usable
// (zero frequencies): start from DefaultReportConfig.
type ReportConfig struct {
	// UpdateFrequency is nodeStatusUpdateFrequency: the caller calls Step
	// this often. It only feeds Next. Must be > 0.
	UpdateFrequency time.Duration
	// ReportFrequency is nodeStatusReportFrequency: an unchanged status is
	// posted once this long after the last report. Must be > 0. See
	// EffectiveReportFrequency for upstream's defaulting rule.
	ReportFrequency time.Duration
	// ReportDelay adds, after a real change or the first report after a
	// (re)start, a one-time delay uniform in [-0.5, +0.5] x ReportFrequency to
	// the next periodic report, as kubelets since v1.33 do (kubernetes
	// #130919). False gives the earlier behaviour: periodic reports exactly
	// ReportFrequency apart.
	ReportDelay bool
	// Rand returns a number in [0, 1) for the report delay. Nil means no
	// randomness: the delay is 0. Values outside [0, 1], and NaN, are
	// clamped (NaN as 0.5, a zero delay). A Step or Reported called from
	// inside Rand on the Reporter drawing from it changes nothing (Step
	// says so in its Message).
	Rand func() float64
}

// DefaultReportConfig returns the upstream defaults: update every 10s, report
// every 5m, with the v1.33+ random report delay (Rand still nil: inject one
// to get the spread).
func DefaultReportConfig() ReportConfig {
	return ReportConfig{
		UpdateFrequency: DefaultNodeStatusUpdateFrequency,
		ReportFrequency: DefaultNodeStatusReportFrequency,
		ReportDelay:     true,
	}
}

// EffectiveReportFrequency applies the kubelet's defaulting of
// nodeStatusReportFrequency: when nodeStatusUpdateFrequency was set
// explicitly and nodeStatusReportFrequency was not, the report frequency
// equals the update frequency; otherwise an unset report frequency is 5m.
func EffectiveReportFrequency(update time.Duration, updateSet bool, report time.Duration, reportSet bool) time.Duration {
	switch {
	case reportSet:
		return report
	case updateSet:
		return update
	}
	return DefaultNodeStatusReportFrequency
}

// Validate returns every problem of c at once.
func (c ReportConfig) Validate() error {
	return errors.Join(
		requirePositive("UpdateFrequency", c.UpdateFrequency),
		requirePositive("ReportFrequency", c.ReportFrequency),
	)
}

// Report reasons.
const (
	// ReportFirst: no report since the Reporter was created (a kubelet
	// start): always post.
	ReportFirst = "FirstReport"
	// ReportChanged: the status changed: post at once.
	ReportChanged = "StatusChanged"
	// ReportPeriodic: nothing changed but the report period has passed.
	ReportPeriodic = "ReportFrequencyElapsed"
	// ReportNotDue: nothing to post yet.
	ReportNotDue = "NotDue"
)

// ReportDecision is what Reporter.Step says.
type ReportDecision struct {
	// Post is true when the status should be posted now.
	Post bool
	// Reason is one of ReportFirst, ReportChanged, ReportPeriodic,
	// ReportNotDue.
	Reason string
	// Message says the same for a person, with the times involved.
	Message string
	// NextReport is when an unchanged status will next be due (after this
	// post, if Post, assuming it succeeds and Reported is called with now).
	NextReport time.Time
	// Next is when the caller should call Step again: now plus the
	// update frequency.
	Next time.Time
}

// Reporter decides, at each status update, whether the kubelet posts its
// node status. It is a synchronous state machine: call Step every update
// period with whether the status changed (StatusChanged, or anything else
// the caller compares, such as labels or addresses), post if told to, then
// call Reported. Not safe for concurrent use.
type Reporter struct {
	cfg        ReportConfig
	lastReport time.Time
	delay      time.Duration
	lastNow    time.Time
	guard      reentry.Guard
}

// NewReporter returns a Reporter that has not reported yet, or an error if
// cfg is invalid.
func NewReporter(cfg ReportConfig) (*Reporter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Reporter{}
	cfg.Rand = r.guard.Rand(cfg.Rand)
	r.cfg = cfg
	return r, nil
}

// Step says whether to post now. A now earlier than one already seen is
// treated as that earlier-seen time.
func (r *Reporter) Step(now time.Time, changed bool) ReportDecision {
	if r.guard.Busy() {
		return ReportDecision{Reason: ReportNotDue, Next: now, Message: "conditions: Reporter called from inside its own Rand: ignored"}
	}
	now = r.clamp(now)
	d := ReportDecision{Next: now.Add(r.cfg.UpdateFrequency)}
	switch {
	case r.lastReport.IsZero():
		d.Post, d.Reason, d.Message = true, ReportFirst, "no status posted since start: post now"
		r.delay = r.drawDelay()
	case changed:
		d.Post, d.Reason, d.Message = true, ReportChanged, "node status changed: post now"
		r.delay = r.drawDelay()
	case !now.Before(r.lastReport.Add(r.cfg.ReportFrequency + r.delay)):
		d.Post, d.Reason = true, ReportPeriodic
		d.Message = "status unchanged, last posted " + now.Sub(r.lastReport).String() + " ago: post now"
		r.delay = 0
	default:
		d.Reason = ReportNotDue
		d.NextReport = r.lastReport.Add(r.cfg.ReportFrequency + r.delay)
		d.Message = "status unchanged, next post due in " + d.NextReport.Sub(now).String()
		return d
	}
	d.NextReport = now.Add(r.cfg.ReportFrequency + r.delay)
	return d
}

// Reported records a successful post at now.
func (r *Reporter) Reported(now time.Time) {
	if r.guard.Busy() {
		return
	}
	r.lastReport = r.clamp(now)
}

// LastReport returns the time of the last successful post (zero if none).
func (r *Reporter) LastReport() time.Time { return r.lastReport }

// PendingDelay returns the one-time delay added to the next periodic report.
func (r *Reporter) PendingDelay() time.Duration { return r.delay }

func (r *Reporter) clamp(now time.Time) time.Time { return clock.Clamp(&r.lastNow, now, true) }

func (r *Reporter) drawDelay() time.Duration {
	if !r.cfg.ReportDelay || r.cfg.Rand == nil {
		return 0
	}
	u := r.cfg.Rand()
	switch {
	case u != u: // NaN
		u = 0.5
	case u < 0:
		u = 0
	case u > 1:
		u = 1
	}
	return time.Duration((u - 0.5) * float64(r.cfg.ReportFrequency))
}

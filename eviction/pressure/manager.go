package pressure

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/enum"
	"github.com/nodelife/nodelife/release"
)

// Config configures the eviction manager. Field names follow the
// KubeletConfiguration; DefaultConfig returns upstream's defaults. The zero
// value is valid but is not the kubelet's default: it has no thresholds, so
// the manager never evicts; start from DefaultConfig.
type Config struct {
	// Thresholds are the parsed thresholds (ParseThresholdConfig); the
	// containerfs ones are derived from Layout by NewManager.
	Thresholds []Threshold
	// Layout is the node's filesystem layout.
	Layout Layout
	// PressureTransitionPeriod (evictionPressureTransitionPeriod, 5m) is
	// how long a pressure condition stays reported after the last
	// observation that met one of its thresholds. Zero, which only the
	// command line can set, never reports a condition.
	PressureTransitionPeriod time.Duration
	// MaxPodGracePeriodSeconds (evictionMaxPodGracePeriod, 0) is the grace
	// period a soft threshold's eviction gives the pod. Upstream passes it
	// as is: a negative value does not defer to the pod's own period
	// (kubernetes#118172) but reaches the runtime, and 0 kills at once.
	MaxPodGracePeriodSeconds int64
	// LocalStorageCapacityIsolation (localStorageCapacityIsolation, true)
	// evicts pods over their emptyDir size limits and ephemeral-storage
	// limits before any threshold is acted on.
	LocalStorageCapacityIsolation bool
	// DisableSeparateDiskGC turns the KubeletSeparateDiskGC feature off;
	// NewManager then refuses LayoutSplit, as upstream's cycle does.
	DisableSeparateDiskGC bool
	// DisableHugepageAwareEviction turns the HugepageAwareEviction gate
	// off (beta and on since 1.37): Config.Observe then takes the node's
	// memory available as the summary reads it, huge pages included.
	DisableHugepageAwareEviction bool
	// RegularContainersEphemeralLimitsOnly checks the containers'
	// ephemeral-storage limits of regular containers only, as upstream
	// before 1.37; since 1.37 sidecars' (restartable init containers')
	// limits are enforced too.
	RegularContainersEphemeralLimitsOnly bool
	// SoftGracePodAware is not upstream behaviour: a soft eviction gives
	// the pod min(MaxPodGracePeriodSeconds, its own grace period), and a
	// negative maximum gives it its own grace period, as the flag's help
	// text promises (kubernetes#118172, #64530; open PR #141017).
	SoftGracePodAware bool
	// Rank changes the pod ranking from upstream's.
	Rank RankOptions
}

// DefaultConfig returns upstream's defaults on Linux: the default hard
// thresholds with the allocatable copy, a single-disk layout, a 5m
// transition period, a 0 s maximum soft grace period and local storage
// isolation on.
func DefaultConfig() Config {
	ths, _ := DefaultSettings("linux").Parse()
	return Config{
		Thresholds:                    ths,
		Layout:                        LayoutSingle,
		PressureTransitionPeriod:      DefaultPressureTransitionPeriod,
		LocalStorageCapacityIsolation: true,
	}
}

// ConfigFor returns DefaultConfig as the kubelet of Kubernetes release v
// has it (taken as release.Oldest or release.Current when outside them):
// KubeletSeparateDiskGC off before 1.31 (alpha), HugepageAwareEviction and
// the sidecars' ephemeral-storage limits from 1.37. Other rules are those
// of 1.36 in every earlier preset.
func ConfigFor(v release.Version) Config {
	v = v.Clamp()
	c := DefaultConfig()
	c.DisableSeparateDiskGC = !v.AtLeast(release.V1_31)
	c.DisableHugepageAwareEviction = !v.AtLeast(release.V1_37)
	c.RegularContainersEphemeralLimitsOnly = !v.AtLeast(release.V1_37)
	return c
}

// Validate returns every problem with the config, each naming the field
// and the value.
func (c Config) Validate() error {
	var errs []error
	bad := func(sentinel error, msg string) { errs = append(errs, wrap(sentinel, msg)) }
	for i, t := range c.Thresholds {
		field := "Thresholds[" + strconv.Itoa(i) + "]"
		if !t.Signal.Valid() {
			bad(ErrUnsupportedSignal, field+".Signal "+strconv.Quote(string(t.Signal)))
		}
		if t.Operator != OpLessThan && t.Operator != "" {
			bad(ErrInvalidThreshold, field+".Operator "+strconv.Quote(string(t.Operator))+" is not LessThan")
		}
		if err := checkValue(t.Value, false); err != "" {
			bad(ErrInvalidThreshold, field+".Value "+t.Value.String()+": "+err)
		}
		if t.GracePeriod < 0 {
			bad(ErrInvalidGracePeriod, field+".GracePeriod "+t.GracePeriod.String()+" must be >= 0")
		}
		if t.MinReclaim != nil {
			if err := checkValue(*t.MinReclaim, true); err != "" {
				bad(ErrInvalidMinReclaim, field+".MinReclaim "+t.MinReclaim.String()+": "+err)
			}
		}
	}
	if !c.Layout.valid() {
		bad(ErrInvalidConfig, "Layout "+c.Layout.String()+" is not single, imagefs or split")
	}
	if c.PressureTransitionPeriod < 0 {
		bad(ErrInvalidConfig, "PressureTransitionPeriod "+c.PressureTransitionPeriod.String()+" must be >= 0")
	}
	if c.Layout == LayoutSplit && c.DisableSeparateDiskGC {
		errs = append(errs, ErrSplitWithoutSeparateDiskGC)
	}
	return errors.Join(errs...)
}

// checkValue returns what is wrong with a threshold or min-reclaim value,
// or "".
func checkValue(v ThresholdValue, reclaim bool) string {
	if v.Quantity != nil {
		if v.Quantity.Sign() < 0 || (!reclaim && v.Quantity.Sign() == 0) {
			return "quantity must be positive"
		}
		return ""
	}
	// A minimum reclaim percentage has no upper bound; a threshold's is at
	// most 100%.
	p := v.Percentage
	switch {
	case p != p:
		return "percentage is NaN"
	case reclaim && p <= 0:
		return "percentage must be positive"
	case p < 0 || (!reclaim && p > 1):
		return "percentage must be between 0% and 100%"
	}
	return ""
}

// State is what the manager remembers between steps.
type State struct {
	// FirstObserved maps the index of each threshold met (ignoring grace)
	// at the last step to when it was first met in its current run. One
	// step without it met removes it, restarting a soft grace period.
	FirstObserved map[int]time.Time
	// ConditionLastObserved maps each pressure condition to the last step
	// at which one of its thresholds was met. Entries are never removed.
	ConditionLastObserved map[conditions.Type]time.Time
	// Actionable are the indexes of the thresholds whose grace period had
	// passed at the last step, in acting order; they stay met until the
	// minimum reclaim is freed too.
	Actionable []int
	// LastObservations are the observations of the last step, used to
	// skip signals whose stats have not been refreshed.
	LastObservations Observations
	// Conditions are the conditions reported at the last step.
	Conditions []conditions.Type
	// Last is the latest time seen; earlier times are clamped to it.
	Last time.Time
}

func (s State) clone() State {
	out := s
	out.FirstObserved = cloneMap(s.FirstObserved)
	out.ConditionLastObserved = cloneMap(s.ConditionLastObserved)
	out.LastObservations = cloneMap(s.LastObservations)
	out.Actionable = slices.Clone(s.Actionable)
	out.Conditions = slices.Clone(s.Conditions)
	return out
}

// cloneMap copies m; the copy is never nil, so the step can write to it.
func cloneMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	return maps.Clone(m)
}

// Manager is the kubelet's eviction manager as a synchronous state
// machine: Step takes the observations, the active pods and the time, and
// returns what to do. It is not safe for concurrent use.
type Manager struct {
	cfg        Config
	thresholds []Threshold
	warnings   []Warning
	state      State
}

// NewManager validates the config and derives the containerfs thresholds
// from the layout (UpdateContainerFsThresholds, which upstream runs at its
// first cycle).
func NewManager(cfg Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ths, warnings := UpdateContainerFsThresholds(cfg.Thresholds, cfg.Layout)
	cfg.Thresholds = slices.Clone(cfg.Thresholds)
	m := &Manager{cfg: cfg, thresholds: ths, warnings: append(warnings, cfg.Warnings()...)}
	m.state = State{}.clone()
	return m, nil
}

// Thresholds returns the thresholds the manager evaluates: the configured
// ones with the containerfs ones derived. State and results index this
// slice.
func (m *Manager) Thresholds() []Threshold { return slices.Clone(m.thresholds) }

// Warnings returns the strict-validation warnings about the config.
func (m *Manager) Warnings() []Warning { return slices.Clone(m.warnings) }

// State returns a copy of the manager's state.
func (m *Manager) State() State { return m.state.clone() }

// SetState replaces the state, for a manager restored from a snapshot.
func (m *Manager) SetState(s State) { m.state = s.clone() }

// Conditions returns the pressure conditions reported at the last step.
func (m *Manager) Conditions() []conditions.Type { return slices.Clone(m.state.Conditions) }

// DecisionKind says what a step decided.
type DecisionKind int

const (
	// DecideNothing: no threshold to act on, or nothing that can be done.
	DecideNothing DecisionKind = iota
	// DecideReclaim: run the node-level reclaims first; if Reclaimed then
	// reports the pressure gone, stop, otherwise carry out Evict.
	DecideReclaim
	// DecideEvict: evict Evict.Pod.
	DecideEvict
	// DecideLocalStorage: evict the pods in LocalStorage, each over an
	// emptyDir or ephemeral-storage limit.
	DecideLocalStorage
)

// String returns "Nothing", "Reclaim", "Evict" or "LocalStorage".
func (k DecisionKind) String() string {
	return enum.Name(k, "DecisionKind", "Nothing", "Reclaim", "Evict", "LocalStorage")
}

// Eviction is one pod to evict, with everything the kubelet sends along.
type Eviction struct {
	// Pod is the pod to evict (an element of the pods given to Step).
	Pod *core.Pod
	// Signal is the signal acted on ("" for a local-storage eviction).
	Signal Signal
	// Resource is the starved resource.
	Resource Resource
	// Hard reports a hard threshold (or a local-storage limit).
	Hard bool
	// GracePeriodSeconds overrides the pod's grace period: 1 for hard
	// thresholds and local storage, MaxPodGracePeriodSeconds for soft ones
	// (see Config.SoftGracePodAware).
	GracePeriodSeconds int64
	// Status is the status to write.
	Status PodStatus
	// Event is the Warning event "Evicted" to record on the pod, with
	// Annotations.
	Event Event
	// Annotations are the event annotations (offending containers,
	// starved resource); empty for a pod without stats and for local
	// storage.
	Annotations map[string]string
}

// Decision is what a step decided.
type Decision struct {
	// Kind says which fields are set.
	Kind DecisionKind
	// Threshold is the threshold acted on (Reclaim and Evict).
	Threshold *Threshold
	// Reclaim are the node-level reclaims to run first, in order.
	Reclaim []ReclaimKind
	// Evict is the pod to evict, for DecideEvict, and for DecideReclaim
	// when Reclaimed reports the reclaim was not enough. Nil when no pod
	// can be evicted (none active, or all critical).
	Evict *Eviction
	// LocalStorage are the local-storage evictions, in pod order.
	LocalStorage []Eviction
	// Ranked is the ranking the eviction was chosen from.
	Ranked []Ranked
	// Reason says why, as one of the Decision* constants.
	Reason string
	// Message says what was decided, in a sentence.
	Message string
}

// Decision reasons.
const (
	// DecisionNoPressure: no actionable threshold has a fresh observation.
	DecisionNoPressure = "NoResourcesStarved"
	// DecisionLocalStorageLimits: pods over local storage limits go.
	DecisionLocalStorageLimits = "LocalStorageLimitsExceeded"
	// DecisionReclaimFirst: node-level reclaim first, then maybe Evict.
	DecisionReclaimFirst = "ReclaimNodeResourcesFirst"
	// DecisionEvictPod: a pod must be evicted.
	DecisionEvictPod = "EvictPod"
	// DecisionNoActivePods: a threshold is acted on but no pod is active.
	DecisionNoActivePods = "NoActivePods"
	// DecisionAllPodsCritical: every active pod is critical.
	DecisionAllPodsCritical = "AllPodsCritical"
)

// Result is the outcome of one step.
type Result struct {
	// Met are the thresholds met at this step ignoring grace periods,
	// including those still short of their minimum reclaim.
	Met []Threshold
	// Actionable are the met thresholds whose grace period has passed, in
	// acting order (memory, allocatable memory, pid, nodefs, imagefs,
	// containerfs; hard before soft; then configuration order).
	Actionable []Threshold
	// Conditions are the pressure conditions to report now, in the order
	// MemoryPressure, DiskPressure, PIDPressure.
	Conditions []conditions.Type
	// Decision is what to do.
	Decision Decision
	// NodeEvent is the node event to record ("EvictionThresholdMet"),
	// set when a threshold is acted on.
	NodeEvent *Event
	// Next is when to step again: MonitoringPeriod from now, or after an
	// eviction as soon as the pod is cleaned up and at the latest
	// PodCleanupTimeout from now.
	Next time.Time
}

// Step runs one eviction cycle (upstream's synchronize) at now:
//
//  1. thresholds met by obs, plus those acted on last time that are still
//     short of their minimum reclaim;
//  2. first-observed times (a threshold not met loses its time) and the
//     conditions' last-observed times; a condition is reported while
//     now - last < PressureTransitionPeriod;
//  3. actionable thresholds: met for at least their grace period;
//  4. of those, the ones whose observation is newer than the last step's;
//  5. with local storage isolation, pods over their emptyDir or
//     ephemeral-storage limits are evicted and nothing else is done;
//  6. the first actionable threshold is acted on: node-level reclaim for
//     its signal and layout, then one pod, the first non-critical one in
//     the ranking.
//
// pods are the active pods and stats their readings by UID (see Rank for
// what is read of them). A now earlier than a time already seen is treated
// as that time. Inputs are not modified.
func (m *Manager) Step(now time.Time, obs Observations, pods []core.Pod, stats Stats) Result {
	st := m.state.clone()
	now = clock.Clamp(&st.Last, now, true)
	res := Result{Next: now.Add(MonitoringPeriod)}
	if len(m.thresholds) == 0 && !m.cfg.LocalStorageCapacityIsolation {
		m.state = st
		res.Conditions = slices.Clone(st.Conditions)
		return res
	}

	// 1. met, with the min-reclaim hysteresis of the last actionable set.
	met := make([]int, 0, len(m.thresholds))
	isMet := make([]bool, len(m.thresholds))
	for i := range m.thresholds {
		if o, ok := obs[m.thresholds[i].Signal]; ok && m.thresholds[i].met(o, false) {
			met = append(met, i)
			isMet[i] = true
		}
	}
	for _, i := range st.Actionable {
		if i < 0 || i >= len(m.thresholds) || isMet[i] { // a restored state may hold any index
			continue
		}
		if o, ok := obs[m.thresholds[i].Signal]; ok && m.thresholds[i].met(o, true) {
			met = append(met, i)
			isMet[i] = true
		}
	}

	// 2. first-observed and condition times.
	first := make(map[int]time.Time, len(met))
	for _, i := range met {
		t, ok := st.FirstObserved[i]
		if !ok {
			t = now
		}
		first[i] = t
		st.ConditionLastObserved[m.thresholds[i].Signal.Condition()] = now
	}
	st.FirstObserved = first
	st.Conditions = nil
	for _, c := range [...]conditions.Type{conditions.MemoryPressure, conditions.DiskPressure, conditions.PIDPressure} {
		if last, ok := st.ConditionLastObserved[c]; ok && now.Sub(last) < m.cfg.PressureTransitionPeriod {
			st.Conditions = append(st.Conditions, c)
		}
	}
	res.Conditions = slices.Clone(st.Conditions)

	// 3. actionable, in acting order.
	var actionable []int
	for _, i := range met {
		if now.Sub(first[i]) >= m.thresholds[i].GracePeriod {
			actionable = append(actionable, i)
		}
	}
	slices.SortFunc(actionable, m.actingOrder)
	slices.Sort(met)
	for _, i := range met {
		res.Met = append(res.Met, m.thresholds[i])
	}
	for _, i := range actionable {
		res.Actionable = append(res.Actionable, m.thresholds[i])
	}
	st.Actionable = actionable

	// 4. fresh observations only.
	var fresh []Threshold
	for _, i := range actionable {
		t := m.thresholds[i]
		o := obs[t.Signal]
		if last, ok := st.LastObservations[t.Signal]; !ok || o.Time.IsZero() || o.Time.After(last.Time) {
			fresh = append(fresh, t)
		}
	}
	st.LastObservations = cloneMap(obs)
	m.state = st

	// 5. local storage.
	if m.cfg.LocalStorageCapacityIsolation {
		if ev := m.localStorageEvictions(pods, stats); len(ev) > 0 {
			res.Decision = Decision{Kind: DecideLocalStorage, LocalStorage: ev,
				Reason: DecisionLocalStorageLimits, Message: strconv.Itoa(len(ev)) + " pod(s) over their local storage limits are evicted"}
			res.Next = now.Add(PodCleanupTimeout)
			return res
		}
	}
	if len(fresh) == 0 {
		res.Decision.Reason, res.Decision.Message = DecisionNoPressure, "no resources are starved"
		return res
	}

	// 6. act on the first threshold.
	t := fresh[0]
	r := t.Signal.Resource()
	res.NodeEvent = &Event{Type: EventTypeWarning, Reason: ReasonEvictionThresholdMet, Message: "Attempting to reclaim " + string(r)}
	d := Decision{Kind: DecideEvict, Threshold: &t, Reclaim: ReclaimFor(t.Signal, m.cfg.Layout)}
	if len(d.Reclaim) > 0 {
		d.Kind = DecideReclaim
	}
	ranked, _ := Rank(t.Signal, m.cfg.Layout, pods, stats, m.cfg.Rank)
	d.Ranked = ranked
	for _, rk := range ranked {
		if rk.Critical {
			continue
		}
		ev := m.eviction(t, rk.Pod, rk.Stats, fresh, obs)
		d.Evict = &ev
		break
	}
	switch {
	case len(pods) == 0:
		d.Reason, d.Message = DecisionNoActivePods, "eviction thresholds have been met, but no pods are active to evict"
	case d.Evict == nil:
		d.Reason, d.Message = DecisionAllPodsCritical, "unable to evict any pods from the node: every active pod is critical"
	default:
		d.Reason, d.Message = DecisionEvictPod, "must evict pod "+d.Evict.Pod.Key()+" to reclaim "+string(r)
		if d.Kind == DecideReclaim {
			d.Reason, d.Message = DecisionReclaimFirst, "reclaim "+string(r)+" at node level first; if that is not enough, evict pod "+d.Evict.Pod.Key()
		}
		res.Next = now.Add(PodCleanupTimeout)
	}
	if d.Evict == nil && d.Kind == DecideEvict {
		d.Kind = DecideNothing
	}
	res.Decision = d
	return res
}

// actingOrder orders actionable thresholds: by signal (memory first, see
// signalOrder), hard before soft, then by configuration position.
// Upstream's order is memory first and otherwise unspecified.
func (m *Manager) actingOrder(a, b int) int {
	ta, tb := &m.thresholds[a], &m.thresholds[b]
	if c := ta.Signal.index() - tb.Signal.index(); c != 0 {
		return c
	}
	if c := cmpTrueFirst(ta.IsHard(), tb.IsHard()); c != 0 {
		return c
	}
	return a - b
}

// eviction builds the eviction of p for threshold t.
func (m *Manager) eviction(t Threshold, p *core.Pod, st *PodStats, fresh []Threshold, obs Observations) Eviction {
	r := t.Signal.Resource()
	msg, ann := evictionMessage(r, p, st, fresh, obs)
	grace := ImmediateEvictionGracePeriodSeconds
	if !t.IsHard() {
		grace = m.cfg.MaxPodGracePeriodSeconds
		if m.cfg.SoftGracePodAware {
			own := gracePeriod(p)
			if grace < 0 || own < grace {
				grace = own
			}
		}
	}
	return Eviction{
		Pod: p, Signal: t.Signal, Resource: r, Hard: t.IsHard(), GracePeriodSeconds: grace,
		Status: PodStatus{Phase: PhaseFailed, Reason: Reason, Message: msg,
			Conditions: []core.PodCondition{{Type: core.DisruptionTarget, Status: conditions.True, Reason: ReasonTerminationByKubelet, Message: msg}}},
		Event:       Event{Type: EventTypeWarning, Reason: Reason, Message: msg},
		Annotations: ann,
	}
}

// Reclaimed reports whether the node-level reclaim of a DecideReclaim
// decision was enough (upstream's reclaimNodeLevelResources): no
// configured threshold, grace periods ignored and minimum reclaims
// enforced, is met by fresh, the observations taken after the reclaim.
// When it returns false, carry out the decision's Evict.
func (m *Manager) Reclaimed(fresh Observations) bool {
	for i := range m.thresholds {
		if o, ok := fresh[m.thresholds[i].Signal]; ok && m.thresholds[i].met(o, true) {
			return false
		}
	}
	return true
}

// localStorageEvictions returns the pods over an emptyDir size limit, the
// pod's ephemeral-storage limit or a container's, checked in that order
// per pod (upstream's localStorageEviction). Pods without stats and
// critical pods are skipped.
func (m *Manager) localStorageEvictions(pods []core.Pod, stats Stats) []Eviction {
	var out []Eviction
	for i := range pods {
		p := &pods[i]
		st := stats.of(p)
		if st == nil || p.IsCritical() {
			continue
		}
		msg := m.localStorageViolation(p, st)
		if msg == "" {
			continue
		}
		out = append(out, Eviction{
			Pod: p, Resource: ResourceEphemeralStorage, Hard: true, GracePeriodSeconds: ImmediateEvictionGracePeriodSeconds,
			Status: PodStatus{Phase: PhaseFailed, Reason: Reason, Message: msg},
			Event:  Event{Type: EventTypeWarning, Reason: Reason, Message: msg},
		})
	}
	return out
}

// ephemeralLimited returns the container named name whose
// ephemeral-storage limit applies, or nil: among the regular containers
// and (unless RegularContainersEphemeralLimitsOnly) the sidecars, the last
// of that name with a limit whose value is not 0, as upstream's map of
// limits by name is filled.
func (m *Manager) ephemeralLimited(p *core.Pod, name string) *core.Container {
	var c *core.Container
	pick := func(cs []core.Container, sidecars bool) {
		for j := range cs {
			if cs[j].Name != name || (sidecars && !sidecar(&cs[j])) {
				continue
			}
			if l := ephemeralLimit(&cs[j]); l.Value() != 0 {
				c = &cs[j]
			}
		}
	}
	pick(p.Containers, false)
	if !m.cfg.RegularContainersEphemeralLimitsOnly {
		pick(p.InitContainers, true)
	}
	return c
}

// localStorageViolation returns the message for the pod's first local
// storage violation, or "".
func (m *Manager) localStorageViolation(p *core.Pod, st *PodStats) string {
	for i := range p.Volumes {
		v := &p.Volumes[i]
		if v.Source != core.VolumeEmptyDir || v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Sign() != 1 {
			continue
		}
		size := v.EmptyDir.SizeLimit
		for j := range st.Volumes {
			// Upstream reads every volume reading's UsedBytes without a nil
			// check; a missing one is skipped here.
			if st.Volumes[j].Name == v.Name && st.Volumes[j].UsedBytes != nil {
				if size.CmpInt64(int64(*st.Volumes[j].UsedBytes)) < 0 {
					return emptyDirMessage(v.Name, *size)
				}
				break
			}
		}
	}
	if limit, found := aggregate(p, ResourceEphemeralStorage, true); found {
		if oh := p.Overhead[core.ResourceEphemeralStorage]; !oh.IsZero() {
			limit.Add(oh)
		}
		if limit.CmpInt64(int64(val(st.EphemeralStorageUsedBytes))) < 0 {
			return podEphemeralMessage(limit)
		}
	}
	for i := range st.Containers {
		cs := &st.Containers[i]
		c := m.ephemeralLimited(p, cs.Name)
		if c == nil {
			continue
		}
		used := fsBytes(cs.Logs)
		if m.cfg.Layout != LayoutImageFs {
			used += fsBytes(cs.Rootfs)
		}
		if limit := ephemeralLimit(c); limit.CmpInt64(int64(used)) < 0 {
			return containerEphemeralMessage(cs.Name, limit)
		}
	}
	return ""
}

// ephemeralLimit returns the container's ephemeral-storage limit (zero
// when not set).
func ephemeralLimit(c *core.Container) resource.Quantity {
	return c.Resources.Limits[core.ResourceEphemeralStorage]
}

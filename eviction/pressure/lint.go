package pressure

import (
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/internal/keys"
)

// Warning is a strict-validation finding: a setting upstream accepts but
// that probably does not do what its author meant. Warnings never change
// behaviour.
type Warning struct {
	// Reason is a machine-readable code, one of the Reason* constants.
	Reason string
	// Message says what was found and what upstream does with it.
	Message string
}

// Warning reasons.
const (
	// ReasonZeroPercentThreshold: a percentage that parses to 0 but is not
	// written "0%" ("0.0%", "0%%") is kept, and is never met.
	ReasonZeroPercentThreshold = "ZeroPercentThreshold"
	// ReasonFullPercentThreshold: a percentage that parses to 100% but is
	// not written "100%" is kept, and is met whenever anything is used.
	ReasonFullPercentThreshold = "FullPercentThreshold"
	// ReasonRepeatedPercent: "10%%" is read as 10%; every trailing '%' is
	// stripped.
	ReasonRepeatedPercent = "RepeatedPercent"
	// ReasonZeroSoftGrace: a soft threshold with a "0s" grace period is
	// hard (and memory.available is then copied to allocatable memory).
	ReasonZeroSoftGrace = "ZeroSoftGracePeriod"
	// ReasonOrphanGracePeriod: a grace period for a signal without a soft
	// threshold is ignored.
	ReasonOrphanGracePeriod = "OrphanGracePeriod"
	// ReasonOrphanMinReclaim: a minimum reclaim for a signal without a
	// threshold is ignored.
	ReasonOrphanMinReclaim = "OrphanMinimumReclaim"
	// ReasonContainerFsOverwritten: containerfs thresholds are derived
	// from nodefs or imagefs; configured ones are overwritten.
	ReasonContainerFsOverwritten = "ContainerFsOverwritten"
	// ReasonZeroValuedCopy: the threshold a containerfs threshold copies is
	// missing, so a zero-valued threshold that is never met is added.
	ReasonZeroValuedCopy = "ZeroValuedContainerFsCopy"
	// ReasonNegativeMaxGrace: a negative evictionMaxPodGracePeriod does
	// not defer to the pod's grace period (kubernetes#118172).
	ReasonNegativeMaxGrace = "NegativeMaxPodGracePeriod"
	// ReasonZeroTransitionPeriod: an evictionPressureTransitionPeriod of 0
	// never reports a pressure condition.
	ReasonZeroTransitionPeriod = "ZeroPressureTransitionPeriod"
)

// LintSettings returns the strict-validation warnings for settings that
// parse: the quirks upstream accepts silently. Settings that do not parse
// return their parse error from Parse, not warnings here; LintSettings
// skips values it cannot read.
func LintSettings(s Settings) []Warning {
	var out []Warning
	add := func(reason, msg string) { out = append(out, Warning{Reason: reason, Message: msg}) }
	for _, f := range [...]struct {
		name string
		m    map[string]string
	}{{fieldHard, s.EvictionHard}, {fieldSoft, s.EvictionSoft}} {
		for _, k := range keys.Sorted(f.m) {
			v := f.m[k]
			if !strings.HasSuffix(v, "%") || v == "0%" || v == "100%" {
				continue
			}
			where := f.name + "[" + k + "]=" + strconv.Quote(v)
			if strings.HasSuffix(v, "%%") {
				add(ReasonRepeatedPercent, where+": every trailing '%' is stripped")
			}
			p, err := parsePercentage(v)
			switch {
			case err != nil:
			case p == 0:
				add(ReasonZeroPercentThreshold, where+" is 0% but not written \"0%\", so it is kept and never met")
			case p == 1:
				add(ReasonFullPercentThreshold, where+" is 100% but not written \"100%\", so it is kept and met whenever anything is used")
			}
		}
	}
	for _, k := range keys.Sorted(s.EvictionSoftGracePeriod) {
		v := s.EvictionSoftGracePeriod[k]
		where := fieldGrace + "[" + k + "]=" + strconv.Quote(v)
		if _, ok := s.EvictionSoft[k]; !ok {
			add(ReasonOrphanGracePeriod, where+" has no soft threshold and is ignored")
			continue
		}
		if g, err := parseGracePeriods(map[string]string{k: v}); err == nil && g[Signal(k)] == 0 {
			add(ReasonZeroSoftGrace, where+" makes the soft threshold hard")
		}
	}
	for _, k := range keys.Sorted(s.EvictionMinimumReclaim) {
		_, hard := s.EvictionHard[k]
		_, soft := s.EvictionSoft[k]
		if !hard && !soft {
			add(ReasonOrphanMinReclaim, fieldMinReclaim+"["+k+"] has no threshold and is ignored")
		}
	}
	for _, f := range [...]struct {
		name string
		m    map[string]string
	}{{fieldHard, s.EvictionHard}, {fieldSoft, s.EvictionSoft}} {
		for _, sig := range [...]Signal{SignalContainerFsAvailable, SignalContainerFsInodesFree} {
			if _, ok := f.m[string(sig)]; ok {
				add(ReasonContainerFsOverwritten, f.name+"["+string(sig)+"] is overwritten: containerfs thresholds are derived from nodefs or imagefs")
			}
		}
	}
	return out
}

// Warnings returns the strict-validation warnings about the config's
// non-threshold settings: a negative MaxPodGracePeriodSeconds without
// SoftGracePodAware, and a zero PressureTransitionPeriod.
func (c Config) Warnings() []Warning {
	var out []Warning
	if c.MaxPodGracePeriodSeconds < 0 && !c.SoftGracePodAware {
		out = append(out, Warning{Reason: ReasonNegativeMaxGrace, Message: "MaxPodGracePeriodSeconds " +
			strconv.FormatInt(c.MaxPodGracePeriodSeconds, 10) + " is passed to the runtime as is and does not defer to the pod's grace period (kubernetes#118172); set SoftGracePodAware for that"})
	}
	if c.PressureTransitionPeriod == 0 {
		out = append(out, Warning{Reason: ReasonZeroTransitionPeriod, Message: "PressureTransitionPeriod 0s never reports a pressure condition (the config file defaults 0 to 5m; the command line does not)"})
	}
	return out
}

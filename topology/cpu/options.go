package cpu

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// The --cpu-manager-policy-options names (upstream's policy_options.go).
const (
	OptionFullPCPUsOnly             = "full-pcpus-only"
	OptionDistributeCPUsAcrossNUMA  = "distribute-cpus-across-numa"
	OptionAlignBySocket             = "align-by-socket"
	OptionDistributeCPUsAcrossCores = "distribute-cpus-across-cores"
	OptionStrictCPUReservation      = "strict-cpu-reservation"
	OptionPreferAlignByUncoreCache  = "prefer-align-cpus-by-uncorecache"
)

// Options are the static policy's options (upstream's
// StaticPolicyOptions). The zero value is the policy without options.
type Options struct {
	// FullPCPUsOnly (full-pcpus-only, GA): a Guaranteed container gets
	// whole cores only; a request that is not a multiple of the CPUs per
	// core, or more than the free whole cores, is refused with an
	// SMTAlignmentError.
	FullPCPUsOnly bool
	// DistributeCPUsAcrossNUMA (distribute-cpus-across-numa, beta): a
	// request that needs several NUMA nodes is spread evenly over them
	// (TakeDistributed).
	DistributeCPUsAcrossNUMA bool
	// AlignBySocket (align-by-socket, alpha): hints that span the fewest
	// sockets are preferred too, and CPUs of the hint's sockets are taken
	// first.
	AlignBySocket bool
	// DistributeCPUsAcrossCores (distribute-cpus-across-cores, alpha):
	// Spread sorting, no whole cores.
	DistributeCPUsAcrossCores bool
	// StrictCPUReservation (strict-cpu-reservation, GA): the reserved CPUs
	// leave the shared pool too.
	StrictCPUReservation bool
	// PreferAlignByUncoreCache (prefer-align-cpus-by-uncorecache, GA):
	// TakeOptions.PreferUncoreCache.
	PreferAlignByUncoreCache bool

	// ExactFreeCores is not a kubelet option: it applies upstream's later
	// fix of kubernetes#140495 (TakeOptions.ExactFreeCores). Off by
	// default, as v1.36.3; ParseOptions never sets it.
	ExactFreeCores bool
	// KeepBestCombination is not a kubelet option: with
	// distribute-cpus-across-numa, take the CPUs from the NUMA nodes the
	// allocator chose (TakeOptions.KeepBestCombination). Off by default,
	// as v1.36.3; ParseOptions never sets it.
	KeepBestCombination bool
}

// OptionGates are the kubelet's feature gates that admit the options that
// are not GA: CPUManagerPolicyAlphaOptions (off by default in v1.36) and
// CPUManagerPolicyBetaOptions (on).
type OptionGates struct {
	AlphaOptions       bool
	DisableBetaOptions bool
}

var optionLevel = map[string]string{
	OptionFullPCPUsOnly:             "stable",
	OptionStrictCPUReservation:      "stable",
	OptionPreferAlignByUncoreCache:  "stable",
	OptionDistributeCPUsAcrossNUMA:  "beta",
	OptionAlignBySocket:             "alpha",
	OptionDistributeCPUsAcrossCores: "alpha",
}

// ParseOptions reads --cpu-manager-policy-options as the kubelet does
// (upstream's NewStaticPolicyOptions): every name must be known and
// admitted by gates, every value a strconv.ParseBool boolean, and the
// result must pass Validate. All problems are returned at once, by option
// name.
func ParseOptions(options map[string]string, gates OptionGates) (Options, error) {
	var o Options
	var errs []error
	names := make([]string, 0, len(options))
	for name := range options {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		value := options[name]
		switch optionLevel[name] {
		case "":
			errs = append(errs, fmt.Errorf("%w: unknown CPU Manager Policy option: %q", ErrInvalid, name))
			continue
		case "alpha":
			if !gates.AlphaOptions {
				errs = append(errs, fmt.Errorf("%w: CPU Manager Policy Alpha-level Options not enabled, but option %q provided", ErrInvalid, name))
				continue
			}
		case "beta":
			if gates.DisableBetaOptions {
				errs = append(errs, fmt.Errorf("%w: CPU Manager Policy Beta-level Options not enabled, but option %q provided", ErrInvalid, name))
				continue
			}
		}
		v, err := strconv.ParseBool(value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: bad value %q for option %q: not a boolean", ErrInvalid, value, name))
			continue
		}
		switch name {
		case OptionFullPCPUsOnly:
			o.FullPCPUsOnly = v
		case OptionDistributeCPUsAcrossNUMA:
			o.DistributeCPUsAcrossNUMA = v
		case OptionAlignBySocket:
			o.AlignBySocket = v
		case OptionDistributeCPUsAcrossCores:
			o.DistributeCPUsAcrossCores = v
		case OptionStrictCPUReservation:
			o.StrictCPUReservation = v
		case OptionPreferAlignByUncoreCache:
			o.PreferAlignByUncoreCache = v
		}
	}
	if len(errs) == 0 {
		if err := o.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return o, errors.Join(errs...)
}

// Validate returns upstream's incompatible pairs, all of them:
// full-pcpus-only, distribute-cpus-across-numa and
// prefer-align-cpus-by-uncorecache each with distribute-cpus-across-cores,
// and prefer-align-cpus-by-uncorecache with distribute-cpus-across-numa.
func (o Options) Validate() error {
	var errs []error
	for _, p := range []struct {
		a, b   bool
		na, nb string
	}{
		{o.FullPCPUsOnly, o.DistributeCPUsAcrossCores, OptionFullPCPUsOnly, OptionDistributeCPUsAcrossCores},
		{o.DistributeCPUsAcrossNUMA, o.DistributeCPUsAcrossCores, OptionDistributeCPUsAcrossNUMA, OptionDistributeCPUsAcrossCores},
		{o.PreferAlignByUncoreCache, o.DistributeCPUsAcrossCores, OptionPreferAlignByUncoreCache, OptionDistributeCPUsAcrossCores},
		{o.PreferAlignByUncoreCache, o.DistributeCPUsAcrossNUMA, OptionPreferAlignByUncoreCache, OptionDistributeCPUsAcrossNUMA},
	} {
		if p.a && p.b {
			errs = append(errs, fmt.Errorf("%w: static policy options %s and %s can not be used at the same time", ErrInvalid, p.na, p.nb))
		}
	}
	return errors.Join(errs...)
}

package remediation

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodelife/nodelife/conditions"
)

// ErrInvalidConfig is wrapped by every error of Config.Validate; Check
// returns it for a config Validate refuses.
var ErrInvalidConfig = errors.New("remediation: invalid config")

func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidConfig, field, fmt.Sprintf(format, args...))
}

func itoa(i int) string { return strconv.Itoa(i) }

// Validate returns every problem of c at once, each naming its field and
// value: checks need a type, a status of True, False or Unknown and a
// timeout that is not negative; NodeStartupTimeout is 0 or at least
// MinNodeStartupTimeout (Cluster API's webhook); at most one of
// MaxUnhealthy, MinHealthy and UnhealthyRange is set; a count is not
// negative and a percentage is a whole number from 0% to 100% (medik8s'
// CRD pattern); UnhealthyRange is "[min-max]" with min <= max; Rounding is
// known; StormCooldownDuration is not negative; escalating remediations
// have unique orders and unique, non-empty templates, and each one's
// Timeout is at least MinEscalationTimeout, except that a single
// remediation may have none.
func (c Config) Validate() error {
	var errs []error
	checks := func(field string, cs []UnhealthyCondition) {
		for i, u := range cs {
			f := fmt.Sprintf("%s[%d]", field, i)
			if u.Type == "" {
				errs = append(errs, invalid(f+".Type", "must not be empty"))
			}
			if u.Status != conditions.True && u.Status != conditions.False && u.Status != conditions.Unknown {
				errs = append(errs, invalid(f+".Status", "%q: must be True, False or Unknown", u.Status))
			}
			if u.Timeout < 0 {
				errs = append(errs, invalid(f+".Timeout", "%v: must not be negative", u.Timeout))
			}
		}
	}
	checks("UnhealthyNodeConditions", c.UnhealthyNodeConditions)
	checks("UnhealthyMachineConditions", c.UnhealthyMachineConditions)
	if c.NodeStartupTimeout != 0 && c.NodeStartupTimeout < MinNodeStartupTimeout {
		errs = append(errs, invalid("NodeStartupTimeout", "%v: must be 0 (disabled) or at least %v", c.NodeStartupTimeout, MinNodeStartupTimeout))
	}
	set := 0
	if c.MaxUnhealthy != nil {
		set++
		if err := checkAmount(*c.MaxUnhealthy); err != nil {
			errs = append(errs, invalid("MaxUnhealthy", "%s", err))
		}
	}
	if c.MinHealthy != nil {
		set++
		if err := checkAmount(*c.MinHealthy); err != nil {
			errs = append(errs, invalid("MinHealthy", "%s", err))
		}
	}
	if c.UnhealthyRange != "" {
		set++
		if _, _, err := parseRange(c.UnhealthyRange); err != nil {
			errs = append(errs, invalid("UnhealthyRange", "%s", err))
		}
	}
	if set > 1 {
		errs = append(errs, invalid("MaxUnhealthy, MinHealthy, UnhealthyRange", "at most one may be set, %d are", set))
	}
	if c.Rounding != RoundDown && c.Rounding != RoundUp {
		errs = append(errs, invalid("Rounding", "%v: must be RoundDown or RoundUp", c.Rounding))
	}
	if c.StormCooldownDuration < 0 {
		errs = append(errs, invalid("StormCooldownDuration", "%v: must not be negative", c.StormCooldownDuration))
	}
	orders := map[int]int{}
	templates := map[string]int{}
	for i, e := range c.EscalatingRemediations {
		f := fmt.Sprintf("EscalatingRemediations[%d]", i)
		if j, ok := orders[e.Order]; ok {
			errs = append(errs, invalid(f+".Order", "%d: already the order of EscalatingRemediations[%d]", e.Order, j))
		} else {
			orders[e.Order] = i
		}
		if len(c.EscalatingRemediations) > 1 {
			if e.Template == "" {
				errs = append(errs, invalid(f+".Template", "must not be empty when there are several remediations"))
			} else if j, ok := templates[e.Template]; ok {
				errs = append(errs, invalid(f+".Template", "%q: already the template of EscalatingRemediations[%d]", e.Template, j))
			} else {
				templates[e.Template] = i
			}
		}
		switch {
		case e.Timeout < 0:
			errs = append(errs, invalid(f+".Timeout", "%v: must not be negative", e.Timeout))
		case e.Timeout == 0 && len(c.EscalatingRemediations) == 1:
		case e.Timeout < MinEscalationTimeout:
			errs = append(errs, invalid(f+".Timeout", "%v: must be at least %v", e.Timeout, MinEscalationTimeout))
		}
	}
	return errors.Join(errs...)
}

// checkAmount accepts a count that is not negative or a whole percentage
// from 0% to 100%.
func checkAmount(v intstr.IntOrString) error {
	switch v.Type {
	case intstr.Int:
		if v.IntVal < 0 {
			return fmt.Errorf("%d: must not be negative", v.IntVal)
		}
		return nil
	case intstr.String:
		s, ok := strings.CutSuffix(v.StrVal, "%")
		if !ok {
			return fmt.Errorf("%q: must be a count or a percentage such as \"40%%\"", v.StrVal)
		}
		digits := s != "" && strings.Trim(s, "0123456789") == ""
		if !digits || (len(s) > 2 && s != "100") {
			return fmt.Errorf("%q: a percentage must be a whole number from 0%% to 100%%", v.StrVal)
		}
		return nil
	}
	return fmt.Errorf("type %d: must be an integer or a string", v.Type)
}

// scaled is the count an amount stands for among total targets (checked
// by checkAmount first).
func scaled(v intstr.IntOrString, total int, up bool) int {
	if v.Type == intstr.Int {
		return int(v.IntVal)
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	// n <= 100, so n*total does not overflow for any slice length.
	p := n * total
	if up {
		return (p + 99) / 100
	}
	return p / 100
}

// parseRange reads Cluster API's "[min-max]".
func parseRange(s string) (lo, hi int, err error) {
	inner, ok := strings.CutPrefix(s, "[")
	if ok {
		inner, ok = strings.CutSuffix(inner, "]")
	}
	a, b, dash := strings.Cut(inner, "-")
	if !ok || !dash {
		return 0, 0, fmt.Errorf("%q: must be \"[min-max]\"", s)
	}
	x, errA := strconv.ParseUint(a, 10, 31)
	y, errB := strconv.ParseUint(b, 10, 31)
	if errA != nil || errB != nil {
		return 0, 0, fmt.Errorf("%q: min and max must be whole numbers", s)
	}
	if y < x {
		return 0, 0, fmt.Errorf("%q: max %d is less than min %d", s, y, x)
	}
	return int(x), int(y), nil
}

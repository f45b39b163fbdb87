package readiness

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

// ErrInvalid is wrapped by every error of Validate and ValidateUpdate: the
// API server would refuse the rule.
var ErrInvalid = errors.New("readiness: invalid rule")

// ErrRefused is wrapped by every error of the webhook checks (WebhookCreate,
// WebhookUpdate): the controller's admission webhook, when it runs, would
// refuse the rule.
var ErrRefused = errors.New("readiness: refused by the webhook")

// MaxConditions is the most conditions a rule may name.
const MaxConditions = 32

// taintNamePart is the CEL rule's pattern for the part of the taint key
// after the slash.
var taintNamePart = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)

func invalid(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, path, fmt.Sprintf(format, args...))
}

func validStatus(s conditions.Status) bool {
	return s == conditions.True || s == conditions.False || s == conditions.Unknown
}

// Validate checks r as the API server does on create, with the CRD's schema
// and CEL rules, and returns every problem at once, each naming its field
// and value: 1 to 32 conditions, each type 1-316 characters and named
// once, a required status and an optional default of True, False or
// Unknown; an enforcement mode of bootstrap-only or continuous; a taint
// key "readiness.k8s.io/<name>" of at most 253 characters with exactly one
// "/", the name 1-63 letters, digits, '-', '_' or '.' starting and ending
// with a letter or digit; a value of at most 63 characters; an effect of
// NoSchedule, PreferNoSchedule or NoExecute; a condition policy of allOf,
// anyOf or empty. The node selector is not checked here (the API server
// accepts any; see WebhookCreate).
func (r Rule) Validate() error {
	var errs []error
	switch n := len(r.Conditions); {
	case n == 0:
		errs = append(errs, invalid("spec.conditions", "Required value: at least one condition"))
	case n > MaxConditions:
		errs = append(errs, invalid("spec.conditions", "Too many: %d: must have at most %d items", n, MaxConditions))
	}
	seen := map[conditions.Type]bool{}
	for i, c := range r.Conditions {
		p := fmt.Sprintf("spec.conditions[%d]", i)
		if l := len(c.Type); l < 1 || l > 316 {
			errs = append(errs, invalid(p+".type", "Invalid value: %q: must be 1-316 characters (has %d)", c.Type, l))
		}
		if seen[c.Type] {
			errs = append(errs, invalid(p, "Duplicate value: type %q", c.Type))
		}
		seen[c.Type] = true
		if !validStatus(c.RequiredStatus) {
			errs = append(errs, invalid(p+".requiredStatus", "Unsupported value: %q: supported values: \"True\", \"False\", \"Unknown\"", c.RequiredStatus))
		}
		if c.DefaultStatus != "" && !validStatus(c.DefaultStatus) {
			errs = append(errs, invalid(p+".defaultStatus", "Unsupported value: %q: supported values: \"True\", \"False\", \"Unknown\"", c.DefaultStatus))
		}
	}
	if r.EnforcementMode != BootstrapOnly && r.EnforcementMode != Continuous {
		errs = append(errs, invalid("spec.enforcementMode", "Unsupported value: %q: supported values: \"bootstrap-only\", \"continuous\"", r.EnforcementMode))
	}
	errs = append(errs, validateTaint(r.Taint)...)
	if r.ConditionPolicy != "" && r.ConditionPolicy != AllOf && r.ConditionPolicy != AnyOf {
		errs = append(errs, invalid("spec.conditionPolicy", "Unsupported value: %q: supported values: \"allOf\", \"anyOf\"", r.ConditionPolicy))
	}
	return errors.Join(errs...)
}

// validateTaint applies the CEL rules of spec.taint, each with its
// upstream message and the key or value it refused.
func validateTaint(t taints.Taint) []error {
	var errs []error
	bad := func(msg string, v any) { errs = append(errs, invalid("spec.taint", "%s (%q)", msg, v)) }
	if !strings.HasPrefix(t.Key, TaintKeyPrefix) {
		bad("taint key must start with 'readiness.k8s.io/'", t.Key)
	}
	if len(t.Key) > 253 {
		bad("taint key length must be at most 253 characters", t.Key)
	}
	parts := strings.Split(t.Key, "/")
	if len(parts) != 2 {
		bad("taint key must have exactly one '/' separator (prefix/name format)", t.Key)
	}
	// the CEL rules below read the part after the first slash; a key
	// without one fails them with an evaluation error, reported above
	if len(parts) > 1 {
		if l := len(parts[1]); l == 0 || l > 63 {
			bad("taint key name part must be 1-63 characters", t.Key)
		}
		if !taintNamePart.MatchString(parts[1]) {
			bad("taint key name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", t.Key)
		}
	}
	if len(t.Value) > 63 {
		bad("taint value length must be at most 63 characters", t.Value)
	}
	if !t.Effect.Valid() {
		bad("taint effect must be one of 'NoSchedule', 'PreferNoSchedule', 'NoExecute'", string(t.Effect))
	}
	return errs
}

// ValidateUpdate checks r as the API server does when it replaces old:
// Validate's checks, and the CEL rules that keep the spec immutable but for
// dryRun (conditions, enforcement mode, the taint's key, effect and value,
// the node selector, and the condition policy with empty read as allOf).
func ValidateUpdate(old, r Rule) error {
	errs := []error{r.Validate()}
	immutable := func(path string, same bool) {
		if !same {
			errs = append(errs, invalid(path, "Invalid value: %s is immutable", path[strings.LastIndex(path, ".")+1:]))
		}
	}
	immutable("spec.conditions", equality.Semantic.DeepEqual(old.Conditions, r.Conditions))
	immutable("spec.enforcementMode", old.EnforcementMode == r.EnforcementMode)
	if old.Taint.Key != "" {
		immutable("spec.taint.key", old.Taint.Key == r.Taint.Key)
	}
	if old.Taint.Effect != "" {
		immutable("spec.taint.effect", old.Taint.Effect == r.Taint.Effect)
	}
	if old.Taint.Value != "" {
		immutable("spec.taint.value", old.Taint.Value == r.Taint.Value)
	}
	immutable("spec.nodeSelector", equality.Semantic.DeepEqual(old.NodeSelector, r.NodeSelector))
	immutable("spec.conditionPolicy", old.Policy() == r.Policy())
	return errors.Join(errs...)
}

func refused(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrRefused, path, fmt.Sprintf(format, args...))
}

// WebhookCreate runs the controller's admission webhook on the creation of
// r beside the rules that exist (it runs only when the controller is
// started with --enable-webhook; without it the API server's checks,
// Validate, are all there is). It refuses a node selector that does not
// parse or is empty, a defaultStatus or the anyOf policy with bootstrap-only
// enforcement, and a rule with the taint key and effect of an existing
// rule whose selector overlaps r's (NodeSelectorsOverlap); every problem
// is returned. A rule with a NoExecute taint is admitted with a warning.
func WebhookCreate(r Rule, existing []Rule) (warnings []string, err error) {
	errs := webhookSelector(r)
	if r.EnforcementMode == BootstrapOnly {
		for i, c := range r.Conditions {
			if c.DefaultStatus != "" {
				errs = append(errs, refused(fmt.Sprintf("spec.conditions[%d].defaultStatus", i),
					"Forbidden: defaultStatus should not be used with bootstrap-only enforcementMode (%q)", c.DefaultStatus))
			}
		}
		if r.ConditionPolicy == AnyOf {
			errs = append(errs, refused("spec.conditionPolicy", "Forbidden: anyOf conditionPolicy is not supported with bootstrap-only enforcementMode"))
		}
	}
	errs = append(errs, conflicts(r, existing, false)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if r.Taint.Effect == taints.TaintEffectNoExecute {
		if r.EnforcementMode == Continuous {
			warnings = append(warnings, "CAUTION: NoExecute with continuous mode evicts pods when conditions fail, risking workload disruption. Consider NoSchedule or bootstrap-only")
		} else {
			warnings = append(warnings, "NOTE: NoExecute will evict existing pods without tolerations. Ensure critical system pods have appropriate tolerations")
		}
	}
	return warnings, nil
}

// WebhookUpdate runs the webhook on an update of r: the node selector must
// parse and not be empty, and no other rule (by name) may have its taint
// key and effect with an overlapping selector. The rest is immutable and
// left to ValidateUpdate.
func WebhookUpdate(r Rule, existing []Rule) error {
	return errors.Join(append(webhookSelector(r), conflicts(r, existing, true)...)...)
}

func webhookSelector(r Rule) []error {
	s, err := metav1.LabelSelectorAsSelector(&r.NodeSelector)
	if err != nil {
		return []error{refused("spec.nodeSelector", "Invalid value: %v", err)}
	}
	if s.Empty() {
		return []error{refused("spec.nodeSelector", "Required value: nodeSelector must not be empty")}
	}
	return nil
}

func conflicts(r Rule, existing []Rule, update bool) []error {
	var errs []error
	for _, o := range existing {
		if update && o.Name == r.Name {
			continue
		}
		if o.Taint.Key == r.Taint.Key && o.Taint.Effect == r.Taint.Effect && NodeSelectorsOverlap(r.NodeSelector, o.NodeSelector) {
			errs = append(errs, refused("spec.taint.key",
				"Invalid value: %q: conflicts with existing rule '%s' - same taint key '%s' and effect '%s' with overlapping node selectors",
				r.Taint.Key, o.Name, r.Taint.Key, r.Taint.Effect))
		}
	}
	return errs
}

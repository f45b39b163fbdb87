// Package clock holds the rule every nodelife state machine applies to the
// times callers give it: time never goes back.
package clock

import "time"

// Clamp returns now, or *last if now is earlier, so that a clock stepped
// back is treated as standing still; with advance it records now as the
// latest time seen.
func Clamp(last *time.Time, now time.Time, advance bool) time.Time {
	if now.Before(*last) {
		return *last
	}
	if advance {
		*last = now
	}
	return now
}

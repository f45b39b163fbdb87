// Package coretest builds core values for the library's own tests.
package coretest

import (
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// Ready returns the conditions of a node whose Ready condition has status
// s, and none for "" (a node that never posted one).
func Ready(s conditions.Status) []conditions.Condition {
	if s == "" {
		return nil
	}
	return []conditions.Condition{{Type: conditions.Ready, Status: s}}
}

// PodReady returns the conditions of a pod whose Ready condition is True
// when ready is, False otherwise.
func PodReady(ready bool) []core.PodCondition {
	s := conditions.False
	if ready {
		s = conditions.True
	}
	return []core.PodCondition{{Type: core.PodReady, Status: s}}
}

// Deleting returns a deletion timestamp (the zero time's address) when
// deleting is true, nil otherwise.
func Deleting(deleting bool) *time.Time {
	if !deleting {
		return nil
	}
	return &time.Time{}
}

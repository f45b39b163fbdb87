// Package coretest builds core values for the library's own tests.
package coretest

import "github.com/nodelife/nodelife/conditions"

// Ready returns the conditions of a node whose Ready condition has status
// s, and none for "" (a node that never posted one).
func Ready(s conditions.Status) []conditions.Condition {
	if s == "" {
		return nil
	}
	return []conditions.Condition{{Type: conditions.Ready, Status: s}}
}

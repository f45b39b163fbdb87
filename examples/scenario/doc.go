// Package scenario holds the worked scenarios of the guided tour
// (go run ./examples/tour): each one a short story, on built-in data, that
// composes nodelife's packages the way a custom kubelet or node controller
// would, and returns what happened as a Report of timestamped events with
// reasons.
//
// Every scenario lives in its own file and needs nothing from the others
// except the Report type in report.go, so a reader can copy the two files
// and start from there. Each is also a small program:
//
//	go run ./examples/zone-outage
//	go run ./examples/shutdown
//	go run ./examples/disk-pressure
//	go run ./examples/leader-election
//	go run ./examples/cascading-delete
//	go run ./examples/cgroup
//	go run ./examples/taints
//
// Scenarios are deterministic: they take every time from a fixed start and
// every random number from Options.Seed, so the same options give the same
// report (the golden files in testdata pin it).
package scenario

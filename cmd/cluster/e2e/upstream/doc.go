// Package upstream runs Kubernetes' own e2e specs, unchanged, on a control
// plane where nodelife's programs replace kube-controller-manager's node
// lifecycle, taint eviction, garbage collector and pod GC controllers,
// and, as the control run, on the same harness with upstream's
// controllers instead (see upstream_test.go and the README of
// cmd/cluster/e2e).
package upstream

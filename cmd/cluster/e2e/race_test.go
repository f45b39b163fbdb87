//go:build race

package e2e

// raceEnabled: under the race detector the scale test keeps its small size
// (the detector slows the in-process API server several times over).
const raceEnabled = true

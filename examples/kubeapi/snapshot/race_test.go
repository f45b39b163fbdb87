//go:build race

package snapshot

// raceEnabled: under the race detector the memory checks of
// TestBoundedInputs would measure the detector (its shadow memory), and
// writing their gigabytes takes minutes; they run without it (.ci/run).
const raceEnabled = true

//go:build race

package replay

// raceEnabled: the race detector slows the scale check several times, so
// it checks the result but not the time budget.
const raceEnabled = true

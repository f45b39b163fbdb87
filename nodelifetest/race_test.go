//go:build race

package nodelifetest_test

// raceEnabled: under the race detector (ten times slower) the shrink test,
// which has no goroutines, is left to the plain run; the property checks
// run the same 1,000 cases in both (ownOutputCases).
const raceEnabled = true

//go:build race

package nodelifetest_test

// raceEnabled: under the race detector (ten times slower) the checks run
// on a tenth of the cases; the plain run keeps 10,000.
const raceEnabled = true

//go:build !race

package replay

// raceEnabled: see race_test.go.
const raceEnabled = false

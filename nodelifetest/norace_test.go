//go:build !race

package nodelifetest_test

const raceEnabled = false

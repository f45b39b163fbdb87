package eviction

import (
	"fmt"
	"math"
	"testing"
)

// zoneMessage writes with strconv what this format would print; fmt is the
// reference, over zone names that need quoting and rates of every shape.
func TestZoneMessageIsTheFormat(t *testing.T) {
	var c Config
	zones := []string{"", "us-east-1a", "a\"b", "tab\there", "ünï", "\x00\xff"}
	rates := []float64{0, 0.1, 0.01, 1e-7, 123456789, 1.5e21, math.Inf(1), math.NaN(), -0.5}
	states := []ZoneState{StateInitial, StateNormal, StatePartialDisruption, StateFullDisruption, ZoneState("odd")}
	for _, z := range zones {
		for _, r := range rates {
			for _, s := range states {
				zp := &ZonePlan{Zone: z, Size: 7, NotReady: -3, Previous: s, State: StateNormal, Rate: r}
				want := fmt.Sprintf("zone %q: %d of %d nodes not ready, %s -> %s, %s; tainting rate %g nodes/s",
					ZoneName(zp.Zone), zp.NotReady, zp.Size, zp.Previous, zp.State, "state changed", zp.Rate)
				if got := c.zoneMessage(zp, "state changed"); got != want {
					t.Errorf("zoneMessage = %q, want %q", got, want)
				}
			}
		}
	}
}

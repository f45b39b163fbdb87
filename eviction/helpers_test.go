package eviction

import (
	"math"
	"time"
)

func nan() float64 { return math.NaN() }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 + s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

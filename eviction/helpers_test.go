package eviction

import (
	"math"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
)

func nan() float64 { return math.NaN() }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 + s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func posInf() float64 { return math.Inf(1) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// cmpIgnoreText ignores Reason and Message, which tests check separately.
var cmpIgnoreText = cmpopts.IgnoreFields(TaintAction{}, "Reason", "Message")

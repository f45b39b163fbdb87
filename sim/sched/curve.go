package sched

import (
	"math"
	"strconv"
	"strings"
)

// Curve is a run's GPU allocation, in percent of the cluster's GPUs, at
// each whole percent of arrived GPU requests from 0 to len-1, as the FGD
// paper's analysis discretizes it (merge_alloc_discrete.py): a sample's
// arrived and allocated percents are rounded, to a whole percent (half to
// even) and to hundredths; the value at p is the mean of the samples at
// p, or when there are none of those within p±1, rounded to hundredths;
// OK[p] is false when there are none either.
type Curve struct {
	Alloc []float64
	OK    []bool
}

// CurveOf discretizes samples of a cluster with gpus GPUs over 0..last
// percent.
func CurveOf(samples []Sample, gpus int, last int) Curve {
	c := Curve{Alloc: make([]float64, last+1), OK: make([]bool, last+1)}
	if gpus == 0 {
		return c
	}
	type acc struct {
		sum float64
		n   int
	}
	at := make([]acc, last+3)
	for _, s := range samples {
		a := math.RoundToEven(float64(s.ArrivedGPUMilli) / float64(gpus) / 10)
		if a < 0 || a > float64(last+1) {
			continue
		}
		at[int(a)].sum += round2(float64(s.UsedGPUMilli) / float64(gpus) / 10)
		at[int(a)].n++
	}
	for p := 0; p <= last; p++ {
		switch {
		case at[p].n > 0:
			c.Alloc[p], c.OK[p] = round2(at[p].sum/float64(at[p].n)), true
		default:
			var sum float64
			n := 0
			for q := max(p-1, 0); q <= p+1; q++ {
				sum += at[q].sum
				n += at[q].n
			}
			if n > 0 {
				c.Alloc[p], c.OK[p] = round2(sum/float64(n)), true
			}
		}
	}
	return c
}

func round2(v float64) float64 { return math.RoundToEven(v*100) / 100 }

// CSVHeader is the header of the FGD paper's analysis_allo_discrete.csv
// for 0..last percent.
func CSVHeader(last int) string {
	var b strings.Builder
	b.WriteString("workload,sc_policy,tune,seed,total_gpus")
	for p := 0; p <= last; p++ {
		b.WriteString("," + strconv.Itoa(p))
	}
	return b.String()
}

// CSVRow formats a run as a row of analysis_allo_discrete.csv: the
// workload's name, the policy's label ("06-FGD"), the tune, the seed, the
// cluster's GPUs and the curve (empty where OK is false).
func (c Curve) CSVRow(workload, policy string, tune float64, seed int64, gpus int) string {
	var b strings.Builder
	b.WriteString(workload + "," + policy + "," + strconv.FormatFloat(tune, 'f', -1, 64) + "," + strconv.FormatInt(seed, 10) + "," + strconv.Itoa(gpus))
	for p, v := range c.Alloc {
		b.WriteByte(',')
		if c.OK[p] {
			b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	return b.String()
}

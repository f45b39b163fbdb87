package nodelifetest

import (
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/shutdown"
)

// thresholdValues are the threshold quantities and percentages the
// kubelet's flags take, odd spellings included.
var thresholdValues = rapid.OneOf(
	rapid.SampledFrom([]string{"0%", "100%", "0.0%", "100.0%", "10%%", "1", "100Mi", "1.5Gi", "2G", "500m", "1e3", "12.5%", "0.001%", "99.99%"}),
	rapid.Custom(func(t *rapid.T) string { return fmt.Sprintf("%g%%", rapid.Float64Range(0, 100).Draw(t, "pct")) }),
	rapid.Custom(func(t *rapid.T) string {
		return fmt.Sprintf("%d%s", rapid.IntRange(1, 1<<20).Draw(t, "n"), rapid.SampledFrom([]string{"", "Ki", "Mi", "Gi", "k", "M"}).Draw(t, "suffix"))
	}),
)

// EvictionSettings draws the kubelet's eviction flags: for each signal,
// maybe a hard threshold, a soft one with its grace period, a minimum
// reclaim; and maybe --enforce-node-allocatable=pods. Every drawn value is
// one the kubelet parses (pressure.Settings.Parse accepts the result);
// o.Valid changes nothing here, since the grammar's failures are the
// parser's fuzz targets' business.
func EvictionSettings(o Options) *rapid.Generator[pressure.Settings] {
	return rapid.Custom(func(t *rapid.T) pressure.Settings {
		s := pressure.Settings{EvictionHard: map[string]string{}, EvictionSoft: map[string]string{}, EvictionSoftGracePeriod: map[string]string{}, EvictionMinimumReclaim: map[string]string{}}
		for _, sig := range pressure.Signals() {
			k := string(sig)
			if rapid.Bool().Draw(t, "hard "+k) {
				s.EvictionHard[k] = thresholdValues.Draw(t, "hardValue")
			}
			if rapid.Bool().Draw(t, "soft "+k) {
				s.EvictionSoft[k] = thresholdValues.Draw(t, "softValue")
				s.EvictionSoftGracePeriod[k] = rapid.SampledFrom([]string{"0s", "1s", "1m30s", "10m"}).Draw(t, "grace")
			}
			if rapid.Bool().Draw(t, "reclaim "+k) {
				s.EvictionMinimumReclaim[k] = rapid.SampledFrom([]string{"0", "1Mi", "5%", "150%", "0.5%"}).Draw(t, "reclaim")
			}
		}
		if rapid.Bool().Draw(t, "pods") {
			s.EnforceNodeAllocatable = []string{"pods"}
		}
		return s
	})
}

// Observations draws a reading of some of the signals on a node of
// 100 GiB of every resource, available amounts from 0 to 2 GiB and, about
// once in ten, slightly negative, so that thresholds in percent and in bytes are both met and
// missed.
func Observations() *rapid.Generator[pressure.Observations] {
	return rapid.Custom(func(t *rapid.T) pressure.Observations {
		obs := pressure.Observations{}
		for _, s := range pressure.Signals() {
			if rapid.Bool().Draw(t, "observe "+string(s)) {
				avail := rapid.Int64Range(0, 2<<30).Draw(t, "available")
				if rare(t, 10, "overdrawn") {
					avail = -rapid.Int64Range(1, 10).Draw(t, "overdraft")
				}
				obs[s] = pressure.Observation{Available: avail, Capacity: 100 << 30}
			}
		}
		return obs
	})
}

// Layouts draws the three disk layouts of node-pressure eviction.
func Layouts() *rapid.Generator[pressure.Layout] {
	return rapid.SampledFrom([]pressure.Layout{pressure.LayoutSingle, pressure.LayoutImageFs, pressure.LayoutSplit})
}

// ShutdownPhases draws shutdownGracePeriodByPodPriority lists of 1-10
// entries. The priorities are few (multiples of 1000 from -2000 to 12000)
// so that duplicates are common; with o.Valid they are distinct and the
// periods are 0-300 s, otherwise a period of -1 or -2 s occurs about once
// in twenty.
func ShutdownPhases(o Options) *rapid.Generator[[]shutdown.PhaseConfig] {
	return rapid.Custom(func(t *rapid.T) []shutdown.PhaseConfig {
		n := rapid.IntRange(1, 10).Draw(t, "phases")
		ps := make([]shutdown.PhaseConfig, 0, n)
		seen := map[int32]bool{}
		for i := 0; i < n; i++ {
			p := shutdown.PhaseConfig{Priority: int32(rapid.IntRange(-2, 12).Draw(t, "priority")) * 1000,
				ShutdownGracePeriodSeconds: int64(rapid.IntRange(0, 300).Draw(t, "seconds"))}
			if !o.Valid && rare(t, 20, "negative") {
				p.ShutdownGracePeriodSeconds = -int64(rapid.IntRange(1, 2).Draw(t, "negativeSeconds"))
			}
			if o.Valid && seen[p.Priority] {
				continue
			}
			seen[p.Priority] = true
			ps = append(ps, p)
		}
		return ps
	})
}

// ShutdownConfigs draws graceful node shutdown configs: the two-phase form
// (shutdownGracePeriod and its critical share, which o.Valid keeps within
// the total) or, half the time, ShutdownPhases; the behaviour options
// drawn too.
func ShutdownConfigs(o Options) *rapid.Generator[shutdown.Config] {
	return rapid.Custom(func(t *rapid.T) shutdown.Config {
		var c shutdown.Config
		if rapid.Bool().Draw(t, "byPriority") {
			c.ShutdownGracePeriodByPodPriority = ShutdownPhases(o).Draw(t, "phases")
		} else {
			c.ShutdownGracePeriod = time.Duration(rapid.IntRange(0, 300).Draw(t, "grace")) * time.Second
			maxCrit := 300
			if o.Valid {
				maxCrit = int(c.ShutdownGracePeriod / time.Second)
			}
			c.ShutdownGracePeriodCriticalPods = time.Duration(rapid.IntRange(0, maxCrit).Draw(t, "critical")) * time.Second
		}
		c.OmitDisruptionCondition = rapid.Bool().Draw(t, "omitCondition")
		c.CancelImmediately = rapid.Bool().Draw(t, "cancelImmediately")
		return c
	})
}

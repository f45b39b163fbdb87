package nodelifetest

import (
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/lease"
)

// Randomness returns a random source for the Rand fields of the library's
// configs that draws each value in [0, 1) from t, so that rapid controls
// and shrinks the jitter like any other input. Use it only within the
// property run that owns t.
func Randomness(t *rapid.T) func() float64 {
	return func() float64 { return rapid.Float64Range(0, 0.999999).Draw(t, "rand") }
}

// Backoffs draws retry back-offs: an initial wait up to a minute, a factor
// of 1-4, jitter up to factor-1 (so that a wait never shrinks), a cap up
// to an hour above the initial wait, and Randomness for the jitter.
func Backoffs() *rapid.Generator[lease.Backoff] {
	return rapid.Custom(func(t *rapid.T) lease.Backoff {
		factor := rapid.Float64Range(1, 4).Draw(t, "factor")
		b := lease.Backoff{Initial: time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(t, "initial")), Factor: factor,
			Jitter: rapid.Float64Range(0, factor-1).Draw(t, "jitter"), Rand: Randomness(t)}
		b.Cap = b.Initial + time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "extra"))
		return b
	})
}

// HeartbeatConfigs draws node-lease heartbeat configs for node: a lease of
// 1-300 s renewed at a fraction of 0.01-0.9 of it, with jitter small
// enough that a renewal always comes before expiry, and Randomness.
func HeartbeatConfigs(node string) *rapid.Generator[lease.HeartbeatConfig] {
	return rapid.Custom(func(t *rapid.T) lease.HeartbeatConfig {
		cfg := lease.DefaultHeartbeatConfig(node)
		cfg.LeaseDurationSeconds = int32(rapid.IntRange(1, 300).Draw(t, "duration"))
		cfg.RenewIntervalFraction = rapid.Float64Range(0.01, 0.9).Draw(t, "fraction")
		cfg.JitterFactor = rapid.Float64Range(0, 1/cfg.RenewIntervalFraction-1.0001).Draw(t, "jitter")
		cfg.Rand = Randomness(t)
		return cfg
	})
}

// ElectionConfigs draws leader-election configs for identity: client-go's
// default timings, ReleaseOnCancel either way, and Randomness for the
// retry jitter.
func ElectionConfigs(identity string) *rapid.Generator[lease.ElectionConfig] {
	return rapid.Custom(func(t *rapid.T) lease.ElectionConfig {
		cfg := lease.DefaultElectionConfig(identity)
		cfg.ReleaseOnCancel = rapid.Bool().Draw(t, "release")
		cfg.Rand = Randomness(t)
		return cfg
	})
}

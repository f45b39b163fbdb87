package eviction

import (
	"fmt"
	"math"
	"time"

	"github.com/nodelife/nodelife/internal/clock"
)

// TokenBucket is a token bucket driven by explicit times, the limiter behind
// each zone's tainting queue (upstream uses client-go's
// NewTokenBucketRateLimiter, burst 1, over golang.org/x/time/rate). A new
// bucket is full. Rate 0 is a stopped bucket that never grants a token.
//
// Tokens refill every 1/rate seconds, rounded to the nanosecond, and are
// kept as a theoretical arrival time rather than a float count, so results
// are exact: at rate 0.1 a drained bucket grants its next token exactly 10s
// later. A now earlier than one already seen is clamped to it.
//
// Not safe for concurrent use.
//
// There is no useful zero value: use NewTokenBucket.
type TokenBucket struct {
	rate     float64
	burst    int
	interval time.Duration
	// full is the instant the bucket is full again; zero: full already.
	full time.Time
	last time.Time
}

// validRate reports whether r is a finite number >= 0.
func validRate(r float64) bool { return r >= 0 && !math.IsInf(r, 1) }

// NewTokenBucket returns a full bucket that refills rate tokens per second
// and holds burst tokens. rate 0 makes a stopped bucket. It returns an error
// wrapping ErrInvalidRate for a negative, NaN or infinite rate or a burst
// below 1.
func NewTokenBucket(rate float64, burst int) (*TokenBucket, error) {
	if !validRate(rate) {
		return nil, wrap(ErrInvalidRate, fmt.Sprintf("rate %v must be a finite number of tokens per second >= 0", rate))
	}
	if burst < 1 {
		return nil, wrap(ErrInvalidRate, fmt.Sprintf("burst %d must be at least 1", burst))
	}
	b := &TokenBucket{rate: rate, burst: burst}
	if rate > 0 {
		iv := math.Round(float64(time.Second) / rate)
		if iv >= math.MaxInt64/(float64(burst)+1) {
			iv = math.MaxInt64 / (float64(burst) + 1)
		}
		b.interval = time.Duration(iv)
	}
	return b, nil
}

// Rate returns the refill rate in tokens per second; 0 for a stopped bucket.
func (b *TokenBucket) Rate() float64 { return b.rate }

// Burst returns the bucket's capacity.
func (b *TokenBucket) Burst() int { return b.burst }

// Stopped reports whether the bucket never grants tokens (rate 0).
func (b *TokenBucket) Stopped() bool { return b.rate == 0 }

// Allow takes one token at now and reports whether there was one, as
// golang.org/x/time/rate's AllowN(now, 1).
func (b *TokenBucket) Allow(now time.Time) bool {
	now = clock.Clamp(&b.last, now, true)
	if b.Stopped() {
		return false
	}
	base := b.full
	if base.Before(now) {
		base = now
	}
	next := base.Add(b.interval)
	if next.Sub(now) > time.Duration(b.burst)*b.interval {
		return false
	}
	b.full = next
	return true
}

// Tokens returns the tokens available at now, fractions included; it takes
// none.
func (b *TokenBucket) Tokens(now time.Time) float64 {
	if b.Stopped() {
		return 0
	}
	now = clock.Clamp(&b.last, now, false)
	if !b.full.After(now) {
		return float64(b.burst)
	}
	return float64(b.burst) - float64(b.full.Sub(now))/float64(b.interval)
}

// NextAllow returns the earliest time, not before now, at which Allow would
// grant a token, and false for a stopped bucket. It takes no token.
func (b *TokenBucket) NextAllow(now time.Time) (time.Time, bool) {
	if b.Stopped() {
		return time.Time{}, false
	}
	now = clock.Clamp(&b.last, now, false)
	t := b.full.Add(-time.Duration(b.burst-1) * b.interval)
	if t.Before(now) {
		t = now
	}
	return t, true
}

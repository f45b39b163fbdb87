package gc

import (
	"cmp"
	"time"
)

// instant is a time's wall clock unpacked into seconds and nanoseconds, so
// that large sorts compare integers held in place instead of calling
// time.Time methods through pointers. It orders every representable time
// exactly; monotonic clock readings, which time.Compare would prefer, are
// ignored, so that the order is the one of the values a caller can see.
type instant struct {
	sec  int64
	nsec int32
}

// at unpacks t.
func at(t time.Time) instant { return instant{t.Unix(), int32(t.Nanosecond())} }

// compare orders a and b as their times.
func (a instant) compare(b instant) int {
	if a.sec != b.sec {
		return cmp.Compare(a.sec, b.sec)
	}
	return cmp.Compare(a.nsec, b.nsec)
}

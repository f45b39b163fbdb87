package replay

import (
	"math"
	"os"
	"runtime/debug"
)

// CollectorPercent is the garbage collector's target (GOGC) that
// TuneCollector sets: a collection each time the heap grows by half of
// what is live, instead of the runtime's default of all of it.
const CollectorPercent = 50

// TuneCollector tunes the garbage collector for a program about to read
// and replay a large snapshot; it changes the whole process, so only a
// command's main function calls it (the replay command does).
//
// With a memory limit set (the GOMEMLIMIT environment variable, or
// debug.SetMemoryLimit before the call) and GOGC not set, the collector
// runs only as the heap nears that limit (GOGC off): the memory
// the replay may take is the caller's to give, and it is the fastest way
// to read a snapshot, whose decoding makes most of its garbage while what
// is live is still small. A replay of 100,000 nodes and 1,000,000 pods
// holds about 2 GB of live objects at its end; GOMEMLIMIT=3200MiB reads
// and replays it in 43-47 s on 2 cores, against 57-67 s with the target
// below, at a lower peak RSS (3.2 GiB against 3.4-3.6 GiB, fewer pages
// given back and faulted in again). A limit below what is live makes the
// collector run most of the time (the runtime caps it at half the CPU and
// lets the heap pass the limit): slow, but the replay completes.
//
// Otherwise, unless GOGC is set, it sets the collector's target to
// CollectorPercent: the heap peaks at about 1 + GOGC/100 times what is
// live, 2.9 to 3.8 GiB of peak RSS for the replay above over the runs
// measured, 3.7 to 4.7 GiB with the runtime's default of 100.
func TuneCollector() {
	switch {
	case os.Getenv("GOGC") != "":
	case debug.SetMemoryLimit(-1) < math.MaxInt64: // -1 reads the limit; GOMEMLIMIT=off is none
		debug.SetGCPercent(-1)
	default:
		debug.SetGCPercent(CollectorPercent)
	}
}

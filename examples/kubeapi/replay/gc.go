package replay

import (
	"os"
	"runtime/debug"
)

// CollectorPercent is the garbage collector's target (GOGC) that
// TuneCollector sets: a collection each time the heap grows by half of
// what is live, instead of the runtime's default of all of it.
const CollectorPercent = 50

// TuneCollector sets the garbage collector's target to CollectorPercent,
// unless the GOGC environment variable sets one, for a program about to
// read and replay a large snapshot; it changes the whole process, so only
// a command's main function calls it (the replay command does). A replay
// of 100,000 nodes and 1,000,000 pods holds about 2 GB of live objects,
// and the heap peaks at about 1 + GOGC/100 times that: 3.0 GiB of peak RSS
// with 50, 3.7 to 4.5 GiB with the default 100, in the same time (most of
// the simulation runs on one core; the collections take the other).
func TuneCollector() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(CollectorPercent)
	}
}

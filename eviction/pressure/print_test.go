package pressure_test

import (
	"fmt"
	"testing"

	"github.com/nodelife/nodelife/eviction/pressure"
)

// A reading prints on one line, each figure that is present, as written
// here by hand; %#v of a Stats map prints the readings, not pointers.
func TestPodStatsString(t *testing.T) {
	ws, procs, used, inodes, logs := uint64(512<<20), uint64(3), uint64(1<<30), uint64(10), uint64(5<<20)
	st := pressure.PodStats{WorkingSetBytes: &ws, ProcessCount: &procs, EphemeralStorageUsedBytes: &used,
		Containers: []pressure.ContainerStats{{Name: "app", WorkingSetBytes: &ws, Rootfs: &pressure.FsUsage{UsedBytes: &used, InodesUsed: &inodes},
			Logs: &pressure.FsUsage{UsedBytes: &logs}}},
		Volumes: []pressure.VolumeStats{{Name: "cache", FsUsage: pressure.FsUsage{UsedBytes: &used}}}}
	want := "{ws=512Mi procs=3 eph=1Gi containers=[app ws=512Mi rootfs=1Gi/10i logs=5Mi/-] volumes=[cache 1Gi/-]}"
	if got := st.String(); got != want {
		t.Errorf("String:\n got %s\nwant %s", got, want)
	}
	if got := fmt.Sprintf("%#v", pressure.Stats{"u1": &st}); got != `pressure.Stats{"u1":`+want+`}` {
		t.Errorf("%%#v of Stats: %s", got)
	}
	if got := fmt.Sprint(pressure.PodStats{}); got != "{}" {
		t.Errorf("empty reading: %s", got)
	}
}

package cgroup

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/core"
)

func TestParsePSI(t *testing.T) {
	got, err := ParsePSI("some avg10=1.50 avg60=0.12 avg300=0.05 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=6789\n")
	want := PSI{Some: &PSILine{1.5, 0.12, 0.05, 12345}, Full: &PSILine{0, 0, 0, 6789}}
	if err != nil || !cmp.Equal(want, got) {
		t.Fatalf("ParsePSI = %+v, %v", got, err)
	}
	// irq has only a full line; unknown keys and line kinds are ignored.
	got, err = ParsePSI("full avg10=0.10 avg60=0.20 avg300=0.30 total=7 future=1\nnew avg10=x\n")
	if err != nil || got.Some != nil || got.Full == nil || got.Full.Total != 7 || got.Full.Avg300 != 0.3 {
		t.Fatalf("irq = %+v, %v", got, err)
	}
	if got, err := ParsePSI(""); err != nil || got.Some != nil || got.Full != nil {
		t.Errorf("empty = %+v, %v", got, err)
	}
	for _, bad := range []string{
		"some avg10 avg60=0 avg300=0 total=0",                                          // token without "="
		"some avg10=x avg60=0 avg300=0 total=0",                                        // not a number
		"some avg10=0 avg60=0 avg300=0 total=-1",                                       // negative total
		"some avg10=101 avg60=0 avg300=0 total=1",                                      // not a percentage
		"some avg10=NaN avg60=0 avg300=0 total=1",                                      // NaN
		"some avg10=0 avg60=0 avg300=0",                                                // missing total
		"some avg10=0 avg60=0 avg300=0 total=1\nsome avg10=0 avg60=0 avg300=0 total=1", // twice
	} {
		if _, err := ParsePSI(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParsePSI(%q) err = %v", bad, err)
		}
	}
}

func TestCPUMax(t *testing.T) {
	for _, c := range []struct {
		in            string
		quota, period int64
	}{
		{"max 100000\n", NoQuota, 100000},
		{"50000 100000", 50000, 100000},
		{"max", NoQuota, 100000},
		{"25000", 25000, 100000},
		{"1000 10000", 1000, 10000},
	} {
		q, p, err := ParseCPUMax(c.in)
		if err != nil || q != c.quota || p != c.period {
			t.Errorf("ParseCPUMax(%q) = %d, %d, %v", c.in, q, p, err)
		}
		if back := FormatCPUMax(q, p); back != FormatCPUMax(c.quota, c.period) {
			t.Errorf("FormatCPUMax = %q", back)
		}
	}
	if FormatCPUMax(NoQuota, 100000) != "max 100000" || FormatCPUMax(25000, 100000) != "25000 100000" {
		t.Error("FormatCPUMax")
	}
	for _, bad := range []string{"", "max max", "1 2 3", "-5 100000", "0 100000", "x 100000", "5000 0", "5000 -1"} {
		if _, _, err := ParseCPUMax(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseCPUMax(%q) err = %v", bad, err)
		}
	}
}

func TestMemoryValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"max\n", -1}, {"0", 0}, {"536870912\n", 536870912}} {
		if got, err := ParseMemoryValue(c.in); err != nil || got != c.want {
			t.Errorf("ParseMemoryValue(%q) = %d, %v", c.in, got, err)
		}
	}
	if FormatMemoryValue(-1) != "max" || FormatMemoryValue(4096) != "4096" {
		t.Error("FormatMemoryValue")
	}
	for _, bad := range []string{"", "-1", "1Gi", "max max", "18446744073709551616"} {
		if _, err := ParseMemoryValue(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseMemoryValue(%q) err = %v", bad, err)
		}
	}
}

func TestParseCPUWeight(t *testing.T) {
	if w, err := ParseCPUWeight("100\n"); err != nil || w != 100 {
		t.Errorf("100: %d %v", w, err)
	}
	if _, err := ParseCPUWeight("0"); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("0: %v", err)
	}
	if _, err := ParseCPUWeight("10001"); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("10001: %v", err)
	}
	if _, err := ParseCPUWeight("max"); !errors.Is(err, ErrMalformed) {
		t.Errorf("max: %v", err)
	}
}

func TestParseProcCgroup(t *testing.T) {
	v1 := "12:cpu,cpuacct:/kubepods/burstable/pod12/abc\n1:name=systemd:/kubepods/burstable/pod12/abc\n0::/\n"
	got, err := ParseProcCgroup(v1)
	want := []ProcCgroup{
		{12, []string{"cpu", "cpuacct"}, "/kubepods/burstable/pod12/abc"},
		{1, []string{"name=systemd"}, "/kubepods/burstable/pod12/abc"},
		{0, nil, "/"},
	}
	if err != nil || !cmp.Equal(want, got) {
		t.Fatalf("v1 = %+v, %v", got, err)
	}
	v2 := "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice/cri-containerd-abc.scope\n"
	got, err = ParseProcCgroup(v2)
	if err != nil || len(got) != 1 {
		t.Fatalf("v2 = %+v, %v", got, err)
	}
	path, ok := UnifiedPath(got)
	if !ok {
		t.Fatal("no unified path")
	}
	pc, err := ParsePodCgroup(path)
	if err != nil || pc.PodUID != "12-34" || pc.ContainerID != "abc" || pc.QOSClass != core.PodQOSBurstable {
		t.Errorf("ParsePodCgroup = %+v, %v", pc, err)
	}
	if got, _ := ParseProcCgroup("0::/a:b:c"); got[0].Path != "/a:b:c" {
		t.Errorf("path with colons = %q", got[0].Path)
	}
	if _, ok := UnifiedPath(want[:2]); ok {
		t.Error("unified path found in v1-only lines")
	}
	for _, bad := range []string{"garbage", "x::/", "-1::/", "0:/"} {
		if _, err := ParseProcCgroup(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseProcCgroup(%q) err = %v", bad, err)
		}
	}
}

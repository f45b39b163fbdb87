package cgroup

import (
	"errors"
	"strings"
	"testing"
)

func TestDetectVersion(t *testing.T) {
	for _, c := range []struct {
		root, unified int64
		want          Version
	}{
		{Cgroup2SuperMagic, 0, V2},
		{TmpfsMagic, Cgroup2SuperMagic, Hybrid},
		{TmpfsMagic, 0, V1},
		{TmpfsMagic, TmpfsMagic, V1},
		{CgroupSuperMagic, 0, V1},
		{0xEF53, 0, V1}, // ext4: upstream assumes v1 whenever the root is not cgroup2
	} {
		if got := DetectVersion(c.root, c.unified); got != c.want {
			t.Errorf("DetectVersion(%#x, %#x) = %v, want %v", c.root, c.unified, got, c.want)
		}
	}
	if !V2.Unified() || Hybrid.Unified() || V1.Unified() {
		t.Error("only V2 is unified: the kubelet treats hybrid as v1")
	}
}

func TestDetect(t *testing.T) {
	fs := func(m map[string]int64) StatfsFunc {
		return func(p string) (int64, error) {
			if v, ok := m[p]; ok {
				return v, nil
			}
			return 0, errors.New("no such file or directory")
		}
	}
	for _, c := range []struct {
		m    map[string]int64
		want Version
		err  bool
	}{
		{map[string]int64{RootMountpoint: Cgroup2SuperMagic}, V2, false},
		{map[string]int64{RootMountpoint: TmpfsMagic, UnifiedMountpoint: Cgroup2SuperMagic}, Hybrid, false},
		{map[string]int64{RootMountpoint: TmpfsMagic}, V1, false},
		{map[string]int64{}, V1, true}, // statfs failed: V1 as upstream assumes, plus the error
	} {
		got, err := Detect(fs(c.m))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("Detect(%v) = %v, %v", c.m, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "statfs /sys/fs/cgroup: no such file") {
			t.Errorf("error does not name the path: %v", err)
		}
	}
	if _, err := Detect(nil); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("nil statfs: %v", err)
	}
}

// The cgroup v2 docs: `stat -fc %T /sys/fs/cgroup/` prints cgroup2fs on v2
// and tmpfs on v1.
func TestFsTypeName(t *testing.T) {
	for _, c := range []struct {
		magic int64
		name  string
	}{{Cgroup2SuperMagic, "cgroup2fs"}, {TmpfsMagic, "tmpfs"}, {CgroupSuperMagic, "cgroupfs"}} {
		if got := FsTypeName(c.magic); got != c.name {
			t.Errorf("FsTypeName(%#x) = %q", c.magic, got)
		}
		if m, ok := FsTypeMagic(c.name); !ok || m != c.magic {
			t.Errorf("FsTypeMagic(%q) = %#x, %v", c.name, m, ok)
		}
	}
	if got := FsTypeName(0xef53); got != "UNKNOWN (0xef53)" {
		t.Errorf("unknown = %q", got)
	}
	if _, ok := FsTypeMagic("ext4"); ok {
		t.Error("ext4 known")
	}
	if V2.String() != "v2" || Hybrid.String() != "hybrid" || Version(9).String() != "Version(9)" {
		t.Error("Version.String")
	}
}

func TestParseRelease(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Release
	}{
		{"5.15.0-91-generic", Release{5, 15, 0}},
		{"4.18.0-553.el8_10.x86_64", Release{4, 18, 0}},
		{"6.8", Release{6, 8, 0}},
		{"v1.7.2", Release{1, 7, 2}},
		{"1.6.12-0ubuntu1~22.04.3", Release{1, 6, 12}},
		{"2.0.0-rc.1", Release{2, 0, 0}},
		{"1.28.1", Release{1, 28, 1}},
		{" 5.8.0 ", Release{5, 8, 0}},
	} {
		if got, err := ParseRelease(c.in); err != nil || got != c.want {
			t.Errorf("ParseRelease(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "5", "v", "linux-5.15", "5.", "99999999999.1"} {
		if _, err := ParseRelease(bad); !errors.Is(err, ErrInvalidVersion) {
			t.Errorf("ParseRelease(%q) err = %v", bad, err)
		}
	}
	if (Release{5, 8, 0}).Compare(Release{5, 15, 0}) != -1 || !(Release{5, 15, 0}).AtLeast(Release{5, 8, 0}) || (Release{1, 2, 3}).String() != "1.2.3" {
		t.Error("Compare/AtLeast/String")
	}
}

func TestParseRuntimeVersion(t *testing.T) {
	for _, c := range []struct {
		in, name string
		rel      Release
	}{
		{"containerd 1.7.2", "containerd", Release{1, 7, 2}},
		{"containerd github.com/containerd/containerd v1.7.2 0cae528dd6cb557f7201036e9f43420650207b58", "containerd", Release{1, 7, 2}},
		{"cri-o 1.28.1", "cri-o", Release{1, 28, 1}},
		{"1.28.1", "", Release{1, 28, 1}},
	} {
		name, rel, err := ParseRuntimeVersion(c.in)
		if err != nil || name != c.name || rel != c.rel {
			t.Errorf("ParseRuntimeVersion(%q) = %q, %v, %v", c.in, name, rel, err)
		}
	}
	if _, _, err := ParseRuntimeVersion("containerd dev"); !errors.Is(err, ErrInvalidVersion) {
		t.Errorf("no version: %v", err)
	}
}

func TestCheckRequirements(t *testing.T) {
	good := Host{Version: V2, Kernel: "5.15.0-91-generic", RuntimeName: "containerd", RuntimeVersion: "v1.7.2",
		KubeletDriver: DriverSystemd, RuntimeDriver: DriverSystemd, MemoryQoS: true}
	r := CheckRequirements(good)
	if !r.OK() || r.Err() != nil || len(r.Checks) != 6 {
		t.Fatalf("good host: %+v %v", r, r.Err())
	}

	status := func(h Host) map[Requirement]Status {
		m := map[Requirement]Status{}
		for _, c := range CheckRequirements(h).Checks {
			m[c.Requirement] = c.Status
		}
		return m
	}
	for _, c := range []struct {
		name string
		edit func(*Host)
		req  Requirement
		want Status
	}{
		{"v1 host", func(h *Host) { h.Version = V1 }, RequireCgroupV2, Unmet},
		{"hybrid host", func(h *Host) { h.Version = Hybrid }, RequireCgroupV2, Unmet},
		{"kernel 5.4", func(h *Host) { h.Kernel = "5.4.0-150-generic" }, RequireKernel, Unmet},
		{"kernel 5.8 exactly", func(h *Host) { h.Kernel = "5.8.0" }, RequireKernel, Met},
		{"kernel 5.8 is too old for MemoryQoS", func(h *Host) { h.Kernel = "5.8.18" }, RequireMemoryQoSKernel, Unmet},
		{"kernel 5.9 for MemoryQoS", func(h *Host) { h.Kernel = "5.9.0" }, RequireMemoryQoSKernel, Met},
		{"no kernel", func(h *Host) { h.Kernel = "" }, RequireKernel, Unknown},
		{"garbage kernel", func(h *Host) { h.Kernel = "linux" }, RequireKernel, Unknown},
		{"containerd 1.3", func(h *Host) { h.RuntimeVersion = "1.3.9" }, RequireRuntime, Unmet},
		{"containerd 1.4.0", func(h *Host) { h.RuntimeVersion = "1.4.0" }, RequireRuntime, Met},
		{"cri-o 1.19", func(h *Host) { h.RuntimeName, h.RuntimeVersion = "cri-o", "1.19.4" }, RequireRuntime, Unmet},
		{"cri-o 1.20", func(h *Host) { h.RuntimeName, h.RuntimeVersion = "cri-o", "1.20.0" }, RequireRuntime, Met},
		{"name in the version line", func(h *Host) { h.RuntimeName, h.RuntimeVersion = "", "containerd 1.7.2" }, RequireRuntime, Met},
		{"docker", func(h *Host) { h.RuntimeName, h.RuntimeVersion = "docker", "24.0.7" }, RequireRuntime, Unknown},
		{"no runtime", func(h *Host) { h.RuntimeVersion = "" }, RequireRuntime, Unknown},
		{"kubelet cgroupfs", func(h *Host) { h.KubeletDriver = DriverCgroupfs }, RequireKubeletSystemd, Unmet},
		{"runtime cgroupfs", func(h *Host) { h.RuntimeDriver = DriverCgroupfs }, RequireRuntimeSystemd, Unmet},
		{"runtime driver unknown", func(h *Host) { h.RuntimeDriver = "" }, RequireRuntimeSystemd, Unknown},
	} {
		h := good
		c.edit(&h)
		if got := status(h)[c.req]; got != c.want {
			t.Errorf("%s: %v = %v, want %v", c.name, c.req, got, c.want)
		}
	}
	noQoS := good
	noQoS.MemoryQoS = false
	if _, ok := status(noQoS)[RequireMemoryQoSKernel]; ok {
		t.Error("MemoryQoS kernel checked without MemoryQoS")
	}

	// Every unmet requirement is reported, with a message.
	bad := Host{Version: V1, Kernel: "4.19.0", RuntimeName: "containerd", RuntimeVersion: "1.2.0", KubeletDriver: DriverCgroupfs, RuntimeDriver: DriverCgroupfs}
	err := CheckRequirements(bad).Err()
	if !errors.Is(err, ErrRequirement) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{
		"Unmet CgroupV2: the host runs cgroup v1",
		"Unmet Kernel: kernel 4.19.0 is older than 5.8.0, which cgroup v2 needs",
		"Unmet Runtime: containerd 1.2.0 is older than 1.4.0",
		`Unmet KubeletSystemd: the kubelet uses the "cgroupfs" cgroup driver; cgroup v2 needs systemd`,
		`Unmet RuntimeSystemd: the runtime uses the "cgroupfs" cgroup driver`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

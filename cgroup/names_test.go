package cgroup

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/core"
)

// Upstream cgroup_manager_linux_test.go examples for the systemd base
// name, and their expansion.
func TestSystemdNames(t *testing.T) {
	for _, c := range []struct {
		name   Name
		slice  string
		path   string
		parent string
	}{
		{Name{"system"}, "system.slice", "/system.slice", "-.slice"},
		{Name{"system", "Burstable"}, "system-Burstable.slice", "/system.slice/system-Burstable.slice", "system.slice"},
		{Name{"Burstable", "pod-123"}, "Burstable-pod_123.slice", "/Burstable.slice/Burstable-pod_123.slice", "Burstable.slice"},
		{Name{"test", "a", "b"}, "test-a-b.slice", "/test.slice/test-a.slice/test-a-b.slice", "test-a.slice"},
		{Name{"test", "a", "b", "Burstable"}, "test-a-b-Burstable.slice", "/test.slice/test-a.slice/test-a-b.slice/test-a-b-Burstable.slice", "test-a-b.slice"},
		{Name{"Burstable"}, "Burstable.slice", "/Burstable.slice", "-.slice"},
		{Name{"BestEffort", "pod-6c1a4e95-6bb6-11e6-bc26-28d2444e470d"}, "BestEffort-pod_6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice",
			"/BestEffort.slice/BestEffort-pod_6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice", "BestEffort.slice"},
		{Name{"kubepods", "burstable", "pod1234-abcd"}, "kubepods-burstable-pod1234_abcd.slice",
			"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_abcd.slice", "kubepods-burstable.slice"},
	} {
		slice, err := c.name.SystemdSlice()
		if err != nil || slice != c.slice {
			t.Errorf("%v SystemdSlice = %q, %v; want %q", c.name, slice, err, c.slice)
		}
		path, err := c.name.Systemd()
		if err != nil || path != c.path {
			t.Errorf("%v Systemd = %q, %v; want %q", c.name, path, err, c.path)
		}
		parent, unit, err := c.name.SystemdParentAndUnit()
		if err != nil || parent != c.parent || unit != c.slice {
			t.Errorf("%v SystemdParentAndUnit = %q, %q, %v; want %q, %q", c.name, parent, unit, err, c.parent, c.slice)
		}
		back, err := ParseSystemd(path)
		if err != nil || !back.Equal(c.name) {
			t.Errorf("ParseSystemd(%q) = %v, %v; want %v", path, back, err, c.name)
		}
	}
}

func TestRoot(t *testing.T) {
	for _, n := range []Name{{}, nil, {""}} {
		if p, err := n.Systemd(); err != nil || p != "/" {
			t.Errorf("%#v Systemd = %q, %v", n, p, err)
		}
		if s, err := n.SystemdSlice(); err != nil || s != "-.slice" {
			t.Errorf("%#v SystemdSlice = %q, %v", n, s, err)
		}
		if p := n.Cgroupfs(); p != "/" {
			t.Errorf("%#v Cgroupfs = %q", n, p)
		}
	}
	if _, _, err := (Name{}).SystemdParentAndUnit(); !errors.Is(err, ErrInvalidName) {
		t.Errorf("root parent: %v", err)
	}
	for _, p := range []string{"/", "", "-.slice", "/-.slice"} {
		if n, err := ParseSystemd(p); err != nil || len(n) != 0 {
			t.Errorf("ParseSystemd(%q) = %#v, %v", p, n, err)
		}
	}
}

func TestExpandSlice(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"-.slice", "/"},
		{"foo.slice", "/foo.slice"},
		{"foo-bar.slice", "/foo.slice/foo-bar.slice"},
		{"test-a-b.slice", "/test.slice/test-a.slice/test-a-b.slice"},
		{"foo-bar-baz.slice", "/foo.slice/foo-bar.slice/foo-bar-baz.slice"},
	} {
		if got, err := ExpandSlice(c.in); err != nil || got != c.want {
			t.Errorf("ExpandSlice(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"foo", "foo.scope", ".slice", "-foo.slice", "foo-.slice", "foo--bar.slice", "a/b.slice", "--.slice", ""} {
		if got, err := ExpandSlice(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ExpandSlice(%q) = %q, %v; want ErrInvalidName", bad, got, err)
		}
	}
}

// Upstream ParseSystemdToCgroupName: only the base name counts, the
// suffix is optional, "_" becomes "-".
func TestParseSystemd(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Name
	}{
		{"/test", Name{"test"}},
		{"/test.slice", Name{"test"}},
		{"test-a-b.slice", Name{"test", "a", "b"}},
		{"/anything/kubepods-burstable-pod1234_abcd.slice", Name{"kubepods", "burstable", "pod1234-abcd"}},
		{"/kubepods.slice/kubepods-besteffort.slice/", Name{"kubepods", "besteffort"}},
	} {
		if got, err := ParseSystemd(c.in); err != nil || !got.Equal(c.want) {
			t.Errorf("ParseSystemd(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"a--b.slice", "-a.slice", "/x/a-.slice"} {
		if _, err := ParseSystemd(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ParseSystemd(%q) err = %v", bad, err)
		}
	}
}

// Upstream ParseCgroupfsToCgroupName and ToCgroupfs (path.Join drops empty
// components), including the "/a/" case of kubernetes#68416.
func TestCgroupfs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Name
		out  string
	}{
		{"/", Name{}, "/"},
		{"", Name{}, "/"},
		{"/kubepods", Name{"kubepods"}, "/kubepods"},
		{"/kubepods/burstable/pod123", Name{"kubepods", "burstable", "pod123"}, "/kubepods/burstable/pod123"},
		{"a/b", Name{"a", "b"}, "/a/b"},
		{"/a/", Name{"a", ""}, "/a"},
	} {
		got := ParseCgroupfs(c.in)
		if !got.Equal(c.want) {
			t.Errorf("ParseCgroupfs(%q) = %#v, want %#v", c.in, got, c.want)
		}
		if s := got.Cgroupfs(); s != c.out || got.String() != c.out {
			t.Errorf("%#v Cgroupfs = %q, want %q", got, s, c.out)
		}
	}
}

// kubernetes#68416: building a child must not write into the parent's
// backing array.
func TestNewNameCopies(t *testing.T) {
	parent := make(Name, 1, 4)
	parent[0] = "a"
	x, _ := NewName(parent, "x")
	y, _ := NewName(parent, "y")
	if !x.Equal(Name{"a", "x"}) || !y.Equal(Name{"a", "y"}) {
		t.Fatalf("children alias: %v %v", x, y)
	}
	a := ParseCgroupfs("/a/")
	b, _ := NewName(a[:1], "b")
	if diff := cmp.Diff(Name{"a", ""}, a); diff != "" {
		t.Errorf("parent changed: %s", diff)
	}
	if !b.Equal(Name{"a", "b"}) {
		t.Errorf("child = %v", b)
	}
}

// Upstream panics on "/" and "_" in a component; here they are errors that
// name the component.
func TestInvalidComponents(t *testing.T) {
	for _, bad := range []string{"a/b", "a_b", "", ".", ".."} {
		_, err := NewName(Name{"kubepods"}, bad)
		if !errors.Is(err, ErrInvalidName) || !strings.Contains(err.Error(), "component") {
			t.Errorf("NewName(%q) err = %v", bad, err)
		}
		n := Name{"kubepods", bad}
		if err := n.Validate(); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Validate(%q) = %v", bad, err)
		}
		if _, err := n.Systemd(); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Systemd(%q) = %v", bad, err)
		}
		if _, err := DriverCgroupfs.Path(n); !errors.Is(err, ErrInvalidName) {
			t.Errorf("cgroupfs Path(%q) = %v", bad, err)
		}
	}
	_, err := NewName(nil, "a_b")
	if err == nil || err.Error() != `cgroup: invalid cgroup name: component "a_b" contains "_", which the systemd form reserves for escaping "-"` {
		t.Errorf("message: %v", err)
	}
}

func TestQOSTree(t *testing.T) {
	root, err := NodeAllocatableRoot("/", true)
	if err != nil || !root.Equal(Name{"kubepods"}) {
		t.Fatalf("root = %v, %v", root, err)
	}
	if r, _ := NodeAllocatableRoot("/custom/root", true); !r.Equal(Name{"custom", "root", "kubepods"}) {
		t.Errorf("custom root = %v", r)
	}
	if r, _ := NodeAllocatableRoot("/custom", false); !r.Equal(Name{"custom"}) {
		t.Errorf("no per-QoS = %v", r)
	}
	if _, err := NodeAllocatableRoot("/a_b", true); !errors.Is(err, ErrInvalidName) {
		t.Errorf("bad root: %v", err)
	}
	uid := "6c1a4e95-6bb6-11e6-bc26-28d2444e470d"
	for _, c := range []struct {
		class             core.PodQOSClass
		cgroupfs, systemd string
	}{
		{core.PodQOSGuaranteed, "/kubepods/pod" + uid, "/kubepods.slice/kubepods-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice"},
		{core.PodQOSBurstable, "/kubepods/burstable/pod" + uid, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice"},
		{core.PodQOSBestEffort, "/kubepods/besteffort/pod" + uid, "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice"},
	} {
		n, err := PodName(root, c.class, uid)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := DriverCgroupfs.Path(n); got != c.cgroupfs {
			t.Errorf("%s cgroupfs = %q, want %q", c.class, got, c.cgroupfs)
		}
		if got, _ := DriverSystemd.Path(n); got != c.systemd {
			t.Errorf("%s systemd = %q, want %q", c.class, got, c.systemd)
		}
		for _, d := range []Driver{DriverCgroupfs, DriverSystemd} {
			p, _ := d.Path(n)
			back, err := d.Parse(p)
			if err != nil || !back.Equal(n) {
				t.Errorf("%s %s Parse(%q) = %v, %v", c.class, d, p, back, err)
			}
			pc, err := ParsePodCgroup(p + "/cri-containerd-abc.scope")
			if err != nil || pc.PodUID != uid || pc.QOSClass != c.class || pc.Driver != d || pc.ContainerID != "abc" {
				t.Errorf("ParsePodCgroup(%q) = %+v, %v", p, pc, err)
			}
		}
	}
	if _, err := QOSName(root, "Gold"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("unknown class: %v", err)
	}
	if _, err := PodName(root, core.PodQOSBurstable, ""); !errors.Is(err, ErrInvalidName) {
		t.Errorf("empty uid: %v", err)
	}
}

func TestDrivers(t *testing.T) {
	if d, err := DriverFromCRI(0); err != nil || d != DriverSystemd {
		t.Errorf("CRI 0 = %v, %v", d, err)
	}
	if d, err := DriverFromCRI(1); err != nil || d != DriverCgroupfs {
		t.Errorf("CRI 1 = %v, %v", d, err)
	}
	if _, err := DriverFromCRI(2); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("CRI 2: %v", err)
	}
	if d, err := ParseDriver("systemd"); err != nil || d != DriverSystemd {
		t.Errorf("ParseDriver = %v %v", d, err)
	}
	if _, err := ParseDriver("Systemd"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("ParseDriver(Systemd): %v", err)
	}
	if _, err := Driver("x").Path(Name{"a"}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Path: %v", err)
	}
	if _, err := Driver("x").Parse("/a"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Parse: %v", err)
	}
}

func TestParsePodCgroup(t *testing.T) {
	for _, c := range []struct {
		in   string
		want PodCgroup
	}{
		{"/kubepods/burstable/pod6c1a4e95-6bb6-11e6-bc26-28d2444e470d/0123abcd",
			PodCgroup{DriverCgroupfs, core.PodQOSBurstable, "6c1a4e95-6bb6-11e6-bc26-28d2444e470d", "0123abcd"}},
		{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice/cri-containerd-0123abcd.scope",
			PodCgroup{DriverSystemd, core.PodQOSBurstable, "6c1a4e95-6bb6-11e6-bc26-28d2444e470d", "0123abcd"}},
		{"/kubepods.slice/kubepods-pod12_34.slice/crio-ffee.scope", PodCgroup{DriverSystemd, core.PodQOSGuaranteed, "12-34", "ffee"}},
		{"/kubepods/besteffort/pod12", PodCgroup{DriverCgroupfs, core.PodQOSBestEffort, "12", ""}},
		{"/custom/kubepods/pod12/docker-aa.scope", PodCgroup{DriverCgroupfs, core.PodQOSGuaranteed, "12", "aa"}},
	} {
		got, err := ParsePodCgroup(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParsePodCgroup(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"/system.slice/containerd.service", "/kubepods", "/kubepods/burstable", "/kubepods/pod", "/kubepods/burstable/x"} {
		if _, err := ParsePodCgroup(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("ParsePodCgroup(%q) err = %v", bad, err)
		}
	}
}

func TestContainerScope(t *testing.T) {
	for _, c := range []struct{ rt, want string }{{"containerd", "cri-containerd-abc.scope"}, {"cri-o", "crio-abc.scope"}, {"CRI-O", "crio-abc.scope"}} {
		if got, err := ContainerScope(c.rt, "abc"); err != nil || got != c.want {
			t.Errorf("ContainerScope(%q) = %q, %v", c.rt, got, err)
		}
	}
	if _, err := ContainerScope("docker", "abc"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("docker: %v", err)
	}
}

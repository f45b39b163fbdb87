package cri

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"testing"
)

func TestHashContainerUpstreamVector(t *testing.T) {
	// pkg/kubelet/container's TestHashContainer: {test_container, foo/image:v1}.
	if got := HashContainer("test_container", "foo/image:v1"); got != 0x8e45cbd0 {
		t.Errorf("HashContainer = %#x, want 0x8e45cbd0", got)
	}
}

func TestHashContainerJSONIsSpewOfBytes(t *testing.T) {
	// spew's %#v of []byte{'{', '}'} is "([]uint8)[123 125]".
	h := fnv.New32a()
	h.Write([]byte("([]uint8)[123 125]"))
	if got := HashContainerJSON([]byte("{}")); got != uint64(h.Sum32()) {
		t.Errorf("{}: %#x, want %#x", got, h.Sum32())
	}
	h.Reset()
	h.Write([]byte("([]uint8)<nil>"))
	if got := HashContainerJSON(nil); got != uint64(h.Sum32()) {
		t.Errorf("nil: %#x", got)
	}
	h.Reset()
	h.Write([]byte("([]uint8)[]"))
	if got := HashContainerJSON([]byte{}); got != uint64(h.Sum32()) {
		t.Errorf("empty: %#x", got)
	}
}

// slowHash is HashContainer the long way: encoding/json of a map (as
// upstream) and the rendering through fmt.
func slowHash(name, image string) uint64 {
	b, _ := json.Marshal(map[string]string{"name": name, "image": image})
	h := fnv.New32a()
	fmt.Fprint(h, "([]uint8)")
	s := fmt.Sprint(b) // "[123 34 ...]"
	fmt.Fprint(h, s)
	return uint64(h.Sum32())
}

func TestHashContainerEscapes(t *testing.T) {
	for _, c := range [][2]string{
		{"test_container", "foo/image:v1"},
		{"a<b>", "x&y"},
		{`q"uote`, `back\slash`},
		{"tab\there", "ünï"},
		{"bad\xffutf8", "\u2028"},
		{"", ""},
	} {
		if got, want := HashContainer(c[0], c[1]), slowHash(c[0], c[1]); got != want {
			t.Errorf("%q: %#x, want %#x", c, got, want)
		}
	}
}

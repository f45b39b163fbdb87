package cri

import (
	"encoding/json"
	"strconv"
)

// HashContainer returns the kubelet's hash of a container spec as of
// Kubernetes 1.31 (kubecontainer.HashContainer): FNV-32a over the spew
// rendering ("%#v", sorted keys, methods disabled) of the JSON object
// {"image": image, "name": name}. The kubelet stores it in the container
// label io.kubernetes.container.hash and restarts a running container
// whose hash differs from the spec's.
//
// Only the name and the image count since 1.31; before that the whole
// container was hashed (see HashContainerJSON), so every kubelet upgrade
// across the change restarted every container.
func HashContainer(name, image string) uint64 {
	if !plainJSON(name) || !plainJSON(image) {
		// Escapes, HTML characters or non-ASCII: let encoding/json write
		// the bytes. A struct marshals its fields in declaration order;
		// image before name is the order of the sorted map upstream
		// marshals.
		b, err := json.Marshal(struct {
			Image string `json:"image"`
			Name  string `json:"name"`
		}{image, name})
		if err != nil { // a struct of two strings always marshals
			return 0
		}
		return HashContainerJSON(b)
	}
	// The common case, without allocating: the JSON is the two strings
	// verbatim between fixed punctuation.
	h := imagePrefix
	h.bytes(image)
	h.bytes(`","name":"`)
	h.bytes(name)
	h.bytes(`"}`)
	return h.sum()
}

// HashContainerJSON returns the kubelet's hash of the given JSON bytes:
// FNV-32a over their spew "%#v" rendering, "([]uint8)[b0 b1 ...]" with
// each byte in decimal (a nil slice renders "([]uint8)<nil>"). With the
// JSON encoding of a whole v1.Container (encoding/json, fields in the
// API's order) it is the hash of kubelets 1.17 to 1.30, the legacy
// full-spec mode; with {"image":...,"name":...} it is HashContainer.
func HashContainerJSON(containerJSON []byte) uint64 {
	if containerJSON == nil {
		var h fnv32a = fnvOffset32
		h.write("([]uint8)<nil>")
		return uint64(h)
	}
	h := newSpewHash()
	h.bytes(string(containerJSON))
	return h.sum()
}

// plainJSON reports whether encoding/json writes s unchanged inside
// quotes: printable ASCII other than the quote, the backslash and the
// characters it escapes for HTML (<, >, &).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// FNV-32a parameters (hash/fnv), inlined so that hashing allocates
// nothing.
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

type fnv32a uint32

func (h *fnv32a) byte(c byte) {
	*h ^= fnv32a(c)
	*h *= fnvPrime32
}

func (h *fnv32a) write(s string) {
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
}

// spewHash feeds FNV-32a the spew rendering of a byte slice as the bytes
// arrive: "([]uint8)[", each byte in decimal with a space between, "]".
type spewHash struct {
	h     fnv32a
	first bool
}

func newSpewHash() spewHash {
	var h fnv32a = fnvOffset32
	h.write("([]uint8)[")
	return spewHash{h: h, first: true}
}

// spewDigits[c] is " " followed by c in decimal: how spew renders a byte
// after the first.
var spewDigits = func() (t [256]string) {
	for c := range t {
		t[c] = " " + strconv.Itoa(c)
	}
	return t
}()

// imagePrefix is the hash state after `([]uint8)[` and the rendering of
// `{"image":"`, the constant start of every name-and-image hash.
var imagePrefix = func() spewHash {
	h := newSpewHash()
	h.bytes(`{"image":"`)
	return h
}()

func (s *spewHash) bytes(b string) {
	i := 0
	if s.first && len(b) > 0 {
		s.h.write(spewDigits[b[0]][1:])
		s.first = false
		i = 1
	}
	h := s.h
	for ; i < len(b); i++ {
		d := spewDigits[b[i]]
		for j := 0; j < len(d); j++ {
			h = (h ^ fnv32a(d[j])) * fnvPrime32
		}
	}
	s.h = h
}

func (s *spewHash) sum() uint64 {
	s.h.byte(']')
	return uint64(s.h)
}

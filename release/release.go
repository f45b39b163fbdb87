package release

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a minor release of Kubernetes 1.x: Version(36) is v1.36.
type Version int

// The releases nodelife has presets for.
const (
	V1_27 Version = 27
	V1_28 Version = 28
	V1_29 Version = 29
	V1_30 Version = 30
	V1_31 Version = 31
	V1_32 Version = 32
	V1_33 Version = 33
	V1_34 Version = 34
	V1_35 Version = 35
	V1_36 Version = 36
	V1_37 Version = 37

	// Current is the release the library's defaults reproduce.
	Current = V1_37
	// Oldest is the oldest release with a preset: v1.27, the first whose
	// node lifecycle controller no longer had --pod-eviction-timeout and
	// the in-process taint manager.
	Oldest = V1_27
)

// ErrInvalid is wrapped by Parse's error for text that is not a 1.x
// release; ErrUnknown by its error for a release outside Oldest..Current.
var (
	ErrInvalid = errors.New("release: invalid version")
	ErrUnknown = errors.New("release: no preset for version")
)

// String prints v as "1.36".
func (v Version) String() string { return "1." + strconv.Itoa(int(v)) }

// AtLeast reports whether v is o or a later release.
func (v Version) AtLeast(o Version) bool { return v >= o }

// Clamp returns v, or Oldest or Current when v lies before or after the
// releases with presets.
func (v Version) Clamp() Version {
	switch {
	case v < Oldest:
		return Oldest
	case v > Current:
		return Current
	}
	return v
}

// Parse reads a release as "1.36", "v1.36" or "1.36.3" (the patch is
// ignored; a pre-release or build suffix after it, as "1.36.3-gke.100",
// too). It returns an error wrapping ErrInvalid for other text and one
// wrapping ErrUnknown for a release outside Oldest..Current; both quote s.
func Parse(s string) (Version, error) {
	v := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "1" || !digits(parts[1]) || (len(parts) == 3 && !digits(parts[2])) {
		return 0, fmt.Errorf("%w %q: want a release as 1.MINOR, e.g. %s", ErrInvalid, s, Current)
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m > 1000 {
		return 0, fmt.Errorf("%w %q: minor release out of range", ErrInvalid, s)
	}
	if Version(m) < Oldest || Version(m) > Current {
		return 0, fmt.Errorf("%w %q: presets cover %s to %s", ErrUnknown, s, Oldest, Current)
	}
	return Version(m), nil
}

// digits reports whether s is a non-empty run of ASCII digits without a
// leading zero (other than "0" itself).
func digits(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

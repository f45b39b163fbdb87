package conformance

import "github.com/nodelife/nodelife/release"

// upstreamRelease is the Kubernetes release this module pins
// (k8s.io/kubernetes in go.mod): nodelife's side of every differential runs
// with that release's preset, so that the same tests prove the default
// (the current release) or an earlier preset, whichever the module pins.
const upstreamRelease = release.V1_37

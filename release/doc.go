// Package release names the Kubernetes releases whose behaviour nodelife
// reproduces, so that one value selects a release's feature gates and
// defaults in every package with version-dependent rules.
//
// nodelife reproduces the current release, v1.37, by default: every
// DefaultXxx function and zero-valued option gives what that release does.
// A package whose rules changed between releases also offers a preset
// taking a Version (nodelifecycle.ConfigFor, cgroup.QOSOptionsFor, ...) that
// returns the defaults, gates included, of the release named:
//
//	cfg := nodelifecycle.ConfigFor(release.V1_36) // kube-controller-manager v1.36
//
// A preset changes only the fields that differ between releases; the
// options that select a fix upstream never made stay off in every preset.
// The root package's nodelife.ProfileFor(v) calls every preset at once,
// one value for the whole library.
//
// # Usage
//
//	v, err := release.Parse("v1.36.3") // from a flag or a Node's kubeletVersion
//	if err != nil {
//		return err // release: "1.x": want a release as 1.MINOR ...
//	}
//	cfg := nodelifecycle.ConfigFor(v)
//
// # Semantics
//
// A Version is a minor release of Kubernetes 1.x; patch releases of one
// minor release behave alike in everything nodelife models. Presets cover
// Oldest to Current; a Version outside that span is taken as the nearest
// one it covers (Clamp), and Parse refuses it with ErrUnknown so that a
// command line can say so.
package release

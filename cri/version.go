package cri

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// APIVersion is a CRI API version.
type APIVersion string

// The CRI API versions the kubelet has spoken.
const (
	// V1 is runtime.v1, the only version since Kubernetes 1.26.
	V1 APIVersion = "v1"
	// V1alpha2 is runtime.v1alpha2, which kubelets 1.23 to 1.25 fell back
	// to when a runtime did not serve v1 (removed in 1.26,
	// kubernetes#110618).
	V1alpha2 APIVersion = "v1alpha2"
)

// NegotiateOptions select the kubelet generation to imitate.
//
// The zero value validates the runtime service, v1 only, with no
// endpoint named in errors.
type NegotiateOptions struct {
	// Endpoint is the runtime's endpoint, quoted in the error
	// (--container-runtime-endpoint, e.g.
	// "unix:///run/containerd/containerd.sock").
	Endpoint string
	// AllowV1alpha2 is the legacy fallback of kubelets 1.23 to 1.25: a
	// runtime without v1 but with v1alpha2 is used through v1alpha2, with
	// a deprecation warning. Off by default, as upstream since 1.26.
	AllowV1alpha2 bool
	// Service is "runtime" (default) or "image": which CRI service is
	// being validated.
	Service string
}

// Negotiation is the outcome of a successful negotiation.
type Negotiation struct {
	// Version is the version to use.
	Version APIVersion
	// Warning is set when the deprecated v1alpha2 fallback was taken.
	Warning string
}

// VersionError is the start-up failure when the runtime serves no CRI
// version the kubelet speaks. Error returns upstream's wording; errors.Is
// matches ErrNoCommonVersion.
type VersionError struct {
	// Endpoint is the runtime endpoint.
	Endpoint string
	// Service is "runtime" or "image".
	Service string
	// Advertised lists what the runtime serves.
	Advertised []APIVersion
}

// Error returns the kubelet's message: `validate service connection:
// validate CRI v1 runtime API for endpoint "unix:///...": rpc error: code
// = Unimplemented desc = unknown service runtime.v1.RuntimeService`.
func (e *VersionError) Error() string {
	svc, grpc := serviceNames(e.Service)
	return "validate service connection: validate CRI v1 " + svc + " API for endpoint " + quote(e.Endpoint) +
		": rpc error: code = Unimplemented desc = unknown service runtime.v1." + grpc
}

// serviceNames returns the word the kubelet's messages use for a CRI
// service and its gRPC service name.
func serviceNames(service string) (word, grpc string) {
	if service == "image" {
		return "image", "ImageService"
	}
	return "runtime", "RuntimeService"
}

// quote quotes as %q does.
func quote(s string) string { return strconv.Quote(s) }

// Is matches ErrNoCommonVersion.
func (e *VersionError) Is(target error) bool { return target == ErrNoCommonVersion }

// Explain says what the failure means for the node, for an operator.
func (e *VersionError) Explain() string {
	served := "nothing"
	if len(e.Advertised) > 0 {
		parts := make([]string, len(e.Advertised))
		for i, v := range e.Advertised {
			parts[i] = string(v)
		}
		served = strings.Join(parts, ", ")
	}
	return fmt.Sprintf("the runtime at %q serves %s but the kubelet speaks only CRI v1: the kubelet exits at start-up and the node does not register "+
		"(a runtime that speaks only v1alpha2, such as containerd 1.5, or containerd with the cri plugin disabled, kubernetes#112548)", e.Endpoint, served)
}

// Negotiate picks the CRI API version the kubelet uses with a runtime
// that serves the advertised versions: v1 when served; otherwise, with
// AllowV1alpha2, v1alpha2 when served; otherwise a *VersionError (the
// kubelet's start-up check fails, it exits, and the node never
// registers).
func Negotiate(advertised []APIVersion, opts NegotiateOptions) (Negotiation, error) {
	if slices.Contains(advertised, V1) {
		return Negotiation{Version: V1}, nil
	}
	if opts.AllowV1alpha2 && slices.Contains(advertised, V1alpha2) {
		word, _ := serviceNames(opts.Service)
		return Negotiation{Version: V1alpha2, Warning: "Falling back to CRI v1alpha2 " + word + " API (deprecated)"}, nil
	}
	return Negotiation{}, &VersionError{Endpoint: opts.Endpoint, Service: opts.Service, Advertised: slices.Clone(advertised)}
}

package cri

import (
	"context"
	"time"

	"github.com/nodelife/nodelife/gc"
)

// RuntimeService is the part of the CRI runtime service the planners and
// executors need. A caller implements it over a real CRI client (the
// kubelet's internalapi.RuntimeService has these calls); package fake has
// an in-memory one. Every method honours its context.
type RuntimeService interface {
	// ListContainers lists the kubelet's containers, of every state.
	ListContainers(ctx context.Context) ([]gc.Container, error)
	// ListPodSandboxes lists the kubelet's pod sandboxes, of every state.
	ListPodSandboxes(ctx context.Context) ([]gc.Sandbox, error)
	// StopContainer stops a container, giving it timeout to exit before it
	// is killed. Stopping a stopped or missing container is not an error.
	StopContainer(ctx context.Context, id string, timeout time.Duration) error
	// RemoveContainer removes a container; removing a missing one is not
	// an error.
	RemoveContainer(ctx context.Context, id string) error
	// StopPodSandbox stops a sandbox and its containers; stopping a
	// stopped or missing one is not an error.
	StopPodSandbox(ctx context.Context, id string) error
	// RemovePodSandbox removes a sandbox and its containers; removing a
	// missing one is not an error.
	RemovePodSandbox(ctx context.Context, id string) error
}

// ImageService is the part of the CRI image service the image GC needs.
type ImageService interface {
	// ListImages lists the images on the node.
	ListImages(ctx context.Context) ([]gc.Image, error)
	// RemoveImage removes an image; removing a missing one is not an
	// error.
	RemoveImage(ctx context.Context, id string) error
	// ImageFsInfo reports the image filesystem's capacity and available
	// bytes.
	ImageFsInfo(ctx context.Context) (gc.FsStats, error)
}

// VersionService reports the CRI API versions a runtime serves (a caller
// over gRPC probes runtime.v1.RuntimeService/Version and, for the legacy
// fallback, runtime.v1alpha2).
type VersionService interface {
	// APIVersions lists the CRI API versions the runtime serves.
	APIVersions(ctx context.Context) ([]APIVersion, error)
}

// NegotiateWith asks the runtime which versions it serves and negotiates
// (Negotiate). An error from the runtime is returned wrapped, as the
// kubelet's "validate service connection" failure.
func NegotiateWith(ctx context.Context, r VersionService, opts NegotiateOptions) (Negotiation, error) {
	vs, err := r.APIVersions(ctx)
	if err != nil {
		word, _ := serviceNames(opts.Service)
		return Negotiation{}, &ConnectionError{Endpoint: opts.Endpoint, Service: word, Err: err}
	}
	return Negotiate(vs, opts)
}

// ConnectionError is a failure to reach the runtime while validating the
// connection (the runtime is down, the socket missing).
type ConnectionError struct {
	// Endpoint is the runtime endpoint; Service "runtime" or "image".
	Endpoint, Service string
	// Err is the runtime's error.
	Err error
}

// Error returns the kubelet's wording, e.g. `validate service connection:
// validate CRI v1 runtime API for endpoint "unix:///...": <error>`.
func (e *ConnectionError) Error() string {
	return "validate service connection: validate CRI v1 " + e.Service + " API for endpoint " + quote(e.Endpoint) + ": " + e.Err.Error()
}

// Unwrap returns the runtime's error.
func (e *ConnectionError) Unwrap() error { return e.Err }

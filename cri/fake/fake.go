package fake

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/gc"
)

// Call is one recorded runtime call.
type Call struct {
	// Op is the call, e.g. cri.OpRemoveContainer, or "ListContainers".
	Op cri.Op
	// ID is the item it named ("" for listings).
	ID string
}

// The listing and query calls, as recorded.
const (
	OpListContainers   cri.Op = "ListContainers"
	OpListPodSandboxes cri.Op = "ListPodSandboxes"
	OpListImages       cri.Op = "ListImages"
	OpImageFsInfo      cri.Op = "ImageFsInfo"
	OpAPIVersions      cri.Op = "APIVersions"
)

// Runtime is an in-memory container runtime implementing
// cri.RuntimeService, cri.ImageService and cri.VersionService. It is safe
// for concurrent use. The zero value is an empty runtime serving CRI v1
// with an image filesystem of zero capacity; use New.
type Runtime struct {
	mu         sync.Mutex
	containers map[string]gc.Container
	sandboxes  map[string]gc.Sandbox
	images     map[string]gc.Image
	capacity   int64
	versions   []cri.APIVersion
	fail       func(op cri.Op, id string) error
	calls      []Call
}

// New returns a runtime holding copies of the given objects, serving CRI
// v1, with an image filesystem of the given capacity (Available is the
// capacity minus the images' sizes). Duplicate IDs return an error naming
// the ID.
func New(containers []gc.Container, sandboxes []gc.Sandbox, images []gc.Image, capacity int64) (*Runtime, error) {
	r := &Runtime{
		containers: make(map[string]gc.Container, len(containers)),
		sandboxes:  make(map[string]gc.Sandbox, len(sandboxes)),
		images:     make(map[string]gc.Image, len(images)),
		capacity:   capacity,
		versions:   []cri.APIVersion{cri.V1},
	}
	for _, c := range containers {
		if _, dup := r.containers[c.ID]; dup {
			return nil, fmt.Errorf("fake: duplicate container ID %q", c.ID)
		}
		r.containers[c.ID] = c
	}
	for _, s := range sandboxes {
		if _, dup := r.sandboxes[s.ID]; dup {
			return nil, fmt.Errorf("fake: duplicate sandbox ID %q", s.ID)
		}
		r.sandboxes[s.ID] = s
	}
	for _, im := range images {
		if _, dup := r.images[im.ID]; dup {
			return nil, fmt.Errorf("fake: duplicate image ID %q", im.ID)
		}
		r.images[im.ID] = im
	}
	return r, nil
}

// SetVersions sets the CRI API versions the runtime advertises.
func (r *Runtime) SetVersions(vs ...cri.APIVersion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.versions = slices.Clone(vs)
}

// FailWith installs an injected failure: every call consults f with its
// op and item ID (listings pass ""), and a non-nil error fails the call
// without effect. nil removes the hook. f may call the runtime (a nested
// call consults f too); the outer call then acts on the state f left.
func (r *Runtime) FailWith(f func(op cri.Op, id string) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = f
}

// Calls returns the calls made so far, in order.
func (r *Runtime) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// begin records a call and returns the injected or context error. It is
// called with r.mu held, and releases it while the hook runs, so that the
// hook may call the runtime itself; the call then goes on with the state
// the hook left.
func (r *Runtime) begin(ctx context.Context, op cri.Op, id string) error {
	r.calls = append(r.calls, Call{op, id})
	if err := ctx.Err(); err != nil {
		return err
	}
	if f := r.fail; f != nil {
		r.mu.Unlock()
		defer r.mu.Lock()
		return f(op, id)
	}
	return nil
}

// sortedValues returns a map's values ordered by ID.
func sortedValues[T any](m map[string]T, id func(*T) string) []T {
	out := make([]T, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(id(&a), id(&b)) })
	return out
}

// ListContainers returns the containers, ordered by ID.
func (r *Runtime) ListContainers(ctx context.Context) ([]gc.Container, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, OpListContainers, ""); err != nil {
		return nil, err
	}
	return sortedValues(r.containers, func(c *gc.Container) string { return c.ID }), nil
}

// ListPodSandboxes returns the sandboxes, ordered by ID.
func (r *Runtime) ListPodSandboxes(ctx context.Context) ([]gc.Sandbox, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, OpListPodSandboxes, ""); err != nil {
		return nil, err
	}
	return sortedValues(r.sandboxes, func(s *gc.Sandbox) string { return s.ID }), nil
}

// StopContainer moves a running, created or unknown container to
// CONTAINER_EXITED; a missing one is not an error.
func (r *Runtime) StopContainer(ctx context.Context, id string, _ time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, cri.OpStopContainer, id); err != nil {
		return err
	}
	if c, ok := r.containers[id]; ok {
		c.State = gc.ContainerExited
		r.containers[id] = c
	}
	return nil
}

// RemoveContainer removes a container (a running one forcibly, as CRI
// requires); a missing one is not an error.
func (r *Runtime) RemoveContainer(ctx context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, cri.OpRemoveContainer, id); err != nil {
		return err
	}
	delete(r.containers, id)
	return nil
}

// StopPodSandbox marks a sandbox NOTREADY and stops its containers; a
// missing one is not an error.
func (r *Runtime) StopPodSandbox(ctx context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, cri.OpStopPodSandbox, id); err != nil {
		return err
	}
	if s, ok := r.sandboxes[id]; ok {
		s.State = gc.SandboxNotReady
		r.sandboxes[id] = s
	}
	for cid, c := range r.containers {
		if c.SandboxID == id && c.State != gc.ContainerExited {
			c.State = gc.ContainerExited
			r.containers[cid] = c
		}
	}
	return nil
}

// RemovePodSandbox removes a sandbox and its containers; a missing one is
// not an error.
func (r *Runtime) RemovePodSandbox(ctx context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, cri.OpRemovePodSandbox, id); err != nil {
		return err
	}
	delete(r.sandboxes, id)
	for cid, c := range r.containers {
		if c.SandboxID == id {
			delete(r.containers, cid)
		}
	}
	return nil
}

// ListImages returns the images, ordered by ID.
func (r *Runtime) ListImages(ctx context.Context) ([]gc.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, OpListImages, ""); err != nil {
		return nil, err
	}
	return sortedValues(r.images, func(im *gc.Image) string { return im.ID }), nil
}

// RemoveImage removes an image; a missing one is not an error. A pinned
// image is refused, as runtimes refuse to remove the sandbox image.
func (r *Runtime) RemoveImage(ctx context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, cri.OpRemoveImage, id); err != nil {
		return err
	}
	if im, ok := r.images[id]; ok && im.Pinned {
		return fmt.Errorf("fake: image %q is pinned", id)
	}
	delete(r.images, id)
	return nil
}

// ImageFsInfo reports the capacity and the capacity minus the images'
// sizes (at least 0) as available.
func (r *Runtime) ImageFsInfo(ctx context.Context) (gc.FsStats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, OpImageFsInfo, ""); err != nil {
		return gc.FsStats{}, err
	}
	used := int64(0)
	for _, im := range r.images {
		used += im.Size
	}
	return gc.FsStats{Capacity: r.capacity, Available: max(r.capacity-used, 0)}, nil
}

// APIVersions returns the advertised CRI API versions.
func (r *Runtime) APIVersions(ctx context.Context) ([]cri.APIVersion, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.begin(ctx, OpAPIVersions, ""); err != nil {
		return nil, err
	}
	return slices.Clone(r.versions), nil
}

var (
	_ cri.RuntimeService = (*Runtime)(nil)
	_ cri.ImageService   = (*Runtime)(nil)
	_ cri.VersionService = (*Runtime)(nil)
)

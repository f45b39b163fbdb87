// Package fake is an in-memory container runtime for tests and examples:
// Runtime implements cri.RuntimeService, cri.ImageService and
// cri.VersionService over maps of gc.Container, gc.Sandbox and gc.Image,
// records every call, and fails the calls an injected hook chooses.
//
// # Usage
//
//	rt, err := fake.New(containers, sandboxes, images, 100<<30)
//	rt.FailWith(func(op cri.Op, id string) error {
//		if op == cri.OpRemoveImage && id == "sha256:busy" {
//			return errors.New("image is in use")
//		}
//		return nil
//	})
//	res := cri.ExecuteImagePlan(ctx, rt, plan, cri.ExecOptions{})
//
// # Semantics
//
// Calls behave as the CRI specification asks of a runtime: removing or
// stopping a missing object is not an error; removing a sandbox removes its
// containers; stopping a sandbox stops them. A pinned image is refused
// (runtimes keep the sandbox image). Listings are ordered by ID. A call
// whose context has ended, or that the hook fails, has no effect and is
// still recorded.
package fake

// Package cri is the seam between the nodelife planners and a container
// runtime: the small interfaces a caller implements over a real CRI
// client, the kubelet's CRI version check, executors that apply gc plans
// through those interfaces, and the kubelet's per-pod runtime decisions as
// pure functions:
//
//   - RuntimeService, ImageService, VersionService: listing, stopping and
//     removing containers, sandboxes and images, image filesystem usage,
//     advertised API versions; every method takes a context. Package
//     cri/fake implements them in memory, with injectable failures.
//   - Negotiate and NegotiateWith: CRI v1, the v1alpha2 fallback of
//     kubelets 1.23 to 1.25 as an option, and upstream's start-up error.
//   - ExecuteImagePlan and ExecuteContainerPlan: a gc.ImagePlan or
//     gc.ContainerPlan applied in order, past individual failures, with a
//     result listing what was removed, what failed and why.
//   - ComputePodActions: the kubelet's pod sync decision (sandbox
//     re-creation, init containers and sidecars, containers to start and
//     to kill) with a reason on every part; ShouldRestart.
//   - HashContainer and HashContainerJSON: the container hash the kubelet
//     stores in a label, current and legacy full-spec.
//   - BackoffConfig.Decide: the crash-loop back-off as a pure function,
//     with the reduced-decay and configurable-max variants.
//   - ProbeWorker: the liveness, readiness and startup probe worker as a
//     synchronous state machine; ExecOutcome, TCPOutcome, HTTPOutcome,
//     GRPCOutcome; FailureEffect.
//
// Nothing here dials a runtime, reads the clock or starts a goroutine;
// there is no gRPC dependency.
//
// # Usage
//
// Check the runtime once at start-up, then on each GC run list, plan with
// package gc and execute:
//
//	if _, err := cri.NegotiateWith(ctx, rt, cri.NegotiateOptions{Endpoint: endpoint}); err != nil {
//		return err // the kubelet exits; the node does not register
//	}
//	containers, _ := rt.ListContainers(ctx)
//	sandboxes, _ := rt.ListPodSandboxes(ctx)
//	plan, _ := gc.PlanContainers(now, gc.DefaultContainerPolicy(), gc.ContainerGCInput{
//		Containers: containers, Sandboxes: sandboxes, Pods: pods,
//		PodsSynced: true, AllSourcesReady: true})
//	res := cri.ExecuteContainerPlan(ctx, rt, plan, cri.ExecOptions{})
//	if err := res.Err(); err != nil { log(err) }
//
// On each pod sync, decide and then start containers through the back-off
// (pod is the library's one pod type, core.Pod: its restart policy, host
// network, deletion timestamp and containers' names, images and probes
// are what the decision reads; status is what the runtime reports):
//
//	actions, err := cri.ComputePodActions(pod, status, cri.SyncOptions{})
//	for _, s := range actions.ContainersToStart {
//		c := pod.Containers[s.Index]
//		key := cri.BackoffKey(pod, c)
//		if last := cri.LastExited(status, c.Name); last != nil {
//			d, _ := backoff.Decide(now, entries[key], last.FinishedAt)
//			entries[key] = d.Entry
//			if d.InBackoff { continue } // CrashLoopBackOff
//		}
//		start(c)
//	}
//
// # Semantics
//
// ComputePodActions follows kubeGenericRuntimeManager.computePodActions of
// Kubernetes 1.33 and later. A new sandbox is needed when there is none,
// more than one is READY, the newest is not READY, its network namespace
// mode is not the pod's, or a pod-network sandbox reports an empty IP; the
// attempt number then grows by one and the pod is killed first. Init
// containers run one after another (computeInitContainerActions); a
// restartable init container (restartPolicy Always, a sidecar) counts as
// done once started and is kept running. A running container is killed
// when its hash changed (and always restarted), or its liveness or startup
// probe failed (restarted unless the pod's policy is Never); when nothing
// runs and nothing starts, the pod is killed. Messages are upstream's
// (`Container app definition changed, will be restarted`).
//
// The container hash is FNV-32a of spew's rendering of the JSON bytes
// {"image":...,"name":...}: 0x8e45cbd0 for test_container and
// foo/image:v1.
//
// The crash-loop back-off waits 10s after the first failure, doubling to
// 300s; it is in force while now - finishedAt < delay, and resets when the
// container finished more than 2 x 300s (strictly) after the entry's last
// update. The key includes the container hash, so a new image starts
// over.
//
// Probes: a new container starts with readiness Failure, liveness Success
// and startup Unknown; a result changes after SuccessThreshold successes
// or FailureThreshold failures in a row; a failed liveness or startup probe
// holds the worker until the container is replaced; an HTTP probe passes
// for 200 <= code < 400.
//
// # Options
//
//   - SyncOptions.LegacySidecarContainers: the init-container path of
//     kubelets before 1.33.
//   - SyncOptions.LegacyFullSpecHash: the full-spec hash of kubelets 1.17
//     to 1.30 (every upgrade across it restarted every container).
//   - NegotiateOptions.AllowV1alpha2: the v1alpha2 fallback removed in 1.26
//     (kubernetes#110618).
//   - ReducedDecayBackoffConfig (ReduceDefaultCrashLoopBackOffDecay, 1s to
//     60s) and BackoffConfig.WithMaxRestartPeriod (KubeletCrashLoopBackOffMax).
//   - ExecOptions.NoSpares: do not replace failed image removals with spare
//     images.
package cri

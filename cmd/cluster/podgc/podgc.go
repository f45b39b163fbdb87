package podgc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/gc"
)

// Options configure a Collector. The zero value is usable: every
// namespace, on the real clock.
type Options struct {
	// Clock is the collector's time; nil means the real clock.
	Clock clock.Clock
	// Namespace, when set, restricts the pods listed (and so collected) to
	// one namespace, for tests that share a cluster; upstream's collector
	// sees every pod. Nodes are always all listed.
	Namespace string
}

// Collector is the pod garbage collector. It is not safe for concurrent
// Syncs.
type Collector struct {
	client kubernetes.Interface
	g      *gc.PodGC
	opts   Options
}

// New returns a Collector with no node in quarantine, or cfg's error.
func New(client kubernetes.Interface, cfg gc.PodGCConfig, opts Options) (*Collector, error) {
	if client == nil {
		return nil, errors.New("podgc: New needs a client")
	}
	g, err := gc.NewPodGC(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Collector{client: client, g: g, opts: opts}, nil
}

// Result is what one Sync did.
type Result struct {
	// Plan is the state machine's plan for the Sync.
	Plan gc.PodGCPlan
	// Failed are the pods whose status was patched to Failed, Deleted
	// those deleted (or found gone), as "namespace/name".
	Failed, Deleted []string
	// Errors are the writes that failed; the next Sync plans again.
	Errors []error
}

// Sync lists pods and nodes, steps the pod GC and carries out its plan.
func (c *Collector) Sync(ctx context.Context) (Result, error) {
	var res Result
	pods, err := c.client.CoreV1().Pods(c.opts.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return res, fmt.Errorf("podgc: list pods: %w", err)
	}
	nodes, err := c.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return res, fmt.Errorf("podgc: list nodes: %w", err)
	}
	in := gc.PodGCInput{NodeExists: func(name string) (bool, error) {
		_, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return false, nil
		case err != nil:
			return false, err
		}
		return true, nil
	}}
	for i := range pods.Items {
		in.Pods = append(in.Pods, kubeapi.Pod(&pods.Items[i]))
	}
	for i := range nodes.Items {
		in.Nodes = append(in.Nodes, kubeapi.Node(&nodes.Items[i]))
	}
	if res.Plan, err = c.g.Step(c.opts.Clock.Now(), in); err != nil {
		return res, fmt.Errorf("podgc: %w", err)
	}
	for _, d := range res.Plan.Deletions {
		key := d.Pod.Key()
		if d.SetFailed {
			if err := c.setFailed(ctx, d); err != nil {
				if !apierrors.IsNotFound(err) {
					res.Errors = append(res.Errors, fmt.Errorf("podgc: mark %s failed: %w", key, err))
				}
				continue
			}
			res.Failed = append(res.Failed, key)
		}
		uid := types.UID(d.Pod.UID)
		grace := int64(gc.GracePeriodSeconds)
		err := c.client.CoreV1().Pods(d.Pod.Namespace).Delete(ctx, d.Pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace,
			Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			res.Errors = append(res.Errors, fmt.Errorf("podgc: delete %s: %w", key, err))
			continue
		}
		res.Deleted = append(res.Deleted, key)
	}
	return res, nil
}

// setFailed patches the pod's status to Failed, with the deletion's
// condition, conditional on its UID.
func (c *Collector) setFailed(ctx context.Context, d gc.PodDeletion) error {
	status := map[string]any{"phase": corev1.PodFailed}
	if cond := d.Condition; cond != nil {
		status["conditions"] = []corev1.PodCondition{{Type: corev1.PodConditionType(cond.Type), Status: corev1.ConditionStatus(cond.Status),
			Reason: cond.Reason, Message: cond.Message, LastTransitionTime: metav1.NewTime(c.opts.Clock.Now())}}
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": d.Pod.UID}, "status": status})
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().Pods(d.Pod.Namespace).Patch(ctx, d.Pod.Name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
	return err
}

// Run syncs every gc.PodGCPeriod until ctx ends; a Sync's error is passed
// to onError when set.
func (c *Collector) Run(ctx context.Context, onError func(error)) error {
	for {
		if _, err := c.Sync(ctx); err != nil && onError != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.opts.Clock.After(gc.PodGCPeriod):
		}
	}
}

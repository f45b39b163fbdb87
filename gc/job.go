package gc

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Job condition types that finish a Job, as batch/v1.
const (
	JobComplete = "Complete"
	JobFailed   = "Failed"
)

// JobCondition is a condition of a Job's status.
type JobCondition struct {
	// Type is the condition type (JobComplete, JobFailed, ...).
	Type string
	// Status is "True", "False" or "Unknown".
	Status string
	// LastTransitionTime is when the status last changed.
	LastTransitionTime time.Time
}

// Job is what the TTL-after-finished controller looks at in a Job.
type Job struct {
	// Namespace, Name and UID identify the Job.
	Namespace, Name, UID string
	// ResourceVersion is the version inspected; the deletion carries it as
	// a precondition.
	ResourceVersion string
	// TTLSecondsAfterFinished is spec.ttlSecondsAfterFinished; nil means
	// the Job is never collected by this controller.
	TTLSecondsAfterFinished *int32
	// DeletionTimestamp is metadata.deletionTimestamp.
	DeletionTimestamp *time.Time
	// Conditions are status.conditions.
	Conditions []JobCondition
}

// JobTTLDecision is the TTL-after-finished decision for one Job.
type JobTTLDecision struct {
	// Job is the Job.
	Job Job
	// Delete: the TTL has run out; delete the Job with propagation policy
	// Foreground and preconditions on its UID and ResourceVersion, after
	// re-reading it and deciding again on the fresh copy, as upstream.
	Delete bool
	// Wait: the Job is finished with a TTL that has not run out; look
	// again at ExpireAt.
	Wait bool
	// FinishedAt is the last transition of its Complete or Failed
	// condition; ExpireAt is FinishedAt + TTL.
	FinishedAt, ExpireAt time.Time
	// Remaining is ExpireAt - now (not positive when Delete).
	Remaining time.Duration
	// Warning is upstream's log line when the Job finished after now
	// (clock skew), cleanup being deferred; "" otherwise.
	Warning string
	// Err is set for a finished Job whose finishing condition has no
	// transition time; upstream retries it with back-off.
	Err error
	// Message says what was decided, for a log line.
	Message string
}

// JobTTL decides at now what the TTL-after-finished controller does with
// j. A Job is a candidate when it is not being deleted, has
// ttlSecondsAfterFinished set and a Complete or Failed condition with
// status True; it finished at that condition's last transition time and
// expires TTL seconds later. Expired (ExpireAt not after now) means
// Delete; otherwise Wait until ExpireAt. A Job that is not a candidate
// gets neither.
func JobTTL(now time.Time, j Job) JobTTLDecision {
	d := JobTTLDecision{Job: j}
	if j.DeletionTimestamp != nil {
		d.Message = "being deleted"
		return d
	}
	if j.TTLSecondsAfterFinished == nil {
		d.Message = "no ttlSecondsAfterFinished"
		return d
	}
	i := slices.IndexFunc(j.Conditions, func(c JobCondition) bool {
		return (c.Type == JobComplete || c.Type == JobFailed) && c.Status == "True"
	})
	if i < 0 {
		d.Message = "not finished"
		return d
	}
	d.FinishedAt = j.Conditions[i].LastTransitionTime
	if d.FinishedAt.IsZero() {
		d.Err = wrap(ErrInvalidInput, fmt.Sprintf("unable to find the time when the Job %s/%s finished", j.Namespace, j.Name))
		d.Message = d.Err.Error()
		return d
	}
	ttl := time.Duration(*j.TTLSecondsAfterFinished) * time.Second
	d.ExpireAt = d.FinishedAt.Add(ttl)
	d.Remaining = d.ExpireAt.Sub(now)
	if d.FinishedAt.After(now) {
		d.Warning = "Found Job finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred."
	}
	if d.Remaining <= 0 {
		d.Delete = true
		d.Message = fmt.Sprintf("finished at %s, ttlSecondsAfterFinished %d has run out", d.FinishedAt.Format(time.RFC3339), *j.TTLSecondsAfterFinished)
	} else {
		d.Wait = true
		d.Message = fmt.Sprintf("finished at %s, expires in %v", d.FinishedAt.Format(time.RFC3339), d.Remaining)
	}
	return d
}

// JobTTLPlan is the TTL-after-finished controller's work over many Jobs.
type JobTTLPlan struct {
	// Delete lists the expired Jobs, earliest expiry first (then namespace,
	// name).
	Delete []JobTTLDecision
	// Failed lists the finished Jobs without a finish time.
	Failed []JobTTLDecision
	// Next is the earliest ExpireAt of the Jobs still waiting; zero when
	// none waits.
	Next time.Time
}

// PlanJobTTL applies JobTTL to every Job at now.
func PlanJobTTL(now time.Time, jobs []Job) JobTTLPlan {
	var p JobTTLPlan
	for _, j := range jobs {
		d := JobTTL(now, j)
		switch {
		case d.Delete:
			p.Delete = append(p.Delete, d)
		case d.Err != nil:
			p.Failed = append(p.Failed, d)
		case d.Wait && (p.Next.IsZero() || d.ExpireAt.Before(p.Next)):
			p.Next = d.ExpireAt
		}
	}
	byKey := func(a, b JobTTLDecision) int {
		return cmp.Or(strings.Compare(a.Job.Namespace, b.Job.Namespace), strings.Compare(a.Job.Name, b.Job.Name), strings.Compare(a.Job.UID, b.Job.UID))
	}
	slices.SortFunc(p.Delete, func(a, b JobTTLDecision) int {
		return cmp.Or(a.ExpireAt.Compare(b.ExpireAt), byKey(a, b))
	})
	slices.SortFunc(p.Failed, byKey)
	return p
}

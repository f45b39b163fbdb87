package shutdown

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The inhibitor lock the kubelet takes through systemd-logind's Inhibit
// call while graceful shutdown is on.
const (
	InhibitWhat = "shutdown"
	InhibitWho  = "kubelet"
	InhibitWhy  = "Kubelet needs time to handle node shutdown"
	InhibitMode = "delay"
)

// DefaultInhibitDelayMax is systemd-logind's default InhibitDelayMaxSec.
const DefaultInhibitDelayMax = 5 * time.Second

// LogindDropInPath is the drop-in the kubelet writes to raise logind's
// InhibitDelayMaxSec. Its "99-" prefix makes it win over drop-ins with
// lower names (kubernetes#102818: unattended-upgrades ships
// InhibitDelayMaxSec=30 in /usr/lib/systemd/logind.conf.d), though not over
// names that sort after it. Older kubelets wrote "kubelet.conf".
const LogindDropInPath = "/etc/systemd/logind.conf.d/99-kubelet.conf"

// InhibitRecheckReads is how many times the kubelet re-reads
// InhibitDelayMaxUSec after raising it (InhibitRecheckDelays).
const InhibitRecheckReads = 5

// InhibitRecheckDelays returns the waits between the kubelet's re-reads of
// InhibitDelayMaxUSec after it wrote the drop-in and sent SIGHUP to
// systemd-logind: five reads, the first at once, then backing off from
// 100ms, doubling. Older kubelets read once.
func InhibitRecheckDelays() [InhibitRecheckReads]time.Duration {
	return [...]time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}
}

// InhibitDecision is what to do about logind's InhibitDelayMaxSec before
// taking the inhibitor lock.
type InhibitDecision struct {
	// Override reports that current is below the required delay: write
	// DropIn to Path, send SIGHUP to systemd-logind.service, and re-read
	// the value after each of InhibitRecheckDelays until it is large
	// enough; if it never is, fail with InhibitDelayError.
	Override bool
	// Path and DropIn are the file to write (mode 0644) and its content.
	Path, DropIn string
	// Current and Required are the durations compared.
	Current, Required time.Duration
}

// DecideInhibitDelay compares logind's current InhibitDelayMaxSec with the
// delay the phases require (RequiredInhibitDelay). A drop-in is needed only
// when current is smaller; its value is the required delay in whole
// seconds, rounded to nearest as upstream's %.0f does.
func DecideInhibitDelay(current, required time.Duration) InhibitDecision {
	d := InhibitDecision{Current: current, Required: required}
	if required <= current {
		return d
	}
	d.Override = true
	d.Path = LogindDropInPath
	d.DropIn = LogindDropIn(required)
	return d
}

// LogindDropIn returns the content of the kubelet's logind drop-in for an
// inhibit delay of d.
func LogindDropIn(d time.Duration) string {
	return "# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=" + strconv.FormatFloat(d.Seconds(), 'f', 0, 64) + "\n"
}

// InhibitDelayError is the error that stops the shutdown manager from
// starting when logind's InhibitDelayMaxSec is still too short after the
// override. It wraps ErrInhibitDelayTooShort; its text is upstream's.
type InhibitDelayError struct {
	// Attempts is the number of re-reads made (InhibitRecheckReads).
	Attempts int
	// Required is the delay asked for; Current the last value read.
	Required, Current time.Duration
	// Legacy selects the wording of older kubelets, which read once.
	Legacy bool
}

// Error returns upstream's message, e.g. "node shutdown manager was timed
// out after 5 attempts waiting for logind InhibitDelayMaxSec to update to
// 30s (ShutdownGracePeriod), current value is 5s".
func (e *InhibitDelayError) Error() string {
	if e.Legacy {
		return fmt.Sprintf("node shutdown manager was unable to update logind InhibitDelayMaxSec to %v (ShutdownGracePeriod), current value of InhibitDelayMaxSec (%v) is less than requested ShutdownGracePeriod", e.Required, e.Current)
	}
	return fmt.Sprintf("node shutdown manager was timed out after %d attempts waiting for logind InhibitDelayMaxSec to update to %v (ShutdownGracePeriod), current value is %v", e.Attempts, e.Required, e.Current)
}

// Unwrap returns ErrInhibitDelayTooShort.
func (e *InhibitDelayError) Unwrap() error { return ErrInhibitDelayTooShort }

// CheckInhibitDelay returns nil when the value re-read after an override,
// current, is at least required, else an *InhibitDelayError for a kubelet
// that made all its re-reads.
func CheckInhibitDelay(current, required time.Duration) error {
	if required <= current {
		return nil
	}
	return &InhibitDelayError{Attempts: InhibitRecheckReads, Required: required, Current: current}
}

// KubeletServiceName is the kubelet's Windows service name.
const KubeletServiceName = "kubelet"

// AddToPreshutdownOrder returns the Windows registry PreshutdownOrder with
// the kubelet placed so that it shuts down before the services it depends
// on, as upstream's addToExistingOrder: with no dependencies, order is
// returned unchanged; otherwise any "kubelet" entry is removed (ignoring
// case), each dependency missing from the order is appended, and "kubelet"
// is inserted before the first entry that is a dependency. Dependencies
// [a b c d] and order [x b y c z] give [x kubelet b y c z a d]. As upstream,
// a dependency listed twice and missing from the order is appended twice.
// The inputs are not modified.
func AddToPreshutdownOrder(dependencies, order []string) []string {
	if len(dependencies) == 0 {
		return order
	}
	out := make([]string, 0, len(order)+len(dependencies)+1)
	present := make(map[string]bool, len(order))
	for _, s := range order {
		if !strings.EqualFold(s, KubeletServiceName) {
			out = append(out, s)
			present[s] = true
		}
	}
	isDep := make(map[string]bool, len(dependencies))
	for _, d := range dependencies {
		isDep[d] = true
		if !present[d] {
			out = append(out, d)
		}
	}
	for i, s := range out {
		if isDep[s] {
			return slices.Insert(out, i, KubeletServiceName)
		}
	}
	return out
}

package admission

import (
	"strings"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/k8sname"
)

// Prefixes that classify resource names, as core/v1's.
const (
	nativePrefix     = "kubernetes.io/"
	quotaPrefix      = "requests."
	attachablePrefix = "attachable-volumes-"
)

// IsExtendedResource reports whether name is an extended resource
// (v1helper.IsExtendedResourceName): a domain-qualified name outside
// *kubernetes.io/ that stays a qualified name under the "requests." quota
// prefix ("example.com/gpu", not "gpu", "kubernetes.io/x" or
// "requests.example.com/x").
func IsExtendedResource(name core.ResourceName) bool {
	s := string(name)
	i := strings.IndexByte(s, '/')
	if i < 0 || strings.Contains(s, nativePrefix) || strings.HasPrefix(s, quotaPrefix) {
		return false
	}
	// "requests." + s must be a qualified name: its prefix "requests.<domain>"
	// a DNS subdomain of at most 253 characters, its name a label name.
	domain := s[:i]
	return strings.IndexByte(s[i+1:], '/') < 0 && len(domain)+len(quotaPrefix) <= 253 &&
		k8sname.DNSSubdomain(domain) && k8sname.LabelName(s[i+1:])
}

// isScalar reports whether the scheduler's resource accounting keeps name
// (schedutil.IsScalarResourceName): extended resources, huge pages,
// *kubernetes.io/ names and attachable volumes. Other names (and "pods",
// counted apart) are not counted.
func isScalar(name core.ResourceName) bool {
	s := string(name)
	return strings.HasPrefix(s, core.ResourceHugePagesPrefix) || strings.Contains(s, nativePrefix) ||
		strings.HasPrefix(s, attachablePrefix) || IsExtendedResource(name)
}

// scalar is one counted resource other than cpu, memory and ephemeral
// storage.
type scalar struct {
	name  core.ResourceName
	value int64
}

// amounts is the scheduler framework's Resource: cpu in millicores,
// everything else in units, scalars sorted by name.
type amounts struct {
	milliCPU, memory, ephemeral int64
	scalars                     []scalar
}

func (a *amounts) find(name core.ResourceName) (int, bool) {
	lo, hi := 0, len(a.scalars)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a.scalars[m].name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(a.scalars) && a.scalars[lo].name == name
}

func (a *amounts) scalar(name core.ResourceName) int64 {
	if i, ok := a.find(name); ok {
		return a.scalars[i].value
	}
	return 0
}

// has reports whether name is listed, even with a zero value.
func (a *amounts) has(name core.ResourceName) bool {
	_, ok := a.find(name)
	return ok
}

// addScalar adds v to name, listing it when new (as Resource.AddScalar).
func (a *amounts) addScalar(name core.ResourceName, v int64) {
	i, ok := a.find(name)
	if !ok {
		a.scalars = append(a.scalars, scalar{})
		copy(a.scalars[i+1:], a.scalars[i:])
		a.scalars[i] = scalar{name: name}
	}
	a.scalars[i].value += v
}

// add adds l as Resource.Add does (pods and unknown names ignored), signed.
func (a *amounts) add(l core.ResourceList, sign int64) {
	for name, q := range l {
		switch name {
		case core.ResourceCPU:
			a.milliCPU += sign * q.MilliValue()
		case core.ResourceMemory:
			a.memory += sign * q.Value()
		case core.ResourceEphemeralStorage:
			a.ephemeral += sign * q.Value()
		case core.ResourcePods:
		default:
			if isScalar(name) {
				a.addScalar(name, sign*q.Value())
			}
		}
	}
}

// setMax is Resource.SetMaxResource on a zero Resource: negative values
// count as zero, and every scalar name is listed, even at zero.
func (a *amounts) setMax(l core.ResourceList) {
	*a = amounts{scalars: a.scalars[:0]}
	for name, q := range l {
		switch name {
		case core.ResourceCPU:
			a.milliCPU = max(0, q.MilliValue())
		case core.ResourceMemory:
			a.memory = max(0, q.Value())
		case core.ResourceEphemeralStorage:
			a.ephemeral = max(0, q.Value())
		default:
			if isScalar(name) {
				a.addScalar(name, max(0, q.Value()))
			}
		}
	}
}

package core

import (
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/internal/compact"
	mapkeys "github.com/nodelife/nodelife/internal/keys"
)

// String prints the pod on one line: its key, then every field that is
// set and nothing that is not, quantities as kubectl writes them and
// pointers as their values (a nil pointer is left out, a pointer to zero
// prints 0), e.g.
//
//	Pod{ns/web uid=u1 owner=ReplicaSet node=a-0 priority=1000 containers=[app req{cpu:500m memory:1Gi}] tolerations=[node.kubernetes.io/unreachable:NoExecute(Exists) for 300s] phase=Running ready}
//
// A few fields print in a shorter form: the controller owner reference by
// its kind (owner=ReplicaSet; other references as refs=[Kind/name]), the
// static and mirror annotations as the flags static and mirror, a Ready
// condition that is True as the flag ready (any other condition as
// Type=Status), a deletion timestamp as the flag terminating (without its
// time), and volumes by name, their source in parentheses unless it is
// emptyDir or unset; a container's SpecJSON is not printed. nodelifetest's
// property tests print drawn pods this way, so that the fields a failing
// property is about can be read.
func (p Pod) String() string {
	var b strings.Builder
	b.WriteString("Pod{")
	b.WriteString(p.Key())
	field := func(name, v string) {
		if v != "" {
			b.WriteString(" " + name + "=" + v)
		}
	}
	flag := func(name string, on bool) {
		if on {
			b.WriteString(" " + name)
		}
	}
	field("uid", p.UID)
	var refs []string
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			field("owner", r.Kind)
			continue
		}
		refs = append(refs, r.Kind+"/"+r.Name)
	}
	if len(refs) > 0 {
		field("refs", "["+strings.Join(refs, " ")+"]")
	}
	field("labels", mapText(p.Labels))
	field("annotations", mapText(otherAnnotations(p.Annotations)))
	if !p.CreationTimestamp.IsZero() {
		field("created", p.CreationTimestamp.UTC().Format(time.RFC3339))
	}
	field("node", p.NodeName)
	field("node-selector", mapText(p.NodeSelector))
	if p.Affinity != nil {
		field("affinity", compact.Sprint(*p.Affinity))
	}
	field("os", p.OS)
	field("supplemental-groups", p.SupplementalGroupsPolicy)
	if p.Priority != nil {
		field("priority", strconv.FormatInt(int64(*p.Priority), 10))
	}
	field("class", p.PriorityClassName)
	flag("static", p.IsStatic())
	flag("mirror", p.IsMirror())
	field("init", containersText(p.InitContainers))
	field("containers", containersText(p.Containers))
	field("ephemeral", containersText(p.EphemeralContainers))
	field("restart", string(p.RestartPolicy))
	flag("host-network", p.HostNetwork)
	if len(p.Overhead) > 0 {
		b.WriteString(" overhead" + p.Overhead.String())
	}
	if p.Resources != nil {
		b.WriteString(" pod-resources" + resourcesText(*p.Resources))
	}
	if len(p.HostPorts) > 0 {
		ports := make([]string, len(p.HostPorts))
		for i, hp := range p.HostPorts {
			ports[i] = strconv.FormatInt(int64(hp.HostPort), 10)
			if hp.Protocol != "" {
				ports[i] += "/" + hp.Protocol
			}
			if hp.HostIP != "" {
				ports[i] += "@" + hp.HostIP
			}
		}
		field("host-ports", "["+strings.Join(ports, " ")+"]")
	}
	if len(p.Tolerations) > 0 {
		tols := make([]string, len(p.Tolerations))
		for i := range p.Tolerations {
			tols[i] = p.Tolerations[i].String()
		}
		field("tolerations", "["+strings.Join(tols, ", ")+"]")
	}
	if p.TerminationGracePeriodSeconds != nil {
		field("grace", strconv.FormatInt(*p.TerminationGracePeriodSeconds, 10)+"s")
	}
	if len(p.Volumes) > 0 {
		vs := make([]string, len(p.Volumes))
		for i, v := range p.Volumes {
			vs[i] = v.Name
			if v.Source != VolumeEmptyDir && v.Source != "" {
				vs[i] += "(" + string(v.Source) + ")"
			}
		}
		field("volumes", "["+strings.Join(vs, " ")+"]")
	}
	field("phase", string(p.Phase))
	for _, c := range p.Conditions {
		if c.Type == PodReady && c.Status == conditions.True {
			flag("ready", true)
			continue
		}
		field(string(c.Type), string(c.Status))
	}
	field("qos", string(p.QOSClass))
	field("reason", p.Reason)
	if p.Resize != nil {
		field("resize", compact.Sprint(*p.Resize))
	}
	flag("terminating", p.DeletionTimestamp != nil)
	b.WriteString("}")
	return b.String()
}

// GoString is String, so that %#v (rapid's form for drawn values, and
// go-cmp's) prints the pod on one line too.
func (p Pod) GoString() string { return p.String() }

// otherAnnotations returns the annotations without the two that String
// prints as the flags static and mirror.
func otherAnnotations(a map[string]string) map[string]string {
	_, src := a[ConfigSourceAnnotation]
	_, mirror := a[ConfigMirrorAnnotation]
	if !src && !mirror {
		return a
	}
	out := make(map[string]string, len(a))
	for k, v := range a {
		if k != ConfigSourceAnnotation && k != ConfigMirrorAnnotation {
			out[k] = v
		}
	}
	return out
}

// mapText prints a string map as "{k=v k2=v2}", keys sorted, or "" for an
// empty map.
func mapText(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range mapkeys.Sorted(m) {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// containersText prints "[name req{...} lim{...} restart=Always, ...]",
// or "" for none.
func containersText(cs []Container) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + resourcesText(c.Resources)
		if c.RestartPolicy != "" {
			parts[i] += " restart=" + c.RestartPolicy
		}
		if c.Image != "" {
			parts[i] += " image=" + c.Image
		}
		if c.HasStartupProbe {
			parts[i] += " startup-probe"
		}
		if c.HasLivenessProbe {
			parts[i] += " liveness-probe"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// resourcesText prints " req{...} lim{...}", each only when set.
func resourcesText(r ResourceRequirements) string {
	var s string
	if len(r.Requests) > 0 {
		s += " req" + r.Requests.String()
	}
	if len(r.Limits) > 0 {
		s += " lim" + r.Limits.String()
	}
	return s
}

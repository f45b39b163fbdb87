package sim

import (
	"strings"
	"testing"

	"github.com/nodelife/nodelife/core"
)

// FuzzParseOutage: no spec makes the parser panic; an error names the
// flag and the spec; a parsed outage has a window that is not negative.
func FuzzParseOutage(f *testing.F) {
	for _, s := range []string{"b@1m-10m", "a/10@30s-", "x", "@", "b@-", "b/0@1m-2m", "n1+n2@1m-2m"} {
		f.Add(s)
	}
	c := &Cluster{Nodes: []core.Node{{Name: "n1", Labels: map[string]string{"topology.kubernetes.io/zone": "z"}}, {Name: "n2"}}}
	f.Fuzz(func(t *testing.T, spec string) {
		for _, sel := range []Selector{SyntheticZones(3), ClusterSelector(c)} {
			o, err := ParseOutage(spec, sel)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "--outage ") {
					t.Fatalf("error %q does not name the flag", err)
				}
				continue
			}
			if o.Zone == "" && len(o.Names) == 0 {
				t.Fatalf("%q parsed to no selection: %+v", spec, o)
			}
		}
	})
}

package snapshot

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The objects of issue 48 that were simulated as if valid: each is left
// out with one warning naming it and every field path as the API server's
// validation does, counted in Refused; the valid ones are kept.
func TestRefusesWhatTheAPIServerWould(t *testing.T) {
	input := `{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n-ok"},"status":{"allocatable":{"cpu":"4","memory":"16Gi"}}},
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n-bad"},"status":{"allocatable":{"cpu":"-4","memory":"99999999999999999999999999Ei"},"capacity":{"cpu":"1e1000"}}},
{"apiVersion":"v1","kind":"Node","metadata":{"name":"Bad_Node"}},
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n-` + "\xff" + `"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-1"},"spec":{"nodeName":"n-ok","containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-2"},"spec":{"nodeName":"n-ok","containers":[{"name":"c","resources":{"requests":{"cpu":"-1","memory":"-1Gi"}}}],"overhead":{"memory":"-5"}}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"Shop","name":"web_3"},"spec":{"nodeName":"n-ok"}}
]}`
	s, ws, err := Decode([]byte(input), "in.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Nodes) != 1 || s.Nodes[0].Name != "n-ok" || len(s.Pods) != 1 || s.Pods[0].Name != "web-1" || s.Refused != 5 {
		t.Fatalf("kept %d nodes, %d pods, refused %d; want n-ok and web-1 kept, 5 refused", len(s.Nodes), len(s.Pods), s.Refused)
	}
	wants := [][]string{
		{"in.json: item 1: node n-bad left out, as the API server would refuse it: ",
			`status.capacity[cpu]: Invalid value: "1e1000": must be less than 2^63-1 bytes (millicores for cpu): too large to compute with`,
			`status.allocatable[cpu]: Invalid value: "-4": must be greater than or equal to 0`,
			`status.allocatable[memory]: Invalid value: "99999999999999999999999999Ei": must be less than 2^63-1`},
		{"in.json: item 2: node Bad_Node left out", `metadata.name: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of`},
		{"in.json: item 3: node n-\ufffd left out", "metadata.name: Invalid value: \"n-\ufffd\": a lowercase RFC 1123 subdomain"},
		{"in.json: item 5: pod shop/web-2 left out",
			`spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
			`spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`,
			`spec.overhead[memory]: Invalid value: "-5": must be greater than or equal to 0`},
		{"in.json: item 6: pod Shop/web_3 left out", `metadata.name: Invalid value: "web_3"`,
			`metadata.namespace: Invalid value: "Shop": a lowercase RFC 1123 label must consist of`},
	}
	if len(ws) != len(wants) {
		t.Fatalf("%d warnings, want %d: %v", len(ws), len(wants), ws)
	}
	for i, want := range wants {
		for _, part := range want {
			if !strings.Contains(ws[i].String(), part) {
				t.Errorf("warning %d lacks %q:\n%s", i, part, ws[i])
			}
		}
	}
}

// Issue 63: objects sharing a UID (the API server gives each its own) are
// left out after the first, with a warning naming both; leases the API
// server would refuse are left out in its words; leases it stores but no
// cluster writes (a duration of 68 years, a renew time in year 9999 or
// year 1) are kept with a warning that echoes the field as written.
func TestUIDsAndLeases(t *testing.T) {
	input := `{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u-node"}},
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2","uid":"u-node"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"a","uid":"u-pod"},"spec":{"nodeName":"n1"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"b","uid":"u-pod"},"spec":{"nodeName":"n1"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"c","uid":"u-node"},"spec":{"nodeName":"n1"}},
{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"namespace":"kube-node-lease","name":"n1"},"spec":{"holderIdentity":"n1","leaseDurationSeconds":-5,"leaseTransitions":-1}},
{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"namespace":"kube-node-lease","name":"n2"},"spec":{"holderIdentity":"n2","leaseDurationSeconds":2147483647,"renewTime":"9999-12-31T23:59:59.000000Z","acquireTime":"0001-01-01T00:00:01.000000Z"}},
{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"namespace":"kube-node-lease","name":"n3"},"spec":{"holderIdentity":"n3","leaseDurationSeconds":40,"renewTime":"2026-12-02T06:00:00.000000Z"}},
{"metadata":{"name":"x"}}
]}`
	for _, replayOnly := range []bool{false, true} {
		r, _ := newReader(Options{ReplayOnly: replayOnly})
		s, ws, err := r.finish("in.json", r.readFrom(strings.NewReader(input), "in.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Nodes) != 1 || s.Nodes[0].Name != "n1" || s.PodCount() != 1 || len(s.Leases) != 2 || s.Refused != 4 {
			t.Fatalf("ReplayOnly %v: kept %d nodes, %d pods, %d leases, refused %d; want n1, shop/a, two leases, 4 refused",
				replayOnly, len(s.Nodes), s.PodCount(), len(s.Leases), s.Refused)
		}
		want := []string{
			`in.json: item 1: node n2 left out: its metadata.uid "u-node" is also node n1's, and the API server gives every object a UID of its own`,
			`in.json: item 3: pod shop/b left out: its metadata.uid "u-pod" is also pod shop/a's, and the API server gives every object a UID of its own`,
			`in.json: item 4: pod shop/c left out: its metadata.uid "u-node" is also node n1's, and the API server gives every object a UID of its own`,
			`in.json: item 5: lease kube-node-lease/n1 left out, as the API server would refuse it: spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0; spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0`,
			`in.json: item 6: lease kube-node-lease/n2: spec.leaseDurationSeconds 2147483647 is 596523h14m7s, longer than any lease a cluster writes (a day at most; a node's is 40 s by default); kept as written`,
			`in.json: item 6: lease kube-node-lease/n2: spec.renewTime "9999-12-31T23:59:59.000000Z" is outside any cluster's clock (before 2014-06-06 or from 2100 on); kept as written`,
			`in.json: item 6: lease kube-node-lease/n2: spec.acquireTime "0001-01-01T00:00:01.000000Z" is outside any cluster's clock (before 2014-06-06 or from 2100 on); kept as written`,
			`in.json: item 8: an item with no kind (no apiVersion) x skipped: the replay does not use it`,
		}
		if len(ws) != len(want) {
			t.Fatalf("ReplayOnly %v: %d warnings, want %d:\n%v", replayOnly, len(ws), len(want), ws)
		}
		for i := range want {
			if ws[i].String() != want[i] {
				t.Errorf("ReplayOnly %v: warning %d:\n%s\nwant\n%s", replayOnly, i, ws[i], want[i])
			}
		}
	}
}

// An item too deep to decode is named in its error all the same.
func TestDeepItemNamed(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	input := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}},` +
		`{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"deep"},"spec":{"nodeName":"n","affinity":` + deep + `}}]}`
	_, _, err := Decode([]byte(input), "in.json")
	if err == nil || !strings.Contains(err.Error(), "in.json: item 1 (Pod shop/deep): ") {
		t.Fatalf("%v, want the pod named", err)
	}
}

// plainDNS accepts exactly the names apimachinery's DNS-1123 checks
// accept (their regular expressions and length limits), subdomains and
// labels: worked cases, then any string.
func TestPlainDNS(t *testing.T) {
	for _, c := range []struct {
		name          string
		subdomain, lb bool
	}{
		{"web-1", true, true}, {"a", true, true}, {"0", true, true}, {"a.b-c.d", true, false},
		{"", false, false}, {"-a", false, false}, {"a-", false, false}, {"A", false, false}, {"a_b", false, false},
		{"a..b", false, false}, {".a", false, false}, {"a.", false, false}, {"a.-b", false, false}, {"é", false, false},
		{strings.Repeat("a", 63), true, true}, {strings.Repeat("a", 64), true, false},
		{strings.Repeat("a.", 126) + "a", true, false}, {strings.Repeat("a.", 126) + "ab", false, false},
	} {
		if got := plainDNS(c.name, false); got != c.subdomain {
			t.Errorf("plainDNS(%q, subdomain) = %v, want %v", c.name, got, c.subdomain)
		}
		if got := plainDNS(c.name, true); got != c.lb {
			t.Errorf("plainDNS(%q, label) = %v, want %v", c.name, got, c.lb)
		}
	}
}

func FuzzPlainDNS(f *testing.F) {
	for _, s := range []string{"web-1", "a.b", "-a", "a..b", "A", strings.Repeat("a", 64), "kube-system", "x.y-z.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := plainDNS(name, false), len(validation.IsDNS1123Subdomain(name)) == 0; got != want {
			t.Errorf("plainDNS(%q, subdomain) = %v, IsDNS1123Subdomain accepts it: %v", name, got, want)
		}
		if got, want := plainDNS(name, true), len(validation.IsDNS1123Label(name)) == 0; got != want {
			t.Errorf("plainDNS(%q, label) = %v, IsDNS1123Label accepts it: %v", name, got, want)
		}
	})
}

package snapshot

import (
	"strings"
	"testing"
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
			`status.capacity[cpu]: Invalid value: "10e999": must be less than 2^63-1 bytes (millicores for cpu): too large to compute with`,
			`status.allocatable[cpu]: Invalid value: "-4": must be greater than or equal to 0`,
			`status.allocatable[memory]: Invalid value: "9223372036854775807": must be less than 2^63-1`},
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

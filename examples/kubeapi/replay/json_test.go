package replay

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/sim"
)

// The -json form: durations as Go duration strings, "never" as null, and
// what MarshalResult writes UnmarshalResult reads back whole.
func TestResultJSON(t *testing.T) {
	c := sample(t)
	o, err := ParseOutage(c, "eu-1b@1m-")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sim.Config{Cluster: c, Duration: 10 * time.Minute, Outages: []sim.Outage{o}, Placement: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := MarshalResult(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Duration": "10m0s"`, `"At": "2m55s"`, `"GoneAt": null`, `"ReplacedAt": "2m55s"`, `"PlacedOn": "w-1`, `"Name": "--node-monitor-grace-period"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	var back sim.Result
	if err := UnmarshalResult(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, res) {
		t.Errorf("round trip differs")
	}
	if err := UnmarshalResult([]byte(`{"Duration": "ten minutes"}`), &back); err == nil || !strings.Contains(err.Error(), "result.Duration") {
		t.Errorf("bad duration: %v", err)
	}
}

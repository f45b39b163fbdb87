package nodelifetest_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/nodelifetest"
)

func TestSmokeScenario(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := nodelifetest.Scenarios(nodelifetest.Options{}).Draw(t, "scenario")
		cfg := nodelifecycle.DefaultConfig()
		h, err := s.Run(cfg, nodelifetest.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := nodelifetest.CheckLifecycle(h, cfg.NodeMonitorGracePeriod); err != nil {
			t.Fatalf("%v\nfaults %v", err, s.Faults)
		}
		if err := nodelifetest.CheckRecovered(h); err != nil {
			t.Fatalf("%v\nfaults %v", err, s.Faults)
		}
	})
}

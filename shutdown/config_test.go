package shutdown

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Upstream's migrateConfig cases (nodeshutdown manager tests) and the seed's
// 30s/10s example.
func TestMigrateConfig(t *testing.T) {
	tests := []struct {
		name            string
		total, critical time.Duration
		want            []PhaseConfig
	}{
		{"seed 30s/10s", 30 * time.Second, 10 * time.Second, []PhaseConfig{{0, 20}, {2000000000, 10}}},
		{"300/120", 300 * time.Second, 120 * time.Second, []PhaseConfig{{0, 180}, {2000000000, 120}}},
		{"100/0: all time to regular pods", 100 * time.Second, 0, []PhaseConfig{{0, 100}, {2000000000, 0}}},
		{"100/100: all time to critical pods", 100 * time.Second, 100 * time.Second, []PhaseConfig{{0, 0}, {2000000000, 100}}},
		{"0/0: feature off", 0, 0, nil},
		{"1/100: critical above total, off", time.Second, 100 * time.Second, nil},
		{"0/5: total 0, off", 0, 5 * time.Second, nil},
		{"seconds truncate", 2500 * time.Millisecond, 1500 * time.Millisecond, []PhaseConfig{{0, 1}, {2000000000, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, MigrateConfig(tt.total, tt.critical)); diff != "" {
				t.Errorf("MigrateConfig(%v, %v) (-want +got):\n%s", tt.total, tt.critical, diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings, one per expected error; nil = valid
	}{
		{"zero value: feature off", Config{}, nil},
		{"seed 30s/10s", Config{ShutdownGracePeriod: 30 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second}, nil},
		{"critical equal to total", Config{ShutdownGracePeriod: 10 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second}, nil},
		{"priority list alone", Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{0, 10}}}, nil},
		{"critical above total", Config{ShutdownGracePeriod: 10 * time.Second, ShutdownGracePeriodCriticalPods: 30 * time.Second},
			[]string{"ShutdownGracePeriodCriticalPods 30s must be <= ShutdownGracePeriod 10s"}},
		{"negative total", Config{ShutdownGracePeriod: -time.Second},
			[]string{"ShutdownGracePeriod -1s must be >= 0"}},
		{"negative critical", Config{ShutdownGracePeriod: 10 * time.Second, ShutdownGracePeriodCriticalPods: -2 * time.Second},
			[]string{"ShutdownGracePeriodCriticalPods -2s must be >= 0"}},
		{"sub-second total", Config{ShutdownGracePeriod: 500 * time.Millisecond},
			[]string{"ShutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec"}},
		{"sub-second critical", Config{ShutdownGracePeriod: 2 * time.Second, ShutdownGracePeriodCriticalPods: 500 * time.Millisecond},
			[]string{"ShutdownGracePeriodCriticalPods 500ms must be either zero or otherwise >= 1 sec"}},
		{"both forms", Config{ShutdownGracePeriod: 30 * time.Second, ShutdownGracePeriodByPodPriority: []PhaseConfig{{0, 10}}},
			[]string{"cannot specify both ShutdownGracePeriodByPodPriority and ShutdownGracePeriod"}},
		{"both forms, critical only", Config{ShutdownGracePeriodCriticalPods: 5 * time.Second,
			ShutdownGracePeriodByPodPriority: []PhaseConfig{{0, 10}}},
			[]string{"ShutdownGracePeriodCriticalPods 5s must be <= ShutdownGracePeriod 0s", "cannot specify both"}},
		{"several problems at once", Config{ShutdownGracePeriod: 500 * time.Millisecond, ShutdownGracePeriodCriticalPods: 700 * time.Millisecond},
			[]string{"ShutdownGracePeriodCriticalPods 700ms must be <= ShutdownGracePeriod 500ms", "ShutdownGracePeriod 500ms must be either zero", "ShutdownGracePeriodCriticalPods 700ms must be either zero"}},
		{"upstream accepts duplicates", Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{5, 10}, {5, 20}}}, nil},
		{"strict rejects duplicates", Config{Strict: true, ShutdownGracePeriodByPodPriority: []PhaseConfig{{5, 10}, {5, 20}}},
			[]string{"ShutdownGracePeriodByPodPriority[1].Priority 5 duplicates entry [0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("error %v does not wrap ErrInvalidConfig", err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d errors %q, want %d", len(lines), lines, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(lines[i], w) || !strings.HasPrefix(lines[i], "shutdown: invalid config: ") {
					t.Errorf("error %d = %q, want it to contain %q", i, lines[i], w)
				}
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		list []PhaseConfig
		want []string
	}{
		{"seed table is clean", []PhaseConfig{{100000, 10}, {10000, 180}, {1000, 120}, {0, 60}}, nil},
		{"unsorted is fine: upstream sorts", []PhaseConfig{{10, 1}, {0, 1}}, nil},
		{"duplicate priority", []PhaseConfig{{0, 10}, {1000, 20}, {0, 30}},
			[]string{"ShutdownGracePeriodByPodPriority[2].Priority 0 duplicates entry [0]"}},
		{"negative seconds", []PhaseConfig{{0, 10}, {1000, -5}},
			[]string{"ShutdownGracePeriodByPodPriority[1].ShutdownGracePeriodSeconds -5 is negative"}},
		{"all zero", []PhaseConfig{{0, 0}, {1000, 0}},
			[]string{"ShutdownGracePeriodByPodPriority: all 2 phases have 0 seconds"}},
		{"unreachable priority", []PhaseConfig{{2000001001, 10}},
			[]string{"ShutdownGracePeriodByPodPriority[0].Priority 2000001001 is above system-node-critical (2000001000)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := Config{ShutdownGracePeriodByPodPriority: tt.list}.Warnings()
			if len(ws) != len(tt.want) {
				t.Fatalf("Warnings() = %v, want %d", ws, len(tt.want))
			}
			for i, w := range ws {
				if !errors.Is(w, ErrSuspiciousConfig) || !strings.Contains(w.Error(), tt.want[i]) {
					t.Errorf("warning %d = %v, want ErrSuspiciousConfig containing %q", i, w, tt.want[i])
				}
			}
		})
	}
}

func TestPhases(t *testing.T) {
	// The priority list wins when set and is sorted ascending, equal
	// priorities keeping their configured order.
	c := Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{100000, 10}, {0, 60}, {1000, 120}, {0, 5}}}
	want := []PhaseConfig{{0, 60}, {0, 5}, {1000, 120}, {100000, 10}}
	if diff := cmp.Diff(want, c.Phases()); diff != "" {
		t.Errorf("Phases (-want +got):\n%s", diff)
	}
	if c.ShutdownGracePeriodByPodPriority[0].Priority != 100000 {
		t.Errorf("Phases modified the config's list")
	}
	two := Config{ShutdownGracePeriod: 30 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second}
	if diff := cmp.Diff([]PhaseConfig{{0, 20}, {2000000000, 10}}, two.Phases()); diff != "" {
		t.Errorf("two-phase Phases (-want +got):\n%s", diff)
	}
	if got := (Config{}).Phases(); got != nil {
		t.Errorf("zero config Phases = %v, want nil (feature off)", got)
	}
}

func TestRequiredInhibitDelay(t *testing.T) {
	tests := []struct {
		phases []PhaseConfig
		want   time.Duration
	}{
		{nil, 0},
		{[]PhaseConfig{{0, 20}, {2000000000, 10}}, 30 * time.Second},
		// Seed table: 10 + 180 + 120 + 60.
		{[]PhaseConfig{{0, 60}, {1000, 120}, {10000, 180}, {100000, 10}}, 370 * time.Second},
		// Negative periods are summed too, as upstream's periodRequested.
		{[]PhaseConfig{{0, 10}, {100, -5}, {200, 0}}, 5 * time.Second},
		// Saturates instead of wrapping.
		{[]PhaseConfig{{0, 1 << 62}, {1, 1 << 62}}, time.Duration(1<<63 - 1)},
	}
	for _, tt := range tests {
		if got := RequiredInhibitDelay(tt.phases); got != tt.want {
			t.Errorf("RequiredInhibitDelay(%v) = %v, want %v", tt.phases, got, tt.want)
		}
	}
}

package conditions

import "time"

// Monitor runs monitor passes over many nodes and keeps their records, as the
// node lifecycle controller's monitorNodeHealth does with its nodeHealthMap.
// It is a synchronous state machine: call Step every monitor period
// (DefaultNodeMonitorPeriod) with the current nodes, carry out the returned
// updates, and report failures with WriteFailed and MarkPodsFailed. Not safe
// for concurrent use.
type Monitor struct {
	cfg     MonitorConfig
	records map[string]HealthRecord
}

// NodeUpdate is the work a pass found for one node.
type NodeUpdate struct {
	// Name is the node's name.
	Name string
	// Health is the full result of Observe; its Write, Conditions,
	// MarkPodsNotReady and Event fields say what to do.
	Health Health
}

// NewMonitor returns a Monitor with no records, or an error if cfg is
// invalid.
func NewMonitor(cfg MonitorConfig) (*Monitor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Monitor{cfg: cfg, records: make(map[string]HealthRecord)}, nil
}

// Step observes every node at now and returns, in the order of nodes, the
// nodes whose conditions must be written or whose pods must be marked
// NotReady. Records of nodes that are written are stored as if the write
// succeeds; call WriteFailed otherwise. Nodes missing from nodes keep their
// records until Forget. A node listed twice is observed twice, in order.
//
// A pass allocates only for the updates it returns (and for the records of
// nodes it has not seen before).
func (m *Monitor) Step(now time.Time, nodes []NodeObservation) []NodeUpdate {
	var updates []NodeUpdate
	for i := range nodes {
		n := &nodes[i]
		h := m.cfg.Observe(now, m.records[n.Name], *n)
		if h.Write {
			m.records[n.Name] = h.RecordAfterWrite
		} else {
			m.records[n.Name] = h.Record
		}
		if h.Write || h.MarkPodsNotReady {
			updates = append(updates, NodeUpdate{Name: n.Name, Health: h})
		}
	}
	return updates
}

// WriteFailed tells the monitor that writing u's conditions failed: the
// record before the write is restored (upstream retries on the next pass).
func (m *Monitor) WriteFailed(u NodeUpdate) {
	m.records[u.Name] = u.Health.Record
}

// MarkPodsFailed tells the monitor that marking the pods of node name
// NotReady failed; the next pass asks again while Ready is not True.
func (m *Monitor) MarkPodsFailed(name string) {
	if r, ok := m.records[name]; ok {
		r.RetryMarkPods = true
		m.records[name] = r
	}
}

// Forget drops the record of a deleted node.
func (m *Monitor) Forget(name string) { delete(m.records, name) }

// Record returns the stored record of node name.
func (m *Monitor) Record(name string) (HealthRecord, bool) {
	r, ok := m.records[name]
	return r, ok
}

// Len returns the number of nodes with a record.
func (m *Monitor) Len() int { return len(m.records) }

// ResetProbes sets the probe and ready transition timestamps of every
// record to now, giving every node a fresh grace period. The node lifecycle
// controller does this when the cluster leaves full disruption (see
// eviction.DisruptionPlan.ResetProbes).
func (m *Monitor) ResetProbes(now time.Time) {
	for name, r := range m.records {
		r.ProbeTimestamp, r.ReadyTransitionTimestamp = now, now
		m.records[name] = r
	}
}

package report

// ShardRun is one shard of a merged run (candor merge): where its result came from and its own key
// figures, listed in the merged result.json under "shards" (and as a section).
type ShardRun struct {
	Dir   string `json:"dir"`
	Index int    `json:"index"`
	Count int    `json:"count"`
	// OffsetSeconds is the shard's clock offset as the shard measured it (its result's clock), and
	// ClockSource how; empty when the shard did not say.
	OffsetSeconds float64 `json:"offset_seconds"`
	ClockSource   string  `json:"clock_source,omitempty"`
	Hostname      string  `json:"hostname,omitempty"`
	// MeasureStart and MeasureSeconds are the shard's own measurement window.
	MeasureStart   string  `json:"measure_start"`
	MeasureSeconds float64 `json:"measure_seconds"`
	Completed      int64   `json:"completed"`
	Errors         int64   `json:"errors"`
	// Lead is the shard's own first headline figure (TPC-C: its tpmC).
	Lead Figure `json:"lead"`
	// KeyOp and KeyP99Ms are the shard's key operation and its 99th-percentile response time.
	KeyOp    string  `json:"key_op"`
	KeyP99Ms float64 `json:"key_p99_ms"`
	Partial  bool    `json:"partial,omitempty"`
}

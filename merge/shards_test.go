package merge

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
)

// shardOf is a shard's result as Check reads it (only what Check looks at).
func shardOf(dir string, i, n int, seed uint64, mut func(*Shard)) *Shard {
	s := &Shard{
		Dir: dir,
		Result: &report.Result{Workload: "tpcc", Mode: "spec", OpOrder: []string{"new_order", "payment"},
			Database: report.Database{Kind: "postgres", URL: "postgres://candor@127.0.0.1/x"}},
		ID: &ShardID{Index: i, Count: n, RootSeed: seed},
		Plan: map[string]any{"workload": "tpcc", "mode": "spec", "duration": "10s", "seed": float64(seed + uint64(i)),
			"out": dir, "terminals": float64(10), "shard": map[string]any{"index": float64(i)},
			"options": map[string]any{"warehouses": float64(3), "procedures": false, "shard_warehouses": float64(i + 1)}},
	}
	if mut != nil {
		mut(s)
	}
	return s
}

func TestCheckAccepts(t *testing.T) {
	shards := []*Shard{shardOf("a", 0, 3, 7, nil), shardOf("b", 1, 3, 7, nil), shardOf("c", 2, 3, 7, nil)}
	missing, err := Check(shards, false)
	if err != nil || len(missing) != 0 {
		t.Fatalf("three shards of one run: missing %v, err %v", missing, err)
	}
}

func TestCheckRefuses(t *testing.T) {
	cases := []struct {
		name   string
		shards []*Shard
		want   []string // every fragment must be in the message
	}{
		{"not a shard", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 7, func(s *Shard) { s.ID = nil })},
			[]string{`b is not a shard's result`}},
		{"other workload", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 7, func(s *Shard) { s.Result.Workload = "kv" })},
			[]string{"b ran workload kv, a ran tpcc"}},
		{"other mode", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 7, func(s *Shard) { s.Result.Mode = "rate" })},
			[]string{"b ran in mode rate, a in mode spec"}},
		{"other count", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 3, 7, nil)},
			[]string{"b is a shard of 3, a of 2"}},
		{"other seed family", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 8, nil)},
			[]string{"b has root seed 8, a 7", "same --seed"}},
		{"overlap", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 0, 2, 7, nil)},
			[]string{"a and b are both shard 0", "overlap"}},
		{"index out of range", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 2, 2, 7, nil)},
			[]string{"b says it is shard 2 of 2"}},
		{"other database", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 7, func(s *Shard) { s.Result.Database.URL = "postgres://candor@10.0.0.1/x" })},
			[]string{"not the same database"}},
		{"other load", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 7, func(s *Shard) {
			s.Plan["options"].(map[string]any)["warehouses"] = float64(4)
		})}, []string{"options.warehouses (3 against 4)"}},
		{"other duration", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 7, func(s *Shard) { s.Plan["duration"] = "20s" })},
			[]string{`duration ("10s" against "20s")`}},
		{"partial shard", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 7, func(s *Shard) { s.Result.Partial, s.Result.PartialReason = true, "interrupted" })},
			[]string{"b is a partial result (interrupted)", "--partial"}},
		{"missing shard", []*Shard{shardOf("a", 0, 3, 7, nil), shardOf("c", 2, 3, 7, nil)},
			[]string{"shard 1 of 3 missing", "--partial"}},
		{"two reasons", []*Shard{shardOf("a", 0, 2, 7, nil), shardOf("b", 1, 2, 8, func(s *Shard) { s.Result.Mode = "rate" })},
			[]string{"2 reasons", "root seed 8", "mode rate"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(c.shards, false)
			if err == nil {
				t.Fatal("merged shards that do not belong together")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestCheckPartialAllowsMissing(t *testing.T) {
	missing, err := Check([]*Shard{shardOf("a", 0, 3, 7, nil), shardOf("c", 2, 3, 7, nil)}, true)
	if err != nil || len(missing) != 1 || missing[0] != 1 {
		t.Fatalf("--partial with shard 1 missing: missing %v, err %v", missing, err)
	}
}

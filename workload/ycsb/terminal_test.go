package ycsb

import (
	"slices"
	"testing"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// draw takes the inputs from the terminal's stream in CoreWorkload's order: replaying the same
// calls on a stream of the same seed gives the same inputs.
func TestDrawOrderIsCoreWorkloads(t *testing.T) {
	for _, args := range [][]string{
		{"-p", "readallfields=false", "-p", "readproportion=0.2", "-p", "updateproportion=0.2", "-p", "insertproportion=0.2",
			"-p", "scanproportion=0.2", "-p", "readmodifywriteproportion=0.2", "-p", "fieldlengthdistribution=uniform", "-p", "requestdistribution=uniform"},
		{"-p", "writeallfields=true", "-p", "readproportion=0.2", "-p", "updateproportion=0.2", "-p", "insertproportion=0.2",
			"-p", "scanproportion=0.2", "-p", "readmodifywriteproportion=0.2", "-p", "fieldlengthdistribution=zipfian"},
	} {
		cfg := testConfig(t, args...)
		core, err := NewCore(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := &mix{core: core, readAll: cfg.ReadAllFields, writeAll: cfg.WriteAllFields, fields: int(cfg.FieldCount)}
		term := &terminal{mix: m, r: gen.New(9)}
		r := gen.New(9)
		values := func(all bool) (wfield int, vals []string) {
			wfield, n := -1, int(cfg.FieldCount)
			if !all {
				wfield, n = core.NextFieldIndex(r), 1
			}
			for range n {
				vals = append(vals, string(AppendRandomValue(nil, r, int(core.NextFieldLength(r)))))
			}
			return wfield, vals
		}
		seen := map[Operation]int{}
		for i := range 500 {
			op, _ := term.Next()
			in := term.in
			want := inputs{op: core.NextOperation(r), field: -1, wfield: -1, keynum: -1}
			if want.op != OpInsert {
				want.keynum = core.NextKeynum(r)
				want.key = core.KeyName(want.keynum)
			}
			switch want.op {
			case OpRead:
				if !cfg.ReadAllFields {
					want.field = core.NextFieldIndex(r)
				}
			case OpUpdate:
				want.wfield, want.vals = values(cfg.WriteAllFields)
			case OpInsert:
				want.wfield, want.vals = values(true)
				want.wfield = -1
			case OpScan:
				want.scanLen = core.NextScanLength(r)
				if !cfg.ReadAllFields {
					want.field = core.NextFieldIndex(r)
				}
			case OpReadModifyWrite:
				if !cfg.ReadAllFields {
					want.field = core.NextFieldIndex(r)
				}
				want.wfield, want.vals = values(cfg.WriteAllFields)
			}
			seen[want.op]++
			if Operation(op) != want.op || in.keynum != want.keynum || in.key != want.key || in.field != want.field ||
				in.scanLen != want.scanLen || in.wfield != want.wfield || !slices.Equal(in.vals, want.vals) {
				t.Fatalf("%v: draw %d: %+v, want %+v", args, i, in, want)
			}
		}
		if len(seen) != 5 {
			t.Errorf("%v: operations drawn %v", args, seen)
		}
	}
}

// The open loop's source: arrival i is drawn by terminal i mod N into the job, and its group is
// the terminal's endpoint.
func TestSourceRoundRobin(t *testing.T) {
	cfg := testConfig(t, "--workload", "a")
	core, err := NewCore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := &mix{core: core, readAll: true, fields: int(cfg.FieldCount)}
	pool := []*terminal{{mix: m, r: gen.New(1)}, {mix: m, r: gen.New(2)}, {mix: m, r: gen.New(3)}}
	twins := []*terminal{{mix: m, r: gen.New(1)}, {mix: m, r: gen.New(2)}, {mix: m, r: gen.New(3)}}
	src := &sqlexec.Source[*terminal]{Pool: pool, Groups: 2}
	job := src.NewJob()
	for i := range int64(30) {
		op, g := src.Draw(i, job)
		tw := twins[i%3]
		wop, _ := tw.Next()
		if op != wop || job.(*terminal).in.key != tw.in.key || g != int(i%3)%2 {
			t.Fatalf("arrival %d: op %d key %s group %d; want op %d key %s group %d", i, op, job.(*terminal).in.key, g, wop, tw.in.key, int(i%3)%2)
		}
	}
}

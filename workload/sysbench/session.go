package sysbench

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// session is one run (workload.Session, workload.RoundTripper).
type session struct {
	sqlexec.Run
	o   Options
	t   test
	st  loadstate.State
	rec record
	ex  *executor
}

var (
	_ workload.Session      = (*session)(nil)
	_ workload.RoundTripper = (*session)(nil)
)

// Open resolves a run against the loaded tables: --tables and --table-size default to the load's
// (fewer tables run on a subset; another table size is refused). Terminals default to sysbench's
// --threads, 1; connections to one per terminal (in rate mode connections default to 1 and the
// terminals to one per connection).
func (s *Sysbench) Open(ctx context.Context, db driver.DB, c workload.SessionConfig) (workload.Session, error) {
	run, err := sqlexec.NewRun(db, c, "sysbench")
	if err != nil {
		return nil, err
	}
	// on the null engine, the tables a load with the run's flags would have written
	given := func() (record, error) {
		opt := s.resolve()
		return newRecord(&opt), nil
	}
	st, rec, err := loadstate.ForRunOrGiven(ctx, db, "sysbench", readRecord, given, c.GivenLoadSeed())
	if err != nil {
		return nil, err
	}
	if d := s.differs(rec); len(d) > 0 {
		return nil, userr.Errorf("the sysbench data at %s was loaded with other options: %s; drop those flags to use the loaded data, or reload with candor sysbench load --drop --tables N --table-size N", db.Redacted(), textfmt.List(d))
	}
	o := s.resolve()
	if !s.given("tables") {
		o.Tables = rec.Tables
	}
	o.TableSize = rec.TableSize
	t, _ := findTest(o.Test)
	ss := &session{Run: run, o: o, t: t, st: st, rec: rec}
	same := func(e record) bool { return e.Tables == rec.Tables && e.TableSize == rec.TableSize }
	if err := loadstate.SameLoad(ctx, db, st, c.Endpoints, readRecord, same); err != nil {
		return nil, err
	}
	if err := ss.Size(c.Terminals, c.Connections, defaultThreads, defaultThreads); err != nil {
		return nil, err
	}
	return ss, nil
}

// Setup is the run's terminals, connections and opening line.
func (s *session) Setup() workload.Setup {
	return workload.Setup{Terminals: s.Terms, Connections: s.Conns, Describe: s.describe(), Options: s.o}
}

// describe is "oltp_read_write, 1 table of 10,000 rows, 18 statements per transaction in
// BEGIN/COMMIT, special ids (75% of them on the middle 1%)".
func (s *session) describe() string {
	o := &s.o
	parts := []string{o.Test, fmt.Sprintf("%d table%s of %s rows", o.Tables, plural(o.Tables), textfmt.Thousands(int64(o.TableSize)))}
	n := statementsPerTx(s.t, o)
	tx := fmt.Sprintf("%d statement%s per transaction", n, plural(n))
	if s.trx() {
		tx += " in BEGIN/COMMIT"
	} else if s.t.trx {
		tx += " in autocommit (--skip-trx)"
	}
	parts = append(parts, tx, newDist(o).describe(o))
	return strings.Join(parts, ", ")
}

// trx says whether transactions are explicit.
func (s *session) trx() bool { return s.t.trx && !s.o.SkipTrx }

// Start records the run, opens the connections and builds the terminals.
func (s *session) Start(ctx context.Context, env workload.Env) (*workload.Work, error) {
	if (s.o.Test == "oltp_insert" || s.o.Test == "oltp_delete") && !s.rec.Changed {
		s.rec.Changed = true
		if err := loadstate.SetOptions(ctx, s.DB, "sysbench", s.rec); err != nil {
			return nil, err
		}
	}
	if err := loadstate.MarkRun(ctx, s.DB, "sysbench"); err != nil {
		return nil, err
	}
	slots, err := s.Connect(ctx, env)
	if err != nil {
		return nil, err
	}
	stmts := make([]*statements, s.o.Tables+1)
	for t := 1; t <= s.o.Tables; t++ {
		stmts[t] = newStatements(s.Family, t, &s.o)
	}
	s.ex = &executor{iso: s.Session.Isolation, trx: s.trx(), readOnly: s.o.Test == "oltp_read_only" || s.t.readOnly, slots: slots, parts: workload.NewPartTimer(env.Rec),
		stmts: stmts, per: make([]slotState, slots.Len())}
	if s.t.literal {
		s.ex.literal = true
		s.ex.typesRest = typesRest(s.Family != sqlexec.FamilyMySQL)
	}
	for i, op := range usedOps(&s.o) {
		s.ex.rec[op] = i
	}
	p := &plan{o: &s.o, steps: s.t.steps(&s.o), d: newDist(&s.o), threads: s.Terms, oneTable: s.t.oneTable && s.t.dolt}
	terms := make([]*terminal, s.Terms)
	for i := range terms {
		terms[i] = &terminal{p: p, r: gen.New(gen.Derive(s.Session.Seed, "sysbench", "terminal", i)), tid: i}
	}
	return sqlexec.Work(s.Session.Mode, s.ex, slots, terms), nil
}

// Details is the workload's part of result.json ("details").
type Details struct {
	Options  Options `json:"options"`
	LoadSeed string  `json:"load_seed"`
	// StatementsPerTx is the statements one transaction sends, BEGIN and COMMIT left out (sysbench's
	// "queries" counts them as "other").
	StatementsPerTx int   `json:"statements_per_tx"`
	Measured        tally `json:"measured"`
}

// Finish adds the headline (transactions and statements per second, as sysbench prints them),
// the details and a table of the statement kinds.
func (s *session) Finish(f *workload.Finished) {
	var t tally
	if s.ex != nil {
		for i := range s.ex.per {
			t.add(&s.ex.per[i].t)
		}
	}
	finish(f, Details{Options: s.o, LoadSeed: strconv.FormatUint(s.st.Seed, 10), StatementsPerTx: statementsPerTx(s.t, &s.o), Measured: t})
}

// finish is the headline, details and statements' table of a run (Finish) or of a run merged
// from shards (MergeFinish), from d and the result's operations.
func finish(f *workload.Finished, d Details) {
	r := f.Result
	r.Details = d
	t, n := d.Measured, d.StatementsPerTx
	count := func(op int) int64 {
		if t := r.Operations[OpNames[op]]; t != nil {
			return t.Count
		}
		return 0
	}
	txs := count(OpTransaction)
	var stmts int64
	for op := OpPointSelect; op < OpCommit; op++ {
		stmts += count(op)
	}
	r.Headline = append(r.Headline,
		report.Figure{Name: "transactions", Value: f.PerSecond(txs), Unit: "per second", Note: d.Options.Test},
		report.Figure{Name: "statements", Value: f.PerSecond(stmts), Unit: "per second", Note: "BEGIN and COMMIT left out"})
	sec := report.Section{
		Title:   "sysbench: statements of the measured transactions",
		Columns: []string{"statement", "count", "per transaction", "p50 ms", "p99 ms", "p99.9 ms", "max ms"},
	}
	for _, op := range usedOps(&d.Options)[1:] {
		tx := r.Operations[OpNames[op]]
		if tx == nil {
			continue
		}
		per := "-"
		if txs > 0 {
			per = fmt.Sprintf("%.2f", float64(tx.Count)/float64(txs))
		}
		sec.Rows = append(sec.Rows, []string{OpNames[op], textfmt.Thousands(tx.Count), per,
			ms(tx.ResponseMs.P50), ms(tx.ResponseMs.P99), ms(tx.ResponseMs.P999), ms(tx.ResponseMs.Max)})
	}
	sec.Notes = []string{fmt.Sprintf("Each statement is timed from its call to its result, on the worker's connection; a transaction sends %d statements besides BEGIN and COMMIT. Statements of attempts that were retried count too (%s duplicate-key retries). The selects returned %s rows; the writes changed %s.",
		n, textfmt.Thousands(t.DuplicateRetries), textfmt.Thousands(t.Rows), textfmt.Thousands(t.Affected))}
	r.Sections = append(r.Sections, sec)
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

var _ workload.Merger = (*Sysbench)(nil)

// MergeFinish is sysbench's part of a result merged from shards (candor merge): the same finish
// as a run's, from the merged operations (each statement's percentiles from the histograms summed
// bucket by bucket) and the shards' tallies summed (rows returned and changed, duplicate-key
// retries). The options are the shards' common ones (merge.Check refuses shards run with others).
func (s *Sysbench) MergeFinish(m *workload.Merged) error {
	ds, err := workload.ShardDetails[Details](m, "sysbench")
	if err != nil {
		return err
	}
	d := ds[0]
	d.Measured = tally{}
	for _, x := range ds {
		d.Measured.add(&x.Measured)
	}
	finish(&m.Finished, d)
	return nil
}

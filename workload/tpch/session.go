package tpch

import (
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// session is one TPC-H run (workload.Session, workload.RoundTripper).
type session struct {
	t      *TPCH
	db     driver.DB
	cfg    workload.SessionConfig
	o      Options
	family string
	engine string
	used   int // refresh sets used before this run
	plan   *plan
	slots  *sqlexec.Slots
	ex     *executor
	// explained are the queries whose plan was saved; explainErr the first failure to save one.
	explained  int
	explainErr string
}

var (
	_ workload.Session      = (*session)(nil)
	_ workload.RoundTripper = (*session)(nil)
)

// Open resolves a run against the loaded database: the scale factor is the load's, --streams
// defaults to clause 5.3.4's minimum for it, and the refresh functions take the next unused sets.
// Validation mode needs reference answers for the scale factor and data no refresh function has
// changed.
func (t *TPCH) Open(ctx context.Context, db driver.DB, c workload.SessionConfig) (workload.Session, error) {
	if c.Mode != workload.ModeThroughput {
		return nil, userr.Errorf("tpch runs its streams in a closed loop without waits (--mode throughput), not %q", c.Mode)
	}
	if len(c.Endpoints) > 0 {
		return nil, userr.Errorf("tpch runs against one database endpoint: give --db once")
	}
	fam, engine, err := sqlexec.Dialect(db, "tpch")
	if err != nil {
		return nil, err
	}
	sf, ok, err := loadedSF(ctx, db)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, loadstate.NotLoadedError(db, "tpch", "")
	}
	o := t.o
	o.SF = sf
	if o.Streams == 0 {
		o.Streams = MinStreams(sf)
	}
	used, err := refreshSetsUsed(ctx, db)
	if err != nil {
		return nil, err
	}
	params := drawnParams(c.Seed, sf)
	if o.Validate {
		if _, ok := queries.Answers(1, sf); !ok {
			return nil, userr.Errorf("--validate compares the answers with reference answers, which candor holds for SF 0.01 and 0.1, not SF %g: load one of those (candor tpch load --drop --sf 0.01 --db %s)", sf, db.Redacted())
		}
		if used > 0 {
			return nil, userr.Errorf("--validate needs the data as loaded, and earlier runs on %s have applied %d refresh set(s) (RF1 and RF2 change ORDERS and LINEITEM): reload with candor tpch load --drop --sf %g --db %s", db.Redacted(), used, sf, db.Redacted())
		}
		o.NoRefresh = true
		params = validationParams(sf)
	}
	s := &session{t: t, db: db, cfg: c, o: o, family: fam, engine: engine, used: used}
	s.plan = buildPlan(o, used+1, params)
	if last := s.plan.firstSet + s.plan.sets - 1; s.plan.sets > 0 && dbgen.RefreshDelete(sf, last) == nil {
		return nil, userr.Errorf("this run needs refresh sets %d to %d, and dbgen has fewer update sets for SF %g (runs on %s have used %d): reload with candor tpch load --drop --sf %g --db %s, or give --no-refresh",
			s.plan.firstSet, last, sf, db.Redacted(), used, sf, db.Redacted())
	}
	t.last = s
	return s, nil
}

// Setup is one terminal and one connection per stream.
func (s *session) Setup() workload.Setup {
	n := len(s.plan.terminals())
	return workload.Setup{Terminals: n, Connections: n, Describe: s.describe(), Options: s.o}
}

// describe is the run's opening line: "SF 0.01, power test (RF1, 22 queries, RF2), then throughput
// test (2 query streams and the refresh stream), refresh sets 1..3".
func (s *session) describe() string {
	o := &s.o
	var parts []string
	parts = append(parts, fmt.Sprintf("SF %g", o.SF))
	rf := !o.NoRefresh
	if s.plan.power != nil {
		p := "power test (22 queries)"
		if rf {
			p = "power test (RF1, 22 queries, RF2)"
		}
		if o.Repeat > 1 {
			p += fmt.Sprintf(" %d times", o.Repeat)
		}
		parts = append(parts, p)
	}
	if len(s.plan.streams) > 0 {
		p := "throughput test (" + plural(o.Streams, "query stream")
		if rf {
			p += " and the refresh stream"
		}
		p += ")"
		if s.plan.power != nil {
			p = "then " + p
		}
		parts = append(parts, p)
	}
	if s.plan.sets > 0 {
		parts = append(parts, fmt.Sprintf("refresh sets %d..%d", s.plan.firstSet, s.plan.firstSet+s.plan.sets-1))
	}
	if o.Validate {
		parts = append(parts, "validation mode")
	}
	return strings.Join(parts, ", ")
}

// Start records the refresh sets the run will use, opens one connection per stream, saves each
// query's plan (before the clock starts) and gives the streams to the closed loop.
func (s *session) Start(ctx context.Context, env workload.Env) (*workload.Work, error) {
	if s.slots != nil {
		return nil, fmt.Errorf("tpch: Start called twice")
	}
	if s.plan.sets > 0 {
		if err := useRefreshSets(ctx, s.db, s.used, s.plan.sets); err != nil {
			return nil, err
		}
	}
	if err := loadstate.MarkRun(ctx, s.db, "tpch"); err != nil {
		return nil, err
	}
	terms := s.plan.terminals()
	slots, err := sqlexec.Open(ctx, []driver.DB{s.db}, len(terms), env.Abort)
	if err != nil {
		return nil, err
	}
	s.slots = slots
	s.ex = &executor{slots: slots, family: s.family, sf: s.o.SF, validate: s.o.Validate}
	if err := s.ex.prepare(s.plan.firstSet, s.plan.sets); err != nil {
		return nil, err
	}
	if s.o.Explain && s.cfg.Create != nil {
		s.explain(ctx)
	}
	w := &workload.Work{Exec: s.ex, Workers: slots.Len()}
	for _, t := range terms {
		w.Terminals = append(w.Terminals, t)
	}
	return w, nil
}

// explain saves each query's plan as plans/qN.txt: the engine's EXPLAIN of the query with the
// parameters its first stream uses (the power test's, else stream 1's). A plan that cannot be
// had is said in the file and in the result, never fatal.
func (s *session) explain(ctx context.Context) {
	first := s.plan.power
	if first == nil && len(s.plan.streams) > 0 {
		first = s.plan.streams[0]
	}
	if first == nil {
		return
	}
	seen := map[int]bool{}
	for _, st := range first.steps {
		if st.q == 0 || seen[st.q] {
			continue
		}
		seen[st.q] = true
		text, err := s.planText(ctx, st)
		if err != nil {
			text = "no plan: " + err.Error() + "\n"
			if s.explainErr == "" {
				s.explainErr = fmt.Sprintf("Q%d: %v", st.q, err)
			}
		}
		f, err := s.cfg.Create(fmt.Sprintf("plans/q%d.txt", st.q))
		if err != nil {
			if s.explainErr == "" {
				s.explainErr = err.Error()
			}
			return
		}
		_, werr := f.Write([]byte(text))
		if cerr := f.Close(); werr == nil && cerr == nil && !strings.HasPrefix(text, "no plan: ") {
			s.explained++
		}
	}
}

// planText is the EXPLAIN of step st's query: a header naming the query, its parameters and the
// engine, then the plan's rows, tab-separated.
func (s *session) planText(ctx context.Context, st step) (string, error) {
	stm, err := queries.SQL(st.q, s.family, st.params)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- Q%d, parameters %s, on %s (%s)\n-- %s\n", st.q, strings.Join(st.params, ", "), s.engine, s.db.Redacted(), strings.Join(strings.Fields(explainSQL(s.family, "...")), " "))
	out := s.slots.Run(ctx, 0, func(ctx context.Context, c driver.Conn) (int, error) {
		for _, sql := range stm.Setup {
			if _, err := c.Exec(ctx, sql); err != nil {
				return 0, err
			}
		}
		defer func() {
			for _, sql := range stm.Teardown {
				_, _ = c.Exec(ctx, sql)
			}
		}()
		rows, err := readAll(ctx, c, explainSQL(s.family, stm.Query))
		if err != nil {
			return 0, err
		}
		for _, r := range rows {
			b.WriteString(strings.Join(r, "\t"))
			b.WriteByte('\n')
		}
		return 0, nil
	})
	return b.String(), out.Err
}

// RoundTrips is the round trips of every connection of the run and the operations completed.
func (s *session) RoundTrips() (trips, ops int64, counted bool) {
	if s.slots == nil {
		return 0, 0, false
	}
	return s.slots.Trips()
}

// Close closes the run's connections.
func (s *session) Close() error {
	if s.slots == nil {
		return nil
	}
	return s.slots.Close()
}

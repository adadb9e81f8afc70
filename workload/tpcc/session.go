package tpcc

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
)

// session is one TPC-C run (workload.Session): terminals bound to their home warehouses and
// districts, an executor with one connection per worker, and the deferred-Delivery workers.
type session struct {
	db     driver.DB
	info   LoadInfo
	o      RunOptions
	cfg    workload.SessionConfig
	consts struct{ Load, Run Constants }
	// stockLevel is the level Stock-Level runs at (clause 2.8.2.1), as the engine reports it when
	// it can tell.
	stockLevel driver.Isolation

	spread     *endpointSpread
	ex         *executor
	dq         *deferredQueue
	deliveries io.WriteCloser // the Delivery result file of clause 2.7.4.2; nil without --out
	stopExec   context.CancelFunc
	drained    bool
	// runCtx is the context Start was given (cancelled: the run was interrupted or aborted);
	// hurry is closed by a second Ctrl-C.
	runCtx context.Context
	hurry  <-chan struct{}
	// completedTx counts the transactions of the five types (a Delivery once, when queued), for
	// the round trips per transaction.
	completedTx atomic.Int64
	// steady is each interval's New-Orders completed inside the window, for the steady-state
	// test of spec mode (qualify.go); only the tick goroutine appends.
	steady []ivCount
}

var (
	_ workload.Session      = (*session)(nil)
	_ workload.RoundTripper = (*session)(nil)
)

func newSession(ctx context.Context, db driver.DB, info LoadInfo, o RunOptions, c workload.SessionConfig) *session {
	s := &session{db: db, info: info, o: o, cfg: c}
	s.consts.Load = info.C
	s.consts.Run = RunConstants(o.Seed, info.C)
	s.stockLevel = stockLevelIsolation(o.Isolation)
	if pr, ok := db.(driver.IsolationProber); ok {
		if conn, err := db.Connect(ctx); err == nil {
			if eff, known, err := pr.EffectiveIsolation(ctx, conn, s.stockLevel); err == nil && known {
				s.stockLevel = eff
			}
			conn.Close()
		}
	}
	return s
}

// Setup is what the run resolved to.
func (s *session) Setup() workload.Setup {
	return workload.Setup{
		Terminals: s.o.Terminals, Connections: s.o.Connections,
		Describe: report.TPCCSetupLine(s.o.Warehouses, s.o.Procedures, string(s.o.Isolation), string(s.stockLevel)) + s.o.shardLine() + placementText(s.info.Placement),
		Options: struct {
			Options
			DeliveryWorkers int `json:"delivery_workers"`
		}{Options{Warehouses: s.o.Warehouses, Procedures: s.o.Procedures, Tablespaces: s.tablespaces()}, s.deliveryWorkers()},
	}
}

// tablespaces are the load's --tablespaces (nil without).
func (s *session) tablespaces() []string {
	if s.info.Placement == nil {
		return nil
	}
	return s.info.Placement.Tablespaces
}

// Start marks the data as run on, opens the workers' connections, the deferred-Delivery workers
// and then the Delivery result file, and returns the terminals (closed loop) or the arrival source
// (open loop).
func (s *session) Start(ctx context.Context, env workload.Env) (*workload.Work, error) {
	if err := MarkRun(ctx, s.db); err != nil {
		return nil, err
	}
	s.runCtx, s.hurry = ctx, env.Hurry
	lo, hi := s.o.home()
	terms := newTerminalsOf(s.o.Terminals, s.o.Warehouses, lo, hi, s.o.Mode, s.o.Seed, s.consts.Run)
	// Transactions run on their own context: an interruption stops the dispatch at once but lets the
	// work in flight finish within the grace period, so it is measured rather than lost.
	execCtx, stopExec := context.WithCancel(context.WithoutCancel(ctx))
	s.stopExec = stopExec
	spread, err := spreadEndpoints(s.db, s.o.Endpoints, terms, s.o.Connections)
	if err != nil {
		return nil, err
	}
	s.spread = spread
	if s.ex, err = newExecutor(execCtx, s.db, s.o, env.Abort, spread); err != nil {
		return nil, err
	}
	// The deferred workers record from stripe Workers+1 on (Workers is the open loop's drops).
	if s.dq, err = newDeferredQueue(execCtx, s.db, s.o, env.Rec, len(s.ex.slots)+1, spread); err != nil {
		return nil, err
	}
	// The Delivery result file, once every connection is open (a run that cannot connect creates
	// no file); no Delivery is queued yet, so the workers see the log set.
	if s.cfg.Create != nil {
		f, err := s.cfg.Create(report.DeliveriesFile)
		if err != nil {
			return nil, err
		}
		if f != nil {
			s.deliveries = f
			s.dq.log = newDeliveryLog(f)
		}
	}
	s.ex.deliveries = s.dq
	w := &workload.Work{
		Exec: s.ex, Workers: len(s.ex.slots),
		TerminalGroup: spread.termGroup, WorkerGroup: spread.slotGroup,
		OnTick: func(iv *measure.Interval) {
			s.completedTx.Add(iv.Completed() - iv.Counts[DeliveryDeferred].Completed)
			if n := iv.Measured[NewOrder].CompletedInWindow; n > 0 {
				s.steady = append(s.steady, ivCount{start: iv.Start, end: iv.End, n: n})
			}
			s.dq.log.flush() // a run killed outright loses at most one interval of the result file
		},
		Drain: s.drain,
	}
	if s.o.Mode == ModeRate {
		w.Source = &arrivalSource{pool: terms, group: spread.termGroup} // arrivals.go
	} else {
		w.Terminals = make([]schedule.Terminal, len(terms))
		for i, t := range terms {
			w.Terminals[i] = t
		}
	}
	return w, nil
}

// drain waits for the deferred Deliveries up to the grace period, and at least the 80 s within
// which 90% of them must complete (clause 2.7.2.1), so that slow ones are measured rather than cut
// off; those still pending then are counted as incomplete. An interrupted run waits only the grace
// period the user gave, and says what for; a second Ctrl-C (hurry) ends the wait.
func (s *session) drain(grace time.Duration) {
	wait := max(grace, DeliveryCompletionLimit)
	if s.runCtx != nil && s.runCtx.Err() != nil {
		wait = grace
		hurried := false
		select {
		case <-s.hurry:
			hurried = true
		default:
		}
		if n := s.dq.unfinished.Load(); n > 0 && grace > 0 && !hurried && s.cfg.Note != nil {
			s.cfg.Note(fmt.Sprintf("waiting up to %s more (--grace) for %d deferred Deliver%s queued or running; Ctrl-C again stops waiting",
				grace.Round(100*time.Millisecond), n, map[bool]string{true: "y", false: "ies"}[n == 1]))
		}
	}
	s.dq.finish(wait, s.hurry)
	s.drained = true
	s.stopExec()
}

// RoundTrips is the round trips of every connection of the run (warm-up and the deferred
// Deliveries included) and the transactions of the five types to divide them by.
func (s *session) RoundTrips() (int64, int64, bool) {
	if s.ex == nil {
		return 0, 0, false
	}
	trips, counted := s.ex.roundTrips()
	if s.dq != nil {
		trips += s.dq.trips.Load()
		counted = counted || s.dq.tripsCounted.Load()
	}
	return trips, s.completedTx.Load(), counted
}

// Close stops what Start started; safe to call more than once.
func (s *session) Close() error {
	if s.dq != nil && !s.drained {
		s.dq.finish(0, nil)
		s.drained = true
	}
	if s.stopExec != nil {
		s.stopExec()
	}
	if s.ex != nil {
		s.ex.close()
		s.ex = nil
	}
	if s.deliveries != nil {
		s.deliveries.Close()
		s.deliveries = nil
	}
	return nil
}

// deliveryWorkers is the number of deferred-Delivery workers the run has (or will have: at most one
// per warehouse, a multiple of the endpoints; endpoints.go).
func (s *session) deliveryWorkers() int {
	if s.dq != nil {
		return len(s.dq.queues)
	}
	n := max(1, min(s.o.DeliveryWorkers, s.o.Warehouses))
	if e := 1 + len(s.o.Endpoints); n%e != 0 {
		n += e - n%e
	}
	return n
}

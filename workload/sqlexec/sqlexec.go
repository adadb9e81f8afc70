// Package sqlexec is what SQL workloads share to run their operations during a run: one connection
// per scheduler worker (slot), spread over the database's endpoints; re-opening a lost connection
// and running the operation again, a bounded number of times; reconnecting with backoff through an
// outage of the database, which is recorded, and ending the run when it outlasts the outage window;
// the round trips of every connection; single statements run with driver.Retry; the rewriting of
// $n placeholders for each SQL family (placeholders.go), and the families and engines the workloads
// write SQL for (dialect.go); and a run's work from its terminals: their number and the
// connections', the closed loop's terminals or the open loop's round-robin source, spread over the
// endpoints (work.go).
//
// It is the part of workload/tpcc's executor (runner.go) that is not TPC-C's, for kv, ycsb and the
// workloads after them.
package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

const (
	// MaxRetries bounds how often one operation is retried after a serialization failure, deadlock
	// or busy lock before it counts as an error (as TPC-C's transactions are).
	MaxRetries = 10
	// MaxReruns bounds how often one operation is run again on a new connection after its
	// connection was lost.
	MaxReruns = 3
	// firstPause and maxPause bound the pause between two attempts to reconnect during an outage:
	// 50 ms doubling up to 1 s, so that a server back after a restart is found within a second
	// without a storm of connection attempts while it is down.
	firstPause = 50 * time.Millisecond
	maxPause   = time.Second
)

// Slots are a run's connections: slot i (the scheduler's worker i) owns connection i, which goes to
// endpoint Group(i). A slot is used by one goroutine at a time (the worker); Slots itself may be
// shared by all workers.
type Slots struct {
	endpoints []driver.DB
	groups    []int // slot -> endpoint; nil: round-robin
	slots     []slot
	abort     context.CancelCauseFunc
	// outages records the spans without a connection and bounds them (workload.Outages, from the
	// run's context).
	outages *workload.Outages
}

// slot is one worker's connection, the round trips of its connections closed so far and the
// operations it completed.
type slot struct {
	db   driver.DB
	conn driver.Conn // nil after it was lost, until the next operation reconnects
	// trips are the round trips of the slot's closed connections; counted says the engine counts
	// them (driver.RoundTripCounter).
	trips   int64
	counted bool
	// done counts the operations the workload said completed (Done).
	done int64
}

// Open opens n connections, connection i to endpoints[i % len(endpoints)] (round-robin, so every
// endpoint gets its share when n is a multiple of their number). abort, when not nil, is called with
// the cause once an outage outlasts the run's outage window (workload.Env.Abort); the window and the
// record of outages come from ctx (workload.OutagesOf).
func Open(ctx context.Context, endpoints []driver.DB, n int, abort context.CancelCauseFunc) (*Slots, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("sqlexec: no endpoint")
	}
	if n < len(endpoints) {
		return nil, userr.Errorf("%d connections cannot reach %d database endpoints: give --connections %d or more, or fewer --db", n, len(endpoints), len(endpoints))
	}
	return OpenGrouped(ctx, endpoints, Spread(n, len(endpoints)), n, abort)
}

// OpenGrouped opens n connections, connection i to endpoints[groups[i]] (a workload's own spread,
// as TPC-C's by warehouse); nil groups send every connection to endpoints[0].
func OpenGrouped(ctx context.Context, endpoints []driver.DB, groups []int, n int, abort context.CancelCauseFunc) (*Slots, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("sqlexec: no endpoint")
	}
	if groups != nil && len(groups) != n {
		return nil, errors.New("sqlexec: one group per connection")
	}
	s := &Slots{endpoints: endpoints, groups: groups, slots: make([]slot, n), abort: abort, outages: workload.OutagesOf(ctx)}
	for i := range s.slots {
		db := endpoints[s.Group(i)]
		c, err := db.Connect(ctx)
		if err != nil {
			s.Close()
			return nil, userr.Errorf("cannot open connection %d of %d to %s: %v: lower --connections or raise the server's connection limit", i+1, n, db.Redacted(), err)
		}
		s.slots[i] = slot{db: db, conn: c}
	}
	return s, nil
}

// Len is the number of slots.
func (s *Slots) Len() int { return len(s.slots) }

// Group is slot i's endpoint: an index into the endpoints given to Open.
func (s *Slots) Group(i int) int {
	if s.groups == nil {
		return 0
	}
	return s.groups[i]
}

// Endpoints is the number of endpoints the slots' connections go to.
func (s *Slots) Endpoints() int { return len(s.endpoints) }

// Groups is every slot's endpoint index, for schedule's WorkerGroup; nil with one endpoint.
func (s *Slots) Groups() []int { return s.groups }

// DB is the endpoint slot i's connection goes to.
func (s *Slots) DB(i int) driver.DB { return s.slots[i].db }

// Spread gives n items (terminals, slots) to groups round-robin: item i to group i % groups. It is
// nil for one group, as schedule's TerminalGroup and WorkerGroup want.
func Spread(n, groups int) []int {
	if groups <= 1 {
		return nil
	}
	g := make([]int, n)
	for i := range g {
		g[i] = i % groups
	}
	return g
}

// Run runs one operation on slot i's connection: fn does the work and returns its retries (from
// Statement or driver.Retry). A slot whose connection was lost reconnects first, waiting through an
// outage (reconnect); an operation whose connection is lost while it runs is run again on a new one,
// up to MaxReruns times, each counted in Outcome.Reconnects. fn may thus run more than once: it must
// keep its result only from its last call. On a connection that runs no statements (the null
// engine, driver.Simulator) fn is not called: the operation completes after the engine's service
// time.
func (s *Slots) Run(ctx context.Context, i int, fn func(ctx context.Context, c driver.Conn) (retries int, err error)) schedule.Outcome {
	sl := &s.slots[i]
	var out schedule.Outcome
	for {
		if sl.conn == nil {
			c, err := s.reconnect(ctx, sl)
			if err != nil {
				out.Err, out.Class = err, driver.FailConnLost
				return out
			}
			sl.conn = c
			out.Reconnects++
		}
		if sim, ok := driver.Simulated(sl.conn); ok {
			// The null engine (driver/null): the operation completes after its service time,
			// without its statements; its inputs were drawn at dispatch as on any engine.
			if out.Err = sim.Simulate(ctx); out.Err != nil {
				out.Class = driver.FailureOf(sl.db, out.Err)
			}
			return out
		}
		retries, err := fn(ctx, sl.conn)
		out.Retries += retries
		out.Err = err
		if err != nil && sl.db.Classify(err) == driver.ErrConnLost {
			sl.closeConn()
			if out.Reconnects < MaxReruns && ctx.Err() == nil {
				continue
			}
		}
		if err != nil {
			out.Class = driver.FailureOf(sl.db, err) // the one classification (driver/failure.go)
		}
		return out
	}
}

// reconnect opens a new connection for sl, waiting through an outage (connectThrough).
func (s *Slots) reconnect(ctx context.Context, sl *slot) (driver.Conn, error) {
	return connectThrough(ctx, sl.db, s.outages, s.abort)
}

// Connect opens a connection to db for work outside the slots (TPC-C's deferred Delivery), waiting
// through an outage as the slots do, with the outage record and window ctx carries
// (workload.OutagesOf); abort, when not nil, ends the run when the outage outlasts the window.
func Connect(ctx context.Context, db driver.DB, abort context.CancelCauseFunc) (driver.Conn, error) {
	return connectThrough(ctx, db, workload.OutagesOf(ctx), abort)
}

// connectThrough opens a new connection to db. While db refuses, it is in an outage (recorded in
// outages from the first refusal of any connection): connectThrough tries again after a pause
// growing from firstPause to maxPause, so the operation waits for the database and its response
// time, from its intended start, holds the wait. An outage longer than the window aborts the run
// (it ends as partial, saying so); so does the end of ctx.
func connectThrough(ctx context.Context, db driver.DB, outages *workload.Outages, abort context.CancelCauseFunc) (driver.Conn, error) {
	pause := firstPause
	for {
		c, err := db.Connect(ctx)
		if err == nil {
			outages.Connected(db.Redacted(), time.Now())
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		now := time.Now()
		began := outages.Failed(db.Redacted(), now)
		left := outages.Window - now.Sub(began)
		if left <= 0 {
			if abort != nil {
				abort(fmt.Errorf("lost the database: no connection to %s for %s (the outage window; --outage-window sets it), the last attempt failed with: %v",
					db.Redacted(), outages.Window, err))
			}
			return nil, err
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		pause = min(2*pause, maxPause)
	}
}

// RunStatement runs fn on slot i as Run does, with Statement's retries at iso (read-only when
// readOnly): one statement, or statements meant as one transaction at a level other than the
// engine's default.
func (s *Slots) RunStatement(ctx context.Context, i int, iso driver.Isolation, readOnly bool, fn func(ctx context.Context, c driver.Conn) error) schedule.Outcome {
	db := s.slots[i].db
	return s.Run(ctx, i, func(ctx context.Context, c driver.Conn) (int, error) {
		return Statement(ctx, db, c, iso, readOnly, fn)
	})
}

// Done counts one operation completed without error on slot i; only the slot's worker calls it.
func (s *Slots) Done(i int) { s.slots[i].done++ }

// closeConn closes the slot's connection, keeping its round trips.
func (sl *slot) closeConn() {
	if n, ok := driver.RoundTrips(sl.conn); ok {
		sl.trips, sl.counted = sl.trips+n, true
	}
	sl.conn.Close()
	sl.conn = nil
}

// RoundTrips is the round trips of every slot's connections, closed or open, and whether the engine
// counts them. Call it once the workers have stopped.
func (s *Slots) RoundTrips() (n int64, counted bool) {
	for i := range s.slots {
		sl := &s.slots[i]
		n, counted = n+sl.trips, counted || sl.counted
		if sl.conn != nil {
			if c, ok := driver.RoundTrips(sl.conn); ok {
				n, counted = n+c, true
			}
		}
	}
	return n, counted
}

// Trips is what workload.RoundTripper asks: the round trips of every slot's connections, the
// operations counted by Done, and whether the engine counts round trips. Nil Slots (a session that
// never started) have none. Call it once the workers have stopped.
func (s *Slots) Trips() (trips, ops int64, counted bool) {
	if s == nil {
		return 0, 0, false
	}
	trips, counted = s.RoundTrips()
	for i := range s.slots {
		ops += s.slots[i].done
	}
	return trips, ops, counted
}

// Close closes every connection (keeping their round trips); safe to call more than once, and on
// nil Slots.
func (s *Slots) Close() error {
	if s == nil {
		return nil
	}
	for i := range s.slots {
		if s.slots[i].conn != nil {
			s.slots[i].closeConn()
		}
	}
	return nil
}

// Statement runs fn, which sends one statement on c, with driver.Retry. When iso is the engine's
// default level (or unset) the statement runs alone, as its own implicit transaction: a single
// statement is atomic on every engine, and sending it without BEGIN and COMMIT saves their round
// trips (CockroachDB's kv workload runs its statements so too). Any other level gets an explicit
// transaction at that level (read-only when readOnly). Retries run the whole of fn again.
//
// TODO: the engine's default level is what driver.DB.DefaultIsolation says; a server configured
// with another default (default_transaction_isolation) runs the implicit statements at that one.
// workload/tpcc's Client.txConn asks the session; do the same here if it ever matters for a
// single-statement workload.
func Statement(ctx context.Context, db driver.DB, c driver.Conn, iso driver.Isolation, readOnly bool, fn func(ctx context.Context, c driver.Conn) error) (retries int, err error) {
	if iso == driver.IsolationDefault || iso == db.DefaultIsolation() {
		return driver.Retry(ctx, db, Implicit(c), driver.TxOptions{}, MaxRetries, fn)
	}
	return driver.Retry(ctx, db, c, driver.TxOptions{ReadOnly: readOnly, Isolation: iso}, MaxRetries, fn)
}

// Implicit wraps c so that Begin, Commit and Rollback do nothing: each statement is its own implicit
// transaction (a failed statement has rolled itself back).
func Implicit(c driver.Conn) driver.Conn { return implicitConn{c} }

type implicitConn struct{ driver.Conn }

func (implicitConn) Begin(context.Context, driver.TxOptions) error { return nil }
func (implicitConn) Commit(context.Context) error                  { return nil }
func (implicitConn) Rollback(context.Context) error                { return nil }

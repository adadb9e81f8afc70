package sqlexec

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// Run is the part of a run's session that the SQL workloads without a schedule of their own (kv,
// ycsb, sysbench, script) share: the database and its endpoints, the session's configuration, the
// dialect, the terminals and connections, and the connections once Start has opened them. A
// workload's session embeds it, which gives the session RoundTrips and Close
// (workload.RoundTripper, workload.Session).
type Run struct {
	DB        driver.DB
	Endpoints []driver.DB // DB first, then the session's other endpoints (--db)
	Session   workload.SessionConfig
	// Family and Engine are the dialect's (Dialect).
	Family, Engine string
	Terms, Conns   int
	Slots          *Slots // nil until Connect
	name           string
}

// NewRun begins the session of workload name: a mode the workload runs in (throughput or rate) and
// a database whose dialect it has SQL for, both user errors otherwise.
func NewRun(db driver.DB, c workload.SessionConfig, name string) (Run, error) {
	if c.Mode != workload.ModeThroughput && c.Mode != workload.ModeRate {
		return Run{}, userr.Errorf("%s runs in --mode throughput or --mode rate, not %q", name, c.Mode)
	}
	fam, engine, err := Dialect(db, name)
	if err != nil {
		return Run{}, err
	}
	return Run{DB: db, Endpoints: append([]driver.DB{db}, c.Endpoints...), Session: c, Family: fam, Engine: engine, name: name}, nil
}

// Size resolves the terminals and connections (Sizing.Resolve) from those given (0: the default)
// and the workload's defaults, over the run's endpoints; on a single-writer engine the closed loop's
// default connections are at most MaxSingleWriterConnections, and connections needing more open
// files than the process may have are refused (CheckConnections).
func (r *Run) Size(terminals, connections, defaultTerminals, rateConnections int) error {
	var err error
	z := Sizing{Mode: r.Session.Mode, Terminals: terminals, Connections: connections,
		DefaultTerminals: defaultTerminals, RateConnections: rateConnections, Endpoints: len(r.Endpoints)}
	if r.DB != nil && r.DB.Dialect().SingleWriter {
		z.MaxDefaultConnections = MaxSingleWriterConnections
	}
	if r.Terms, r.Conns, err = z.Resolve(); err != nil {
		return err
	}
	return CheckConnections(r.DB, r.Conns, connectionsWhat(connections, r.Conns))
}

// Connect opens the run's connections (Open), once: a second call is a bug in the caller.
func (r *Run) Connect(ctx context.Context, env workload.Env) (*Slots, error) {
	if r.Slots != nil {
		return nil, fmt.Errorf("%s: Start called twice", r.name)
	}
	slots, err := Open(ctx, r.Endpoints, r.Conns, env.Abort)
	if err != nil {
		return nil, err
	}
	r.Slots = slots
	return slots, nil
}

// RoundTrips is the round trips of every connection of the run and the operations completed.
func (r *Run) RoundTrips() (trips, ops int64, counted bool) { return r.Slots.Trips() }

// Close closes the run's connections (none before Connect).
func (r *Run) Close() error { return r.Slots.Close() }

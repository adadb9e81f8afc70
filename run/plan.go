// Package run turns what the user asked for into a validated, fully resolved plan before anything
// connects, then executes it: load, run, check, and the results. The CLI only fills the plans.
package run

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/tpcc"
)

// DefaultSQLite is the embedded default database of the one-shot command.
const DefaultSQLite = "sqlite:candor-tpcc.db"

// LoadPlan is `candor tpcc load`.
type LoadPlan struct {
	DB         string `json:"db"`
	Warehouses int    `json:"warehouses"`
	Loaders    int    `json:"loaders"`
	Seed       uint64 `json:"seed"`
	Drop       bool   `json:"drop"`
	// Procedures creates the stored procedures of the --procedures mode after the load.
	Procedures bool `json:"procedures"`
	Quiet      bool `json:"-"`
}

// RunPlan is `candor tpcc run`. Zero values mean "derive a default" until Resolve fills them.
type RunPlan struct {
	DB          string        `json:"-"`
	DBRedacted  string        `json:"db"`
	Warehouses  int           `json:"warehouses"`
	Mode        tpcc.Mode     `json:"mode"`
	Terminals   int           `json:"terminals"`
	Connections int           `json:"connections"`
	Duration    time.Duration `json:"-"`
	Warmup      time.Duration `json:"-"`
	Grace       time.Duration `json:"-"`
	Interval    time.Duration `json:"-"`
	Out         string        `json:"out"`
	Seed        uint64        `json:"seed"`
	SeedGiven   bool          `json:"seed_given"`
	Isolation   string        `json:"isolation"`
	// Procedures runs each transaction as one call of a stored procedure (procedures.go).
	Procedures bool `json:"procedures"`
	// ExtraDB are further endpoints of the same database (--db given more than once); Endpoints
	// are all of them, redacted, once resolved (distsql.go).
	ExtraDB   []string `json:"-"`
	Endpoints []string `json:"endpoints,omitempty"`
	// Dialect is the engine's dialect as resolved (driver.Dialect.Name: postgres, cockroachdb, ...).
	Dialect string `json:"dialect"`
	// Open loop (mode rate, rate.go): the rate as given ("500" or "100..1000"), the step and its
	// length for a range, the arrival process and the backlog bound.
	Rate          string        `json:"rate,omitempty"`
	Step          float64       `json:"step,omitempty"`
	StepEvery     time.Duration `json:"-"`
	StepEveryText string        `json:"step_every,omitempty"`
	Arrivals      string        `json:"arrivals,omitempty"`
	MaxBacklog    int           `json:"max_backlog,omitempty"`
	DurationGiven bool          `json:"-"` // --duration was given (it must then match the steps)
	// MetricsAddr serves live Prometheus metrics on this HOST:PORT during the run (metrics.go).
	MetricsAddr string `json:"metrics_addr,omitempty"`
	// Check runs the consistency check after the run (quick, or full with CheckFull).
	Check     bool `json:"check"`
	CheckFull bool `json:"check_full"`
	Quiet     bool `json:"-"`

	// The durations as text in the stored plan, so it reads as the user would write it.
	DurationText string `json:"duration"`
	WarmupText   string `json:"warmup"`
	GraceText    string `json:"grace"`
	IntervalText string `json:"interval"`
}

// problems collects every problem of a plan, so the user sees them all at once.
type problems []string

func (p *problems) add(format string, a ...any) { *p = append(*p, fmt.Sprintf(format, a...)) }

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	if len(p) == 1 {
		return userr.Errorf("%s", p[0])
	}
	return userr.Errorf("%d problems with the command:\n  - %s", len(p), strings.Join(p, "\n  - "))
}

// Validate checks a load plan before anything connects.
func (l *LoadPlan) Validate() error {
	var p problems
	if l.DB == "" {
		p.add("no database given: pass --db URL (for example --db %s)", DefaultSQLite)
	}
	if l.Warehouses < 1 {
		p.add("--warehouses must be at least 1 (got %d)", l.Warehouses)
	}
	if l.Loaders < 1 {
		p.add("--loaders must be at least 1 (got %d)", l.Loaders)
	}
	if l.Procedures {
		if err := proceduresByURL(l.DB); err != nil { // procedures.go
			p.add("%s", err.Error())
		}
	}
	return p.err()
}

// Validate checks the parts of a run plan that need no database, before anything connects.
func (r *RunPlan) Validate() error {
	var p problems
	if r.DB == "" {
		p.add("no database given: pass --db URL (for example --db %s)", DefaultSQLite)
	}
	switch r.Mode {
	case tpcc.ModeSpec, tpcc.ModeThroughput, tpcc.ModeRate:
	default:
		p.add("--mode %q is not a mode: use spec, throughput or rate", r.Mode)
	}
	r.validateRate(&p) // rate.go
	if r.Warehouses < 0 {
		p.add("--warehouses must be positive (got %d)", r.Warehouses)
	}
	if r.Terminals < 0 {
		p.add("--terminals must be positive (got %d)", r.Terminals)
	}
	if r.Mode == tpcc.ModeSpec && r.Terminals != 0 && r.Warehouses != 0 && r.Terminals != tpcc.TerminalsPerWarehouse*r.Warehouses {
		p.add("--terminals %d does not fit spec mode, which has exactly 10 terminals per warehouse (%d): drop --terminals or use --mode throughput", r.Terminals, tpcc.TerminalsPerWarehouse*r.Warehouses)
	}
	if r.Connections < 0 {
		p.add("--connections must be positive (got %d)", r.Connections)
	}
	if r.Duration <= 0 {
		p.add("--duration must be positive (got %s): for example --duration 5m", r.Duration)
	}
	if r.Warmup < 0 {
		p.add("--warmup must not be negative (got %s)", r.Warmup)
	}
	if r.Grace < 0 {
		p.add("--grace must not be negative (got %s)", r.Grace)
	}
	if r.Interval < 100*time.Millisecond {
		p.add("--interval must be at least 100ms (got %s)", r.Interval)
	}
	if _, err := ParseIsolation(r.Isolation); err != nil {
		p.add("%s", err.Error())
	}
	if r.Procedures {
		if err := proceduresByURL(r.DB); err != nil { // procedures.go
			p.add("%s", err.Error())
		}
	}
	r.validateEndpoints(&p)
	r.validateMetrics(&p) // metrics.go
	return p.err()
}

// ParseIsolation reads an --isolation value; "" is the engine's default.
func ParseIsolation(s string) (driver.Isolation, error) {
	switch driver.Isolation(strings.ToLower(s)) {
	case driver.IsolationDefault:
		return driver.IsolationDefault, nil
	case driver.IsolationReadCommitted:
		return driver.IsolationReadCommitted, nil
	case driver.IsolationRepeatableRead:
		return driver.IsolationRepeatableRead, nil
	case driver.IsolationSerializable:
		return driver.IsolationSerializable, nil
	}
	return "", errors.New("--isolation " + s + " is not a level: use read-committed, repeatable-read or serializable")
}

// resolve fills the defaults that depend on the loaded database (its warehouse count) and checks
// what could not be checked before connecting.
func (r *RunPlan) resolve(info tpcc.LoadInfo, db driver.DB) error {
	if r.Warehouses == 0 {
		r.Warehouses = info.Warehouses
	}
	if r.Warehouses != info.Warehouses {
		return userr.Errorf("--warehouses %d does not match the database, which holds %d warehouses: drop --warehouses, or reload with candor tpcc load --drop --warehouses %d", r.Warehouses, info.Warehouses, r.Warehouses)
	}
	if r.Mode == tpcc.ModeSpec {
		r.Terminals = tpcc.TerminalsPerWarehouse * r.Warehouses
	} else if r.Terminals == 0 && r.Mode == tpcc.ModeRate {
		// The pool arrivals are drawn from: one terminal state per district (arrivals.go).
		r.Terminals = tpcc.TerminalsPerWarehouse * r.Warehouses
	} else if r.Terminals == 0 {
		// A handful: enough to keep a small server busy, few enough not to hide queueing.
		r.Terminals = 4
	}
	if r.Connections == 0 {
		if r.Mode == tpcc.ModeSpec || r.Mode == tpcc.ModeRate {
			// Spec terminals are idle over 99% of the time (keying and think); a pool of 2 per
			// warehouse (at least 4) keeps connection waits rare. Waits that do happen are measured.
			// Rate mode starts from the same pool; how many connections a rate needs is the user's
			// question, and the backlog shows when they are too few.
			r.Connections = min(r.Terminals, max(4, 2*r.Warehouses))
		} else {
			r.Connections = r.Terminals
		}
	}
	if r.Isolation == "" {
		r.Isolation = string(db.DefaultIsolation())
	}
	r.resolveRate() // rate.go
	r.DBRedacted = db.Redacted()
	r.DurationText, r.WarmupText, r.GraceText, r.IntervalText = r.Duration.String(), r.Warmup.String(), r.Grace.String(), r.Interval.String()
	return nil
}

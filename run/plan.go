// Package run turns what the user asked for into a validated, fully resolved plan before anything
// connects, then executes it: load, run, check, and the results. The CLI only fills the plans.
package run

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// LoadPlan is `candor WORKLOAD load`.
type LoadPlan struct {
	// Workload is the workload to load, its own options bound to its flags.
	Workload workload.Workload `json:"-"`
	DB       string            `json:"db"`
	Loaders  int               `json:"loaders"`
	Seed     uint64            `json:"seed"`
	Drop     bool              `json:"drop"`
	// AllowLarge loads past the load safety bounds (loadsafety.go, --allow-large).
	AllowLarge bool `json:"allow_large,omitempty"`
	Quiet      bool `json:"-"`
	// OneShot: the one-shot's load (the workload's options are the one-shot's).
	OneShot bool `json:"-"`
	// Shard is this process's part of a sharded load (shard.go), ShardWait how long it waits for
	// the other shards' parts.
	Shard     *report.Shard `json:"shard,omitempty"`
	ShardWait time.Duration `json:"-"`
}

// RunPlan is `candor WORKLOAD run`. Zero values mean "derive a default" until resolve fills them.
type RunPlan struct {
	// Workload is the workload to run, its own options bound to its flags; WorkloadName is its name
	// and Options its resolved options (the session's Setup), as stored in result.json.
	Workload     workload.Workload `json:"-"`
	WorkloadName string            `json:"workload"`
	Options      any               `json:"options,omitempty"`
	DB           string            `json:"-"`
	DBRedacted   string            `json:"db"`
	Mode         workload.Mode     `json:"mode"`
	Terminals    int               `json:"terminals"`
	Connections  int               `json:"connections"`
	// TerminalsGiven and ConnectionsGiven: the flag was given, so 0 is the user's (refused), not
	// "derive a default".
	TerminalsGiven   bool          `json:"-"`
	ConnectionsGiven bool          `json:"-"`
	Duration         time.Duration `json:"-"`
	Warmup           time.Duration `json:"-"`
	Grace            time.Duration `json:"-"`
	Interval         time.Duration `json:"-"`
	// OutageWindow is how long the run waits for a database it cannot reach before it ends as
	// partial (--outage-window; 0: workload.DefaultOutageWindow).
	OutageWindow time.Duration `json:"-"`
	Out          string        `json:"out"`
	// Replace: --out may hold a saved run, which this one replaces (without it, such an --out is
	// refused before anything connects).
	Replace   bool   `json:"-"`
	Seed      uint64 `json:"seed"`
	SeedGiven bool   `json:"seed_given"`
	Isolation string `json:"isolation"`
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
	// Ramp: a --rate range rises (or falls) linearly over --duration instead of in steps.
	Ramp          bool `json:"ramp,omitempty"`
	MaxBacklog    int  `json:"max_backlog,omitempty"`
	DurationGiven bool `json:"-"` // --duration was given (it must then match the steps)
	// MetricsAddr serves live Prometheus metrics on this HOST:PORT during the run (metrics.go).
	MetricsAddr string `json:"metrics_addr,omitempty"`
	// Check runs the workload's consistency check after the run (quick, or full with CheckFull).
	Check     bool `json:"check"`
	CheckFull bool `json:"check_full"`
	Quiet     bool `json:"-"`
	// MaxFailures is the share of an operation's attempts, in percent, that may fail before the
	// run fails its failure verdict (exit status 1); nil: report.DefaultMaxFailuresPct (failures.go).
	MaxFailures *float64 `json:"max_failures_pct,omitempty"`
	// SLOs are the latency budgets of --slo as given (slo.go): judged on the window at the end,
	// any one not met fails the run (exit status 1).
	SLOs []string `json:"slos,omitempty"`

	// The durations as text in the stored plan, so it reads as the user would write it.
	DurationText string `json:"duration"`
	WarmupText   string `json:"warmup"`
	GraceText    string `json:"grace"`
	IntervalText string `json:"interval"`
	// OutageWindowText is OutageWindow as text.
	OutageWindowText string `json:"outage_window,omitempty"`

	// Shard is this process's part of a sharded run (shard.go: SetShard; Seed is then the shard's
	// derived seed, Shard.RootSeed the user's). StartAt is the shards' common start (--start-at),
	// StartAtText as stored.
	Shard       *report.Shard `json:"shard,omitempty"`
	StartAt     time.Time     `json:"-"`
	StartAtText string        `json:"start_at,omitempty"`
}

// info is the plan's workload's description.
func (r *RunPlan) info() workload.Info { return r.Workload.Info() }

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
	if l.Workload == nil {
		return userr.Errorf("no workload given")
	}
	if l.DB == "" {
		p.add("no database given: pass --db URL (for example --db %s)", l.Workload.Info().DefaultDB)
	}
	if l.Loaders < 1 {
		p.add("--loaders must be at least 1 (got %d)", l.Loaders)
	}
	cmd := workload.CmdLoad
	if l.OneShot {
		cmd = workload.CmdOneShot
	}
	var shard workload.Shard
	if l.Shard != nil {
		shard = workload.Shard{Index: l.Shard.Index, Count: l.Shard.Count}
	}
	p = append(p, l.Workload.Validate(workload.Validation{Cmd: cmd, DB: l.DB, Endpoints: 1, Shard: shard})...)
	return p.err()
}

// Validate checks the parts of a run plan that need no database, before anything connects.
func (r *RunPlan) Validate() error {
	var p problems
	if r.Workload == nil {
		return userr.Errorf("no workload given")
	}
	in := r.info()
	if r.DB == "" {
		p.add("no database given: pass --db URL (for example --db %s)", in.DefaultDB)
	}
	if !in.HasMode(r.Mode) {
		names := make([]string, len(in.Modes))
		for i, m := range in.Modes {
			names[i] = string(m)
		}
		p.add("--mode %q is not a mode of %s: use %s", r.Mode, in.Name, orList(names))
	}
	r.validateRate(&p) // rate.go
	if r.Terminals < 0 || (r.TerminalsGiven && r.Terminals == 0) {
		p.add("--terminals must be at least 1 (got %d): leave it out for the workload's default", r.Terminals)
	}
	if r.Connections < 0 || (r.ConnectionsGiven && r.Connections == 0) {
		p.add("--connections must be at least 1 (got %d): leave it out for the workload's default", r.Connections)
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
	if r.OutageWindow < 0 {
		p.add("--outage-window must not be negative (got %s): for example --outage-window 60s", r.OutageWindow)
	}
	if r.Interval < 100*time.Millisecond {
		p.add("--interval must be at least 100ms (got %s)", r.Interval)
	}
	if _, err := ParseIsolation(r.Isolation); err != nil {
		p.add("%s", err.Error())
	}
	r.validateEndpoints(&p)
	r.validateMetrics(&p)  // metrics.go
	r.validateFailures(&p) // failures.go
	r.validateSLOs(&p)     // slo.go
	r.validateShard(&p, time.Now())
	p = append(p, r.Workload.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: r.Mode,
		Terminals: r.Terminals, Connections: r.Connections, DB: r.DB, Endpoints: 1 + len(r.ExtraDB), Shard: r.shard()})...)
	return p.err()
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
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

// resolve fills what the session resolved (terminals, connections, the workload's options) and
// the defaults that depend on the database.
func (r *RunPlan) resolve(setup workload.Setup, db driver.DB) {
	r.WorkloadName = r.info().Name
	r.Terminals, r.Connections, r.Options = setup.Terminals, setup.Connections, setup.Options
	if r.Isolation == "" {
		r.Isolation = string(db.DefaultIsolation())
	}
	r.resolveRate() // rate.go
	r.DBRedacted = db.Redacted()
	r.DurationText, r.WarmupText, r.GraceText, r.IntervalText = r.Duration.String(), r.Warmup.String(), r.Grace.String(), r.Interval.String()
	if r.OutageWindow == 0 {
		r.OutageWindow = workload.DefaultOutageWindow
	}
	r.OutageWindowText = r.OutageWindow.String()
	if !r.StartAt.IsZero() {
		r.StartAtText = r.StartAt.UTC().Format(time.RFC3339Nano)
	}
}

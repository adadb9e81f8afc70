// Package null is the null engine: a database inside candor that completes every operation without
// running it, optionally after a service time drawn from a stated distribution. It answers what no
// real engine can: how much load this driver process generates before it, not the database, is the
// bottleneck (`candor selftest`, cmd/candor/selftest.go).
//
// URLs: null: (no service time), null:?service=fixed:1ms, null:?service=exp:2ms (exponential with
// mean 2 ms), null:?service=uniform:1ms..3ms; seed=N changes the seed the service times are drawn
// from (each connection draws from its own stream, gen.Derive(seed, "null", i)).
//
// Operations complete through the Simulator ability of its connections (driver.Simulator):
// workload/sqlexec's Slots.Run, which every workload's executor goes through, and TPC-C's deferred
// Delivery wait the drawn service time instead of calling the statements. The terminals still draw
// their inputs at dispatch, which is the driver's cost the engine exists to measure. The engine
// holds no data: a workload on it takes its options as given (TPC-C its --warehouses), `load` and
// `check` refuse, and the result says NULL_ENGINE. Its statements, should any be sent, fail with
// ErrNoStatements rather than return invented rows.
package null

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
)

// Name is the engine's dialect name and URL scheme.
const Name = "null"

// dialect: the null engine builds the PostgreSQL family's statements (which it never runs), so
// every workload that has SQL for PostgreSQL opens on it unchanged.
var dialect = driver.Dialect{Name: Name, Family: driver.FamilyPostgres}

func init() {
	driver.Register(Name, open)
	driver.DescribeDialect(dialect)
}

// ErrNoStatements is what a statement sent to the null engine returns: it runs none.
var ErrNoStatements = errors.New("the null engine runs no statements (it holds no data)")

// Kind is a service-time distribution's name.
type Kind string

const (
	None    Kind = "none"    // no service time: an operation completes at once
	Fixed   Kind = "fixed"   // always A
	Exp     Kind = "exp"     // exponential with mean A
	Uniform Kind = "uniform" // uniform in [A, B]
)

// maxService bounds a stated service time: beyond an hour it is a typo, not a benchmark.
const maxService = time.Hour

// Service is a service-time distribution: its kind and parameters (A, and B for Uniform).
type Service struct {
	Kind Kind
	A, B time.Duration
}

// String is the distribution as the URL writes it ("exp:2ms"), or "none".
func (s Service) String() string {
	switch s.Kind {
	case Fixed, Exp:
		return string(s.Kind) + ":" + s.A.String()
	case Uniform:
		return string(s.Kind) + ":" + s.A.String() + ".." + s.B.String()
	}
	return string(None)
}

// Mean is the distribution's mean.
func (s Service) Mean() time.Duration {
	switch s.Kind {
	case Fixed, Exp:
		return s.A
	case Uniform:
		return (s.A + s.B) / 2
	}
	return 0
}

// Draw draws one service time from r.
func (s Service) Draw(r *gen.Rand) time.Duration {
	switch s.Kind {
	case Fixed:
		return s.A
	case Exp:
		// Not truncated: the stated mean is the mean.
		return time.Duration(r.Exp(float64(s.A), 0))
	case Uniform:
		return s.A + time.Duration(r.Float64()*float64(s.B-s.A+1))
	}
	return 0
}

const usage = "use null:, null:?service=fixed:1ms, null:?service=exp:2ms (exponential, mean 2 ms) or null:?service=uniform:1ms..3ms, optionally with &seed=N"

// ParseService reads a service-time distribution: "", "none", "fixed:D", "exp:MEAN" or
// "uniform:A..B", durations as Go writes them (1ms, 250us). A bad one is a user error.
func ParseService(s string) (Service, error) {
	if s == "" || s == string(None) {
		return Service{Kind: None}, nil
	}
	name, arg, ok := strings.Cut(s, ":")
	if !ok {
		return Service{}, userr.Errorf("the null engine's service time %q names no distribution: %s", s, usage)
	}
	dur := func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, userr.Errorf("the null engine's service time %q: %q is not a duration (write it as 1ms, 250us or 2.5ms): %s", s, v, usage)
		}
		if d < 0 || d > maxService {
			return 0, userr.Errorf("the null engine's service time %q: %s is outside 0..%s", s, v, maxService)
		}
		return d, nil
	}
	switch Kind(strings.ToLower(name)) {
	case Fixed, Exp:
		d, err := dur(arg)
		if err != nil {
			return Service{}, err
		}
		return Service{Kind: Kind(strings.ToLower(name)), A: d}, nil
	case Uniform:
		lo, hi, ok := strings.Cut(arg, "..")
		if !ok {
			return Service{}, userr.Errorf("the null engine's service time %q: a uniform distribution is written uniform:LOW..HIGH, for example uniform:1ms..3ms", s)
		}
		a, err := dur(lo)
		if err != nil {
			return Service{}, err
		}
		b, err := dur(hi)
		if err != nil {
			return Service{}, err
		}
		if a > b {
			return Service{}, userr.Errorf("the null engine's service time %q: the low end %s is above the high end %s", s, a, b)
		}
		return Service{Kind: Uniform, A: a, B: b}, nil
	}
	return Service{}, userr.Errorf("the null engine's service time %q: %q is not a distribution it knows: %s", s, name, usage)
}

// Options are what a null URL sets.
type Options struct {
	Service Service
	Seed    uint64
}

// ParseURL reads a null engine URL (see the package comment). Anything else in it is a user error.
func ParseURL(raw string) (Options, error) {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, Name) {
		return Options{}, userr.Errorf("%q is not a null engine URL: %s", raw, usage)
	}
	return parse(u, raw)
}

func parse(u *url.URL, raw string) (Options, error) {
	if u.Opaque != "" || u.Host != "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.Fragment != "" {
		return Options{}, userr.Errorf("the null engine URL %q names a place, but the null engine has none: %s", raw, usage)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Options{}, userr.Errorf("the null engine URL %q has a malformed query (%v): %s", raw, err, usage)
	}
	o := Options{Service: Service{Kind: None}, Seed: 1}
	for k, v := range q {
		if len(v) != 1 {
			return Options{}, userr.Errorf("the null engine URL %q gives %s %d times: give it once", raw, k, len(v))
		}
		switch k {
		case "service":
			if o.Service, err = ParseService(v[0]); err != nil {
				return Options{}, err
			}
		case "seed":
			if o.Seed, err = strconv.ParseUint(v[0], 10, 64); err != nil {
				return Options{}, userr.Errorf("the null engine URL %q: seed %q is not a whole number from 0 to %d", raw, v[0], uint64(math.MaxUint64))
			}
		default:
			return Options{}, userr.Errorf("the null engine URL %q has the parameter %q, which it does not know: %s", raw, k, usage)
		}
	}
	return o, nil
}

// DB is an opened null engine.
type DB struct {
	o     Options
	raw   string
	conns atomic.Uint64 // connections opened: each draws from its own stream
}

var (
	_ driver.DB        = (*DB)(nil)
	_ driver.Conn      = (*Conn)(nil)
	_ driver.Simulator = (*Conn)(nil)
)

func open(_ context.Context, u *url.URL, raw string) (driver.DB, error) {
	o, err := parse(u, raw)
	if err != nil {
		return nil, err
	}
	return &DB{o: o, raw: raw}, nil
}

// Is reports whether db is the null engine.
func Is(db driver.DB) bool {
	_, ok := db.(*DB)
	return ok
}

// ServiceOf is the null engine's service-time distribution, and false when db is another engine.
func ServiceOf(db driver.DB) (Service, bool) {
	if n, ok := db.(*DB); ok {
		return n.o.Service, true
	}
	return Service{}, false
}

func (d *DB) Kind() string                     { return Name }
func (d *DB) Dialect() driver.Dialect          { return dialect }
func (d *DB) Redacted() string                 { return driver.Redact(d.raw) }
func (d *DB) Service() Service                 { return d.o.Service }
func (d *DB) Close() error                     { return nil }
func (d *DB) Classify(error) driver.ErrorClass { return driver.ErrFatal }

// DefaultIsolation: the null engine has no transactions; it says read committed, the most common
// default, so the plan shows a level.
func (d *DB) DefaultIsolation() driver.Isolation { return driver.IsolationReadCommitted }

// Version says what the engine is, with its service time.
func (d *DB) Version(context.Context) (string, error) {
	return "candor null engine (no database; service time " + d.o.Service.String() + ")", nil
}

// Settings are the disclosure's settings (sysmon.Disclose): the service-time distribution and
// its seed.
func (d *DB) Settings() map[string]string {
	return map[string]string{"service": d.o.Service.String(), "service_mean": d.o.Service.Mean().String(),
		"seed": strconv.FormatUint(d.o.Seed, 10)}
}

// Connect opens a connection with its own random stream for the service times.
func (d *DB) Connect(context.Context) (driver.Conn, error) {
	i := d.conns.Add(1) - 1
	return &Conn{s: d.o.Service, r: gen.New(gen.Derive(d.o.Seed, "null", i))}, nil
}

// Conn is a null connection, owned by one goroutine as every driver.Conn.
type Conn struct {
	s     Service
	r     *gen.Rand
	timer *time.Timer
}

// Simulate completes one operation: it waits one drawn service time, or until ctx ends (its error
// then).
func (c *Conn) Simulate(ctx context.Context) error {
	d := c.s.Draw(c.r)
	if d <= 0 {
		return ctx.Err()
	}
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
		return nil
	case <-ctx.Done():
		c.timer.Stop()
		return ctx.Err()
	}
}

func (c *Conn) Begin(context.Context, driver.TxOptions) error { return nil }
func (c *Conn) Commit(context.Context) error                  { return nil }
func (c *Conn) Rollback(context.Context) error                { return nil }
func (c *Conn) Close() error                                  { return nil }

func (c *Conn) QueryRow(context.Context, string, ...any) driver.Row { return errRow{} }
func (c *Conn) Query(context.Context, string, ...any) (driver.Rows, error) {
	return nil, ErrNoStatements
}
func (c *Conn) Exec(context.Context, string, ...any) (int64, error) { return 0, ErrNoStatements }
func (c *Conn) CopyFrom(context.Context, string, []string, driver.RowSource) (int64, error) {
	return 0, ErrNoStatements
}

type errRow struct{}

func (errRow) Scan(...any) error { return ErrNoStatements }

// Describe is one phrase for messages: "the null engine (service time exp:2ms)".
func Describe(db driver.DB) string {
	s, _ := ServiceOf(db)
	return fmt.Sprintf("the null engine (service time %s)", s)
}

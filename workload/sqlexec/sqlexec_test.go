package sqlexec

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct{ family, in, want string }{
		{"postgres", "SELECT $1, $2 FROM t WHERE a = $10", "SELECT $1, $2 FROM t WHERE a = $10"},
		{"sqlite", "SELECT $1, $2 FROM t WHERE a = $10 AND b = $1", "SELECT ?1, ?2 FROM t WHERE a = ?10 AND b = ?1"},
		{"mysql", "INSERT INTO t VALUES ($1, $2), ($3, $4)", "INSERT INTO t VALUES (?, ?), (?, ?)"},
		// Quoted text is left alone, doubled quotes included; a $ not followed by a digit too.
		{"sqlite", "SELECT '$1', 'it''s $2', \"a$3\", $1, x$ FROM t", "SELECT '$1', 'it''s $2', \"a$3\", ?1, x$ FROM t"},
		{"mysql", "SELECT `$9`, $1", "SELECT `$9`, ?"},
	} {
		if got := Placeholders(tc.family, tc.in); got != tc.want {
			t.Errorf("%s %q:\n got %q\nwant %q", tc.family, tc.in, got, tc.want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "$2 where $1 was due") {
			t.Errorf("MySQL parameters out of order: recovered %v, want a panic naming them", r)
		}
	}()
	Placeholders("mysql", "SELECT $2, $1")
}

func TestParams(t *testing.T) {
	var b strings.Builder
	Params(&b, 3, 3)
	if b.String() != "$3, $4, $5" {
		t.Errorf("Params(3, 3) = %q", b.String())
	}
}

func TestSpread(t *testing.T) {
	if g := Spread(5, 1); g != nil {
		t.Errorf("one group: %v, want nil", g)
	}
	if g := Spread(5, 2); !slices.Equal(g, []int{0, 1, 0, 1, 0}) {
		t.Errorf("5 over 2: %v", g)
	}
}

// fakeDB is an engine whose connections fail as the test says.
type fakeDB struct {
	name        string
	connects    atomic.Int32
	failConnect atomic.Bool
	closed      atomic.Int32
}

var errLost = errors.New("connection lost")
var errBusy = errors.New("busy")

func (d *fakeDB) Kind() string                            { return "fake" }
func (d *fakeDB) Dialect() driver.Dialect                 { return driver.Dialect{Name: "postgres"} }
func (d *fakeDB) Redacted() string                        { return "fake://" + d.name }
func (d *fakeDB) Version(context.Context) (string, error) { return "1", nil }
func (d *fakeDB) DefaultIsolation() driver.Isolation      { return driver.IsolationReadCommitted }
func (d *fakeDB) Close() error                            { return nil }
func (d *fakeDB) Connect(ctx context.Context) (driver.Conn, error) {
	if d.failConnect.Load() {
		return nil, errors.New("refused")
	}
	d.connects.Add(1)
	return &fakeConn{db: d}, nil
}
func (d *fakeDB) Classify(err error) driver.ErrorClass {
	switch {
	case errors.Is(err, errLost):
		return driver.ErrConnLost
	case errors.Is(err, errBusy):
		return driver.ErrRetry
	}
	return driver.ErrFatal
}

type fakeConn struct {
	driver.Conn
	db     *fakeDB
	trips  int64
	begins int
}

func (c *fakeConn) RoundTrips() int64 { return c.trips }
func (c *fakeConn) Close() error      { c.db.closed.Add(1); return nil }
func (c *fakeConn) Begin(context.Context, driver.TxOptions) error {
	c.begins++
	c.trips++
	return nil
}
func (c *fakeConn) Commit(context.Context) error   { c.trips++; return nil }
func (c *fakeConn) Rollback(context.Context) error { c.trips++; return nil }

func TestSlotsSpreadAndRoundTrips(t *testing.T) {
	a, b := &fakeDB{name: "a"}, &fakeDB{name: "b"}
	s, err := Open(context.Background(), []driver.DB{a, b}, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.connects.Load() != 3 || b.connects.Load() != 2 {
		t.Errorf("connections: %d to a, %d to b; want 3 and 2", a.connects.Load(), b.connects.Load())
	}
	if !slices.Equal(s.Groups(), []int{0, 1, 0, 1, 0}) || s.DB(1) != b || s.Group(3) != 1 {
		t.Errorf("groups %v", s.Groups())
	}
	for i := range 5 {
		s.Run(context.Background(), i, func(ctx context.Context, c driver.Conn) (int, error) {
			c.(*fakeConn).trips += int64(i + 1)
			return 0, nil
		})
	}
	if n, counted := s.RoundTrips(); !counted || n != 15 {
		t.Errorf("round trips %d (counted %v), want 15", n, counted)
	}
	s.Close()
	if n, _ := s.RoundTrips(); n != 15 {
		t.Errorf("round trips after Close %d, want 15 (kept from the closed connections)", n)
	}
	if a.closed.Load()+b.closed.Load() != 5 {
		t.Errorf("%d connections closed, want 5", a.closed.Load()+b.closed.Load())
	}
	s.Close() // twice is fine
	if _, err := Open(context.Background(), []driver.DB{a, b}, 1, nil); !userr.Is(err) {
		t.Errorf("1 connection for 2 endpoints: %v, want a user error", err)
	}
}

// A lost connection is re-opened and the operation run again, at most MaxReruns times.
func TestSlotsRerunOnLostConnection(t *testing.T) {
	db := &fakeDB{}
	s, err := Open(context.Background(), []driver.DB{db}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	out := s.Run(context.Background(), 0, func(ctx context.Context, c driver.Conn) (int, error) {
		calls++
		c.(*fakeConn).trips += 10
		if calls <= 2 {
			return 1, errLost
		}
		return 0, nil
	})
	if out.Err != nil || out.Reconnects != 2 || out.Retries != 2 || calls != 3 {
		t.Errorf("outcome %+v after %d calls, want success with 2 reconnects and 2 retries", out, calls)
	}
	if n, _ := s.RoundTrips(); n != 30 {
		t.Errorf("round trips %d, want 30 (the lost connections' kept)", n)
	}
	out = s.Run(context.Background(), 0, func(ctx context.Context, c driver.Conn) (int, error) { return 0, errLost })
	if !errors.Is(out.Err, errLost) || out.Reconnects != MaxReruns {
		t.Errorf("always lost: %+v, want the error after %d reconnects", out, MaxReruns)
	}
	// The next operation reconnects first.
	out = s.Run(context.Background(), 0, func(ctx context.Context, c driver.Conn) (int, error) { return 0, nil })
	if out.Err != nil || out.Reconnects != 1 {
		t.Errorf("after a lost connection: %+v, want one reconnect", out)
	}
}

// An outage shorter than the window is waited out: the operation reconnects with backoff and
// succeeds, and the outage is recorded. One longer than the window aborts the run.
func TestSlotsOutage(t *testing.T) {
	db := &fakeDB{}
	var cause atomic.Value
	abort := func(err error) { cause.CompareAndSwap(nil, err) }
	outages := workload.NewOutages(400 * time.Millisecond)
	ctx := workload.WithOutages(context.Background(), outages)
	s, err := Open(ctx, []driver.DB{db}, 2, abort)
	if err != nil {
		t.Fatal(err)
	}
	lose := func(ctx context.Context, c driver.Conn) (int, error) { return 0, errLost }
	ok := func(ctx context.Context, c driver.Conn) (int, error) { return 0, nil }

	// The database is down for 200 ms: the operation waits, reconnects and succeeds.
	db.failConnect.Store(true)
	s.Run(context.Background(), 0, lose) // the connection is lost; reconnecting fails until the window ends
	if c := cause.Load(); c == nil || !strings.Contains(c.(error).Error(), "lost the database: no connection") || !strings.Contains(c.(error).Error(), "--outage-window") {
		t.Fatalf("an outage past the window: cause %v, want the run aborted", c)
	}
	cause = atomic.Value{}
	go func() { time.Sleep(200 * time.Millisecond); db.failConnect.Store(false) }()
	s.outages = workload.NewOutages(2 * time.Second)
	t0 := time.Now()
	out := s.Run(context.Background(), 0, ok)
	if out.Err != nil || out.Reconnects != 1 || time.Since(t0) < 150*time.Millisecond {
		t.Errorf("through a 200 ms outage: %+v after %s, want success with one reconnect after the wait", out, time.Since(t0))
	}
	if c := cause.Load(); c != nil {
		t.Errorf("a 200 ms outage within a 2 s window aborted the run: %v", c)
	}
	l := s.outages.List()
	if len(l) != 1 || l[0].End.IsZero() || l[0].Attempts < 2 || l[0].End.Sub(l[0].Start) < 100*time.Millisecond {
		t.Errorf("outages %+v, want one that ended, with several refused attempts", l)
	}
	if first := outages.List(); len(first) != 1 || !first[0].End.IsZero() {
		t.Errorf("the first window's record %+v, want one outage that never ended", first)
	}
	// A cancelled run stops waiting at once.
	db.failConnect.Store(true)
	s.Run(context.Background(), 1, lose)
	cctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 = time.Now()
	if out := s.Run(cctx, 1, ok); out.Err == nil || time.Since(t0) > time.Second {
		t.Errorf("a cancelled wait: %+v after %s", out, time.Since(t0))
	}
}

// Statement: the engine's default level runs the statement alone (no BEGIN or COMMIT); another
// level in an explicit transaction; retryable errors are retried.
func TestStatement(t *testing.T) {
	db := &fakeDB{}
	c := &fakeConn{db: db}
	ctx := context.Background()
	for _, iso := range []driver.Isolation{driver.IsolationDefault, driver.IsolationReadCommitted} {
		c.begins = 0
		if _, err := Statement(ctx, db, c, iso, false, func(ctx context.Context, c driver.Conn) error { return nil }); err != nil || c.begins != 0 {
			t.Errorf("%q: %v, %d BEGINs; want the statement alone", iso, err, c.begins)
		}
	}
	c.begins = 0
	if _, err := Statement(ctx, db, c, driver.IsolationSerializable, true, func(ctx context.Context, c driver.Conn) error { return nil }); err != nil || c.begins != 1 {
		t.Errorf("serializable: %v, %d BEGINs; want one explicit transaction", err, c.begins)
	}
	calls := 0
	retries, err := Statement(ctx, db, c, driver.IsolationDefault, false, func(ctx context.Context, c driver.Conn) error {
		if calls++; calls < 3 {
			return errBusy
		}
		return nil
	})
	if err != nil || retries != 2 {
		t.Errorf("retryable twice: %d retries, %v", retries, err)
	}
}

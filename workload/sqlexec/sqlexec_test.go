package sqlexec

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
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

// MaxLostStreak failed reconnects in a row abort the run: the database is gone.
func TestSlotsLostDatabaseAborts(t *testing.T) {
	db := &fakeDB{}
	var cause error
	abort := func(err error) {
		if cause == nil {
			cause = err
		}
	}
	s, err := Open(context.Background(), []driver.DB{db}, 2, abort)
	if err != nil {
		t.Fatal(err)
	}
	lose := func(ctx context.Context, c driver.Conn) (int, error) { return 0, errLost }
	for i := range 2 {
		s.Run(context.Background(), i, lose) // both connections lost
	}
	db.failConnect.Store(true)
	for i := range MaxLostStreak - 1 {
		if out := s.Run(context.Background(), i%2, lose); out.Err == nil {
			t.Fatal("an operation without a connection succeeded")
		}
	}
	if cause != nil {
		t.Fatalf("aborted after %d failed reconnects: %v", MaxLostStreak-1, cause)
	}
	s.Run(context.Background(), 0, lose)
	if cause == nil || !strings.Contains(cause.Error(), "lost the database") {
		t.Fatalf("not aborted after %d failed reconnects (cause %v)", MaxLostStreak, cause)
	}
	// A successful reconnect resets the streak.
	cause = nil
	db.failConnect.Store(false)
	s.Run(context.Background(), 0, func(ctx context.Context, c driver.Conn) (int, error) { return 0, nil })
	db.failConnect.Store(true)
	for range MaxLostStreak - 1 {
		s.Run(context.Background(), 1, lose)
	}
	if cause != nil {
		t.Errorf("the streak was not reset by a successful reconnect: %v", cause)
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

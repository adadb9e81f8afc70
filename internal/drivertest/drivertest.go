// Package drivertest holds what the engine packages' tests (driver/postgres, driver/mysql,
// driver/sqlite) share: a bounded context, connections closed at the end of the test, statements that
// must succeed, a real deadlock between two sessions, and the table-driven check of Open's user errors.
// The tests themselves stay in the engine packages, against real servers.
package drivertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// Ctx is a context that ends with the test, or after 60 s.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Open opens raw, failing the test if it cannot; the database is closed at the end of the test.
func Open(t testing.TB, raw string) driver.DB {
	t.Helper()
	db, err := driver.Open(Ctx(t), raw)
	if err != nil {
		t.Fatalf("open %s: %v", driver.Redact(raw), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Connect opens a session, closed at the end of the test.
func Connect(t testing.TB, db driver.DB) driver.Conn {
	t.Helper()
	c, err := db.Connect(Ctx(t))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// MustExec runs a statement that must succeed and returns the rows it affected.
func MustExec(t testing.TB, c driver.Conn, sql string, args ...any) int64 {
	t.Helper()
	n, err := c.Exec(Ctx(t), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Count is the number of rows of table.
func Count(t testing.TB, c driver.Conn, table string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(Ctx(t), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// FreePort is a loopback port nothing listens on (at the time of the call).
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// Deadlock provokes a real deadlock between sessions a and b of db: each locks one of the rows 1
// and 2 with update (a statement taking the row id as its one parameter), then asks for the other's
// row. pause is how long b waits before closing the cycle, so that a is surely blocked first. It
// checks that exactly one of them fails, and that db classifies the failure as retryable, and
// returns that error for engine-specific assertions.
func Deadlock(t testing.TB, db driver.DB, a, b driver.Conn, update string, pause time.Duration) error {
	t.Helper()
	ctx := Ctx(t)
	for _, c := range []driver.Conn{a, b} {
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	MustExec(t, a, update, 1)
	MustExec(t, b, update, 2)
	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errA = a.Exec(ctx, update, 2)
	}()
	time.Sleep(pause)
	_, errB = b.Exec(ctx, update, 1)
	wg.Wait()
	a.Rollback(ctx)
	b.Rollback(ctx)
	if (errA == nil) == (errB == nil) {
		t.Fatalf("want exactly one deadlock victim, got errors %v and %v", errA, errB)
	}
	err := errors.Join(errA, errB)
	if cl := db.Classify(err); cl != driver.ErrRetry {
		t.Fatalf("deadlock %v classified %v, want retry", err, cl)
	}
	return err
}

// UserErrorCase is a URL that Open must refuse with a user error: one line, without the password
// pw, containing every string of want.
type UserErrorCase struct {
	Name, URL, PW string
	Want          []string
	// NotWant are strings the message must not hold: "xxxxx" where the password is a word of an
	// ordinary message ("refused"), which a substring mask would reveal.
	NotWant []string
}

// UserErrors opens each case's URL and checks the error it gets.
func UserErrors(t *testing.T, cases []UserErrorCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			db, err := driver.Open(Ctx(t), tc.URL)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%s) succeeded", driver.Redact(tc.URL))
			}
			CheckUserError(t, err, tc.PW, tc.Want...)
			for _, nw := range tc.NotWant {
				if strings.Contains(err.Error(), nw) {
					t.Errorf("message holds %q: %s", nw, err)
				}
			}
		})
	}
}

// CheckUserError checks that err is a user error of one line, without the password pw (unless pw is
// empty), containing every string of want.
func CheckUserError(t testing.TB, err error, pw string, want ...string) {
	t.Helper()
	msg := err.Error()
	t.Logf("%s", msg)
	if !userr.Is(err) {
		t.Errorf("not a user error: %v", err)
	}
	if pw != "" && strings.Contains(msg, pw) {
		t.Errorf("message shows the password: %s", msg)
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message is not one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("message lacks %q: %s", w, msg)
		}
	}
}

// IDNames reads rows of (id, s), closes them twice (Close must be idempotent) and returns them as
// "id s" joined by commas: "8 r8,9 r9".
func IDNames(t testing.TB, rows driver.Rows) string {
	t.Helper()
	var got []string
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s", id, s))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	rows.Close()
	return strings.Join(got, ",")
}

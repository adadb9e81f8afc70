// Package dbtest gives integration tests real databases of their own: a fresh database on the
// PostgreSQL server named by CANDOR_TEST_PG_URL (scripts/test starts a throwaway one), dropped when
// the test ends, or a SQLite file in the test's temporary directory. A missing server fails the test
// loudly; it never skips.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/postgres" // the engines the tests open
	_ "github.com/candor-bench/candor/driver/sqlite"
)

// EnvPG is the variable that names the test PostgreSQL server.
const EnvPG = "CANDOR_TEST_PG_URL"

// EnvPGMajor, when set (scripts/test's pass on PostgreSQL 18 sets it to 18), is the major version
// the server of EnvPG must run: a test given another server fails, so a pass meant for one version
// cannot run on another unnoticed.
const EnvPGMajor = "CANDOR_TEST_PG_MAJOR"

// PostgresURL returns the test server's URL, failing the test when it is not set (or when it does
// not run the major version EnvPGMajor names).
func PostgresURL(t testing.TB) string {
	t.Helper()
	raw := envURL(t, EnvPG, "this integration test needs PostgreSQL")
	if want := os.Getenv(EnvPGMajor); want != "" {
		got, err := pgMajor(raw)
		if err != nil {
			t.Fatalf("reading the major version of the server of %s (%s=%s): %v", EnvPG, EnvPGMajor, want, err)
		}
		if got != want {
			t.Fatalf("the server of %s runs PostgreSQL %s, and %s=%s", EnvPG, got, EnvPGMajor, want)
		}
	}
	return raw
}

var majors sync.Map // URL -> major version, read once per server

// pgMajor is the major version of the PostgreSQL server at raw ("15", "18").
func pgMajor(raw string) (string, error) {
	if v, ok := majors.Load(raw); ok {
		return v.(string), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := driver.Open(ctx, raw)
	if err != nil {
		return "", err
	}
	defer db.Close()
	c, err := db.Connect(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	var num int64
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int8").Scan(&num); err != nil {
		return "", err
	}
	v := strconv.FormatInt(num/10000, 10)
	majors.Store(raw, v)
	return v, nil
}

func envURL(t testing.TB, env, need string) string {
	t.Helper()
	raw := os.Getenv(env)
	if raw == "" {
		t.Fatalf("%s is not set: %s; run it through scripts/test, which starts the servers the tests need (scripts/pg-throwaway start DIR prints the URL)", env, need)
	}
	return raw
}

// FreshPostgresURL creates an empty database named prefix_<random> on the test server and returns
// its URL; the database is dropped (with FORCE) when the test ends.
func FreshPostgresURL(t testing.TB, prefix string) string {
	t.Helper()
	return freshOn(t, PostgresURL(t), prefix)
}

// FreshPostgresCopyURL is FreshPostgresURL with the new database a copy of the database named
// template on the same server (CREATE DATABASE ... TEMPLATE: a file copy, which no session may
// hold open on template meanwhile): loaded data in a second instead of a load's minute.
func FreshPostgresCopyURL(t testing.TB, prefix, template string) string {
	t.Helper()
	return freshDatabaseAs(t, PostgresURL(t), prefix, " TEMPLATE "+template, " WITH (FORCE)")
}

// freshOn creates prefix_<random> on the PostgreSQL server of raw, dropped when the test ends.
func freshOn(t testing.TB, raw, prefix string) string {
	t.Helper()
	return freshDatabase(t, raw, prefix, " WITH (FORCE)")
}

// freshDatabase creates prefix_<random> on the server of raw (PostgreSQL or MySQL) and returns its
// URL; the database is dropped when the test ends, with dropOptions after DROP DATABASE's name.
func freshDatabase(t testing.TB, raw, prefix, dropOptions string) string {
	t.Helper()
	return freshDatabaseAs(t, raw, prefix, "", dropOptions)
}

// freshDatabaseAs is freshDatabase with createOptions after CREATE DATABASE's name.
func freshDatabaseAs(t testing.TB, raw, prefix, createOptions, dropOptions string) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := prefix + "_" + hex.EncodeToString(b[:])
	if err := Exec(raw, "CREATE DATABASE "+name+createOptions); err != nil {
		t.Fatalf("creating the test database %s on %s: %v", name, driver.Redact(raw), err)
	}
	t.Cleanup(func() {
		if err := Exec(raw, "DROP DATABASE IF EXISTS "+name+dropOptions); err != nil {
			t.Errorf("dropping the test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// FreshPostgres opens a fresh database (see FreshPostgresURL), closed when the test ends.
func FreshPostgres(t testing.TB, prefix string) driver.DB {
	t.Helper()
	return open(t, FreshPostgresURL(t, prefix))
}

// SQLite opens a new SQLite file in the test's temporary directory, closed when the test ends.
func SQLite(t testing.TB) driver.DB {
	t.Helper()
	return open(t, "sqlite:"+filepath.Join(t.TempDir(), "test.db"))
}

func open(t testing.TB, u string) driver.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := driver.Open(ctx, u)
	if err != nil {
		t.Fatalf("opening %s: %v", driver.Redact(u), err)
	}
	// Registered after the drop (cleanups run last-in first-out), so the database closes first.
	t.Cleanup(func() { db.Close() })
	return db
}

// Exec runs one statement on the database at raw, on a connection of its own (a test's setup or
// teardown: creating and dropping databases and roles, probing a server).
func Exec(raw, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang's bound: a DROP on the busy suite once took longer than 30 s
	defer cancel()
	db, err := driver.Open(ctx, raw)
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := db.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Exec(ctx, sql)
	return err
}

// EnvPGStall names a PostgreSQL server of its own for the test that pauses every process of its
// server (SIGSTOP): on the shared test server, that stall would reach other packages' tests running
// in parallel.
const EnvPGStall = "CANDOR_TEST_PG_STALL_URL"

// FreshPostgresStall opens a fresh database on the server of EnvPGStall (see EnvPGStall).
func FreshPostgresStall(t testing.TB, prefix string) driver.DB {
	t.Helper()
	return open(t, freshOn(t, envURL(t, EnvPGStall, "this test pauses a PostgreSQL server and needs one of its own"), prefix))
}

package tpcc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/postgres"
	_ "github.com/candor-bench/candor/driver/sqlite"
)

// pgTestDB creates a fresh database on the PostgreSQL server of CANDOR_TEST_PG_URL for one test
// and drops it when the test ends, so tests never share (or clobber) data.
func pgTestDB(t testing.TB) driver.DB {
	t.Helper()
	raw := os.Getenv("CANDOR_TEST_PG_URL")
	if raw == "" {
		t.Fatal("CANDOR_TEST_PG_URL is not set: this integration test needs a PostgreSQL server, e.g. CANDOR_TEST_PG_URL=postgres://candor@127.0.0.1:55432/candor_load")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := driver.Open(ctx, raw)
	if err != nil {
		t.Fatalf("opening CANDOR_TEST_PG_URL %s: %v", driver.Redact(raw), err)
	}
	defer admin.Close()
	ac, err := admin.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close()
	var b [6]byte
	rand.Read(b[:])
	name := "candor_test_" + hex.EncodeToString(b[:])
	if _, err := ac.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating a test database: %v", err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db, err := driver.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := driver.Open(ctx, raw)
		if err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
			return
		}
		defer admin.Close()
		ac, err := admin.Connect(ctx)
		if err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
			return
		}
		defer ac.Close()
		if _, err := ac.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	return db
}

// sqliteTestDB opens a new SQLite database file in the test's temporary directory.
func sqliteTestDB(t testing.TB) driver.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := driver.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "tpcc.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// testDBs are the engines every integration test runs on.
var testDBs = []struct {
	name string
	open func(testing.TB) driver.DB
}{
	{"postgres", pgTestDB},
	{"sqlite", sqliteTestDB},
}

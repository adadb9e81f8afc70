package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// Loaded TPC-C data for the tests that need it but do not test the load: one load of 1 warehouse
// (candor's defaults otherwise) per engine and test binary, made by the first test that asks,
// copied for every test (a file copy on SQLite, CREATE DATABASE ... TEMPLATE on PostgreSQL) in a
// second instead of a load's 15-30 s on this package's busy machine. The tests of the load itself
// (the end-to-end flows, the loads through poolers, the sharded loads) load their own.

// tpccTemplate is one engine's loaded copy source.
type tpccTemplate struct {
	mu   sync.Mutex
	made bool
	err  error
	src  string // the SQLite file, or the PostgreSQL database's name
}

var (
	sqliteTPCC, postgresTPCC tpccTemplate
	// templatesDir holds the SQLite template; TestMain removes it (removeTemplates).
	templatesDir string
)

// tpccSQLiteCopy writes a copy of the loaded SQLite template to path and returns its URL.
func tpccSQLiteCopy(t *testing.T, path string) string {
	t.Helper()
	src := sqliteTPCC.get(t, func() (string, error) {
		dir, err := os.MkdirTemp("", "candor-tpcc-template-")
		if err != nil {
			return "", err
		}
		templatesDir = dir
		file := filepath.Join(dir, "tpcc.db")
		return file, templateLoad(t, "sqlite:"+file)
	})
	// The load's last connection checkpointed its WAL; any side file is copied with the database.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := copyFile(src+suffix, path+suffix); err != nil && !(suffix != "" && os.IsNotExist(err)) {
			t.Fatalf("copying the TPC-C template: %v", err)
		}
	}
	return "sqlite:" + path
}

// tpccPostgresCopy creates prefix_<random> on the test server as a copy of the loaded PostgreSQL
// template, dropped when the test ends, and returns its URL.
func tpccPostgresCopy(t *testing.T, prefix string) string {
	t.Helper()
	raw := dbtest.PostgresURL(t)
	name := postgresTPCC.get(t, func() (string, error) {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		name := "candor_tpl_tpcc_" + hex.EncodeToString(b[:])
		if err := dbtest.Exec(raw, "CREATE DATABASE "+name); err != nil {
			return "", err
		}
		u, err := url.Parse(raw)
		if err != nil {
			return name, err
		}
		u.Path = "/" + name
		return name, templateLoad(t, u.String())
	})
	return dbtest.FreshPostgresCopyURL(t, prefix, name)
}

// get returns the template's source, made by make on first use; a failed make fails every test
// that asks.
func (tp *tpccTemplate) get(t *testing.T, make func() (string, error)) string {
	t.Helper()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if !tp.made {
		tp.made = true
		tp.src, tp.err = make()
	}
	if tp.err != nil {
		t.Fatalf("the loaded TPC-C template: %v", tp.err)
	}
	return tp.src
}

// templateLoad loads 1 TPC-C warehouse into db, as a child process (runChild) when t is parallel.
func templateLoad(t *testing.T, db string) error {
	t.Helper()
	if code, out := urgentCLI(t, "tpcc", "load", "--db", db, "--warehouses", "1"); code != 0 { // the tests that copy it wait for it
		return fmt.Errorf("candor tpcc load --db %s: exit %d: %s", db, code, strings.TrimSpace(out))
	}
	return nil
}

// removeTemplates removes what the templates left (TestMain, after every test).
func removeTemplates() {
	if templatesDir != "" {
		os.RemoveAll(templatesDir)
	}
	if postgresTPCC.src != "" {
		if err := dbtest.Exec(os.Getenv("CANDOR_TEST_PG_URL"), "DROP DATABASE IF EXISTS "+postgresTPCC.src+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "dropping the TPC-C template %s: %v\n", postgresTPCC.src, err)
		}
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Package gmsstandin stands in for Dolt in the tests: it starts go-mysql-server (Dolt's SQL engine,
// github.com/dolthub/go-mysql-server, pinned in go.mod) with its in-memory storage as a
// MySQL-protocol server inside the test binary, on 127.0.0.1 and a free port, and gives dolt:// URLs
// of fresh databases on it. Dolt has no package CI could install, while its engine is a Go module;
// so the dolt dialect's SQL and the MySQL protocol as Dolt's engine speaks them are tested on every
// run of scripts/test, where a real Dolt server would be missing.
//
// What it proves and what it does not: the statements candor sends to a dolt:// database parse,
// plan and return what candor expects from Dolt's engine (system variables, warnings, affected-row
// counts, errors, transactions as the engine's session sees them). It does not exercise Dolt's
// storage (prolly trees on disk), its versioning, its concurrency control between sessions (the
// in-memory tables are not Dolt's transaction model) or its performance; those were checked by hand
// against a real Dolt (see docs/databases.md, "Dolt").
//
// Only tests import this package, so candor's binary never links go-mysql-server.
package gmsstandin

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/sirupsen/logrus"

	_ "github.com/candor-bench/candor/driver/mysql" // the dolt:// scheme
	"github.com/candor-bench/candor/internal/dbtest"
)

// The server, started once per test binary and left running until the binary exits.
var (
	once    sync.Once
	addr    string // host:port of the server
	started error  // why it could not start, if it could not
)

// start runs the server; it records the error instead of failing, so that each test fails with it.
func start() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		started = fmt.Errorf("listening on 127.0.0.1: %w", err)
		return
	}
	// One database to connect to; the tests create their own beside it.
	home := memory.NewDatabase(homeDB)
	home.EnablePrimaryKeyIndexes()
	pro := memory.NewDBProvider(home)
	logrus.SetLevel(logrus.ErrorLevel) // the engine logs each connection, and each failed statement as a warning
	engine := sqle.NewDefault(pro)
	// Dolt's dolt_version(), which go-mysql-server alone lacks: candor asks it to name a Dolt
	// server by its own release (driver/mysql).
	engine.Analyzer.Catalog.RegisterFunction(sql.NewEmptyContext(), sql.FunctionN{Name: "dolt_version",
		Fn: func(...sql.Expression) (sql.Expression, error) { return doltVersion{}, nil }})
	cfg := server.Config{Protocol: "tcp", Listener: l, Version: "8.0.33-go-mysql-server-standin"}
	s, err := server.NewServer(cfg, engine, sql.NewContext, memory.NewSessionBuilder(pro), nil)
	if err != nil {
		l.Close()
		started = fmt.Errorf("starting go-mysql-server: %w", err)
		return
	}
	go s.Start()
	addr = l.Addr().String()
	// Wait until it answers a query, so that the first test does not race the server's start.
	deadline := time.Now().Add(30 * time.Second)
	for {
		err = dbtest.Exec(baseURL(homeDB), "SELECT 1")
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		started = fmt.Errorf("go-mysql-server on %s does not answer: %w", addr, err)
	}
}

// StandinVersion is what the stand-in's dolt_version() answers: go-mysql-server's module version,
// marked as the stand-in's ("gms-v0.20.0-standin"). A test binary carries no module list in its
// build information, so the version is read from the path of go-mysql-server's source file, which
// the module cache names with it (".../go-mysql-server@v0.20.0/engine.go", with -trimpath too).
var StandinVersion = func() string {
	v := "unknown"
	file, _ := runtime.FuncForPC(reflect.ValueOf(sqle.NewDefault).Pointer()).FileLine(0)
	if _, after, ok := strings.Cut(file, "/go-mysql-server@"); ok {
		v, _, _ = strings.Cut(after, "/")
	}
	return "gms-" + v + "-standin"
}()

// doltVersion is the stand-in's dolt_version(): StandinVersion.
type doltVersion struct{}

func (doltVersion) FunctionName() string { return "dolt_version" }
func (doltVersion) Description() string {
	return "the stand-in's version, as Dolt's dolt_version() gives Dolt's"
}
func (doltVersion) Type() sql.Type             { return types.LongText }
func (doltVersion) IsNullable() bool           { return false }
func (doltVersion) IsNonDeterministic() bool   { return false }
func (doltVersion) Resolved() bool             { return true }
func (doltVersion) Children() []sql.Expression { return nil }
func (doltVersion) String() string             { return "dolt_version()" }
func (f doltVersion) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}
func (doltVersion) Eval(*sql.Context, sql.Row) (any, error) { return StandinVersion, nil }

// homeDB is the database the server starts with.
const homeDB = "standin"

func baseURL(db string) string { return "dolt://root@" + addr + "/" + db }

// FreshDoltURL starts the stand-in (once per test binary) and returns the dolt:// URL of an empty
// database named prefix_<random> on it, dropped when the test ends. It fails the test, never skips
// it, when the server cannot start.
func FreshDoltURL(t testing.TB, prefix string) string {
	t.Helper()
	once.Do(start)
	if started != nil {
		t.Fatalf("the Dolt stand-in (go-mysql-server, in memory) could not start: %v", started)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := prefix + "_" + hex.EncodeToString(b[:])
	if err := dbtest.Exec(baseURL(homeDB), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating the test database %s on the Dolt stand-in: %v", name, err)
	}
	t.Cleanup(func() {
		if err := dbtest.Exec(baseURL(homeDB), "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("dropping the test database %s on the Dolt stand-in: %v", name, err)
		}
	})
	return baseURL(name)
}

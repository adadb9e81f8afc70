package tpcc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
)

// pgTestDB creates a fresh database on the PostgreSQL server of CANDOR_TEST_PG_URL for one test
// and drops it when the test ends, so tests never share (or clobber) data.
func pgTestDB(t testing.TB) driver.DB { return dbtest.FreshPostgres(t, "candor_test") }

// mysqlTestDB creates a fresh database on the MySQL/MariaDB server of CANDOR_TEST_MYSQL_URL, for
// a test that has its turn on that server (mysqlTurn).
func mysqlTestDB(t testing.TB) driver.DB {
	mysqlTurn(t)
	return dbtest.FreshMySQL(t, "candor_test")
}

// mysqlTurns lets two tests of the package at a time load and exercise the MariaDB server: three
// and more at once (each a load and some thousand committed transactions) took MariaDB's Delivery
// tests from 22 s to 180 s on this 2-CPU machine and past their deadline, while PostgreSQL's and
// SQLite's ran beside them unharmed; one at a time made MariaDB's tests the package's last 5
// minutes.
var mysqlTurns = make(chan struct{}, 2)

// mysqlHolders are the tests that hold the turn (a test's subtests share it).
var mysqlHolders sync.Map

// mysqlTurn waits for the MariaDB server's turn, held until t ends, unless t or a test it is part
// of holds it already.
func mysqlTurn(t testing.TB) {
	t.Helper()
	for name := t.Name(); ; {
		if _, held := mysqlHolders.Load(name); held {
			return
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			break
		}
		name = name[:i]
	}
	mysqlTurns <- struct{}{}
	mysqlHolders.Store(t.Name(), true)
	t.Cleanup(func() { // after the database's drop, registered later
		mysqlHolders.Delete(t.Name())
		<-mysqlTurns
	})
}

// mysqlBatchesTestDB is mysqlTestDB with batches=on (several statements per round trip).
func mysqlBatchesTestDB(t testing.TB) driver.DB {
	t.Helper()
	mysqlTurn(t)
	db, err := driver.Open(context.Background(), dbtest.FreshMySQLURL(t, "candor_test")+"?batches=on")
	if err != nil {
		t.Fatalf("opening MySQL with batches=on: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if !db.Dialect().Batches {
		t.Fatalf("batches=on: the dialect %s has no batches", db.Dialect().Name)
	}
	return db
}

// sqliteTestDB opens a new SQLite database file in the test's temporary directory.
func sqliteTestDB(t testing.TB) driver.DB { return dbtest.SQLite(t) }

// testDBs are the engines every integration test runs on.
var testDBs = []struct {
	name string
	open func(testing.TB) driver.DB
}{
	{"postgres", pgTestDB},
	{"sqlite", sqliteTestDB},
	{"mysql", mysqlTestDB},
}

// pgLoadedTestDB is pgTestDB holding txLoad's warehouse already: a copy (CREATE DATABASE ...
// TEMPLATE, a file copy) of one load made by the first test that asks, instead of a load of its
// own. It returns the load's LoadInfo as txLoad does. TestMain drops the template.
func pgLoadedTestDB(t testing.TB) (driver.DB, LoadInfo) {
	t.Helper()
	func() {
		pgTemplate.mu.Lock()
		defer pgTemplate.mu.Unlock() // also when make's load fails the test (t.Fatal)
		if !pgTemplate.made {
			pgTemplate.made = true
			pgTemplate.err = errors.New("its load failed in the test that made it")
			pgTemplate.err = pgTemplate.make(t)
		}
	}()
	if pgTemplate.err != nil {
		t.Fatalf("the loaded template database: %v", pgTemplate.err)
	}
	u := dbtest.FreshPostgresCopyURL(t, "candor_test", pgTemplate.name)
	db, err := driver.Open(context.Background(), u)
	if err != nil {
		t.Fatalf("opening a copy of the template database: %v", err)
	}
	t.Cleanup(func() { db.Close() }) // before the drop FreshPostgresCopyURL registered
	return db, pgTemplate.info
}

// loadedTemplate is pgLoadedTestDB's source database on the test server.
type loadedTemplate struct {
	mu     sync.Mutex
	made   bool
	err    error
	name   string // the database's name, once created
	server string // the test server's URL
	info   LoadInfo
}

var pgTemplate loadedTemplate

// make creates the template database and loads it as txLoad does, its connections closed after (a
// database copied with TEMPLATE must have none).
func (tp *loadedTemplate) make(t testing.TB) error {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	tp.server = dbtest.PostgresURL(t)
	name := "candor_tpl_tx_" + hex.EncodeToString(b[:])
	if err := dbtest.Exec(tp.server, "CREATE DATABASE "+name); err != nil {
		return err
	}
	tp.name = name
	u, err := url.Parse(tp.server)
	if err != nil {
		return err
	}
	u.Path = "/" + name
	ctx := context.Background()
	db, err := driver.Open(ctx, u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	tp.info = txLoad(t, db)
	return nil
}

// drop drops the template database, if made (TestMain).
func (tp *loadedTemplate) drop() {
	if tp.name == "" {
		return
	}
	if err := dbtest.Exec(tp.server, "DROP DATABASE IF EXISTS "+tp.name+" WITH (FORCE)"); err != nil {
		fmt.Fprintf(os.Stderr, "dropping the template database %s: %v\n", tp.name, err)
	}
}

// parallel marks a test (or an engine's subtest) to run beside the package's other parallel
// tests: the ones that load or exercise a database of their own and assert no timing. Tests that
// stall a server, bound memory or time a run stay serial.
func parallel(t *testing.T) { t.Parallel() }

// testParallel is how many parallel tests run at once unless -parallel says (go test's default
// is one per CPU): the tests wait on their databases a good part of the time, and MariaDB's for
// their turn (mysqlTurn).
const testParallel = 6

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(runtime.GOMAXPROCS(0), testParallel)))
	}
	code := m.Run()
	pgTemplate.drop()
	os.Exit(code)
}

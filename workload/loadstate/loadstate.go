// Package loadstate records what a workload loaded, in candor's own table candor_workloads: one row
// per workload (kv, ycsb, ...) saying with which options and seed it was loaded, by which version of
// candor, when the load started and whether it completed (completed_at is set only once every row
// is in), and how many runs have used the data since. A workload's `load` writes it (Begin, then
// Complete); `run` and `check` read it (Read) and refuse half-loaded data; Drop forgets a load.
//
// TPC-C keeps its load's record in its own table, candor_load (workload/tpcc/meta.go), with columns
// of its own; this table is for the workloads after it, and holds every workload's sharded-load
// rows, TPC-C's too (shards.go).
//
// Options are the workload's own, stored as JSON text: loadstate never looks inside them. The seed
// is stored as decimal text (a uint64 does not fit a signed 64-bit column, and should read the same
// as on the command line).
package loadstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// Table is the marker table's name.
const Table = "candor_workloads"

// Status is what Read found.
type Status int

const (
	// NotFound: no load of the workload is recorded (no table, or no row for it).
	NotFound Status = iota
	// HalfLoaded: a load started and never completed (it failed, or was interrupted).
	HalfLoaded
	// Completed: the load completed.
	Completed
)

func (s Status) String() string {
	switch s {
	case HalfLoaded:
		return "half-loaded"
	case Completed:
		return "completed"
	}
	return "not found"
}

// State is one workload's row.
type State struct {
	Status   Status
	Workload string
	// Options is the workload's options as it stored them (JSON); Decode reads them.
	Options     json.RawMessage
	Seed        uint64
	ToolVersion string
	// StartedAt is when the load started and CompletedAt when it completed (zero unless Completed),
	// both UTC, to the microsecond.
	StartedAt, CompletedAt time.Time
	// Runs counts the runs started on the data (MarkRun).
	Runs int
}

// Decode reads the stored options into v.
func (s State) Decode(v any) error {
	if err := json.Unmarshal(s.Options, v); err != nil {
		return fmt.Errorf("the options of the %s load recorded in %s are unreadable (%v): reload with candor %s load --drop", s.Workload, Table, err, s.Workload)
	}
	return nil
}

// createSQL creates the table (if it does not exist) in family's SQL. Timestamps as in candor_load:
// MySQL's TIMESTAMP converts time zones and may update itself, so DATETIME(6) there.
func createSQL(family string) string {
	name, text, ts := "varchar(64)", "text", "timestamp"
	switch family {
	case sqlexec.FamilySQLite:
		name, text, ts = "TEXT", "TEXT", "TIMESTAMP"
	case driver.FamilyMySQL:
		name, text, ts = "VARCHAR(64)", "TEXT", "DATETIME(6)"
	}
	return "CREATE TABLE IF NOT EXISTS " + Table + ` (
  workload ` + name + ` NOT NULL PRIMARY KEY,
  options ` + text + ` NOT NULL,
  seed ` + text + ` NOT NULL,
  tool_version ` + text + ` NOT NULL,
  started_at ` + ts + ` NOT NULL,
  completed_at ` + ts + `,
  runs integer NOT NULL
)`
}

// existsSQL counts the tables named $1 that unqualified names resolve to, in family's SQL.
func existsSQL(family string) string {
	switch family {
	case sqlexec.FamilySQLite:
		return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1"
	case driver.FamilyMySQL:
		return "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1"
	}
	// information_schema rather than pg_class: CockroachDB and YugabyteDB implement it as
	// PostgreSQL does.
	return "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1"
}

// family is db's SQL family, or a user error for one candor has no SQL for.
func family(db driver.DB) (string, error) {
	if f := db.Dialect().SQLFamily(); !sqlexec.Supported(f) {
		return "", userr.Errorf("candor has no SQL for the database kind %q: use PostgreSQL (or CockroachDB, YugabyteDB), MySQL/MariaDB or SQLite", f)
	}
	return db.Dialect().SQLFamily(), nil
}

// connect is db's SQL family and a new connection to it, which the caller closes.
func connect(ctx context.Context, db driver.DB) (string, driver.Conn, error) {
	fam, err := family(db)
	if err != nil {
		return "", nil, err
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return "", nil, err
	}
	return fam, c, nil
}

// TableExists reports whether a table named name exists where c's unqualified names resolve, asked
// in family's SQL (driver.Dialect.SQLFamily). Workloads use it to find their own tables.
func TableExists(ctx context.Context, c driver.Conn, family, name string) (bool, error) {
	var n int64
	if err := c.QueryRow(ctx, sqlexec.Placeholders(family, existsSQL(family)), name).Scan(&n); err != nil {
		return false, fmt.Errorf("looking for the table %s: %w", name, err)
	}
	return n > 0, nil
}

// now is the time stored in the table: UTC, to the microsecond (what every engine keeps).
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Begin records that a load of workload starts, with its options (marshalled to JSON), seed and the
// tool's version: it creates the table if needed and replaces the workload's row by one whose
// completed_at is null and runs 0. It returns the recorded state.
func Begin(ctx context.Context, db driver.DB, workload string, options any, seed uint64, toolVersion string) (State, error) {
	fam, err := family(db)
	if err != nil {
		return State{}, err
	}
	opts, err := json.Marshal(options)
	if err != nil {
		return State{}, fmt.Errorf("loadstate: the options of %s: %w", workload, err)
	}
	st := State{Status: HalfLoaded, Workload: workload, Options: opts, Seed: seed, ToolVersion: toolVersion, StartedAt: now()}
	c, err := db.Connect(ctx)
	if err != nil {
		return State{}, err
	}
	defer c.Close()
	// The table first, on its own: CockroachDB and YugabyteDB do not like schema changes mixed with
	// writes in one transaction.
	if _, err := c.Exec(ctx, createSQL(fam)); err != nil {
		return State{}, fmt.Errorf("creating %s: %w", Table, err)
	}
	_, err = driver.Retry(ctx, db, c, driver.TxOptions{}, sqlexec.MaxRetries, func(ctx context.Context, c driver.Conn) error {
		if _, err := c.Exec(ctx, sqlexec.Placeholders(fam, "DELETE FROM "+Table+" WHERE workload = $1"), workload); err != nil {
			return err
		}
		_, err := c.Exec(ctx, sqlexec.Placeholders(fam, "INSERT INTO "+Table+
			" (workload, options, seed, tool_version, started_at, completed_at, runs) VALUES ($1, $2, $3, $4, $5, NULL, 0)"),
			workload, string(opts), strconv.FormatUint(seed, 10), toolVersion, st.StartedAt)
		return err
	})
	if err != nil {
		return State{}, fmt.Errorf("recording the start of the %s load in %s: %w", workload, Table, err)
	}
	return st, nil
}

// Complete records that workload's load completed, and returns when. Its commit is synchronous, so
// it also makes durable whatever the loaders committed asynchronously before it (PostgreSQL's
// synchronous_commit off).
func Complete(ctx context.Context, db driver.DB, workload string) (time.Time, error) {
	t := now()
	err := update(ctx, db, workload, "completed_at = $1", t)
	if err != nil {
		return time.Time{}, fmt.Errorf("recording the completed %s load in %s: %w", workload, Table, err)
	}
	return t, nil
}

// MarkRun counts one more run on workload's data.
func MarkRun(ctx context.Context, db driver.DB, workload string) error {
	return update(ctx, db, workload, "runs = runs + 1")
}

// SetOptions replaces workload's stored options (a workload that keeps facts about the runs on its
// data there, such as kv's value sizes written since the load).
func SetOptions(ctx context.Context, db driver.DB, workload string, options any) error {
	opts, err := json.Marshal(options)
	if err != nil {
		return fmt.Errorf("loadstate: the options of %s: %w", workload, err)
	}
	return update(ctx, db, workload, "options = $1", string(opts))
}

// update sets columns of workload's row; the set clause uses $1.. for args, and the workload is the
// last parameter. A missing row is an error.
func update(ctx context.Context, db driver.DB, workload, set string, args ...any) error {
	if null.Is(db) {
		return nil // the null engine records nothing: it holds no data (Given)
	}
	fam, c, err := connect(ctx, db)
	if err != nil {
		return err
	}
	defer c.Close()
	sql := sqlexec.Placeholders(fam, "UPDATE "+Table+" SET "+set+" WHERE workload = $"+strconv.Itoa(len(args)+1))
	var n int64
	_, err = driver.Retry(ctx, db, c, driver.TxOptions{}, sqlexec.MaxRetries, func(ctx context.Context, c driver.Conn) error {
		var err error
		n, err = c.Exec(ctx, sql, append(args, workload)...)
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		// MySQL counts rows changed, not matched: an update that changes nothing is 0 there too.
		if st, err := Read(ctx, db, workload); err != nil || st.Status == NotFound {
			return fmt.Errorf("no %s load is recorded in %s", workload, Table)
		}
	}
	return nil
}

// Read returns what is recorded about workload: Status NotFound when nothing is (no table, or no
// row), else its row.
func Read(ctx context.Context, db driver.DB, workload string) (State, error) {
	fam, c, err := connect(ctx, db)
	if err != nil {
		return State{}, err
	}
	defer c.Close()
	if ok, err := TableExists(ctx, c, fam, Table); err != nil || !ok {
		return State{Workload: workload}, err
	}
	st := State{Workload: workload}
	var opts, seed string
	var completed *time.Time
	err = c.QueryRow(ctx, sqlexec.Placeholders(fam, "SELECT options, seed, tool_version, started_at, completed_at, runs FROM "+Table+" WHERE workload = $1"), workload).
		Scan(&opts, &seed, &st.ToolVersion, &st.StartedAt, &completed, &st.Runs)
	if errors.Is(err, driver.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("reading %s: %w", Table, err)
	}
	st.Options = json.RawMessage(opts)
	if st.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
		return State{}, userr.Errorf("the seed %q of the %s load recorded in %s's table %s is not a number: reload with candor %s load --drop", seed, workload, db.Redacted(), Table, workload)
	}
	st.StartedAt = st.StartedAt.UTC()
	st.Status = HalfLoaded
	if completed != nil {
		st.Status, st.CompletedAt = Completed, completed.UTC()
	}
	return st, nil
}

// Drop forgets workload's load (its row); the table stays for the other workloads. Nothing recorded
// is not an error.
func Drop(ctx context.Context, db driver.DB, workload string) error {
	fam, c, err := connect(ctx, db)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, err := TableExists(ctx, c, fam, Table); err != nil || !ok {
		return err
	}
	// A sharded load's rows of its parts (shards.go) go with it.
	_, err = c.Exec(ctx, sqlexec.Placeholders(fam, "DELETE FROM "+Table+" WHERE workload = $1 OR workload LIKE $2"), workload, workload+":shard:%")
	return err
}

// Package tpch is TPC-H (standard revision 3.0.x) on the workload contract.
package tpch

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
)

// The load: the eight tables (schema.go), then each table's rows from package dbgen in chunks of
// about chunkRows rows, each chunk a part of the table (dbgen.Generate(t, sf, c+1, chunks): the
// generator seeks its streams, so any chunk is made alone and the chunks together are the
// table's rows, dbgen's), copied on o.Loaders connections through the engine's bulk path
// (bulkload.Run), then the keys and indexes, the statistics, and the load recorded complete in
// candor_workloads under "tpch" with its scale factor. The data depends on the scale factor only
// (dbgen's fixed seeds): the run's --seed does not change it.

const (
	// workloadName is the name in candor_workloads and in messages.
	workloadName = "tpch"
	// chunkRows is about how many rows a chunk holds (one CopyFrom, its own transaction).
	chunkRows = 10000
)

// record is what tpch keeps in candor_workloads' options.
type record struct {
	// SF is the scale factor loaded.
	SF float64 `json:"sf"`
}

func init() {
	loadstate.Register(loadstate.Claim{Workload: workloadName, Owns: loadstate.Names(tableNames()...)})
}

// tableNames is the eight tables' names.
func tableNames() []string {
	var n []string
	for _, t := range dbgen.Tables() {
		n = append(n, tableName(t))
	}
	return n
}

// room is what a TPC-H load replaces: the eight tables (lineitem tells whether they exist) and
// the record.
var room = bulkload.Room{Workload: workloadName, Table: "lineitem", Name: "lineitem", Tables: tableNames(),
	Describe: func(st loadstate.State) string {
		var r record
		if st.Decode(&r) != nil {
			return ""
		}
		return fmt.Sprintf(" (SF %s, loaded %s UTC)", formatSF(r.SF), st.StartedAt.Format(time.DateTime))
	},
	DropTables: func(ctx context.Context, ctl driver.Conn, _ loadstate.State) error {
		for _, q := range dropSQL() {
			if _, err := ctl.Exec(ctx, q); err != nil {
				return fmt.Errorf("dropping the old TPC-H tables (%s): %w", q, err)
			}
		}
		return nil
	}}

// formatSF writes a scale factor as given (0.01, 1, 10).
func formatSF(sf float64) string { return strconv.FormatFloat(sf, 'f', -1, 64) }

// tableRows is the exact number of rows of t at sf (lineitem's counted from the orders' line
// counts).
func tableRows(t dbgen.Table, sf float64) int64 {
	if t == dbgen.Lineitem {
		return dbgen.LineitemRows(sf)
	}
	return dbgen.Rows(t, sf)
}

// loadRows is the rows of a load at sf, every table.
func loadRows(sf float64) int64 {
	var n int64
	for _, t := range dbgen.Tables() {
		n += tableRows(t, sf)
	}
	return n
}

// chunks is how many chunks table t is copied in at sf: parts of about chunkRows rows (lineitem:
// of orders with four lines on average; partsupp: of parts with four suppliers).
func chunks(t dbgen.Table, sf float64) int64 {
	n := dbgen.Rows(t, sf)
	if t == dbgen.Region || t == dbgen.Nation {
		return 1
	}
	return max(1, (n+chunkRows-1)/chunkRows)
}

func loadData(ctx context.Context, db driver.DB, o workload.LoadOptions, sf float64) (workload.LoadResult, error) {
	fam, engine, err := sqlexec.Dialect(db, workloadName)
	if err != nil {
		return workload.LoadResult{}, err
	}
	ctl, err := room.Open(ctx, db, o.Drop)
	if err != nil {
		return workload.LoadResult{}, err
	}
	go dbgen.Prepare() // the text pool (300 MB, not for a refused load), while the tables are made
	defer ctl.Close()
	if _, err := loadstate.Begin(ctx, db, workloadName, record{SF: sf}, o.Seed, o.ToolVersion); err != nil {
		return workload.LoadResult{}, err
	}
	for _, t := range dbgen.Tables() {
		if _, err := ctl.Exec(ctx, createSQL(fam, t)); err != nil {
			return workload.LoadResult{}, fmt.Errorf("creating the table %s: %w", tableName(t), err)
		}
	}
	plan := keySQL(fam, engine)
	order := dbgen.Tables()
	var early *earlyKeys
	if plan.perTable != nil {
		// Each table's indexes built on a connection of their own as soon as its rows are in, while
		// the next tables load: the largest first, so LINEITEM's build (one ALTER TABLE, one thread
		// in InnoDB) overlaps the copy of the other 2.7 million rows of SF 1.
		order = slices.Clone(order)
		slices.Reverse(order)
		early = startEarlyKeys(ctx, db, plan)
	}
	var rows int64
	loadCtx := ctx
	if early != nil {
		loadCtx = early.ctx // a failed build stops the load too
	}
	for _, t := range order {
		n, err := bulkload.Run(loadCtx, db, o, copyOf(t, sf, converter(fam, t)))
		rows += n
		if err != nil {
			if early != nil {
				if kerr := early.stop(); kerr != nil {
					return workload.LoadResult{}, fmt.Errorf("building the keys and indexes: %w", kerr)
				}
			}
			return workload.LoadResult{}, err
		}
		if early != nil {
			early.tableIn(t)
		}
	}
	start := time.Now()
	if early != nil {
		if err := early.wait(); err != nil {
			return workload.LoadResult{}, fmt.Errorf("building the keys and indexes: %w", err)
		}
		plan.build = nil
	}
	if err := buildKeys(ctx, db, ctl, o.Loaders, plan, o.Note); err != nil {
		return workload.LoadResult{}, err
	}
	if o.Note != nil {
		took := time.Since(start).Round(time.Millisecond)
		if early != nil {
			o.Note(fmt.Sprintf("keys and indexes built %s after the rows (each table's begun once its rows were in)", took))
		} else {
			o.Note(fmt.Sprintf("keys and indexes built in %s", took))
		}
	}
	start = time.Now()
	// The statistics: on SQLite one ANALYZE of the whole database, with the checkpoint, on ctl; on
	// the others each table's, on several connections at once, the largest first.
	var stats []string
	if fam == sqlexec.FamilySQLite {
		for _, q := range bulkload.StatsSQL(fam, engine, "") {
			if _, err := ctl.Exec(ctx, q); err != nil {
				return workload.LoadResult{}, fmt.Errorf("after the load (%s): %w", q, err)
			}
		}
	} else {
		for _, t := range dbgen.Tables() {
			stats = append(stats, bulkload.StatsSQL(fam, engine, tableName(t))...)
		}
		slices.Reverse(stats)
	}
	if err := bulkload.Statements(ctx, db, o.Loaders, nil, stats); err != nil {
		return workload.LoadResult{}, fmt.Errorf("after the load: %w", err)
	}
	if o.Note != nil {
		o.Note(fmt.Sprintf("statistics in %s", time.Since(start).Round(time.Millisecond)))
	}
	res, err := bulkload.Complete(ctx, db, workloadName, rows)
	if err != nil {
		return workload.LoadResult{}, err
	}
	res.Summary = fmt.Sprintf("SF %s: %s lineitems, %s orders", formatSF(sf),
		textfmt.Thousands(tableRows(dbgen.Lineitem, sf)), textfmt.Thousands(tableRows(dbgen.Orders, sf)))
	return res, nil
}

// buildKeys runs p: its independent builds on up to `loaders` connections at once (on PostgreSQL
// with the session's maintenance_work_mem raised for the sorts), then the rest in order on ctl.
func buildKeys(ctx context.Context, db driver.DB, ctl driver.Conn, loaders int, p keyPlan, note func(string)) error {
	var setup *driver.Settings // optional: a server that refuses one builds without it, and says so
	if db.Dialect().SQLFamily() == sqlexec.FamilyPostgres && driver.SessionSettings(db) {
		setup = driver.NewSettings(note, "SET statement_timeout = 0", "SET maintenance_work_mem = '512MB'")
	}
	if err := bulkload.Statements(ctx, db, loaders, setup, p.build); err != nil {
		return fmt.Errorf("building the keys and indexes: %w", err)
	}
	for _, q := range p.after {
		if _, err := ctl.Exec(ctx, q); err != nil {
			return fmt.Errorf("after the rows (%s): %w", q, err)
		}
	}
	return nil
}

// earlyKeys runs a keyPlan's per-table builds (keyPlan.perTable), each on its own connection as
// soon as its table is in (tableIn), while the load goes on; the first error cancels the others.
type earlyKeys struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	db     driver.DB
	plan   keyPlan
	wg     sync.WaitGroup
	mu     sync.Mutex
	first  error
}

func startEarlyKeys(ctx context.Context, db driver.DB, p keyPlan) *earlyKeys {
	e := &earlyKeys{db: db, plan: p}
	e.ctx, e.cancel = context.WithCancelCause(ctx)
	return e
}

// tableIn starts the builds of table t (its rows are all in).
func (e *earlyKeys) tableIn(t dbgen.Table) {
	for i, q := range e.plan.build {
		if e.plan.perTable[i] != t {
			continue
		}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			if err := bulkload.Statements(e.ctx, e.db, 1, nil, []string{q}); err != nil {
				e.mu.Lock()
				if e.first == nil {
					e.first = err
					e.cancel(err)
				}
				e.mu.Unlock()
			}
		}()
	}
}

// wait waits for the builds started and returns the first error.
func (e *earlyKeys) wait() error {
	e.wg.Wait()
	e.cancel(nil)
	return e.first
}

// stop cancels the builds started (the load failed), waits for them and returns the first build's
// error, if one failed before the load did (and so stopped it).
func (e *earlyKeys) stop() error {
	e.mu.Lock()
	first := e.first
	e.mu.Unlock()
	e.cancel(context.Canceled)
	e.wg.Wait()
	return first
}

// copyOf is table t's rows at sf as a bulkload.Copy.
func copyOf(t dbgen.Table, sf float64, conv func([]any)) bulkload.Copy {
	cols := dbgen.Columns(t)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	n := chunks(t, sf)
	return bulkload.Copy{Workload: workloadName, Table: tableName(t), Columns: names, Chunks: n, Rows: tableRows(t, sf),
		Chunk: func(c int64) driver.RowSource { return makeChunk(t, sf, int(c)+1, int(n), conv) },
		Failed: func(c int64, src driver.RowSource, err error) error {
			if ch, ok := src.(*chunk); ok && ch.err != nil {
				return fmt.Errorf("generating part %d of %d of %s: %w", c+1, n, tableName(t), ch.err)
			}
			return fmt.Errorf("loading part %d of %d of %s: %w", c+1, n, tableName(t), err)
		}}
}

// chunk is one part of a table's rows, generated into memory, as a driver.RowSource.
type chunk struct {
	bulkload.Cursor
	rows [][]any
	err  error
}

func makeChunk(t dbgen.Table, sf float64, part, parts int, conv func([]any)) *chunk {
	ch := &chunk{}
	var slab []any // the rows' values, allocated 1024 rows at a time
	ch.err = dbgen.Generate(t, sf, part, parts, func(row []any) error {
		if len(slab) < len(row) {
			slab = make([]any, 1024*len(row))
		}
		r := slab[:len(row):len(row)]
		slab = slab[len(row):]
		copy(r, row)
		conv(r)
		ch.rows = append(ch.rows, r)
		return nil
	})
	ch.N = len(ch.rows)
	return ch
}

func (c *chunk) Values() ([]any, error) { return c.rows[c.Row()], nil }

// Err is the generator's error, if it failed (the chunk then holds none of its rows).
func (c *chunk) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.Cursor.Err()
}

// converter turns the generator's values into what family's bulk path stores exactly:
//   - PostgreSQL: decimals as binary NUMERIC (pgDecimal), dates as binary DATE (pgDate);
//   - MySQL/MariaDB: decimals and dates as their text (encoding.TextAppender: "123.45",
//     "1995-06-17"), which LOAD DATA and INSERT take exactly;
//   - SQLite: decimals as float64 (REAL columns), dates as 'YYYY-MM-DD' text.
//
// A whole number in a decimal column (l_quantity, an int64) is a pgDecimal on PostgreSQL too, for
// the same encoding; the other engines store the integer as is.
func converter(family string, t dbgen.Table) func([]any) {
	cols := dbgen.Columns(t)
	return func(row []any) {
		for i, v := range row {
			switch v := v.(type) {
			case int64:
				if family == sqlexec.FamilyPostgres && cols[i].Kind == dbgen.KindDecimal {
					row[i] = pgDecimal(v * 100)
				}
			case dbgen.Decimal:
				switch family {
				case sqlexec.FamilyPostgres:
					row[i] = pgDecimal(v)
				case sqlexec.FamilySQLite:
					row[i] = v.Float()
				default:
					row[i] = textDecimal(v)
				}
			case dbgen.Date:
				switch family {
				case sqlexec.FamilyPostgres:
					row[i] = pgDate(v)
				case sqlexec.FamilySQLite:
					row[i] = v.String()
				default:
					row[i] = textDate(v)
				}
			}
		}
	}
}

// pgDecimal is an exact NUMERIC(15,2) for pgx's binary COPY: candor's PostgreSQL driver encodes
// it from its hundredths (ScaledNumeric, see driver/postgres), without pgx's big.Int path
// (NumericValue, kept for any other pgx type map).
type pgDecimal dbgen.Decimal

func (d pgDecimal) ScaledNumeric() (int64, int16) { return int64(d), 2 }

func (d pgDecimal) NumericValue() (pgtype.Numeric, error) {
	return pgtype.Numeric{Int: big.NewInt(int64(d)), Exp: -2, Valid: true}, nil
}

var _ pgtype.NumericValuer = pgDecimal(0)

// pgDate is a DATE for pgx's binary COPY: candor's PostgreSQL driver encodes it from its days
// (EpochDate, see driver/postgres); its Value, a time.Time, serves any other path.
type pgDate dbgen.Date

func (d pgDate) EpochDays() int32                { return int32(d) }
func (d pgDate) Value() (sqldriver.Value, error) { return dbgen.Date(d).Time(), nil }

// textDecimal and textDate are written as text by the MySQL bulk path.
type (
	textDecimal dbgen.Decimal
	textDate    dbgen.Date
)

func (d textDecimal) AppendText(b []byte) ([]byte, error) { return dbgen.Decimal(d).Append(b), nil }
func (d textDate) AppendText(b []byte) ([]byte, error)    { return dbgen.Date(d).Append(b), nil }

func loadedSF(ctx context.Context, db driver.DB) (sf float64, ok bool, err error) {
	if _, _, err := sqlexec.Dialect(db, workloadName); err != nil {
		return 0, false, err
	}
	st, rec, err := loadstate.ReadRecord[record](ctx, db, workloadName)
	if err != nil {
		return 0, false, err
	}
	switch st.Status {
	case loadstate.NotFound:
		return 0, false, room.Unrecorded(ctx, db)
	case loadstate.HalfLoaded:
		return 0, false, loadstate.HalfLoadedError(db, st)
	}
	if !(rec.SF > 0) {
		return 0, false, userr.Errorf("the TPC-H load recorded at %s has no scale factor: reload with candor tpch load --drop --db %s", db.Redacted(), db.Redacted())
	}
	return rec.SF, true, nil
}

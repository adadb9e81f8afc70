package mysql

import (
	"context"
	sqldriver "database/sql/driver"
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
)

// CopyFrom has two bulk paths, chosen per database when it is opened (BulkPath tells which):
//
//   - LOAD DATA LOCAL INFILE, streamed: the rows are encoded as tab-separated text while the driver
//     sends them, from an io.Reader registered under a name of candor's own
//     (mysql.RegisterReaderHandler); no file is written and no other local file can be read (the
//     driver's allowAllFiles stays off). It needs local_infile=ON on the server. If the server
//     refuses it anyway before reading any row, CopyFrom switches the database to INSERT for good
//     and loads the same rows that way.
//   - Multi-row INSERT statements with the values written as literals, as many rows each as fit in
//     max_allowed_packet (capped at maxInsertBytes).
//
// Both check that the server took every row: LOAD DATA LOCAL turns duplicate keys and bad values
// into warnings (it implies IGNORE), so CopyFrom compares the rows the server reports with the rows
// sent and fails on any warning, naming the first.
//
// Without an open transaction CopyFrom runs in one of its own, so that a failed copy leaves no rows
// (as COPY does on PostgreSQL); inside the caller's transaction the rows are part of it.

// maxInsertBytes caps one INSERT statement: beyond a few MB, bigger statements load no faster and
// only hold more memory on both sides. Measured with TPC-C's load of 2 warehouses into MariaDB 10.11
// (2 loaders): 4 MB statements 7.2 s and 5.3 s, 32 MB statements 6.7 s and 7.5 s; the server's CPU
// (7.2-7.9 s) is the same, spent parsing each row's literals.
const maxInsertBytes = 4 << 20

// readerBytes is how much encoded text the LOAD DATA reader prepares at a time.
const readerBytes = 64 << 10

// readerSeq numbers LOAD DATA readers across connections: the driver's registry of readers is global.
var readerSeq atomic.Uint64

func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, src driver.RowSource) (n int64, err error) {
	if len(columns) == 0 {
		return 0, fmt.Errorf("mysql: CopyFrom into %s with no columns", table)
	}
	if c.tx == txNone {
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			return 0, err
		}
		defer func() {
			if err != nil {
				c.Rollback(context.WithoutCancel(ctx))
				return
			}
			err = c.Commit(ctx)
			if err != nil {
				n = 0
			}
		}()
	}
	if c.db.loadData.Load() {
		n, started, err := c.loadData(ctx, table, columns, src)
		if err == nil || started || !refusesLocalInfile(err) || c.db.opts.bulk == bulkLoadData {
			return n, err
		}
		// The server refused LOAD DATA LOCAL before reading a row: INSERT from now on.
		c.db.loadData.Store(false)
	}
	return c.insertRows(ctx, table, columns, src)
}

// refusesLocalInfile: the server does not take LOAD DATA LOCAL (local_infile off, or a server
// without it).
func refusesLocalInfile(err error) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && (me.Number == erLoadInfileDisabled || me.Number == erLoadInfileDisabled8)
}

// loadData runs one LOAD DATA LOCAL INFILE statement fed by a reader over src. started reports
// whether the server asked for the data (so rows may have been consumed from src).
func (c *Conn) loadData(ctx context.Context, table string, columns []string, src driver.RowSource) (n int64, started bool, err error) {
	name := "candor-copy-" + strconv.FormatUint(readerSeq.Add(1), 10)
	r := &tsvReader{src: src, ncol: len(columns), enc: encoder{noBackslashEscapes: c.db.noBackslashEscapes}}
	gomysql.RegisterReaderHandler(name, func() io.Reader { r.started = true; return r })
	defer gomysql.DeregisterReaderHandler(name)

	var b strings.Builder
	// X'09' and X'0A' rather than '\t' and '\n': hex literals mean the same whatever sql_mode says
	// about backslashes.
	b.WriteString("LOAD DATA LOCAL INFILE 'Reader::")
	b.WriteString(name)
	b.WriteString("' INTO TABLE ")
	writeTable(&b, table)
	b.WriteString(" CHARACTER SET utf8mb4 FIELDS TERMINATED BY X'09' ESCAPED BY X'5C' LINES TERMINATED BY X'0A' (")
	writeColumns(&b, columns)
	b.WriteString(")")
	got, err := c.Exec(ctx, b.String())
	if r.err != nil { // the source's own error comes first: the server only saw the data end early
		return got, r.started, r.err
	}
	if err != nil {
		return got, r.started, err
	}
	if err := c.checkLoaded(ctx, table, got, r.rows); err != nil {
		return got, true, err
	}
	return got, r.started, nil
}

// checkLoaded fails when the server took fewer rows than were sent or warned about any of them.
//
// The warnings are read with SHOW WARNINGS, which MySQL, MariaDB, TiDB and Dolt all answer with the
// last statement's warnings; @@warning_count is unknown to Dolt (Error 1105 "Unknown system
// variable"), and SHOW COUNT(*) WARNINGS, unsupported there too, is asked only for the message.
// SHOW WARNINGS lists at most max_error_count warnings (64 by default): enough to know there were
// some and to name the first.
func (c *Conn) checkLoaded(ctx context.Context, table string, got, sent int64) error {
	warnings, first, err := c.lastWarnings(ctx)
	if err != nil {
		return err
	}
	if warnings == 0 && got == sent {
		return nil
	}
	if warnings > 0 {
		var all int64
		if err := c.QueryRow(ctx, "SHOW COUNT(*) WARNINGS").Scan(&all); err == nil && all > warnings {
			warnings = all
		}
		first = ": " + first
	}
	return fmt.Errorf("mysql: loading %s: the server took %d of %d rows with %d warnings%s", table, got, sent, warnings, first)
}

// lastWarnings returns how many warnings SHOW WARNINGS lists for the last statement and the first
// of them as "Level Code: Message".
func (c *Conn) lastWarnings(ctx context.Context) (n int64, first string, err error) {
	rows, err := c.Query(ctx, "SHOW WARNINGS")
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var level, msg string
		var code int64
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return 0, "", err
		}
		if n == 0 {
			first = fmt.Sprintf("%s %d: %s", level, code, msg)
		}
		n++
	}
	return n, first, rows.Err()
}

// tsvReader encodes rows of src as LOAD DATA text, one buffer at a time, as the driver reads it.
type tsvReader struct {
	src     driver.RowSource
	ncol    int
	enc     encoder
	buf     []byte
	off     int
	rows    int64
	done    bool
	started bool
	err     error // the source's error, or a value that cannot be encoded
}

func (r *tsvReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.done {
			return 0, io.EOF
		}
		r.fill()
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// fill encodes rows until readerBytes are ready or the source ends.
func (r *tsvReader) fill() {
	r.buf, r.off = r.buf[:0], 0
	for len(r.buf) < readerBytes {
		if !r.src.Next() {
			r.done = true
			r.err = r.src.Err()
			return
		}
		vals, err := r.src.Values()
		if err == nil && len(vals) != r.ncol {
			err = fmt.Errorf("mysql: CopyFrom: a row has %d values for %d columns", len(vals), r.ncol)
		}
		if err != nil {
			r.done, r.err = true, err
			return
		}
		start := len(r.buf)
		for i, v := range vals {
			if i > 0 {
				r.buf = append(r.buf, '\t')
			}
			if r.buf, err = r.enc.tsv(r.buf, v); err != nil {
				r.buf = r.buf[:start] // this row is not sent
				r.done, r.err = true, err
				return
			}
		}
		r.buf = append(r.buf, '\n')
		r.rows++
	}
}

// insertRows loads src with multi-row INSERT statements of up to c.insertBudget() bytes.
func (c *Conn) insertRows(ctx context.Context, table string, columns []string, src driver.RowSource) (int64, error) {
	enc := encoder{noBackslashEscapes: c.db.noBackslashEscapes}
	var head strings.Builder
	head.WriteString("INSERT INTO ")
	writeTable(&head, table)
	head.WriteString(" (")
	writeColumns(&head, columns)
	head.WriteString(") VALUES ")
	prefix := head.String()
	budget := c.insertBudget()

	var n int64
	buf := append(make([]byte, 0, min(budget, 1<<20)), prefix...)
	rowsIn := 0 // rows in buf
	flush := func(end int) error {
		got, err := c.Exec(ctx, string(buf[:end]))
		if err != nil {
			return err
		}
		if err := c.checkLoaded(ctx, table, got, int64(rowsIn)); err != nil {
			return err
		}
		n += got
		return nil
	}
	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return n, err
		}
		if len(vals) != len(columns) {
			return n, fmt.Errorf("mysql: CopyFrom into %s: a row has %d values for %d columns", table, len(vals), len(columns))
		}
		rowStart := len(buf)
		if rowsIn > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '(')
		for i, v := range vals {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = enc.literal(buf, v); err != nil {
				return n, fmt.Errorf("mysql: CopyFrom into %s, column %s: %w", table, columns[i], err)
			}
		}
		buf = append(buf, ')')
		rowsIn++
		if len(buf) <= budget {
			continue
		}
		if rowsIn == 1 {
			// A row past the budget alone: a statement of its own, if max_allowed_packet takes it.
			if len(buf) > c.db.maxPacket-1024 {
				return n, fmt.Errorf("mysql: CopyFrom into %s: one row takes %d bytes, more than max_allowed_packet allows (%d)", table, len(buf), c.db.maxPacket)
			}
			if err := flush(len(buf)); err != nil {
				return n, err
			}
			buf, rowsIn = append(buf[:0], prefix...), 0
			continue
		}
		// The statement is full without this row: send it, and start the next with the row.
		row := append([]byte(nil), buf[rowStart+1:]...) // without its comma
		rowsIn--
		if err := flush(rowStart); err != nil {
			return n, err
		}
		buf = append(append(buf[:0], prefix...), row...)
		rowsIn = 1
	}
	if err := src.Err(); err != nil {
		return n, err
	}
	if rowsIn > 0 {
		if err := flush(len(buf)); err != nil {
			return n, err
		}
	}
	return n, nil
}

// insertBudget is the largest INSERT statement to send: max_allowed_packet less room for the
// protocol's header, capped at maxInsertBytes.
func (c *Conn) insertBudget() int {
	return max(1024, min(c.db.maxPacket-1024, maxInsertBytes))
}

// writeTable writes a table name, schema-qualified or not ("s.t"), quoted with backticks.
func writeTable(b *strings.Builder, table string) {
	for i, part := range strings.Split(table, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		quoteIdent(b, part)
	}
}

func writeColumns(b *strings.Builder, columns []string) {
	for i, col := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		quoteIdent(b, col)
	}
}

func quoteIdent(b *strings.Builder, name string) {
	b.WriteByte('`')
	b.WriteString(strings.ReplaceAll(name, "`", "``"))
	b.WriteByte('`')
}

// encoder writes Go values as LOAD DATA text fields or SQL literals. Values may be nil, integers,
// floats, bools, strings, []byte, time.Time (written in UTC, to the microsecond), and anything
// implementing encoding.TextAppender, driver.Valuer or fmt.Stringer (an exact decimal, say).
type encoder struct {
	noBackslashEscapes bool
	scratch            []byte
}

const datetimeLayout = "2006-01-02 15:04:05.999999"

// plain appends the unquoted text of v; isText says whether it is a string that needs escaping or
// quoting, isNull whether v is NULL.
func (e *encoder) plain(b []byte, v any) (out []byte, isText, isNull bool, err error) {
	switch x := v.(type) {
	case nil:
		return b, false, true, nil
	case int64:
		return strconv.AppendInt(b, x, 10), false, false, nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), false, false, nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), false, false, nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), false, false, nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), false, false, nil
	case uint64:
		return strconv.AppendUint(b, x, 10), false, false, nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), false, false, nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), false, false, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, false, false, fmt.Errorf("%v cannot be stored", x)
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), false, false, nil
	case float32:
		return strconv.AppendFloat(b, float64(x), 'g', -1, 32), false, false, nil
	case bool:
		if x {
			return append(b, '1'), false, false, nil
		}
		return append(b, '0'), false, false, nil
	case string:
		return append(b, x...), true, false, nil
	case []byte:
		if x == nil {
			return b, false, true, nil
		}
		return append(b, x...), true, false, nil
	case time.Time:
		return x.UTC().AppendFormat(b, datetimeLayout), true, false, nil
	case encoding.TextAppender:
		out, err := x.AppendText(b)
		return out, true, false, err
	case sqldriver.Valuer:
		val, err := x.Value()
		if err != nil {
			return b, false, false, err
		}
		if _, again := val.(sqldriver.Valuer); again {
			return b, false, false, fmt.Errorf("%T.Value returned another Valuer", v)
		}
		return e.plain(b, val)
	case fmt.Stringer:
		return append(b, x.String()...), true, false, nil
	}
	return b, false, false, fmt.Errorf("values of type %T cannot be loaded", v)
}

// tsv appends v as a field of LOAD DATA ... FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES
// TERMINATED BY '\n': NULL is \N; backslash, tab, newline and NUL are escaped.
func (e *encoder) tsv(b []byte, v any) ([]byte, error) {
	start := len(b)
	b, isText, isNull, err := e.plain(b, v)
	if err != nil || isNull {
		if isNull {
			b = append(b, '\\', 'N')
		}
		return b, err
	}
	if !isText || !needsTSVEscape(b[start:]) {
		return b, nil
	}
	e.scratch = append(e.scratch[:0], b[start:]...)
	b = b[:start]
	for _, ch := range e.scratch {
		switch ch {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case 0:
			b = append(b, '\\', '0')
		default:
			b = append(b, ch)
		}
	}
	return b, nil
}

func needsTSVEscape(s []byte) bool {
	for _, ch := range s {
		if ch == '\\' || ch == '\t' || ch == '\n' || ch == 0 {
			return true
		}
	}
	return false
}

// literal appends v as an SQL literal: NULL, a number, or a quoted string (a quote doubled, and
// backslash and NUL escaped unless sql_mode has NO_BACKSLASH_ESCAPES).
func (e *encoder) literal(b []byte, v any) ([]byte, error) {
	start := len(b)
	b = append(b, '\'')
	b, isText, isNull, err := e.plain(b, v)
	if err != nil {
		return b, err
	}
	if isNull {
		return append(b[:start], "NULL"...), nil
	}
	if !isText { // a number: drop the opening quote
		copy(b[start:], b[start+1:])
		return b[:len(b)-1], nil
	}
	body := b[start+1:]
	if needsQuoteEscape(body, e.noBackslashEscapes) {
		e.scratch = append(e.scratch[:0], body...)
		b = b[:start+1]
		for _, ch := range e.scratch {
			switch {
			case ch == '\'':
				b = append(b, '\'', '\'')
			case ch == '\\' && !e.noBackslashEscapes:
				b = append(b, '\\', '\\')
			case ch == 0 && !e.noBackslashEscapes:
				b = append(b, '\\', '0')
			default:
				b = append(b, ch)
			}
		}
	}
	return append(b, '\''), nil
}

func needsQuoteEscape(s []byte, noBackslashEscapes bool) bool {
	for _, ch := range s {
		if ch == '\'' || (!noBackslashEscapes && (ch == '\\' || ch == 0)) {
			return true
		}
	}
	return false
}

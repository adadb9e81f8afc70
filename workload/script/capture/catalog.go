package capture

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/script/pgscript"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// LimitValue is the constant a LIMIT or OFFSET placeholder gets: the statistics keep no value.
const LimitValue = 10

type column struct {
	name    string
	integer bool
	ordinal int
}

type table struct {
	schema, name string
	cols         []column
	unique       map[string]bool // columns that are a one-column primary key or unique index
}

func (t *table) column(name string) (column, bool) {
	for _, c := range t.cols {
		if c.name == name {
			return c, true
		}
	}
	for _, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return c, true
		}
	}
	return column{}, false
}

type catalog struct {
	family  string
	tables  []*table
	schemas []string // PostgreSQL's search path, first wins for an unqualified name
}

func (c *catalog) find(ref TableRef) *table {
	var best *table
	rank := len(c.schemas) + 1
	for _, t := range c.tables {
		if t.name != ref.Name && !strings.EqualFold(t.name, ref.Name) {
			continue
		}
		if ref.Schema != "" {
			if strings.EqualFold(t.schema, ref.Schema) {
				return t
			}
			continue
		}
		r := len(c.schemas)
		for i, s := range c.schemas {
			if s == t.schema {
				r = i
			}
		}
		if r < rank {
			best, rank = t, r
		}
	}
	return best
}

func (c *catalog) quote(name string) string {
	if c.family == driver.FamilyMySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func (c *catalog) qualified(t *table) string { return c.quote(t.schema) + "." + c.quote(t.name) }

func (c *catalog) sql(s string) string { return sqlexec.Placeholders(c.family, s) }

func loadCatalog(ctx context.Context, conn driver.Conn, family string) (*catalog, error) {
	c := &catalog{family: family}
	where := "c.table_schema NOT IN ('pg_catalog', 'information_schema')"
	uniq := `SELECT n.nspname, t.relname, a.attname
FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
WHERE i.indisunique AND i.indnatts = 1 AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`
	if family == driver.FamilyMySQL {
		where = "c.table_schema = DATABASE()"
		uniq = `SELECT table_schema, table_name, MIN(column_name) FROM information_schema.statistics
WHERE table_schema = DATABASE() AND non_unique = 0 GROUP BY table_schema, table_name, index_name HAVING COUNT(*) = 1`
	} else {
		rows, err := conn.Query(ctx, "SELECT unnest(current_schemas(false))::text")
		if err != nil {
			return nil, fmt.Errorf("reading the search path: %w", err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return nil, err
			}
			c.schemas = append(c.schemas, s)
		}
		rows.Close()
	}
	rows, err := conn.Query(ctx, `SELECT c.table_schema, c.table_name, c.column_name, c.data_type, c.ordinal_position
FROM information_schema.columns c WHERE `+where+` ORDER BY c.table_schema, c.table_name, c.ordinal_position`)
	if err != nil {
		return nil, fmt.Errorf("reading information_schema.columns: %w", err)
	}
	byName := map[string]*table{}
	for rows.Next() {
		var schema, name, col, typ string
		var ord int64
		if err := rows.Scan(&schema, &name, &col, &typ, &ord); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading information_schema.columns: %w", err)
		}
		k := schema + "." + name
		t := byName[k]
		if t == nil {
			t = &table{schema: schema, name: name, unique: map[string]bool{}}
			byName[k] = t
			c.tables = append(c.tables, t)
		}
		switch strings.ToLower(typ) {
		case "smallint", "integer", "bigint", "tinyint", "mediumint", "int":
			t.cols = append(t.cols, column{name: col, integer: true, ordinal: int(ord)})
		default:
			t.cols = append(t.cols, column{name: col, ordinal: int(ord)})
		}
	}
	rows.Close()
	rows, err = conn.Query(ctx, uniq)
	if err != nil {
		return nil, fmt.Errorf("reading the unique keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var schema, name, col string
		if err := rows.Scan(&schema, &name, &col); err != nil {
			return nil, fmt.Errorf("reading the unique keys: %w", err)
		}
		if t := byName[schema+"."+name]; t != nil {
			t.unique[col] = true
		}
	}
	return c, rows.Err()
}

// resolve writes each kept statement's script text and parameters: collapsed lists rebuilt (MySQL),
// columns resolved against the catalog, values read (a key range, or a sample).
func resolve(ctx context.Context, conn driver.Conn, family string, r *Result, o Options) error {
	cat, err := loadCatalog(ctx, conn, family)
	if err != nil {
		return err
	}
	r.samples = map[string][]pgscript.SampleValue{}
	methods := map[string]ParamOut{} // per table.column, read once
	qmark := family == driver.FamilyMySQL
	for _, st := range r.Statements {
		st.sql = st.Text
		if qmark {
			st.sql = tightenCalls(st.sql)
		}
		if qmark && st.analysis.CollapsedIN {
			text, notes := rebuildCollapsed(st.sql, cat)
			st.sql = text
			st.Notes = append(st.Notes, notes...)
			st.analysis = Analyze(text, true)
		} else if st.analysis.CollapsedIN {
			st.Notes = append(st.Notes, "a collapsed IN list ($n /*, ... */): replayed with one value")
		}
		if qmark && strings.HasSuffix(strings.TrimSpace(st.sql), "...") {
			st.Notes = append(st.Notes, "the digest text is truncated (performance_schema_max_digest_length): this script will not parse or run as it is; complete its SQL by hand")
		}
		for _, p := range st.analysis.Params {
			po := ParamOut{N: p.N, Var: fmt.Sprintf("p%d", p.N), How: p.How}
			if p.Limit {
				po.Inferred, po.Method = true, "constant "+strconv.Itoa(LimitValue)
				po.Note = "a LIMIT or OFFSET: its value is not kept; " + strconv.Itoa(LimitValue) + " assumed, edit the \\set"
				st.Params = append(st.Params, po)
				continue
			}
			t, col, why := resolveColumn(cat, p)
			if t == nil {
				po.Method, po.Note = "not inferred", why
				st.Params = append(st.Params, po)
				continue
			}
			po.Table, po.Column = t.name, col.name
			if t.schema != "" && family != driver.FamilyMySQL && t.schema != "public" {
				po.Table = t.schema + "." + t.name
			}
			if p.How == "arithmetic" {
				// col + $n: an increment, whose size the statistics do not keep; drawing it from the
				// column's own values would grow the column without bound (tbalance + tbalance ...).
				po.Inferred, po.Method = true, "constant 0"
				po.Note = "an increment of " + col.name + ": its size is not kept; 0 written (the row is still updated), edit the \\set"
				st.Params = append(st.Params, po)
				continue
			}
			key := t.schema + "." + t.name + "." + col.name
			m, ok := methods[key]
			if !ok {
				m, err = valuesOf(ctx, conn, cat, t, col, o.Sample, r)
				if err != nil {
					return err
				}
				methods[key] = m
			}
			po.Inferred, po.Method, po.SampleFile, po.Values = m.Inferred, m.Method, m.SampleFile, m.Values
			po.Note = m.Note
			st.Params = append(st.Params, po)
		}
		for _, po := range st.Params {
			if !po.Inferred {
				st.Notes = append(st.Notes, fmt.Sprintf("$%d not inferred (%s): bound as NULL until you write its generator (\\set %s ...)", po.N, po.Note, po.Var))
			}
		}
	}
	return nil
}

func resolveColumn(cat *catalog, p Param) (*table, column, string) {
	if p.Reason != "" && !p.Inferred() {
		return nil, column{}, p.Reason
	}
	if p.Table != nil {
		t := cat.find(*p.Table)
		if t == nil {
			return nil, column{}, "no table " + p.Table.Name + " in the catalog"
		}
		if p.Position > 0 {
			for _, c := range t.cols {
				if c.ordinal == p.Position {
					return t, c, ""
				}
			}
			return nil, column{}, fmt.Sprintf("%s has no column %d", t.name, p.Position)
		}
		c, ok := t.column(p.Column)
		if !ok {
			return nil, column{}, "no column " + p.Column + " in " + t.name
		}
		return t, c, ""
	}
	var hits []*table
	var hit column
	for _, ref := range p.Candidates {
		if t := cat.find(ref); t != nil {
			if c, ok := t.column(p.Column); ok {
				hits, hit = append(hits, t), c
			}
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], hit, ""
	case 0:
		return nil, column{}, "no table of the statement has a column " + p.Column
	}
	var names []string
	for _, t := range hits {
		names = append(names, t.name)
	}
	return nil, column{}, "ambiguous: " + p.Column + " is a column of " + strings.Join(names, " and ")
}

// valuesOf reads how a column's values are drawn: an integer one-column key whose range the table
// fills (its row estimate at least 90% of max-min+1) as random(min, max), else a sample of at most n
// rows read once.
func valuesOf(ctx context.Context, conn driver.Conn, cat *catalog, t *table, c column, n int, r *Result) (ParamOut, error) {
	est := int64(-1)
	var q string
	if cat.family == driver.FamilyMySQL {
		q = "SELECT CAST(table_rows AS SIGNED) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2"
	} else {
		q = "SELECT reltuples::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2"
	}
	var e *int64
	if err := conn.QueryRow(ctx, cat.sql(q), t.schema, t.name).Scan(&e); err == nil && e != nil {
		est = *e
	}
	if c.integer && t.unique[c.name] {
		var lo, hi *int64
		if err := conn.QueryRow(ctx, "SELECT MIN("+cat.quote(c.name)+"), MAX("+cat.quote(c.name)+") FROM "+cat.qualified(t)).Scan(&lo, &hi); err != nil {
			return ParamOut{}, fmt.Errorf("reading the range of %s.%s: %w", t.name, c.name, err)
		}
		if lo != nil && hi != nil && est > 0 && float64(est) >= 0.9*float64(*hi-*lo+1) {
			return ParamOut{Inferred: true, Method: fmt.Sprintf("random(%d, %d)", *lo, *hi),
				Note: fmt.Sprintf("an integer key filled from %d to %d (about %d rows)", *lo, *hi, est)}, nil
		}
	}
	col := cat.quote(c.name)
	var q2 string
	if cat.family == driver.FamilyMySQL {
		q2 = "SELECT CAST(" + col + " AS CHAR) FROM " + cat.qualified(t)
		if est > int64(2*n) {
			q2 += fmt.Sprintf(" WHERE RAND() < %g ORDER BY RAND()", 2*float64(n)/float64(est))
		}
	} else {
		q2 = "SELECT " + col + "::text FROM " + cat.qualified(t)
		if est > int64(2*n) {
			// about 2n rows of the whole table, shuffled before the LIMIT (which would otherwise keep
			// the first pages' rows)
			q2 += fmt.Sprintf(" TABLESAMPLE BERNOULLI (%g) ORDER BY random()", min(100, 200*float64(n)/float64(est)))
		}
	}
	q2 += " LIMIT " + strconv.Itoa(n)
	vals, err := readValues(ctx, conn, q2)
	if err != nil {
		return ParamOut{}, fmt.Errorf("sampling %s.%s: %w", t.name, c.name, err)
	}
	if len(vals) < n/4 && est > int64(2*n) { // the estimate was stale: read the first rows instead
		if more, err := readValues(ctx, conn, "SELECT "+castText(cat, col)+" FROM "+cat.qualified(t)+" LIMIT "+strconv.Itoa(n)); err == nil && len(more) > len(vals) {
			vals = more
		}
	}
	if len(vals) == 0 {
		return ParamOut{Method: "not inferred", Note: t.name + "." + c.name + " holds no rows to sample"}, nil
	}
	file := sampleFileName(t, c, r)
	r.samples[file] = vals
	return ParamOut{Inferred: true, Method: "sample " + file, SampleFile: file, Values: len(vals),
		Note: fmt.Sprintf("%d values read from %s.%s", len(vals), t.name, c.name)}, nil
}

func castText(cat *catalog, col string) string {
	if cat.family == driver.FamilyMySQL {
		return "CAST(" + col + " AS CHAR)"
	}
	return col + "::text"
}

func readValues(ctx context.Context, conn driver.Conn, q string) ([]pgscript.SampleValue, error) {
	rows, err := conn.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pgscript.SampleValue
	for rows.Next() {
		var v *string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		if v == nil {
			out = append(out, pgscript.SampleValue{Null: true})
		} else {
			out = append(out, pgscript.SampleValue{Text: *v})
		}
	}
	return out, rows.Err()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func sampleFileName(t *table, c column, r *Result) string {
	base := "samples/" + unsafeName.ReplaceAllString(t.name+"."+c.name, "_")
	name := base + ".txt"
	for i := 2; r.samples[name] != nil; i++ {
		name = fmt.Sprintf("%s.%d.txt", base, i)
	}
	return name
}

// rebuildCollapsed turns a MySQL digest's collapsed lists into runnable SQL: IN (...) into IN (?),
// and INSERT's VALUES (...) into one row of one ? per column (the column list's, or the table's).
func rebuildCollapsed(text string, cat *catalog) (string, []string) {
	toks := lex(text, true)
	ins := insertColumns(toks)
	var b strings.Builder
	var notes []string
	last := 0
	for i, t := range toks {
		if t.kind != tCollapsed || t.text != "(...)" {
			continue
		}
		repl := "(?)"
		if i > 0 && lowerIs(toks[i-1], "values") && ins != nil {
			cols := len(ins.cols)
			if cols == 0 {
				if tb := cat.find(ins.table); tb != nil {
					cols = len(tb.cols)
				}
			}
			if cols == 0 {
				notes = append(notes, "VALUES (...) collapsed by the digest and the table's columns are unknown: replayed with one value")
			} else {
				repl = "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
				notes = append(notes, fmt.Sprintf("VALUES (...) collapsed by the digest: rebuilt as one row of %d values (a multi-row insert is replayed as one row)", cols))
			}
		} else {
			notes = append(notes, "IN (...) collapsed by the digest: replayed with one value")
		}
		b.WriteString(text[last:t.from])
		b.WriteString(repl)
		last = t.to
	}
	b.WriteString(text[last:])
	return b.String(), notes
}

// tightenCalls removes the space a MySQL digest writes between a bare word and "(": COUNT ( * )
// is a syntax error (built-in aggregates take no space before their parenthesis unless sql_mode
// has IGNORE_SPACE), COUNT(*) is not; IN(, VALUES( and AND( read as before.
func tightenCalls(text string) string {
	toks := lex(text, true)
	var b strings.Builder
	last := 0
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].kind == tIdent && toks[i+1].kind == tPunct && toks[i+1].text == "(" && toks[i+1].from > toks[i].to &&
			strings.TrimSpace(text[toks[i].to:toks[i+1].from]) == "" {
			b.WriteString(text[last:toks[i].to])
			last = toks[i+1].from
		}
	}
	b.WriteString(text[last:])
	return b.String()
}

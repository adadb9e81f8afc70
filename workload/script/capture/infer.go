package capture

import (
	"strconv"
	"strings"
)

// The inference of parameters: pg_stat_statements and performance_schema keep a statement's text
// with its constants replaced ($1, $2 ... on PostgreSQL, ? in MySQL's digests) and no values. For
// each placeholder, Analyze finds from the text alone the column it is compared with or assigned to,
// so that capture can draw values from that column's real data. It is a scanner, not a SQL parser:
// it knows the shapes below and says "not inferred" for anything else.
//
//	col = $n, col <> $n, col < $n ... col LIKE $n, and $n = col     compared with col
//	col IN ($n, $m, ...)                                           each compared with col
//	col BETWEEN $n AND $m                                          both
//	UPDATE t SET col = $n, ON CONFLICT ... SET col = $n             assigned to col
//	INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)                  by position in the column list
//	INSERT INTO t VALUES ($1, $2)                                   by position in the table (catalog)
//	col + $n, col - $n (UPDATE t SET x = x + $1)                    an increment of col (0 written)
//	LIMIT $n, OFFSET $n                                             a constant (the value is not kept)
//
// A qualified column (a.col) is resolved through the statement's FROM, JOIN, UPDATE, INSERT INTO and
// DELETE FROM targets and their aliases; an unqualified one in a statement of one table is that
// table's, and in a statement of several is resolved later against the catalog (the one table that
// has such a column), or said to be ambiguous.

// Analysis is what Analyze found in a statement's text.
type Analysis struct {
	// Verb is the statement's first keyword in lower case (select, insert, update, delete, with,
	// begin, set ...).
	Verb string
	// Utility: not a query or DML statement (BEGIN, COMMIT, SET, VACUUM, DDL ...); capture skips it.
	Utility bool
	// Tables are the tables the statement names, in order, with their aliases.
	Tables []TableRef
	// Params are the placeholders by number (Params[0] is $1, or the first ?).
	Params []Param
	// CollapsedIN: the text holds a list the statistics collapsed (IN (...) in MySQL's digests,
	// "/*, ... */" in PostgreSQL 18's), whose length and values are lost.
	CollapsedIN bool

	qmark bool
}

// TableRef is one table a statement names.
type TableRef struct {
	Schema string `json:"schema,omitempty"`
	Name   string `json:"name"`
	Alias  string `json:"alias,omitempty"`
}

// Param is one placeholder and what Analyze inferred about it.
type Param struct {
	N int `json:"n"`
	// Column is the inferred column ("" when not inferred, or when Position says it by place).
	Column string `json:"column,omitempty"`
	// Qualifier is the alias or table written before the column (a in a.col).
	Qualifier string `json:"qualifier,omitempty"`
	// Table is the table the column belongs to when the text alone says so.
	Table *TableRef `json:"table,omitempty"`
	// Candidates are the statement's tables when the column is unqualified among several.
	Candidates []TableRef `json:"candidates,omitempty"`
	// Position is the 1-based place of the value in INSERT INTO t VALUES (...) without a column list.
	Position int `json:"position,omitempty"`
	// How is the shape it was found in ("col = $n", "IN", "BETWEEN", "SET", "VALUES", "arithmetic",
	// "LIMIT").
	How string `json:"how,omitempty"`
	// Limit: a LIMIT or OFFSET count, given a constant.
	Limit bool `json:"limit,omitempty"`
	// Reason says why nothing was inferred.
	Reason string `json:"reason,omitempty"`
}

// Inferred reports whether the parameter has a column (or a place in a table, or is a LIMIT).
func (p *Param) Inferred() bool { return p.Column != "" || p.Position > 0 || p.Limit }

type tokKind uint8

const (
	tIdent tokKind = iota
	tQuoted
	tParam
	tNumber
	tString
	tOp
	tPunct
	tCollapsed // "(...)" or "/*, ... */"
)

type token struct {
	kind     tokKind
	text     string // identifiers in lower case unless quoted
	param    int
	from, to int // offsets in the text
}

// lex splits text into tokens; qmark: "?" is a placeholder (MySQL digests), numbered in order.
func lex(text string, qmark bool) []token {
	var out []token
	nq := 0
	i := 0
	for i < len(text) {
		c := text[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '#' && qmark:
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				i = len(text)
				break
			}
			i += end + 4
			if strings.HasPrefix(strings.TrimSpace(text[start+2:i-2]), ", ...") {
				out = append(out, token{kind: tCollapsed, text: text[start:i], from: start, to: i})
			}
		case c == '\'':
			i++
			for i < len(text) {
				if text[i] == '\\' && qmark && i+1 < len(text) {
					i += 2
					continue
				}
				if text[i] == '\'' {
					if i+1 < len(text) && text[i+1] == '\'' {
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
			out = append(out, token{kind: tString, text: text[start:min(i, len(text))], from: start, to: min(i, len(text))})
		case c == '"' || c == '`':
			i++
			var b strings.Builder
			for i < len(text) {
				if text[i] == c {
					if i+1 < len(text) && text[i+1] == c {
						b.WriteByte(c)
						i += 2
						continue
					}
					break
				}
				b.WriteByte(text[i])
				i++
			}
			i++
			out = append(out, token{kind: tQuoted, text: b.String(), from: start, to: min(i, len(text))})
		case c == '$' && i+1 < len(text) && isDigit(text[i+1]):
			i++
			for i < len(text) && isDigit(text[i]) {
				i++
			}
			n, err := strconv.Atoi(text[start+1 : i])
			if err != nil || n > 1<<16 {
				n = 0
			}
			out = append(out, token{kind: tParam, param: n, text: text[start:i], from: start, to: i})
		case c == '$':
			// a dollar-quoted string: $tag$ ... $tag$
			j := i + 1
			for j < len(text) && isIdentChar(text[j]) {
				j++
			}
			if j < len(text) && text[j] == '$' {
				tag := text[i : j+1]
				end := strings.Index(text[j+1:], tag)
				if end < 0 {
					i = len(text)
				} else {
					i = j + 1 + end + len(tag)
				}
				out = append(out, token{kind: tString, text: text[start:i], from: start, to: i})
			} else {
				i++
				out = append(out, token{kind: tOp, text: "$", from: start, to: i})
			}
		case c == '?' && qmark:
			i++
			nq++
			out = append(out, token{kind: tParam, param: nq, text: "?", from: start, to: i})
		case isDigit(c) || c == '.' && i+1 < len(text) && isDigit(text[i+1]):
			for i < len(text) && (isDigit(text[i]) || text[i] == '.' || text[i] == 'e' || text[i] == 'E') {
				i++
			}
			out = append(out, token{kind: tNumber, text: text[start:i], from: start, to: i})
		case isIdentStart(c):
			for i < len(text) && isIdentChar(text[i]) {
				i++
			}
			out = append(out, token{kind: tIdent, text: strings.ToLower(text[start:i]), from: start, to: i})
		case c == '(' && strings.HasPrefix(text[i:], "(...)"):
			i += 5
			out = append(out, token{kind: tCollapsed, text: "(...)", from: start, to: i})
		case c == '(' || c == ')' || c == ',' || c == ';' || c == '.' || c == '[' || c == ']':
			i++
			out = append(out, token{kind: tPunct, text: text[start:i], from: start, to: i})
		default:
			for i < len(text) && strings.IndexByte("+-*/<>=~!@#%^&|`?:", text[i]) >= 0 {
				if i > start && (text[i] == '-' && i+1 < len(text) && text[i+1] == '-' || text[i] == '/' && i+1 < len(text) && text[i+1] == '*') {
					break
				}
				if text[i] == '?' && qmark || text[i] == '#' && qmark || text[i] == '`' {
					break
				}
				i++
			}
			if i == start {
				i++
			}
			out = append(out, token{kind: tOp, text: text[start:i], from: start, to: i})
		}
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// keywords are words that end a table list or cannot be a column or an alias.
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`select from where join inner left right full outer cross natural on using group
		order by limit offset having union intersect except set values for lateral window returning as and or not in
		between like ilike similar is null true false case when then else end exists any all some distinct into update
		delete insert with default interval current_timestamp current_date current_time localtimestamp now conflict do
		nothing duplicate ignore replace lock nowait skip locked of only fetch asc desc nulls escape collate array
		cast symmetric tablesample straight_join low_priority high_priority delayed quick sql_no_cache
		sql_calc_found_rows`) {
		keywords[w] = true
	}
}

func isName(t token) bool {
	return t.text != "" && (t.kind == tQuoted || t.kind == tIdent && !keywords[t.text])
}

var comparisons = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"like": true, "ilike": true, "<=>": true}

var dmlVerbs = map[string]bool{"select": true, "insert": true, "update": true, "delete": true, "with": true,
	"values": true, "table": true, "merge": true, "replace": true}

// Analyze scans a normalized statement text; qmark: placeholders are "?" (MySQL), else $n.
func Analyze(text string, qmark bool) Analysis {
	toks := lex(text, qmark)
	a := Analysis{qmark: qmark}
	for _, t := range toks {
		if t.kind == tCollapsed {
			a.CollapsedIN = true
		}
	}
	for _, t := range toks {
		if t.kind == tPunct && t.text == "(" {
			continue
		}
		if t.kind == tIdent {
			a.Verb = t.text
		}
		break
	}
	a.Utility = !dmlVerbs[a.Verb]
	maxN := 0
	for _, t := range toks {
		if t.kind == tParam && t.param > maxN {
			maxN = t.param
		}
	}
	a.Params = make([]Param, maxN)
	for i := range a.Params {
		a.Params[i] = Param{N: i + 1, Reason: "the placeholder does not appear in the text"}
	}
	if a.Utility {
		for i := range a.Params {
			a.Params[i].Reason = "a utility statement"
		}
		return a
	}
	a.Tables = tables(toks)
	ins := insertColumns(toks)
	done := make([]bool, maxN)
	for i, t := range toks {
		if t.kind != tParam || t.param < 1 || done[t.param-1] {
			continue
		}
		p := inferAt(toks, i, ins)
		p.N = t.param
		if p.Column != "" || p.Position > 0 {
			resolveTable(&p, a.Tables, ins)
		}
		if p.Inferred() {
			done[t.param-1] = true
		}
		a.Params[t.param-1] = p
	}
	return a
}

// insertTarget is INSERT INTO t (cols) VALUES: where VALUES' tuples start and the column list.
type insertTarget struct {
	table  TableRef
	cols   []string
	values int // index of the VALUES keyword's token, -1 when none
}

func insertColumns(toks []token) *insertTarget {
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].kind == tIdent && (toks[i].text == "insert" || toks[i].text == "replace") {
			j := i + 1
			for j < len(toks) && toks[j].kind == tIdent && keywords[toks[j].text] && toks[j].text != "values" && toks[j].text != "select" {
				j++ // INTO, IGNORE, LOW_PRIORITY ...
			}
			tr, next, ok := tableName(toks, j)
			if !ok {
				return nil
			}
			it := &insertTarget{table: tr, values: -1}
			j = next
			if j < len(toks) && toks[j].kind == tIdent && toks[j].text == "as" && j+1 < len(toks) && isName(toks[j+1]) {
				it.table.Alias = toks[j+1].text
				j += 2
			}
			if j < len(toks) && toks[j].text == "(" {
				j++
				for j < len(toks) && toks[j].text != ")" {
					if isName(toks[j]) || toks[j].kind == tIdent {
						it.cols = append(it.cols, toks[j].text)
					}
					j++
				}
				j++
			}
			if j < len(toks) && toks[j].kind == tIdent && toks[j].text == "values" {
				it.values = j
			}
			return it
		}
	}
	return nil
}

// tableName reads [schema.]name at toks[j].
func tableName(toks []token, j int) (TableRef, int, bool) {
	if j >= len(toks) || !isName(toks[j]) {
		return TableRef{}, j, false
	}
	tr := TableRef{Name: toks[j].text}
	j++
	if j+1 < len(toks) && toks[j].text == "." && toks[j].kind == tPunct && isName(toks[j+1]) {
		tr.Schema, tr.Name = tr.Name, toks[j+1].text
		j += 2
	}
	return tr, j, true
}

// tables finds FROM a [AS] x, b y ..., JOIN c z, UPDATE d, INSERT INTO e, DELETE FROM f.
func tables(toks []token) []TableRef {
	var out []TableRef
	add := func(tr TableRef) {
		for _, o := range out {
			if o == tr {
				return
			}
		}
		out = append(out, tr)
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent {
			continue
		}
		list := false
		switch t.text {
		case "from":
			list = true
		case "join", "into":
		case "update":
			if i > 0 && lowerIs(toks[i-1], "key", "do", "for") {
				continue // ON DUPLICATE KEY UPDATE, ON CONFLICT DO UPDATE, FOR UPDATE
			}
		default:
			continue
		}
		j := i + 1
		for {
			for j < len(toks) && toks[j].kind == tIdent && (toks[j].text == "only" || toks[j].text == "lateral") {
				j++
			}
			tr, next, ok := tableName(toks, j)
			if !ok {
				break
			}
			j = next
			if j < len(toks) && toks[j].text == "(" && t.text != "into" { // a function call in FROM
				break
			}
			if j < len(toks) && toks[j].kind == tIdent && toks[j].text == "as" {
				j++
			}
			if j < len(toks) && isName(toks[j]) && t.text != "into" {
				tr.Alias = toks[j].text
				j++
			}
			add(tr)
			if !list || j >= len(toks) || toks[j].text != "," {
				break
			}
			j++
		}
	}
	return out
}

// colBefore reads a column reference ending at toks[j]: col or q.col.
func colBefore(toks []token, j int) (qual, col string, ok bool) {
	if j < 0 || j >= len(toks) || !isName(toks[j]) {
		return "", "", false
	}
	if j+1 < len(toks) && toks[j+1].text == "(" {
		return "", "", false // a function
	}
	col = toks[j].text
	if j >= 2 && toks[j-1].kind == tPunct && toks[j-1].text == "." && isName(toks[j-2]) {
		qual = toks[j-2].text
		if j >= 4 && toks[j-3].text == "." && isName(toks[j-4]) { // schema.table.col
			qual = toks[j-2].text
		}
	}
	return qual, col, true
}

// colAfter reads a column reference starting at toks[j].
func colAfter(toks []token, j int) (qual, col string, ok bool) {
	if j >= len(toks) || !isName(toks[j]) {
		return "", "", false
	}
	if j+2 < len(toks) && toks[j+1].kind == tPunct && toks[j+1].text == "." && isName(toks[j+2]) {
		if j+3 < len(toks) && toks[j+3].text == "(" {
			return "", "", false
		}
		return toks[j].text, toks[j+2].text, true
	}
	if j+1 < len(toks) && (toks[j+1].text == "(" || toks[j+1].text == ".") {
		return "", "", false
	}
	return "", toks[j].text, true
}

func lowerIs(t token, words ...string) bool {
	if t.kind != tIdent && t.kind != tOp {
		return false
	}
	for _, w := range words {
		if t.text == w {
			return true
		}
	}
	return false
}

// inferAt infers the parameter at toks[i].
func inferAt(toks []token, i int, ins *insertTarget) Param {
	at := func(j int) token {
		if j < 0 || j >= len(toks) {
			return token{kind: tPunct}
		}
		return toks[j]
	}
	found := func(q, c, how string) Param { return Param{Qualifier: q, Column: c, How: how} }
	prev := at(i - 1)
	// LIMIT $n, OFFSET $n, MySQL's LIMIT ?, ?
	if lowerIs(prev, "limit", "offset") || prev.text == "," && at(i-2).kind == tParam && lowerIs(at(i-3), "limit") {
		return Param{Limit: true, How: "LIMIT"}
	}
	// col = $n (also SET col = $n)
	if comparisons[prev.text] {
		if q, c, ok := colBefore(toks, i-2); ok {
			how := "col " + prev.text + " $n"
			for k := i - 3; k >= 0; k-- {
				if toks[k].kind == tIdent && (toks[k].text == "set" || toks[k].text == "update") {
					how = "SET"
					break
				}
				if toks[k].kind == tIdent && (toks[k].text == "where" || toks[k].text == "select" || toks[k].text == "from") {
					break
				}
			}
			return found(q, c, how)
		}
	}
	// $n = col
	if next := at(i + 1); comparisons[next.text] && prev.text != "+" && prev.text != "-" {
		if q, c, ok := colAfter(toks, i+2); ok {
			return found(q, c, "$n "+next.text+" col")
		}
	}
	// col [NOT] IN ($n, $m, ...)
	k := i - 1
	for k >= 0 && (toks[k].kind == tParam || toks[k].text == ",") {
		k--
	}
	if k >= 1 && toks[k].text == "(" && lowerIs(toks[k-1], "in") {
		j := k - 2
		if lowerIs(at(j), "not") {
			j--
		}
		if q, c, ok := colBefore(toks, j); ok {
			return found(q, c, "IN")
		}
	}
	// col BETWEEN $n AND $m
	if lowerIs(prev, "between") {
		if q, c, ok := colBefore(toks, i-2); ok {
			return found(q, c, "BETWEEN")
		}
	}
	if lowerIs(prev, "and") && at(i-2).kind == tParam && lowerIs(at(i-3), "between") {
		if q, c, ok := colBefore(toks, i-4); ok {
			return found(q, c, "BETWEEN")
		}
	}
	// INSERT INTO t (cols) VALUES ($1, ...)
	if ins != nil && ins.values >= 0 && i > ins.values {
		if pos, ok := valuesPosition(toks, ins.values, i); ok {
			if len(ins.cols) > 0 {
				return Param{Column: ins.cols[(pos-1)%len(ins.cols)], Table: &ins.table, How: "VALUES"}
			}
			return Param{Position: pos, Table: &ins.table, How: "VALUES"}
		}
	}
	// col + $n, col - $n
	if prev.text == "+" || prev.text == "-" {
		if q, c, ok := colBefore(toks, i-2); ok {
			return found(q, c, "arithmetic")
		}
	}
	return Param{Reason: "no column found beside it (not col = $n, col IN ($n), BETWEEN, SET, VALUES or LIMIT)"}
}

// valuesPosition: when toks[i] is a whole element of a VALUES tuple (optionally cast), its 1-based
// position in the tuple.
func valuesPosition(toks []token, values, i int) (int, bool) {
	depth, pos, start := 0, 0, -1
	for j := values + 1; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.text == "(" && t.kind == tPunct:
			depth++
			if depth == 1 {
				pos, start = 1, j+1
			}
		case t.text == ")" && t.kind == tPunct:
			if depth == 1 && i >= start && i < j {
				return pos, simpleElement(toks, start, j, i)
			}
			depth--
			if depth < 0 {
				return 0, false
			}
		case t.text == "," && depth == 1:
			if i >= start && i < j {
				return pos, simpleElement(toks, start, j, i)
			}
			pos++
			start = j + 1
		case depth == 0 && t.kind == tIdent && t.text != "values":
			return 0, false // ON CONFLICT, RETURNING ...
		}
		if j > i && depth == 0 {
			return 0, false
		}
	}
	return 0, false
}

// simpleElement: toks[from:to] is the parameter at i, with an optional ::type cast.
func simpleElement(toks []token, from, to, i int) bool {
	if from != i {
		return false
	}
	if to == i+1 {
		return true
	}
	return toks[i+1].text == "::"
}

// resolveTable sets p.Table from the qualifier or the statement's only table, or p.Candidates.
func resolveTable(p *Param, tabs []TableRef, ins *insertTarget) {
	if p.Table != nil {
		return
	}
	if p.Qualifier != "" {
		for i := range tabs {
			if tabs[i].Alias == p.Qualifier {
				p.Table = &tabs[i]
				return
			}
		}
		for i := range tabs {
			if tabs[i].Alias == "" && tabs[i].Name == p.Qualifier || tabs[i].Name == p.Qualifier && !aliased(tabs, p.Qualifier) {
				p.Table = &tabs[i]
				return
			}
		}
		if ins != nil && (ins.table.Name == p.Qualifier || ins.table.Alias == p.Qualifier) {
			p.Table = &ins.table
			return
		}
		p.Reason = "the qualifier " + p.Qualifier + " names no table of the statement"
		p.Column = ""
		return
	}
	switch len(tabs) {
	case 0:
		p.Reason = "the statement names no table"
		p.Column = ""
	case 1:
		p.Table = &tabs[0]
	default:
		p.Candidates = append([]TableRef(nil), tabs...)
	}
}

func aliased(tabs []TableRef, name string) bool {
	for _, t := range tabs {
		if t.Name == name && t.Alias != "" {
			return true
		}
	}
	return false
}

// rewriteParams replaces each placeholder of text with name(n).
func rewriteParams(text string, qmark bool, name func(n int) string) string {
	var b strings.Builder
	last := 0
	for _, t := range lex(text, qmark) {
		if t.kind != tParam {
			continue
		}
		b.WriteString(text[last:t.from])
		b.WriteString(name(t.param))
		last = t.to
	}
	b.WriteString(text[last:])
	return b.String()
}

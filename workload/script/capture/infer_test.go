package capture

import (
	"fmt"
	"strings"
	"testing"
)

// describe renders an analysis's parameters compactly: "$1 t.col (how)", "$2 LIMIT", "$3 ?".
func describe(a Analysis) string {
	var parts []string
	for _, p := range a.Params {
		s := fmt.Sprintf("$%d ", p.N)
		switch {
		case p.Limit:
			s += "LIMIT"
		case p.Column != "" && p.Table != nil:
			s += p.Table.Name + "." + p.Column + " (" + p.How + ")"
		case p.Column != "" && len(p.Candidates) > 0:
			var c []string
			for _, t := range p.Candidates {
				c = append(c, t.Name)
			}
			s += "{" + strings.Join(c, ",") + "}." + p.Column + " (" + p.How + ")"
		case p.Position > 0:
			s += fmt.Sprintf("%s#%d (%s)", p.Table.Name, p.Position, p.How)
		default:
			s += "?"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestAnalyze(t *testing.T) {
	for _, c := range []struct {
		text  string
		qmark bool
		want  string
	}{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = $1", false, "$1 pgbench_accounts.aid (col = $n)"},
		{"UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", false,
			"$1 pgbench_accounts.abalance (arithmetic); $2 pgbench_accounts.aid (col = $n)"},
		{"UPDATE t SET a = $1, b = $2 WHERE id = $3", false, "$1 t.a (SET); $2 t.b (SET); $3 t.id (col = $n)"},
		{"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", false,
			"$1 pgbench_history.tid (VALUES); $2 pgbench_history.bid (VALUES); $3 pgbench_history.aid (VALUES); $4 pgbench_history.delta (VALUES)"},
		{"INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)", false, "$1 t.a (VALUES); $2 t.b (VALUES); $3 t.a (VALUES); $4 t.b (VALUES)"},
		{"INSERT INTO s.t VALUES ($1, $2::int, lower($3))", false, "$1 t#1 (VALUES); $2 t#2 (VALUES); $3 ?"},
		{"INSERT INTO t (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = $3", false,
			"$1 t.k (VALUES); $2 t.v (VALUES); $3 t.v (SET)"},
		{"SELECT * FROM t WHERE id IN ($1, $2, $3)", false, "$1 t.id (IN); $2 t.id (IN); $3 t.id (IN)"},
		{"SELECT * FROM t WHERE id NOT IN ($1)", false, "$1 t.id (IN)"},
		{"SELECT * FROM t WHERE $1 = id", false, "$1 t.id ($n = col)"},
		{"SELECT * FROM t WHERE d BETWEEN $1 AND $2 LIMIT $3 OFFSET $4", false,
			"$1 t.d (BETWEEN); $2 t.d (BETWEEN); $3 LIMIT; $4 LIMIT"},
		{"SELECT o.x FROM orders o JOIN customer AS c ON c.id = o.cid WHERE c.name = $1 AND o.d > $2", false,
			"$1 customer.name (col = $n); $2 orders.d (col > $n)"},
		{"SELECT x FROM a, b WHERE a.id = b.id AND y = $1", false, "$1 {a,b}.y (col = $n)"},
		{"SELECT x FROM a WHERE y = $1 AND z = lower($2)", false, "$1 a.y (col = $n); $2 ?"},
		{"SELECT $1", false, "$1 ?"},
		{`SELECT "Name" FROM "My Table" WHERE "Id" = $1`, false, "$1 My Table.Id (col = $n)"},
		{"DELETE FROM t WHERE k = $1", false, "$1 t.k (col = $n)"},
		{"SELECT * FROM t WHERE k = $1 FOR UPDATE SKIP LOCKED", false, "$1 t.k (col = $n)"},
		// MySQL digests
		{"SELECT `abalance` FROM `pgbench_accounts` WHERE `aid` = ?", true, "$1 pgbench_accounts.aid (col = $n)"},
		{"SELECT * FROM t WHERE id IN (...)", true, ""},
		{"INSERT INTO `t` ( `a` , `b` ) VALUES (...) ON DUPLICATE KEY UPDATE `b` = ?", true, "$1 t.b (SET)"},
		{"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c LIMIT ?, ?", true,
			"$1 sbtest1.id (BETWEEN); $2 sbtest1.id (BETWEEN); $3 LIMIT; $4 LIMIT"},
		{"UPDATE t SET a = a - ? WHERE b = ?", true, "$1 t.a (arithmetic); $2 t.b (col = $n)"},
		// utility statements
		{"BEGIN", false, ""},
		{"SET search_path = $1", false, "$1 ?"},
	} {
		a := Analyze(c.text, c.qmark)
		if got := describe(a); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.text, got, c.want)
		}
	}
}

func TestAnalyzeKinds(t *testing.T) {
	for _, c := range []struct {
		text      string
		qmark     bool
		utility   bool
		collapsed bool
	}{
		{"BEGIN", false, true, false},
		{"COMMIT", false, true, false},
		{"SET search_path = $1", false, true, false},
		{"VACUUM t", false, true, false},
		{"(SELECT 1)", false, false, false},
		{"WITH x AS (SELECT 1) SELECT * FROM x", false, false, false},
		{"SELECT * FROM t WHERE id IN (...)", true, false, true},
		{"SELECT * FROM t WHERE id IN ($1 /*, ... */)", false, false, true},
		{"SELECT * FROM t WHERE id = ANY($1)", false, false, false},
	} {
		a := Analyze(c.text, c.qmark)
		if a.Utility != c.utility || a.CollapsedIN != c.collapsed {
			t.Errorf("%s: utility %v collapsed %v, want %v %v", c.text, a.Utility, a.CollapsedIN, c.utility, c.collapsed)
		}
	}
}

// FuzzAnalyze: any text is analyzed without panicking, with one parameter per placeholder number,
// each either inferred (a column with a table or candidates, a place, or a LIMIT) or with a reason.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"SELECT abalance FROM pgbench_accounts WHERE aid = $1",
		"INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4) ON CONFLICT (a) DO UPDATE SET b = $5",
		"SELECT o.x FROM orders o JOIN c ON c.id = o.cid WHERE c.n IN ($1, $2) AND o.d BETWEEN $3 AND $4 LIMIT $5",
		"SELECT `a` FROM `t` WHERE `b` = ? AND c IN (...) LIMIT ?, ?", "UPDATE t SET a = a + $1 WHERE $2 = b",
		"SELECT $tag$ $1 $tag$, '$2', \"$3\" /*, ... */ -- $4\n FROM t WHERE x = $5"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, qmark bool) {
		a := Analyze(text, qmark)
		for i, p := range a.Params {
			if p.N != i+1 {
				t.Fatalf("parameter %d numbered %d", i+1, p.N)
			}
			switch {
			case p.Limit:
			case p.Column != "" && (p.Table != nil || len(p.Candidates) > 1):
			case p.Position > 0 && p.Table != nil:
			case p.Reason != "" && !p.Inferred():
			default:
				t.Fatalf("%q: parameter %+v neither inferred nor explained", text, p)
			}
		}
	})
}

package capture

import (
	"math"
	"strings"
	"testing"
	"time"
)

func snap(at time.Time, evicted int64, stats ...Stat) Snapshot {
	s := Snapshot{At: at, Stats: map[string]Stat{}, Evicted: evicted}
	for _, st := range stats {
		s.Stats[st.ID] = st
	}
	return s
}

// TestBuild: deltas between snapshots, utility and capture's own statements set apart, the cover
// cut keeping the most called until the share is reached, rates over the window, evictions warned.
func TestBuild(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sel := "SELECT v FROM t WHERE k = $1"
	upd := "UPDATE t SET v = $1 WHERE k = $2"
	rare := "DELETE FROM t WHERE k = $1"
	start := snap(t0, 3,
		Stat{ID: "1", Text: sel, Calls: 1000, TotalMS: 100},
		Stat{ID: "2", Text: upd, Calls: 10, TotalMS: 10},
		Stat{ID: "9", Text: "BEGIN", Calls: 5})
	end := snap(t0.Add(10*time.Second), 5,
		Stat{ID: "1", Text: sel, Calls: 1700, TotalMS: 170}, // +700
		Stat{ID: "2", Text: upd, Calls: 260, TotalMS: 60},   // +250
		Stat{ID: "3", Text: rare, Calls: 50, TotalMS: 5},    // new: +50
		Stat{ID: "4", Text: "SELECT * FROM pg_stat_statements", Calls: 2},
		Stat{ID: "5", Text: "SELECT 1", Calls: 0},
		Stat{ID: "9", Text: "BEGIN", Calls: 305}) // +300 utility
	r := build(&pgSource{}, start, end, Options{Cover: 0.95, Sample: 10})
	if r.TotalCalls != 1000 || r.UtilityCalls != 300 || r.OwnCalls != 2 {
		t.Fatalf("total %d utility %d own %d, want 1000 300 2", r.TotalCalls, r.UtilityCalls, r.OwnCalls)
	}
	if len(r.Statements) != 2 || r.Statements[0].ID != "1" || r.Statements[1].ID != "2" {
		t.Fatalf("kept %v, want statements 1 and 2 (95%% of the calls)", r.Statements)
	}
	if s := r.Statements[0]; s.Calls != 700 || math.Abs(s.Share-0.7) > 1e-9 || math.Abs(s.RatePerSec-70) > 1e-9 || math.Abs(s.MeanMS-0.1) > 1e-9 {
		t.Errorf("statement 1: %+v", s)
	}
	if math.Abs(r.CoveredShare-0.95) > 1e-9 || r.LeftOutCalls != 50 {
		t.Errorf("covered %v left out %d, want 0.95 and 50", r.CoveredShare, r.LeftOutCalls)
	}
	if r.Evicted != 2 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "evicted") {
		t.Errorf("evicted %d, warnings %q", r.Evicted, r.Warnings)
	}
	// a higher cover keeps the third; a lower one only the first
	if r := build(&pgSource{}, start, end, Options{Cover: 1}); len(r.Statements) != 3 {
		t.Errorf("cover 100%%: %d statements, want 3", len(r.Statements))
	}
	if r := build(&pgSource{}, start, end, Options{Cover: 0.5}); len(r.Statements) != 1 {
		t.Errorf("cover 50%%: %d statements, want 1", len(r.Statements))
	}
	// a reset during the window: the counts since it
	end2 := snap(t0.Add(time.Second), 3, Stat{ID: "1", Text: sel, Calls: 40})
	r = build(&pgSource{}, start, end2, Options{Cover: 1})
	if r.TotalCalls != 40 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "reset") {
		t.Errorf("after a reset: total %d warnings %q", r.TotalCalls, r.Warnings)
	}
}

func TestRebuildCollapsed(t *testing.T) {
	cat := &catalog{family: "mysql", tables: []*table{{schema: "d", name: "t", cols: []column{{name: "a", ordinal: 1}, {name: "b", ordinal: 2}, {name: "c", ordinal: 3}}}}}
	for _, c := range []struct{ in, want string }{
		{"INSERT INTO `t` VALUES (...)", "INSERT INTO `t` VALUES (?, ?, ?)"},
		{"INSERT INTO `t` ( `a` , `b` ) VALUES (...) ON DUPLICATE KEY UPDATE `b` = ?", "INSERT INTO `t` ( `a` , `b` ) VALUES (?, ?) ON DUPLICATE KEY UPDATE `b` = ?"},
		{"SELECT `b` FROM `t` WHERE `a` IN (...) AND `c` = ?", "SELECT `b` FROM `t` WHERE `a` IN (?) AND `c` = ?"},
	} {
		got, notes := rebuildCollapsed(c.in, cat)
		if got != c.want || len(notes) != 1 {
			t.Errorf("%s\n got %s (%q)\nwant %s", c.in, got, notes, c.want)
		}
	}
	a := Analyze("INSERT INTO `t` ( `a` , `b` ) VALUES (?, ?) ON DUPLICATE KEY UPDATE `b` = ?", true)
	if got := describe(a); got != "$1 t.a (VALUES); $2 t.b (VALUES); $3 t.b (SET)" {
		t.Errorf("rebuilt insert: %s", got)
	}
}

func TestRewriteParams(t *testing.T) {
	name := func(n int) string { return ":p" + string(rune('0'+n)) }
	if got := rewriteParams("SELECT '$1', x FROM t WHERE a = $1 AND b = $2::int", false, name); got != "SELECT '$1', x FROM t WHERE a = :p1 AND b = :p2::int" {
		t.Errorf("got %s", got)
	}
	if got := rewriteParams("SELECT `a?` FROM t WHERE a = ? AND b IN (?, ?)", true, name); got != "SELECT `a?` FROM t WHERE a = :p1 AND b IN (:p2, :p3)" {
		t.Errorf("got %s", got)
	}
}

func TestTightenCalls(t *testing.T) {
	in := "SELECT COUNT ( * ) FROM `t` WHERE `a` IN (?) AND `b` = `CONCAT` ( ? ) AND c = ( ? )"
	want := "SELECT COUNT( * ) FROM `t` WHERE `a` IN(?) AND `b` = `CONCAT` ( ? ) AND c = ( ? )"
	if got := tightenCalls(in); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestResolveColumn: an unqualified column among several tables is the one table's that has it,
// or ambiguous; a position without a column list is the table's column at that place.
func TestResolveColumn(t *testing.T) {
	cat := &catalog{family: "postgres", schemas: []string{"public"}, tables: []*table{
		{schema: "public", name: "a", cols: []column{{name: "id", ordinal: 1}, {name: "x", ordinal: 2}}},
		{schema: "public", name: "b", cols: []column{{name: "id", ordinal: 1}, {name: "y", ordinal: 2}}},
		{schema: "other", name: "a", cols: []column{{name: "z", ordinal: 1}}},
	}}
	for _, c := range []struct {
		text string
		want string // table.column, or the reason's start
	}{
		{"SELECT 1 FROM a, b WHERE y = $1", "b.y"},
		{"SELECT 1 FROM a JOIN b ON a.id = b.id WHERE id = $1", "ambiguous: id is a column of a and b"},
		{"SELECT 1 FROM a, b WHERE w = $1", "no table of the statement has a column w"},
		{"SELECT 1 FROM a WHERE x = $1", "a.x"},
		{"SELECT 1 FROM other.a WHERE z = $1", "a.z"},
		{"SELECT 1 FROM a WHERE z = $1", "no column z in a"},
		{"INSERT INTO b VALUES ($1, $2)", "b.y"},
		{"SELECT 1 FROM nope WHERE q = $1", "no table nope in the catalog"},
	} {
		a := Analyze(c.text, false)
		p := a.Params[len(a.Params)-1]
		tb, col, why := resolveColumn(cat, p)
		got := why
		if tb != nil {
			got = tb.name + "." + col.name
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q", c.text, got, c.want)
		}
	}
}

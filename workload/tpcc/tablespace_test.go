package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// TestPlacementRoundRobin: the tables largest first, each on the next place; a primary key on the
// place after its table's, a secondary index on the one after that; STOCK and ORDER_LINE apart.
func TestPlacementRoundRobin(t *testing.T) {
	p := planPlacement(dialectPostgres, []string{"a", "b", "c"})
	want := map[string]string{
		"stock": "a", "stock_pkey": "b",
		"order_line": "b", "order_line_pkey": "c",
		"customer": "c", "customer_pkey": "a", "customer_name_idx": "b",
		"orders": "a", "orders_pkey": "b", "orders_customer_idx": "c",
		"history":   "b",
		"new_order": "c", "new_order_pkey": "a",
		"district": "a", "district_pkey": "b",
		"warehouse": "b", "warehouse_pkey": "c",
		"item": "c", "item_pkey": "a",
	}
	if len(p.Objects) != len(want) {
		t.Fatalf("%d objects placed, want %d: %+v", len(p.Objects), len(want), p.Objects)
	}
	for _, o := range p.Objects {
		if want[o.Name] != o.On {
			t.Errorf("%s %s on %q, want %q", o.Kind, o.Name, o.On, want[o.Name])
		}
	}
	if p.Objects[0].Name != "stock" || p.Objects[2].Name != "order_line" {
		t.Errorf("the largest tables are not placed first: %+v", p.Objects[:3])
	}
	// Every table and index of the schema is placed exactly once.
	seen := map[string]int{}
	for _, o := range p.Objects {
		seen[o.Name]++
	}
	for _, tb := range tables {
		if seen[tb.name] != 1 || len(tb.pk) > 0 && seen[tb.pkName()] != 1 {
			t.Errorf("table %s or its key placed %d/%d times", tb.name, seen[tb.name], seen[tb.pkName()])
		}
	}
	for _, x := range indexes {
		if seen[x.name] != 1 {
			t.Errorf("index %s placed %d times", x.name, seen[x.name])
		}
	}

	// Two places: STOCK and ORDER_LINE apart, each key apart from its table.
	p = planPlacement(dialectPostgres, []string{"a", "b"})
	if p.on("stock") == p.on("order_line") {
		t.Errorf("stock and order_line both on %s", p.on("stock"))
	}
	for _, tb := range tables {
		if len(tb.pk) > 0 && p.on(tb.name) == p.on(tb.pkName()) {
			t.Errorf("%s and its primary key both on %s", tb.name, p.on(tb.name))
		}
	}

	// MySQL's family: tables only (the indexes live in the table's file), round-robin.
	p = planPlacement(dialectMySQL, []string{"/d1", "/d2"})
	if len(p.Objects) != len(tables) {
		t.Fatalf("%d objects placed on MySQL, want the %d tables", len(p.Objects), len(tables))
	}
	for k, o := range p.Objects {
		if o.Kind != kindTable || o.Name != placementOrder[k].name || o.On != []string{"/d1", "/d2"}[k%2] {
			t.Errorf("object %d: %+v", k, o)
		}
	}
}

// TestPlacementDDL: the clauses CREATE TABLE and CREATE INDEX get, per family.
func TestPlacementDDL(t *testing.T) {
	p := planPlacement(dialectPostgres, []string{"fast", `we"ird`})
	if got := tStock.createSQL(dialectPostgres, false) + p.tableClause(tStock); !strings.HasSuffix(got, `) TABLESPACE "fast"`) {
		t.Errorf("stock's CREATE TABLE: %s", got)
	}
	if got := p.indexClause("stock_pkey"); got != ` TABLESPACE "we""ird"` {
		t.Errorf("stock_pkey's clause: %s", got)
	}
	var none *Placement
	if none.tableClause(tStock) != "" || none.indexClause("stock_pkey") != "" {
		t.Error("no placement gives clauses")
	}
	m := planPlacement(dialectMySQL, []string{"/mnt/a"})
	if got := tStock.createSQL(dialectMySQL, true) + m.tableClause(tStock); !strings.HasSuffix(got, mysqlTableOptions+" DATA DIRECTORY = '/mnt/a'") {
		t.Errorf("stock's CREATE TABLE on MySQL: %s", got)
	}
	if m.indexClause("customer_name_idx") != "" {
		t.Error("an index placed apart from its table on MySQL")
	}
	if got := mysqlFileName("candor_x-1"); got != "candor_x@002d1" {
		t.Errorf("mysqlFileName: %s", got)
	}
}

// TestTablespacesRefused: the engines without tablespaces are refused before anything connects,
// with the reason; bad names too.
func TestTablespacesRefused(t *testing.T) {
	w := &Workload{Options: Options{Warehouses: 1, Tablespaces: []string{"ts1"}}}
	for url, want := range map[string]string{
		"sqlite:x.db":                    "SQLite keeps the whole database in one file",
		"cockroachdb://root@127.0.0.1/x": "cockroachdb places its data over its own nodes",
		"tidb://root@127.0.0.1/x":        "TiDB places its data over its own storage nodes",
		"dolt://root@127.0.0.1/x":        "Dolt keeps its data in its own storage",
		"mysql://u@127.0.0.1/x":          `"ts1" is not an absolute directory`,
	} {
		p := w.Validate(workload.Validation{Cmd: workload.CmdLoad, DB: url})
		if len(p) != 1 || !strings.Contains(p[0], want) {
			t.Errorf("%s: %q, want one problem saying %q", url, p, want)
		}
	}
	if p := w.Validate(workload.Validation{Cmd: workload.CmdLoad, DB: "postgres://u@127.0.0.1/x"}); len(p) != 0 {
		t.Errorf("postgres: %q", p)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a", ""}, "empty name"},
		{[]string{"a", "a"}, `"a" twice`},
		{[]string{"pg_global"}, "shared catalogs"},
	} {
		if p := tablespacesProblems(c.names, "postgres", true); len(p) != 1 || !strings.Contains(p[0], c.want) {
			t.Errorf("%q: %q, want %q", c.names, p, c.want)
		}
	}
	if p := tablespacesProblems([]string{"/a'b"}, "mariadb", true); len(p) != 1 || !strings.Contains(p[0], "quote") {
		t.Errorf("a quote in a directory: %q", p)
	}
	// And at load time, on the opened SQLite database, before anything is created.
	db := sqliteTestDB(t)
	_, err := Load(context.Background(), db, LoadOptions{Warehouses: 1, Loaders: 1, Tablespaces: []string{"ts1"}})
	if !userr.Is(err) || !strings.Contains(err.Error(), "SQLite keeps the whole database in one file") {
		t.Fatalf("Load on SQLite with tablespaces: %v", err)
	}
	if has, err := HasData(context.Background(), db); err != nil || has {
		t.Errorf("the refused load left data (%v, %v)", has, err)
	}
}

// TestPlacementSection: the run's disclosure of a placement.
func TestPlacementSection(t *testing.T) {
	if placementSection(nil) != nil || placementText(nil) != "" {
		t.Error("a load without a placement discloses one")
	}
	s := placementSection(planPlacement(dialectMySQL, []string{"/d1", "/d2"}))
	if s.Columns[2] != "directory" || len(s.Rows) != len(tables) || s.Rows[0][0] != "stock" || s.Rows[0][2] != "/d1" {
		t.Errorf("section: %+v", s)
	}
	if !strings.Contains(strings.Join(s.Notes, " "), "indexes in the table's own file") {
		t.Errorf("notes: %q", s.Notes)
	}
	if got := placementText(planPlacement(dialectPostgres, []string{"a", "b"})); got != "; tables spread over tablespaces a, b" {
		t.Errorf("placementText: %q", got)
	}
}

// TestShardTablespaces: every shard of a load gives the same --tablespaces as shard 0.
func TestShardTablespaces(t *testing.T) {
	info := LoadInfo{Warehouses: 4, Seed: 1, Placement: planPlacement(dialectPostgres, []string{"a", "b"})}
	o := LoadOptions{Warehouses: 4, Seed: 1, Shard: workload.Shard{Index: 1, Count: 2}, Tablespaces: []string{"a", "b"}}
	if err := sameLoad(info, o); err != nil {
		t.Errorf("the same tablespaces: %v", err)
	}
	for _, ts := range [][]string{nil, {"a"}, {"b", "a"}} {
		o.Tablespaces = ts
		if err := sameLoad(info, o); !userr.Is(err) || !strings.Contains(err.Error(), "give every shard the same --tablespaces") {
			t.Errorf("%q against shard 0's a,b: %v", ts, err)
		}
	}
	if err := sameLoad(LoadInfo{Warehouses: 4, Seed: 1}, o); err == nil {
		t.Error("tablespaces on a shard of a load without them: no error")
	}
}

// TestPlacementShares: the load's bytes split over the places add up to the whole, every table and
// index has a size, and ITEM's share shrinks as the warehouses grow.
func TestPlacementShares(t *testing.T) {
	for _, fam := range []string{dialectPostgres, dialectMySQL} {
		p := planPlacement(fam, []string{"a", "b", "c"})
		for _, o := range p.Objects {
			if _, ok := objectBytes[o.Name]; !ok {
				t.Errorf("%s has no size", o.Name)
			}
		}
		s := p.shares(1)
		if sum := s[0] + s[1] + s[2]; sum < 0.999999 || sum > 1.000001 || s[0] <= 0 || s[1] <= 0 || s[2] <= 0 {
			t.Errorf("%s: shares %v", fam, s)
		}
	}
	nine := planPlacement(dialectMySQL, []string{"/1", "/2", "/3", "/4", "/5", "/6", "/7", "/8", "/9"}) // a table each
	if few, many := nine.shares(1)[8], nine.shares(1000)[8]; nine.Objects[8].Name != "item" || few <= many || many <= 0 {
		t.Errorf("ITEM's share at 1 and 1,000 warehouses: %g, %g", few, many)
	}
}

package bulkload

import (
	"slices"
	"testing"

	"github.com/candor-bench/candor/workload/sqlexec"
)

func TestStatsSQL(t *testing.T) {
	for _, tc := range []struct {
		fam, engine, table string
		want               []string
	}{
		{sqlexec.FamilyPostgres, "postgres", "kv", []string{"VACUUM (ANALYZE) kv"}},
		{sqlexec.FamilyPostgres, sqlexec.EngineCockroach, "kv", []string{"ANALYZE kv"}},
		{sqlexec.FamilyPostgres, sqlexec.EngineYugabyte, "usertable", []string{"ANALYZE usertable"}},
		{sqlexec.FamilyMySQL, "mysql", "kv", []string{"ANALYZE TABLE kv"}},
		{sqlexec.FamilyMySQL, "mariadb", "usertable", []string{"ANALYZE TABLE usertable"}},
		{sqlexec.FamilySQLite, "sqlite", "kv", []string{"ANALYZE", "PRAGMA wal_checkpoint(TRUNCATE)"}},
	} {
		if got := StatsSQL(tc.fam, tc.engine, tc.table); !slices.Equal(got, tc.want) {
			t.Errorf("%s/%s statistics of %s: %v, want %v", tc.fam, tc.engine, tc.table, got, tc.want)
		}
	}
}

func TestCursor(t *testing.T) {
	c := Cursor{N: 3}
	var rows []int
	for c.Next() {
		rows = append(rows, c.Row())
	}
	if !slices.Equal(rows, []int{0, 1, 2}) || c.Next() || c.Err() != nil {
		t.Errorf("rows %v", rows)
	}
}

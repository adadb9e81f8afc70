package bulkload

import (
	"context"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/loadstate"
)

// TestRoomTables: before a load creates or drops anything, every table it makes that exists must
// be its own. A table of another workload's recorded load is refused naming the table, its owner
// and its drop, with or without --drop; a table no load recorded other than the workload's own
// Table is refused naming it; the workload's own Table alone is replaced with --drop, as before.
func TestRoomTables(t *testing.T) {
	ctx := context.Background()
	loadstate.Register(loadstate.Claim{Workload: "roomtest_other", Owns: loadstate.Names("shared_t")})
	db := dbtest.SQLite(t)
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dropped := 0
	r := Room{Workload: "roomtest", Table: "main_t", Name: "main_t", Tables: []string{"main_t", "side_t", "shared_t"},
		Describe: func(loadstate.State) string { return "" },
		DropTables: func(ctx context.Context, ctl driver.Conn, _ loadstate.State) error {
			dropped++
			_, err := ctl.Exec(ctx, "DROP TABLE IF EXISTS main_t")
			return err
		}}
	exec := func(q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(want string) {
		t.Helper()
		for _, drop := range []bool{false, true} {
			if err := r.make(ctx, db, c, drop); err == nil || !userr.Is(err) || !strings.Contains(err.Error(), want) {
				t.Errorf("drop %v: %v, want a user error with %q", drop, err, want)
			}
		}
		if dropped != 0 {
			t.Fatalf("a refused load dropped tables")
		}
	}
	exec("CREATE TABLE main_t (k integer)")
	exec("CREATE TABLE shared_t (k integer)")
	if _, err := loadstate.Begin(ctx, db, "roomtest_other", struct{}{}, 1, "test"); err != nil {
		t.Fatal(err)
	}
	refused("holds the table shared_t of its roomtest_other load, and a roomtest load makes a table of that name: load roomtest into another database, or remove the roomtest_other load first with candor roomtest_other drop")
	if err := loadstate.Drop(ctx, db, "roomtest_other"); err != nil {
		t.Fatal(err)
	}
	exec("DROP TABLE shared_t")
	exec("CREATE TABLE side_t (k integer)")
	refused("has a table side_t that no candor load recorded")
	exec("DROP TABLE side_t")
	if err := r.make(ctx, db, c, true); err != nil || dropped != 1 {
		t.Errorf("the workload's own unrecorded table with --drop: %v (dropped %d times), want it replaced", err, dropped)
	}
}

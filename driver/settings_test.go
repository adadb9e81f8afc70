package driver_test

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
)

// TestSettingsRefusedAreOptional: a session setting the server refuses (PostgreSQL's own refusal of
// a setting it does not know) is left out and said once, the others still made; a connection lost
// is an error, not a refusal.
func TestSettingsRefusedAreOptional(t *testing.T) {
	ctx := drivertest.Ctx(t)
	db := dbtest.FreshPostgres(t, "candor_test")
	var told []string
	set := driver.NewSettings(driver.NoteOnce(func(s string) { told = append(told, s) }),
		"SET work_mem = '3MB'", "SET candor_no_such_setting = 1", "SET enable_nestloop = off")
	for range 2 { // two connections: said once
		c := drivertest.Connect(t, db)
		if err := set.Apply(ctx, db, c); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		var wm, nl string
		if err := c.QueryRow(ctx, "SELECT current_setting('work_mem'), current_setting('enable_nestloop')").Scan(&wm, &nl); err != nil || wm != "3MB" || nl != "off" {
			t.Fatalf("after Apply: work_mem %q, enable_nestloop %q (%v)", wm, nl, err)
		}
	}
	r := set.Refused()
	if len(r) != 1 || len(told) != 1 || told[0] != r[0] ||
		!strings.HasPrefix(r[0], `the server refused SET candor_no_such_setting = 1 (ERROR: unrecognized configuration parameter "candor_no_such_setting"`) ||
		!strings.HasSuffix(r[0], "): ran without it") {
		t.Fatalf("refused %q, told %q", r, told)
	}

	// A lost connection is the caller's error.
	c := drivertest.Connect(t, db)
	other := drivertest.Connect(t, db)
	var pid int64
	if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	drivertest.MustExec(t, other, "SELECT pg_terminate_backend($1::int)", pid)
	if err := driver.NewSettings(nil, "SET work_mem = '3MB'").Apply(ctx, db, c); err == nil {
		t.Fatal("Apply on a terminated connection: no error")
	}
	var none *driver.Settings
	if err := none.Apply(ctx, db, c); err != nil || none.Refused() != nil {
		t.Fatalf("nil Settings: %v", err)
	}
}

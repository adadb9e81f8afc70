package run

import (
	"github.com/candor-bench/candor/workload"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/candor-bench/candor/driver/mysql" // the dialects of the MySQL wire protocol
	_ "github.com/candor-bench/candor/driver/sqlite"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// TestProceduresRefusedBeforeConnecting: --procedures with a URL whose scheme names an engine
// without stored procedures is a problem of the plan itself, found by Validate (nothing listens on
// port 1: any attempt to connect would give another error).
func TestProceduresRefusedBeforeConnecting(t *testing.T) {
	lite := t.TempDir() + "/never-created.db"
	for _, c := range []struct{ url, engine string }{
		{"tidb://u:secret@127.0.0.1:1/db", "tidb"},
		{"dolt://u:secret@127.0.0.1:1/db", "dolt"},
		{"sqlite:" + lite, "sqlite"},
	} {
		check := func(what string, err error) {
			t.Helper()
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "--procedures is not available on "+c.engine) ||
				!strings.Contains(err.Error(), "drop --procedures") || strings.Contains(err.Error(), "secret") {
				t.Errorf("%s on %s: %v, want the user error naming %s and the fix", what, c.engine, err, c.engine)
			}
		}
		rp := RunPlan{Workload: tpccW(0, true), DB: c.url, Mode: workload.ModeThroughput, Duration: time.Second, Interval: time.Second}
		check("RunPlan.Validate", rp.Validate())
		lp := LoadPlan{Workload: tpccW(1, true), DB: c.url, Loaders: 1}
		check("LoadPlan.Validate", lp.Validate())
		loads := LoadsPlan{Base: rp, PeakDuration: time.Second, Percents: DefaultPercents}
		check("LoadsPlan.Validate", loads.Validate())
		rp.Workload, lp.Workload = tpccW(0, false), tpccW(1, false)
		if err := rp.Validate(); err != nil {
			t.Errorf("RunPlan.Validate without --procedures on %s: %v", c.engine, err)
		}
		if err := lp.Validate(); err != nil {
			t.Errorf("LoadPlan.Validate without --procedures on %s: %v", c.engine, err)
		}
	}
	if _, err := os.Stat(lite); !os.IsNotExist(err) {
		t.Errorf("the SQLite file was created: %v", err)
	}
	for _, u := range []string{"mysql://u@127.0.0.1:1/db", "mariadb://u@127.0.0.1:1/db"} {
		rp := RunPlan{Workload: tpccW(0, true), DB: u, Mode: workload.ModeThroughput, Duration: time.Second, Interval: time.Second}
		if err := rp.Validate(); err != nil {
			t.Errorf("RunPlan.Validate with --procedures on %s: %v", u, err)
		}
	}
}

// TestMySQLFamilyFacts: the engines of the MySQL family are judged on InnoDB's durability
// settings, and a server whose version names another engine than the dialect is warned of.
func TestMySQLFamilyFacts(t *testing.T) {
	for _, kind := range []string{"mysql", "mariadb", "tidb", "dolt"} {
		if got := durabilityOff(kind, map[string]string{"innodb_flush_log_at_trx_commit": "2"}); len(got) != 1 {
			t.Errorf("durabilityOff(%s, flush 2) = %v, want innodb_flush_log_at_trx_commit=2", kind, got)
		}
	}
	for _, c := range []struct{ dialect, version, warn string }{
		{"mysql", "MariaDB 10.11.19-0+deb12u1 (Debian 12)", ""},
		{"mysql", "MySQL 8.0.36 (MySQL Community Server - GPL)", ""},
		{"mysql", "TiDB v7.5.0 (MySQL 8.0.11 compatible)", "--dialect tidb"},
		{"mysql", "Dolt 8.0.33", "--dialect dolt"},
		{"tidb", "MariaDB 10.11.19-0+deb12u1 (Debian 12)", "ran against another engine"},
		{"tidb", "TiDB v7.5.0 (MySQL 8.0.11 compatible)", ""},
		{"dolt", "MySQL 8.0.36", "ran against another engine"},
		{"mariadb", "MariaDB 11.4.2", ""},
		{"mariadb", "MySQL 8.0.36", "ran against another engine"},
	} {
		r := &report.Result{}
		addEngineFacts(r, &RunPlan{Workload: tpccW(0, false), Dialect: c.dialect}, isolationFacts{}, c.version)
		var msgs []string
		for _, w := range r.Warnings {
			if w.Code == "DIALECT_MISMATCH" {
				msgs = append(msgs, w.Message)
			}
		}
		got := strings.Join(msgs, " | ")
		if (c.warn == "") != (got == "") || !strings.Contains(got, c.warn) {
			t.Errorf("dialect %s, server %q: DIALECT_MISMATCH %q, want one saying %q", c.dialect, c.version, got, c.warn)
		}
	}
}

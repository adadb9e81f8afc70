package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// TPC-C and kv through PgBouncer (scripts/pgbouncer-throwaway) in front of the test PostgreSQL, in
// session and in transaction pooling: load, a short run and the check, without a single failure.
// In transaction pooling the direct path's named prepared statements would run on other server
// connections than the ones that prepared them ("prepared statement "candor_3" does not exist"):
// the driver finds the pooling when it opens the database and says what it chose in the
// disclosure. A mode that cannot work there, asked for in the URL, is refused with the reason.
func TestPgBouncerPooling(t *testing.T) {
	parallel(t)
	for _, m := range []struct {
		name, env string
		client    string // in the disclosure's client path
	}{
		{"session", dbtest.EnvPgBouncerSession, "statements with arguments on candor's wire (direct.go), the rest through pgconn; through a connection pooler in session pooling"},
		{"transaction", dbtest.EnvPgBouncerTxn, "every statement with arguments through pgx, default_query_exec_mode=cache describe (chosen by candor: the server is reached through a connection pooler in transaction pooling"},
	} {
		t.Run(m.name, func(t *testing.T) {
			raw := dbtest.FreshPgBouncerURL(t, m.env, "candor_pgbouncer")
			dir := t.TempDir()
			short := []string{"--mode", "throughput", "--duration", "3s", "--warmup", "0s", "--interval", "1s", "-q"}
			flows := []struct {
				name      string
				load, run []string
			}{
				{"tpcc", []string{"--warehouses", "1", "--loaders", "2"}, nil},
				{"kv", []string{"--insert-count", "2000", "--loaders", "2"}, []string{"--terminals", "4"}},
			}
			for _, f := range flows {
				out := filepath.Join(dir, f.name)
				pgbouncerCLI(t, 0, append([]string{f.name, "load", "--db", raw}, f.load...)...)
				pgbouncerCLI(t, 0, append(append([]string{f.name, "run", "--db", raw, "--out", out}, short...), f.run...)...)
				res := readResult(t, out)
				total := 0.0
				for name, op := range res["operations"].(map[string]any) {
					o := op.(map[string]any)
					total += o["count"].(float64)
					if o["errors"].(float64) != 0 {
						t.Errorf("%s through PgBouncer in %s pooling: %v errors in %s", f.name, m.name, o["errors"], name)
					}
				}
				if total == 0 {
					t.Errorf("%s through PgBouncer in %s pooling: no operation completed", f.name, m.name)
				}
				client, _ := res["database"].(map[string]any)["client"].(string)
				if !strings.HasPrefix(client, m.client) {
					t.Errorf("%s through PgBouncer in %s pooling: the disclosure's client path is\n%q, want it to start with\n%q", f.name, m.name, client, m.client)
				}
				for _, w := range res["warnings"].([]any) {
					if strings.Contains(w.(map[string]any)["code"].(string), "DURABILITY_OFF") {
						t.Errorf("%s through PgBouncer in %s pooling: the run found durability off (a load's session setting left on a pooled server connection?)", f.name, m.name)
					}
				}
				if out := pgbouncerCLI(t, 0, f.name, "check", "--db", raw); strings.Contains(out, "FAIL") {
					t.Errorf("%s check through PgBouncer in %s pooling failed", f.name, m.name)
				}
			}
			if m.name != "transaction" {
				return
			}
			// Modes that need one server connection across exchanges are refused there, with the reason.
			for mode, why := range map[string]string{
				"cache_statement": "named prepared statements stay on the server connection",
				"describe_exec":   "two exchanges, which may reach two server connections",
			} {
				if out := pgbouncerCLI(t, 2, "kv", "check", "--db", raw+"?default_query_exec_mode="+mode); !strings.Contains(out, why) {
					t.Errorf("default_query_exec_mode=%s through transaction pooling: the refusal does not say %q", mode, why)
				}
			}
			// A mode that works there, asked for in the URL, is the one used, and said.
			out := filepath.Join(dir, "exec")
			pgbouncerCLI(t, 0, append([]string{"kv", "run", "--db", raw + "?default_query_exec_mode=exec", "--out", out}, short...)...)
			client, _ := readResult(t, out)["database"].(map[string]any)["client"].(string)
			if want := "default_query_exec_mode=exec (the URL's default_query_exec_mode, through a connection pooler in transaction pooling)"; !strings.Contains(client, want) {
				t.Errorf("kv with default_query_exec_mode=exec through transaction pooling: client path %q lacks %q", client, want)
			}
		})
	}
}

// TestPostgresExecModeURL: pgx's default_query_exec_mode and statement_cache_capacity in the URL
// are honoured (the direct path is off in another mode and says so) or refused, on the server itself,
// which is no pooler.
func TestPostgresExecModeURL(t *testing.T) {
	raw := dbtest.FreshPostgresURL(t, "candor_execmode")
	db, _ := connectURL(t, raw)
	p := db.(interface{ ClientPath() string }).ClientPath()
	if strings.Contains(p, "pooler") || !strings.HasPrefix(p, "statements with arguments on candor's wire") {
		t.Errorf("the server itself: client path %q", p)
	}
	db, _ = connectURL(t, raw+"?default_query_exec_mode=simple_protocol")
	if p := db.(interface{ ClientPath() string }).ClientPath(); !strings.Contains(p, "default_query_exec_mode=simple protocol (the URL's default_query_exec_mode)") {
		t.Errorf("default_query_exec_mode=simple_protocol: client path %q", p)
	}
	if out := pgbouncerCLI(t, 2, "kv", "check", "--db", raw+"?statement_cache_capacity=0"); !strings.Contains(out, "without its cache of prepared statements") {
		t.Errorf("statement_cache_capacity=0 is not refused with its reason")
	}
}

func pgbouncerCLI(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out := runCLI(t, args...)
	if code != want {
		t.Fatalf("candor %s: exit %d, want %d", strings.Join(args, " "), code, want)
	}
	return out
}

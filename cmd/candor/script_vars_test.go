package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// pgbench's variables bound as pgbench binds them: an integer, a double and a boolean in a
// statement whose parameter the server types from them or as text (`SELECT :x`), on every engine.
// PostgreSQL typed `SELECT $1`'s parameter as text and refused the integer 5 ("unable to encode 5
// into text format for text").
func TestScriptVariableTypes(t *testing.T) {
	parallel(t)
	for _, e := range []struct{ name, db string }{
		{"sqlite", "sqlite:" + filepath.Join(t.TempDir(), "vars.db")},
		{"postgres", dbtest.FreshPostgresURL(t, "candor_script_vars")},
		{"mysql", dbtest.FreshMySQLURL(t, "candor_script_vars")},
	} {
		t.Run(e.name, func(t *testing.T) {
			dir := t.TempDir()
			if code, _ := runCLI(t, "script", "load", "--db", e.db, "--scale", "1"); code != 0 {
				t.Fatalf("load: exit %d", code)
			}
			vars := filepath.Join(dir, "vars.sql")
			os.WriteFile(vars, []byte("\\set i 5\n\\set d 2.5\n\\set b true\n\\set big 9007199254740993\nSELECT :i;\nSELECT :d;\nSELECT :b;\nSELECT :i + 1;\nSELECT :big;\n"), 0o644)
			out := filepath.Join(dir, "run")
			code, text := runCLI(t, "script", "run", "--db", e.db, "-f", vars, "--duration", "1s", "--warmup", "0s", "--no-check", "-q", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, text)
			}
			ops := readResult(t, out)["operations"].(map[string]any)
			for _, op := range []string{"vars", "vars:1", "vars:2", "vars:3", "vars:4", "vars:5"} {
				o, _ := ops[op].(map[string]any)
				if o == nil || o["count"].(float64) == 0 || o["errors"] != nil && o["errors"].(float64) != 0 {
					t.Errorf("%s: %v", op, o)
				}
			}
		})
	}
}

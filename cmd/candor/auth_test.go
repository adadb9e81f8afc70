package main

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// TestAuthMethods: kv loads, runs and checks as users that log in with each password method the
// throwaway servers set up (scripts/pg-throwaway: scram-sha-256 and md5 in pg_hba.conf;
// scripts/mariadb-throwaway: mysql_native_password and ed25519), and a wrong password is refused
// with exit 2 and the server's reason: the method really is asked.
func TestAuthMethods(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		method, user, password string
		fresh                  func(testing.TB, string) string
	}{
		{"scram-sha-256", "candor_scram", "candor-scram-pw-71", dbtest.FreshPostgresURL},
		{"md5", "candor_md5", "candor-md5-pw-52", dbtest.FreshPostgresURL},
		{"mysql_native_password", "candor_native", "candor-native-pw-64", dbtest.FreshMySQLURL},
		{"ed25519", "candor_ed25519", "candor-ed-pw-38", dbtest.FreshMySQLURL},
	} {
		t.Run(c.method, func(t *testing.T) {
			u, err := url.Parse(c.fresh(t, "candor_auth"))
			if err != nil {
				t.Fatal(err)
			}
			u.User = url.UserPassword(c.user, c.password)
			raw := u.String()
			pgbouncerCLI(t, 0, "kv", "load", "--db", raw, "--insert-count", "500")
			out := filepath.Join(t.TempDir(), "run")
			pgbouncerCLI(t, 0, "kv", "run", "--db", raw, "--mode", "throughput", "--terminals", "2", "--duration", "1s", "--warmup", "0s", "--interval", "1s", "-q", "--out", out)
			for name, op := range readResult(t, out)["operations"].(map[string]any) {
				if n := op.(map[string]any)["errors"].(float64); n != 0 {
					t.Errorf("%s: %v errors in %s", c.method, n, name)
				}
			}
			if out := pgbouncerCLI(t, 0, "kv", "check", "--db", raw); strings.Contains(out, "FAIL") {
				t.Errorf("%s: kv check failed", c.method)
			}
			u.User = url.UserPassword(c.user, "wrong-"+c.password)
			if out := pgbouncerCLI(t, 2, "kv", "check", "--db", u.String()); !strings.Contains(out, "refused user "+c.user) || strings.Contains(out, c.password) {
				t.Errorf("%s: a wrong password is not refused naming the user (or the message shows the password)", c.method)
			}
		})
	}
}

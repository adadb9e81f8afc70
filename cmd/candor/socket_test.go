package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// TestUnixSockets: kv loads, runs and checks through each server's Unix socket (PostgreSQL's
// host=DIR, MySQL's socket=PATH; scripts/test names them in CANDOR_TEST_PG_SOCKET_DIR and
// CANDOR_TEST_MYSQL_SOCKET), and the server says the session came through it (no client address
// on PostgreSQL, user@localhost on MariaDB).
func TestUnixSockets(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		name, env, probe, want string
		fresh                  func(testing.TB, string) string
		viaSocket              func(u *url.URL, sock string)
	}{
		{"postgres", "CANDOR_TEST_PG_SOCKET_DIR", "SELECT coalesce(host(inet_client_addr()), 'socket')", "socket", dbtest.FreshPostgresURL,
			func(u *url.URL, dir string) { u.RawQuery = "host=" + dir + "&port=" + u.Port(); u.Host = "" }},
		{"mysql", "CANDOR_TEST_MYSQL_SOCKET", "SELECT SUBSTRING_INDEX(CURRENT_USER(), '@', -1)", "localhost", dbtest.FreshMySQLURL,
			func(u *url.URL, path string) { u.Host = "localhost"; u.RawQuery = "socket=" + path }},
	} {
		t.Run(c.name, func(t *testing.T) {
			sock := os.Getenv(c.env)
			if sock == "" {
				t.Fatalf("%s is not set: this test needs the server's Unix socket; run it through scripts/test", c.env)
			}
			u, err := url.Parse(c.fresh(t, "candor_socket"))
			if err != nil {
				t.Fatal(err)
			}
			c.viaSocket(u, sock)
			raw := u.String()
			_, conn := connectURL(t, raw)
			var got string
			if err := conn.QueryRow(context.Background(), c.probe).Scan(&got); err != nil || got != c.want {
				t.Fatalf("%s through %s: the server saw %q (%v), want %q", c.name, sock, got, err, c.want)
			}
			pgbouncerCLI(t, 0, "kv", "load", "--db", raw, "--insert-count", "500")
			out := filepath.Join(t.TempDir(), "run")
			pgbouncerCLI(t, 0, "kv", "run", "--db", raw, "--mode", "throughput", "--terminals", "2", "--duration", "1s", "--warmup", "0s", "--interval", "1s", "-q", "--out", out)
			for name, op := range readResult(t, out)["operations"].(map[string]any) {
				if n := op.(map[string]any)["errors"].(float64); n != 0 {
					t.Errorf("%s through its socket: %v errors in %s", c.name, n, name)
				}
			}
			if out := pgbouncerCLI(t, 0, "kv", "check", "--db", raw); strings.Contains(out, "FAIL") {
				t.Errorf("%s through its socket: kv check failed", c.name)
			}
		})
	}
}

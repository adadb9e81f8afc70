package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// TestPostgresTLS: kv loads, runs and checks over TLS (the server's certificate made by
// scripts/pg-throwaway's own authority), with sslmode=verify-full against that authority and with
// sslmode=require; the disclosure says the connection is encrypted, and a run without TLS says it
// is not. verify-full without the authority is refused: the certificate really is checked.
func TestPostgresTLS(t *testing.T) {
	parallel(t)
	raw, ca := dbtest.FreshPostgresTLSURL(t, "candor_tls")
	verify := raw + "?sslmode=verify-full&sslrootcert=" + ca
	dir := t.TempDir()
	pgbouncerCLI(t, 0, "kv", "load", "--db", verify, "--insert-count", "1000")
	short := []string{"--mode", "throughput", "--terminals", "2", "--duration", "2s", "--warmup", "0s", "--interval", "1s", "-q"}
	for _, c := range []struct{ name, url, want string }{
		{"verify-full", verify, "; encrypted with TLS 1."},
		{"require", raw + "?sslmode=require", "; encrypted with TLS 1."},
		{"disable", raw + "?sslmode=disable", "; not encrypted"},
	} {
		out := filepath.Join(dir, c.name)
		pgbouncerCLI(t, 0, append([]string{"kv", "run", "--db", c.url, "--out", out}, short...)...)
		res := readResult(t, out)
		client, _ := res["database"].(map[string]any)["client"].(string)
		if !strings.Contains(client, c.want) || !strings.HasPrefix(client, "statements with arguments on candor's wire") {
			t.Errorf("sslmode=%s: client path %q, want candor's wire and %q", c.name, client, c.want)
		}
		for name, op := range res["operations"].(map[string]any) {
			if n := op.(map[string]any)["errors"].(float64); n != 0 {
				t.Errorf("sslmode=%s: %v errors in %s", c.name, n, name)
			}
		}
	}
	if out := pgbouncerCLI(t, 0, "kv", "check", "--db", verify); strings.Contains(out, "FAIL") {
		t.Errorf("kv check over TLS failed")
	}
	if out := pgbouncerCLI(t, 2, "kv", "check", "--db", raw+"?sslmode=verify-full"); !strings.Contains(out, "certificate signed by unknown authority") {
		t.Errorf("verify-full without the authority's certificate: not refused for the certificate")
	}
}

// TestMySQLTLS: kv loads, runs and checks over TLS on MariaDB (scripts/mariadb-throwaway turns TLS
// on with a certificate of its own authority): tls=skip-verify, tls=preferred and tls-ca= that
// authority (verified); the disclosure
// says go-sql-driver's statements carry the run, because of TLS. tls=true verifies the certificate
// against the system's authorities, which do not know the test's: refused, naming the cause.
func TestMySQLTLS(t *testing.T) {
	parallel(t)
	raw := dbtest.FreshMySQLURL(t, "candor_tls")
	dir := t.TempDir()
	pgbouncerCLI(t, 0, "kv", "load", "--db", raw+"?tls=skip-verify", "--insert-count", "1000")
	short := []string{"--mode", "throughput", "--terminals", "2", "--duration", "2s", "--warmup", "0s", "--interval", "1s", "-q"}
	ca := os.Getenv("CANDOR_TEST_MYSQL_TLS_CA")
	if ca == "" {
		t.Fatal("CANDOR_TEST_MYSQL_TLS_CA is not set: this test needs the certificate authority of the test MariaDB; run it through scripts/test")
	}
	for i, mode := range []string{"tls=skip-verify", "tls=preferred", "tls-ca=" + ca} {
		out := filepath.Join(dir, "run"+strconv.Itoa(i))
		pgbouncerCLI(t, 0, append([]string{"kv", "run", "--db", raw + "?" + mode, "--out", out}, short...)...)
		res := readResult(t, out)
		client, _ := res["database"].(map[string]any)["client"].(string)
		if want := "prepared statements through go-sql-driver, one per round trip (TLS: candor's wire does not speak it)"; !strings.HasPrefix(client, want) {
			t.Errorf("%s: client path %q, want %q", mode, client, want)
		}
		for name, op := range res["operations"].(map[string]any) {
			if n := op.(map[string]any)["errors"].(float64); n != 0 {
				t.Errorf("%s: %v errors in %s", mode, n, name)
			}
		}
	}
	if out := pgbouncerCLI(t, 0, "kv", "check", "--db", raw+"?tls=skip-verify"); strings.Contains(out, "FAIL") {
		t.Errorf("kv check over TLS failed")
	}
	if out := pgbouncerCLI(t, 2, "kv", "check", "--db", raw+"?tls=true"); !strings.Contains(out, "certificate signed by unknown authority") {
		t.Errorf("tls=true with the test's own authority: not refused for the certificate")
	}
	if out := pgbouncerCLI(t, 2, "kv", "check", "--db", raw+"?tls=skip-verify&tls-ca="+ca); !strings.Contains(out, "which tls=skip-verify does not") {
		t.Errorf("tls-ca= with tls=skip-verify: not refused as a contradiction")
	}
}

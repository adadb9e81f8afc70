package dbtest

import (
	"net/url"
	"testing"
)

// The PgBouncers scripts/test starts (scripts/pgbouncer-throwaway) in front of the server of
// CANDOR_TEST_PG_URL: one in session pooling, one in transaction pooling.
const (
	EnvPgBouncerSession = "CANDOR_TEST_PGBOUNCER_SESSION_URL"
	EnvPgBouncerTxn     = "CANDOR_TEST_PGBOUNCER_TXN_URL"
)

// FreshPgBouncerURL creates a fresh database on the test server (see FreshPostgresURL) and returns
// its URL through the PgBouncer named by env, which serves every database of that server under its
// own name.
func FreshPgBouncerURL(t testing.TB, env, prefix string) string {
	t.Helper()
	bouncer := envURL(t, env, "this integration test needs PgBouncer in front of the test PostgreSQL")
	direct, err := url.Parse(FreshPostgresURL(t, prefix))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(bouncer)
	if err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	u.Path = direct.Path
	return u.String()
}

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

// The PostgreSQL with TLS on that scripts/test starts (scripts/pg-throwaway with PG_TLS=1), and the
// certificate of the authority that signed its certificate.
const (
	EnvPGTLS   = "CANDOR_TEST_PG_TLS_URL"
	EnvPGTLSCA = "CANDOR_TEST_PG_TLS_CA"
)

// FreshPostgresTLSURL creates a fresh database on the TLS server and returns its URL (without TLS
// parameters) and the path of the authority's certificate.
func FreshPostgresTLSURL(t testing.TB, prefix string) (raw, ca string) {
	t.Helper()
	ca = envURL(t, EnvPGTLSCA, "this integration test needs the certificate authority of the TLS PostgreSQL")
	return freshOn(t, envURL(t, EnvPGTLS, "this integration test needs a PostgreSQL with TLS on"), prefix), ca
}

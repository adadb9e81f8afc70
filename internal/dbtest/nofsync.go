package dbtest

import "testing"

// EnvPGNoFsync names a second test PostgreSQL server, started with fsync=off (scripts/test starts
// one with scripts/pg-throwaway and PG_EXTRA_CONF), for the tests of the DURABILITY_OFF warning.
const EnvPGNoFsync = "CANDOR_TEST_PG_NOFSYNC_URL"

// FreshPostgresNoFsyncURL creates an empty database named prefix_<random> on the fsync=off test
// server and returns its URL; the database is dropped when the test ends. A missing server fails
// the test.
func FreshPostgresNoFsyncURL(t testing.TB, prefix string) string {
	t.Helper()
	return freshOn(t, envURL(t, EnvPGNoFsync, "this test needs a PostgreSQL server started with fsync=off"), prefix)
}

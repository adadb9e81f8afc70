package postgres_test

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
)

// TestNumbersAsTextThroughPgx: a number or bool bound to a parameter the server types as text
// (pgbench's `\set x 5` then `SELECT :x;`) goes as its text on the statements left to pgx too, as
// on candor's wire: through PgBouncer in transaction pooling (every statement through pgx in
// cache_describe mode) and with the URL's default_query_exec_mode. pgx alone refuses them
// ("unable to encode 5 into text format for text (OID 25)"). Other parameter types are as before.
func TestNumbersAsTextThroughPgx(t *testing.T) {
	for _, tc := range []struct{ name, url string }{
		{"pgbouncer transaction pooling", dbtest.FreshPgBouncerURL(t, dbtest.EnvPgBouncerTxn, "candor_astext")},
		{"cache_describe", dbtest.FreshPostgresURL(t, "candor_astext") + "?default_query_exec_mode=cache_describe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := drivertest.Open(t, tc.url)
			if p := db.(interface{ ClientPath() string }).ClientPath(); !strings.HasPrefix(p, "every statement with arguments through pgx") {
				t.Fatalf("%s: the client path is %q: the test would not reach pgx", tc.name, p)
			}
			c := drivertest.Connect(t, db)
			for _, a := range []struct {
				arg  any
				want string
			}{{int64(5), "5"}, {5, "5"}, {int32(-3), "-3"}, {2.5, "2.5"}, {0.1, "0.1"}, {true, "true"}, {"s", "s"}} {
				var s string
				if err := c.QueryRow(drivertest.Ctx(t), "SELECT $1", a.arg).Scan(&s); err != nil || s != a.want {
					t.Errorf("SELECT $1 with %T %v: %q, %v; want %q", a.arg, a.arg, s, err, a.want)
				}
				if err := c.QueryRow(drivertest.Ctx(t), "SELECT $1::varchar || ''", a.arg).Scan(&s); err != nil || s != a.want {
					t.Errorf("SELECT $1::varchar with %T %v: %q, %v; want %q", a.arg, a.arg, s, err, a.want)
				}
			}
			var n int64
			if err := c.QueryRow(drivertest.Ctx(t), "SELECT $1::int8 + 1", int64(5)).Scan(&n); err != nil || n != 6 {
				t.Errorf("SELECT $1::int8 + 1 with 5: %d, %v; want 6", n, err)
			}
		})
	}
}

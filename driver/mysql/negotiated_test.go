package mysql_test

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/gmsstandin"
)

// TestNegotiatedOnRealServers: on MariaDB and on go-mysql-server (Dolt's engine), the capabilities
// the session negotiated are read from its handshake (CLIENT_PROTOCOL_41 and CLIENT_DEPRECATE_EOF
// both; MariaDB's MARIADB_CLIENT_CACHE_METADATA there only), the session runs on candor's wire, a
// statement with arguments answers through it, and the client path says nothing went elsewhere.
func TestNegotiatedOnRealServers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		url       func(testing.TB) string
		cacheMeta bool
	}{
		{"mariadb", func(t testing.TB) string { return dbtest.FreshMySQLURL(t, "candor_drv") }, true},
		{"go-mysql-server", func(t testing.TB) string { return gmsstandin.FreshDoltURL(t, "candor_drv") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openURL(t, tc.url(t))
			c := connect(t, db)
			flags, ext, onWire, why := mysql.Negotiated(c)
			if !onWire {
				t.Fatalf("not on candor's wire: %s", why)
			}
			const protocol41, deprecateEOF, cacheMeta = 1 << 9, 1 << 24, 1 << 4
			if flags&protocol41 == 0 || flags&deprecateEOF == 0 || (ext&cacheMeta != 0) != tc.cacheMeta {
				t.Errorf("negotiated flags %#x, extended %#x", flags, ext)
			}
			var n int64
			if err := c.QueryRow(testCtx(t), "SELECT ? + 1", 41).Scan(&n); err != nil || n != 42 {
				t.Fatalf("SELECT ? + 1 = %d, %v", n, err)
			}
			if p := db.ClientPath(); !strings.HasPrefix(p, "prepared statements on candor's wire") || strings.Contains(p, "go-sql-driver") {
				t.Errorf("client path %q", p)
			}
		})
	}
}

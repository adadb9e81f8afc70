package mysql_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
)

// TestEd25519Logins: two thousand logins as a user of MariaDB's ed25519 method
// (scripts/mariadb-throwaway's candor_ed25519) all succeed. go-sql-driver fails the one in 256 whose
// random scramble ends in a zero byte ("malformed packet", see loginAttempts): without the new
// login after it, two thousand logins all pass well under 1% of the time.
func TestEd25519Logins(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(dbtest.MySQLURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("candor_ed25519", "candor-ed-pw-38")
	ctx := context.Background()
	db, err := driver.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const logins = 2000
	failed := 0
	for i := 0; i < logins; i++ {
		c, err := db.Connect(ctx)
		if err != nil {
			failed++
			t.Logf("login %d: %v", i, err)
			continue
		}
		c.Close()
	}
	if failed > 0 {
		t.Errorf("%d of %d ed25519 logins failed", failed, logins)
	}
}

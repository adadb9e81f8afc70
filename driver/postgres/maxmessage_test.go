package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/userr"
)

// TestMaxMessageSize: a message from the server larger than max_message_size (the URL's, else
// MaxMessageDefault) fails its statement with an error naming its size and the bound, on candor's
// wire (a statement with arguments) and on pgconn's path (one without), before candor allocates a
// buffer for it; below the bound the same statement works, and a fresh connection works after one
// closed. A bound outside 64kB..1GB, or not a size, is the user's error.
func TestMaxMessageSize(t *testing.T) {
	db := drivertest.Open(t, pgURL(t)+"?max_message_size=1MB").(*DB)
	if db.maxMessage != 1<<20 {
		t.Fatalf("max_message_size=1MB: the bound is %d bytes", db.maxMessage)
	}
	c := connect(t, db)
	var s string
	if err := c.QueryRow(testCtx(t), "SELECT repeat('x', $1::int)", 500_000).Scan(&s); err != nil || len(s) != 500_000 {
		t.Fatalf("a 500,000-byte value under a 1 MiB bound: %d bytes, %v", len(s), err)
	}
	for _, tc := range []struct {
		name string
		run  func(c driver.Conn) error
	}{
		{"wire", func(c driver.Conn) error {
			return c.QueryRow(testCtx(t), "SELECT repeat('x', $1::int)", 2_000_000).Scan(&s)
		}},
		{"pgconn", func(c driver.Conn) error { return c.QueryRow(testCtx(t), "SELECT repeat('x', 2000000)").Scan(&s) }},
	} {
		err := tc.run(connect(t, db))
		var tl *messageTooLarge
		if !errors.As(err, &tl) || tl.size != 2_000_006 || tl.bound != 1<<20 ||
			!strings.Contains(err.Error(), "2000006 bytes") || !strings.Contains(err.Error(), "max_message_size") {
			t.Errorf("%s: a 2,000,000-byte value past a 1 MiB bound: %v, want the message's size and the bound named", tc.name, err)
		}
	}
	if err := connect(t, db).QueryRow(testCtx(t), "SELECT $1::int", 7).Scan(new(int)); err != nil {
		t.Fatalf("a fresh connection after the refusals: %v", err)
	}
	// the default bound, on a database opened without max_message_size
	def := drivertest.Open(t, pgURL(t)).(*DB)
	err := connect(t, def).QueryRow(testCtx(t), "SELECT repeat('x', $1::int)", MaxMessageDefault+1).Scan(&s)
	if tl := (*messageTooLarge)(nil); !errors.As(err, &tl) || tl.bound != MaxMessageDefault {
		t.Errorf("a value of MaxMessageDefault+1 bytes by default: %v, want it refused at %d", err, MaxMessageDefault)
	}
	for _, v := range []string{"1kB", "2GB", "x", "-5", "10TB"} {
		if _, err := driver.Open(testCtx(t), pgURL(t)+"?max_message_size="+v); !userr.Is(err) || !strings.Contains(err.Error(), "max_message_size="+v) {
			t.Errorf("max_message_size=%s: %v, want the user's error naming it", v, err)
		}
	}
}

package sqlite

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
)

// FuzzParseURL: whatever a SQLite URL holds, parseURL returns options naming a file that the URL
// holds, with a known synchronous level and a non-negative busy timeout, or a user error; it never
// panics.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"sqlite:candor-tpcc.db", "sqlite:///tmp/x.db?synchronous=normal&busy_timeout=5000", "sqlite3:a.db?synchronous=bogus",
		"sqlite:", "sqlite::memory:", "sqlite:file:x.db", "sqlite:a.db?busy_timeout=-1", "sqlite:a.db?%zz", "sqlite:a.db?x=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		o, err := parseURL(raw)
		if err != nil {
			if !userr.Is(err) {
				t.Fatalf("parseURL(%q): %v is not a user error", raw, err)
			}
			return
		}
		if o.path == "" || !strings.Contains(raw, o.path) || o.busyTimeoutMS < 0 {
			t.Fatalf("parseURL(%q) = %+v", raw, o)
		}
		switch o.synchronous {
		case "OFF", "NORMAL", "FULL", "EXTRA":
		default:
			t.Fatalf("parseURL(%q): synchronous %q", raw, o.synchronous)
		}
	})
}

package driver

import (
	"context"
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://candor:s3cret@127.0.0.1:5432/tpcc", "postgres://candor:xxxxx@127.0.0.1:5432/tpcc"},
		{"postgresql://u:p%40ss@h/db?sslmode=disable", "postgresql://u:xxxxx@h/db?sslmode=disable"},
		{"postgres://candor@127.0.0.1:5432/tpcc", "postgres://candor@127.0.0.1:5432/tpcc"},
		{"postgres://u:@h/db", "postgres://u:xxxxx@h/db"},
		{"postgres://h/db?user=u&password=s3cret", "postgres://h/db?password=xxxxx&user=u"},
		{"postgres://h/db?sslpassword=s3cret", "postgres://h/db?sslpassword=xxxxx"},
		{"sqlite:candor-tpcc.db", "sqlite:candor-tpcc.db"},
		{"sqlite:/tmp/x.db?synchronous=normal", "sqlite:/tmp/x.db?synchronous=normal"},
		{"postgres://u:s3cret@h:port/db", "postgres:(unparsable URL hidden)"},
		{"%%%s3cret", "(unparsable URL hidden)"},
	} {
		got := Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "s3cret") {
			t.Errorf("Redact(%q) = %q shows the password", tc.in, got)
		}
	}
}

func TestOpenRejectsBadURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no database given"},
		{"candor.db", "is malformed"},
		{"postgres://u:s3cret@h:port/db", "is malformed"},
		{"oracle://u:s3cret@h/db", `scheme "oracle" is not supported`},
	} {
		_, err := Open(context.Background(), tc.in)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q) = %v, want a user error with %q and no password", tc.in, err, tc.want)
		}
	}
}

func TestErrorClassString(t *testing.T) {
	if ErrRetry.String() != "retry" || ErrConnLost.String() != "connection lost" || ErrFatal.String() != "fatal" {
		t.Error("ErrorClass names changed")
	}
}

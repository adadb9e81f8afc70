package driver

import (
	"context"
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
)

func TestOpenRejectsBadURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no database given"},
		{"candor.db", "is malformed"},
		{"postgres://u:s3cret@h:port/db", "is malformed"},
		{"oracle://u:s3cret@h/db", `scheme "oracle" is not supported`},
		{"host=127.0.0.1 user=u password=s3cret dbname=d", "is malformed"},
		{"s3cret", "is malformed"},
		{"postgres://u:s3c@ret@127.0.0.1:1/db", "holds an '@': write it as %40"},
		{"mysql://u:s3c@ret@127.0.0.1:1/db?x=a@b", "holds an '@': write it as %40"},
		{"postgres:u:s3cret@127.0.0.1:1/db", "is malformed"},
	} {
		_, err := Open(context.Background(), tc.in)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3c") {
			t.Errorf("Open(%q) = %v, want a user error with %q and no password", tc.in, err, tc.want)
		}
	}
}

func TestErrorClassString(t *testing.T) {
	if ErrRetry.String() != "retry" || ErrConnLost.String() != "connection lost" || ErrFatal.String() != "fatal" {
		t.Error("ErrorClass names changed")
	}
}

package driver

import (
	"strings"
	"testing"
	"unicode"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://candor:s3cret@127.0.0.1:5432/tpcc", "postgres://candor:xxxxx@127.0.0.1:5432/tpcc"},
		{"postgresql://u:p%40ss@h/db?sslmode=disable", "postgresql://u:xxxxx@h/db?sslmode=disable"},
		{"postgres://candor@127.0.0.1:5432/tpcc", "postgres://candor@127.0.0.1:5432/tpcc"},
		{"postgres://u:@h/db", "postgres://u:xxxxx@h/db"},
		{"postgres://h/db?user=u&password=s3cret", "postgres://h/db?user=u&password=xxxxx"},
		{"postgres://h/db?sslpassword=s3cret", "postgres://h/db?sslpassword=xxxxx"},
		{"sqlite:candor-tpcc.db", "sqlite:candor-tpcc.db"},
		{"sqlite:/tmp/x.db?synchronous=normal", "sqlite:/tmp/x.db?synchronous=normal"},
		{"postgres://u:s3cret@h:port/db", "postgres://u:xxxxx@h:port/db"},
		{"%%%s3cret", "(unparsable URL hidden)"},
		{"s3cret", "(unparsable URL hidden)"},
		// The fault pass's leaks: a key=value DSN, URLs without "//", an unescaped '@' in the password.
		{"host=127.0.0.1 port=5432 user=u password=s3cret dbname=tpcc", "host=127.0.0.1 port=5432 user=u password=xxxxx dbname=tpcc"},
		{"host=h password='s3cret with blanks' dbname=d", "host=h password=xxxxx dbname=d"},
		{"postgres:u:s3cret@host/db", "postgres:u:xxxxx@host/db"},
		{"mysql:u:s3cret@host:3306/db", "mysql:u:xxxxx@host:3306/db"},
		{"postgres://u:s3c@ret@host/db", "postgres://u:xxxxx@host/db"},
		{"mysql://u:s3c@r:e/t@host:3306/db", "mysql://u:xxxxx@host:3306/db"},
		{"u:s3cret@tcp(127.0.0.1:3306)/db", "u:xxxxx@tcp(127.0.0.1:3306)/db"},
		{"mysql:u@host/db", "mysql:u@host/db"},
		{"postgres://h:5432/db?password=s3c@ret", "postgres://h:5432/db?password=xxxxx"},
	} {
		got := Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "s3cret") || strings.Contains(got, "s3c@ret") {
			t.Errorf("Redact(%q) = %q shows the password", tc.in, got)
		}
	}
}

// redactForms are the shapes a database URL or DSN takes, each with one password slot (%s), and
// the bytes a password in that shape cannot hold (a blank ends a key=value DSN's value, '&' and
// ';' end a query parameter's).
var redactForms = []struct{ form, forbidden string }{
	{"postgres://candor:%s@127.0.0.1:5432/tpcc", ""},
	{"postgresql://candor:%s@h/db?sslmode=disable", ""},
	{"mysql://root:%s@127.0.0.1:3306/tpcc?bulk=auto", ""},
	{"postgres:candor:%s@host/db", ""},
	{"mysql:u:%s@host:3306/db", ""},
	{"root:%s@tcp(127.0.0.1:3306)/db", ""},
	{"host=127.0.0.1 user=u password=%s dbname=d", "'\"&;"},
	{"postgres://h:5432/db?user=u&password=%s", "'\"&;"},
}

// FuzzRedact: whatever the password, in any of the shapes above, the redacted text never holds it,
// and Redact never panics on any text.
func FuzzRedact(f *testing.F) {
	for _, pw := range []string{"s3cret", "S3cretPW", "p@ss", "a:b@c/d?e#f", "pass word", "'quoted'", "%40", "xxxxx", "ü@ß:"} {
		for i := range redactForms {
			f.Add(i, pw)
		}
	}
	f.Fuzz(func(t *testing.T, form int, pw string) {
		if form < 0 {
			form = -form
		}
		fm := redactForms[form%len(redactForms)]
		raw := strings.Replace(fm.form, "%s", pw, 1)
		got := Redact(raw)
		_ = Redact(pw) // any text: no panic
		if len(pw) < 4 || strings.ContainsAny(pw, fm.forbidden) || fm.forbidden != "" && strings.IndexFunc(pw, unicode.IsSpace) >= 0 {
			return // too short to tell from the rest of the text, or not a password this shape can hold
		}
		// A password that the ideal redaction holds anyway (xxxxx@, @127.0) cannot be judged.
		if strings.Contains(strings.Replace(fm.form, "%s", hidden, 1), pw) {
			return
		}
		if strings.Contains(got, pw) {
			t.Fatalf("Redact(%q) = %q shows the password %q", raw, got, pw)
		}
	})
}

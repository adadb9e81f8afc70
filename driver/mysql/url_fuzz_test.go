package mysql

import (
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// FuzzParseURL: whatever a MySQL URL holds, parseURL returns a configuration or a user error, never
// panics, and its message never shows the password (a password of letters and digits long enough
// not to be a word of the message, and found nowhere else in the URL).
func FuzzParseURL(f *testing.F) {
	for _, s := range [][2]string{
		{"s3cretPW9", "127.0.0.1:3306/tpcc"}, {"s3cretPW9", "h/db?bulk=insert&tls=skip-verify"}, {"s3cretPW9", "h:99999/db"},
		{"s3cretPW9", "h/db?connect_timeout=x"}, {"s3cretPW9", "h/"}, {"s3cretPW9", "h/db?socket="}, {"p@ss:w/rd1", "[::1]:3306/db?tls=nope"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pw, rest string) {
		for _, scheme := range []string{"mysql", "mariadb", "dolt"} {
			raw := scheme + "://u:" + url.PathEscape(pw) + "@" + rest
			u, err := url.Parse(raw)
			if err != nil || u.Scheme == "" {
				continue // driver.Open refuses it before any engine sees it
			}
			_, _, err = parseURL(u, raw)
			if err == nil {
				continue
			}
			if !userr.Is(err) {
				t.Fatalf("parseURL(%q): %v is not a user error", raw, err)
			}
			if len(pw) >= 8 && strings.IndexFunc(pw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) < 0 &&
				strings.IndexFunc(pw, unicode.IsDigit) >= 0 && !strings.Contains(rest, pw) && strings.Contains(err.Error(), pw) {
				t.Fatalf("parseURL(%q): %q shows the password (redacted URL %s)", raw, err, driver.Redact(raw))
			}
		}
	})
}

package driver

import (
	"net/url"
	"regexp"
	"strings"
)

// hidden replaces a password in redacted text.
const hidden = "xxxxx"

// secretParam matches a key=value parameter whose key names a password (password=, sslpassword=,
// passwd=, pwd=, pass=), in a URL's query or a key=value DSN (host=h password=p dbname=d), with its
// value: quoted ('...' or "...", with backslash escapes, as libpq allows) or up to the next blank,
// '&' or ';'.
var secretParam = regexp.MustCompile(`(?i)([a-z0-9_.\-]*(?:password|passwd|pwd|pass)\s*=\s*)('(?:[^'\\]|\\.?)*'?|"(?:[^"\\]|\\.?)*"?|[^\s&;]*)`)

// knownSchemes are the URL schemes Redact treats as schemes even without "//" (postgres:u:p@h/db):
// before any engine registers, so that Redact needs no registry.
var knownSchemes = map[string]bool{
	"postgres": true, "postgresql": true, "cockroach": true, "cockroachdb": true, "yugabyte": true, "yugabytedb": true,
	"mysql": true, "mariadb": true, "tidb": true, "dolt": true, "sqlite": true, "sqlite3": true, "file": true,
}

// Redact returns raw with any password replaced by "xxxxx", safe to print and store. It works on
// the text, never on a parse that could fail first: the password of a URL's user information
// (scheme://user:pass@host, scheme:user:pass@host without "//", user:pass@tcp(host)/db, a password
// holding an unescaped '@', ':' or '/'), and password=... parameters of a query or a key=value DSN.
// Where the text is ambiguous it hides more, never less. A text with no recognisable structure
// that does not parse as a URL is cut to its scheme, since it may be a password given by mistake.
func Redact(raw string) string {
	s := secretParam.ReplaceAllString(raw, "${1}"+hidden)
	s = redactUserinfo(s)
	if s != raw {
		return s
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme == "" && !strings.ContainsAny(raw, "/.=")) {
		if i := strings.Index(raw, ":"); i > 0 && knownSchemes[strings.ToLower(raw[:i])] {
			return raw[:i] + ":(unparsable URL hidden)"
		}
		return "(unparsable URL hidden)"
	}
	return s
}

// redactUserinfo hides the password of the user information: everything before the last '@' is
// user information (a password may hold '@'; a host, port or path does not), less a leading
// scheme and "//"; its password is what follows its first ':'. A user name holds no ':'.
func redactUserinfo(s string) string {
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return s
	}
	start := 0
	if i := strings.Index(s[:at], ":"); i > 0 && knownSchemes[strings.ToLower(s[:i])] {
		start = i + 1
		start += len(s[start:at]) - len(strings.TrimLeft(s[start:at], "/"))
	} else if i := strings.Index(s[:at], "://"); i > 0 && isScheme(s[:i]) && strings.Contains(s[i+3:at], ":") {
		// Another scheme (which Open refuses): scheme://user:pass@. Without a ':' after "//",
		// "name://x@" is more safely read as a DSN user:pass@ whose password starts with "//".
		start = i + len("://")
	}
	info := s[start:at]
	c := strings.Index(info, ":")
	if c < 0 || info[c+1:] == hidden {
		return s
	}
	return s[:start+c+1] + hidden + s[at:]
}

// isScheme reports whether s is a URL scheme: a letter, then letters, digits, '+', '-' or '.'.
func isScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

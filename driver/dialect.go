package driver

import (
	"context"
	"net/url"
	"sort"
	"strings"

	"github.com/candor-bench/candor/userr"
)

// FamilyPostgres is the Family of the engines that run PostgreSQL's statements over its wire
// protocol: PostgreSQL itself, CockroachDB and YugabyteDB.
const FamilyPostgres = "postgres"

// FamilyMySQL is the Family of the engines that run MySQL's statements over its wire protocol:
// MySQL, MariaDB, TiDB and Dolt.
const FamilyMySQL = "mysql"

// SQLFamily is the dialect whose statements d runs: its Family, or its Name when it has none.
func (d Dialect) SQLFamily() string {
	if d.Family != "" {
		return d.Family
	}
	return d.Name
}

// IsPostgresFamily reports whether d runs PostgreSQL's statements (with its own overrides).
func (d Dialect) IsPostgresFamily() bool { return d.SQLFamily() == FamilyPostgres }

// The engine is identified from configuration, never guessed (design.md): by the URL's scheme, or
// by --dialect, which rewrites the scheme of a URL of the same wire protocol. An engine package
// registers each dialect it serves with the wire protocol it speaks.
var (
	dialectWire   = map[string]string{}  // dialect name -> wire protocol
	schemeDialect = map[string]string{}  // URL scheme -> dialect name
	dialectDesc   = map[string]Dialect{} // dialect name -> what its engine can do (DescribeDialect)
)

// RegisterDialect makes name a --dialect value and a URL scheme reaching an engine that speaks
// wire's protocol; aliases are further URL schemes meaning the same dialect ("postgresql"). It is
// called from the engine package's init, next to Register.
func RegisterDialect(name, wire string, aliases ...string) {
	dialectWire[name] = wire
	schemeDialect[name] = name
	for _, a := range aliases {
		schemeDialect[a] = name
	}
}

// DescribeDialect records what the engine of the dialect d.Name can do, exactly as its DB's Dialect
// method will say once opened. It is called from the engine package's init, so that a plan can be
// checked against the engine's capabilities before anything connects (--procedures on an engine
// without stored procedures): see URLDialect.
func DescribeDialect(d Dialect) { dialectDesc[d.Name] = d }

// URLDialect returns the Dialect of the engine a database URL names by its scheme (with --dialect
// already applied), as the engine package described it, without connecting. ok is false when the
// URL is malformed or its scheme names no described dialect: then only the opened database tells.
func URLDialect(raw string) (d Dialect, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return Dialect{}, false
	}
	name, _ := dialectOf(strings.ToLower(u.Scheme))
	d, ok = dialectDesc[name]
	return d, ok
}

// FamilyOf returns the SQL family of a dialect name, as DB.Kind reports it and result.json's
// database.kind records it ("tidb" is of the "mysql" family): its described Family, else the name.
func FamilyOf(name string) string {
	if d, ok := dialectDesc[name]; ok {
		return d.SQLFamily()
	}
	return name
}

// Dialects lists the registered dialect names.
func Dialects() []string {
	s := make([]string, 0, len(dialectWire))
	for k := range dialectWire {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// dialectOf returns the dialect a URL scheme names and the wire protocol it speaks. A scheme of an
// engine that registered no dialect is its own dialect and protocol.
func dialectOf(scheme string) (name, wire string) {
	name = scheme
	if d, ok := schemeDialect[scheme]; ok {
		name = d
	}
	wire = name
	if w, ok := dialectWire[name]; ok {
		wire = w
	}
	return name, wire
}

// ApplyDialect returns raw with its scheme replaced by the dialect's (--dialect cockroachdb turns
// postgres://... into cockroachdb://..., which the PostgreSQL driver opens as CockroachDB). An empty
// dialect leaves raw as it is. A dialect that is unknown, that speaks another wire protocol than the
// URL's engine, or that contradicts a dialect the URL's scheme already names is a user error.
func ApplyDialect(raw, dialect string) (string, error) {
	if dialect == "" {
		return raw, nil
	}
	want := strings.ToLower(dialect)
	wantWire, known := dialectWire[want]
	if !known {
		if _, isScheme := openers[want]; !isScheme {
			return "", userr.Errorf("--dialect %s is not a dialect candor knows: use one of %s", dialect, strings.Join(Dialects(), ", "))
		}
		wantWire = want
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return raw, nil // driver.Open names the malformed URL
	}
	have, haveWire := dialectOf(strings.ToLower(u.Scheme))
	if have == want {
		return raw, nil
	}
	if haveWire != wantWire {
		return "", userr.Errorf("--dialect %s speaks the %s wire protocol, but the database URL %s reaches a %s engine: give a %s URL or drop --dialect", want, wantWire, Redact(raw), haveWire, wantWire)
	}
	if have != haveWire {
		return "", userr.Errorf("the database URL %s names the dialect %s by its scheme but --dialect says %s: drop one of them", Redact(raw), have, want)
	}
	return want + raw[len(u.Scheme):], nil
}

// IsolationProber is implemented by engines that can tell the isolation level a transaction really
// runs at, which may be stronger than the one asked for: CockroachDB runs READ COMMITTED as
// SERIALIZABLE unless a cluster setting enables it, YugabyteDB runs it as snapshot isolation
// (REPEATABLE READ) unless a server flag does. ok is false when the engine cannot tell.
type IsolationProber interface {
	EffectiveIsolation(ctx context.Context, c Conn, iso Isolation) (eff Isolation, ok bool, err error)
}

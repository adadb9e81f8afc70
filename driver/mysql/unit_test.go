package mysql

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/userr"
)

// Unit tests without a server: URL parsing, error classes, version names, value encoding. The
// integration tests against a real server are in mysql_test.go.

func TestParseURL(t *testing.T) {
	parse := func(raw string) (*gomysql.Config, options, error) {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("url.Parse(%s): %v", raw, err)
		}
		return parseURL(u, raw)
	}
	cfg, o, err := parse("mysql://bob:p%40ss@db.example:3307/tpcc?connect_timeout=3&bulk=insert")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "bob" || cfg.Passwd != "p@ss" || cfg.Addr != "db.example:3307" || cfg.DBName != "tpcc" ||
		cfg.Net != "tcp" || cfg.Timeout != 3*time.Second || o.bulk != bulkInsert || o.engine != "MySQL" {
		t.Errorf("config %+v, options %+v", cfg, o)
	}
	if !cfg.ParseTime || cfg.Loc != time.UTC || !cfg.ClientFoundRows || cfg.AllowAllFiles || cfg.InterpolateParams ||
		cfg.MultiStatements || cfg.MaxAllowedPacket != 0 {
		t.Errorf("fixed settings wrong: %+v", cfg)
	}
	// Multi-statements only with batches=on, and never on Dolt's engine, which has no batches.
	for raw, want := range map[string]bool{
		"dolt://u:p@127.0.0.1:3306/db":                false,
		"dolt://u:p@127.0.0.1:3306/db?batches=on":     false,
		"mariadb://u:p@127.0.0.1:3306/db?batches=off": false,
		"mariadb://u:p@127.0.0.1:3306/db?batches=on":  true,
		"tidb://u:p@127.0.0.1:3306/db":                false,
		"tidb://u:p@127.0.0.1:3306/db?batches=on":     true,
	} {
		if cfg, _, err := parse(raw); err != nil || cfg.MultiStatements != want {
			t.Errorf("%s: multi-statements %v, %v; want %v", raw, cfg != nil && cfg.MultiStatements, err, want)
		}
	}
	if _, _, err := parse("mysql://u:p@127.0.0.1:3306/db?batches=maybe"); err == nil || !strings.Contains(err.Error(), "batches=on or batches=off") {
		t.Errorf("batches=maybe: %v", err)
	}
	// Pipelines unless pipelines=off.
	for raw, want := range map[string]bool{
		"mariadb://u:p@127.0.0.1:3306/db":               false,
		"mariadb://u:p@127.0.0.1:3306/db?pipelines=on":  false,
		"mariadb://u:p@127.0.0.1:3306/db?pipelines=off": true,
	} {
		if _, o, err := parse(raw); err != nil || o.noPipes != want {
			t.Errorf("%s: noPipes %v, %v; want %v", raw, o.noPipes, err, want)
		}
	}
	if _, _, err := parse("mysql://u:p@127.0.0.1:3306/db?pipelines=2"); err == nil || !strings.Contains(err.Error(), "pipelines=on or pipelines=off") {
		t.Errorf("pipelines=2: %v", err)
	}
	cfg, o, err = parse("mariadb://u@/db?socket=/run/m.sock&tls=preferred")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Net != "unix" || cfg.Addr != "/run/m.sock" || cfg.TLSConfig != "preferred" || o.engine != "MariaDB" || o.bulk != bulkAuto {
		t.Errorf("config %+v, options %+v", cfg, o)
	}
	cfg, _, err = parse("mysql://u:pw@[::1]/db")
	if err != nil || cfg.Addr != "[::1]:3306" {
		t.Errorf("IPv6 host: %+v, %v", cfg, err)
	}
	for _, tc := range []struct{ raw, want string }{
		{"mysql://u:secretpw@h:3306/", "names no database"},
		{"mysql://u:secretpw@h:3306", "names no database"},
		{"mysql://u:secretpw@h:0/db", `bad port "0"`},
		{"mysql://u:secretpw@h/db?bulk=copy", "bulk=copy"},
		{"mysql://u:secretpw@h/db?tls=maybe", "tls=maybe"},
		{"mysql://u:secretpw@h/db?connect_timeout=x", "connect_timeout=x"},
		{"mysql://u:secretpw@h/db?parseTime=false", `"parseTime" is unknown`},
		{"mysql://u:secretpw@h/db?socket=", "names no file"},
	} {
		_, _, err := parse(tc.raw)
		if err == nil {
			t.Errorf("%s: no error", tc.raw)
			continue
		}
		if !userr.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secretpw") {
			t.Errorf("%s: %v (want a user error saying %q, without the password)", tc.raw, err, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want driver.ErrorClass
	}{
		{&gomysql.MySQLError{Number: 1213}, driver.ErrRetry},
		{fmt.Errorf("wrapped: %w", &gomysql.MySQLError{Number: 1205}), driver.ErrRetry},
		{&gomysql.MySQLError{Number: 1020}, driver.ErrRetry},
		{&gomysql.MySQLError{Number: 9007}, driver.ErrRetry},
		{&gomysql.MySQLError{Number: 2006}, driver.ErrConnLost},
		{&gomysql.MySQLError{Number: 2013}, driver.ErrConnLost},
		{&gomysql.MySQLError{Number: 1927}, driver.ErrConnLost},
		{&gomysql.MySQLError{Number: 1053}, driver.ErrConnLost},
		{&gomysql.MySQLError{Number: 1062}, driver.ErrFatal},
		{&gomysql.MySQLError{Number: 1146}, driver.ErrFatal},
		{sqldriver.ErrBadConn, driver.ErrConnLost},
		{gomysql.ErrInvalidConn, driver.ErrConnLost},
		{sql.ErrConnDone, driver.ErrConnLost},
		{io.EOF, driver.ErrConnLost},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), driver.ErrConnLost},
		{&net.OpError{Op: "read", Err: errors.New("reset")}, driver.ErrConnLost},
		{context.Canceled, driver.ErrFatal},
		{driver.ErrNoRows, driver.ErrFatal},
		{errors.New("something else"), driver.ErrFatal},
		{nil, driver.ErrFatal},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	if !refusesLocalInfile(&gomysql.MySQLError{Number: 1148}) || !refusesLocalInfile(&gomysql.MySQLError{Number: 3948}) ||
		refusesLocalInfile(&gomysql.MySQLError{Number: 1062}) || refusesLocalInfile(io.EOF) {
		t.Error("refusesLocalInfile")
	}
}

func TestVersionString(t *testing.T) {
	for _, tc := range []struct{ version, comment, want string }{
		{"10.11.19-MariaDB-0+deb12u1", "Debian 12", "MariaDB 10.11.19-0+deb12u1 (Debian 12)"},
		{"11.4.2-MariaDB", "mariadb.org binary distribution", "MariaDB 11.4.2 (mariadb.org binary distribution)"},
		{"8.0.36", "MySQL Community Server - GPL", "MySQL 8.0.36 (MySQL Community Server - GPL)"},
		{"8.0.11-TiDB-v7.5.0", "", "TiDB v7.5.0 (MySQL 8.0.11 compatible)"},
		{"8.0.33", "Dolt", "Dolt 8.0.33"},
		{"8.4.0", "", "MySQL 8.4.0"},
	} {
		if got := versionString(tc.version, tc.comment); got != tc.want {
			t.Errorf("versionString(%q, %q) = %q, want %q", tc.version, tc.comment, got, tc.want)
		}
	}
}

// Dolt is named by dolt_version()'s release, with the MySQL release VERSION() gives; a server is
// asked dolt_version() when the URL says dolt or what it says of itself names Dolt.
func TestDoltVersionString(t *testing.T) {
	if got, want := doltVersionString("2.3.1", "8.0.31"), "Dolt 2.3.1 (MySQL 8.0.31 compatible)"; got != want {
		t.Errorf("doltVersionString = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		version, comment string
		want             bool
	}{
		{"8.0.31", "Dolt", true}, {"8.0.31-dolt", "", true}, {"8.0.36", "MySQL Community Server - GPL", false},
		{"10.11.19-MariaDB-0+deb12u1", "Debian 12", false}, {"8.0.11-TiDB-v7.5.0", "", false},
	} {
		if got := mayBeDolt(tc.version, tc.comment); got != tc.want {
			t.Errorf("mayBeDolt(%q, %q) = %v, want %v", tc.version, tc.comment, got, tc.want)
		}
	}
}

func TestIsolationFromServer(t *testing.T) {
	for s, want := range map[string]driver.Isolation{
		"REPEATABLE-READ": driver.IsolationRepeatableRead, "READ-COMMITTED": driver.IsolationReadCommitted,
		"SERIALIZABLE": driver.IsolationSerializable, "read committed": driver.IsolationReadCommitted,
		"READ-UNCOMMITTED": driver.IsolationDefault, "": driver.IsolationDefault,
	} {
		if got := isolationFromServer(s); got != want {
			t.Errorf("isolationFromServer(%q) = %q, want %q", s, got, want)
		}
	}
}

// cents is an exact decimal like the TPC-C generator's: it appends its own text.
type cents int64

func (c cents) AppendText(b []byte) ([]byte, error) {
	v, sign := int64(c), ""
	if v < 0 {
		v, sign = -v, "-"
	}
	return fmt.Appendf(b, "%s%d.%02d", sign, v/100, v%100), nil
}

type valuer struct{ v any }

func (v valuer) Value() (sqldriver.Value, error) { return v.v, nil }

func TestEncoder(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		v              any
		tsv, lit, litN string // litN: the literal under NO_BACKSLASH_ESCAPES
	}{
		{nil, `\N`, "NULL", "NULL"},
		{int64(-42), "-42", "-42", "-42"},
		{int32(7), "7", "7", "7"},
		{uint64(18446744073709551615), "18446744073709551615", "18446744073709551615", "18446744073709551615"},
		{1.5, "1.5", "1.5", "1.5"},
		{true, "1", "1", "1"},
		{"plain", "plain", "'plain'", "'plain'"},
		{"a\tb\nc\\d'e\x00f", `a\tb\nc\\d'e\0f`, `'a` + "\t" + `b` + "\n" + `c\\d''e\0f'`, "'a\tb\nc\\d''e\x00f'"},
		{[]byte("x'y"), "x'y", "'x''y'", "'x''y'"},
		{[]byte(nil), `\N`, "NULL", "NULL"},
		{ts, "2026-01-02 02:04:05.123456", "'2026-01-02 02:04:05.123456'", "'2026-01-02 02:04:05.123456'"},
		{cents(-1234), "-12.34", "'-12.34'", "'-12.34'"},
		{valuer{int64(5)}, "5", "5", "5"},
		{valuer{nil}, `\N`, "NULL", "NULL"},
	} {
		var e encoder
		got, err := e.tsv([]byte("|"), tc.v)
		if err != nil || string(got) != "|"+tc.tsv {
			t.Errorf("tsv(%#v) = %q, %v; want %q", tc.v, got, err, "|"+tc.tsv)
		}
		got, err = e.literal([]byte("|"), tc.v)
		if err != nil || string(got) != "|"+tc.lit {
			t.Errorf("literal(%#v) = %q, %v; want %q", tc.v, got, err, "|"+tc.lit)
		}
		e.noBackslashEscapes = true
		got, err = e.literal(nil, tc.v)
		if err != nil || string(got) != tc.litN {
			t.Errorf("literal(%#v) without backslash escapes = %q, %v; want %q", tc.v, got, err, tc.litN)
		}
	}
	var e encoder
	if _, err := e.tsv(nil, struct{}{}); err == nil {
		t.Error("an unsupported type was encoded")
	}
	if _, err := e.literal(nil, []int{1}); err == nil {
		t.Error("an unsupported type was encoded")
	}
}

// ClientPath names the statement path a run takes, and why it is not the default.
func TestClientPath(t *testing.T) {
	t.Setenv(PreparedEnv, "") // the defaults, whatever the environment of the test says
	t.Setenv(SocketEnv, "")
	for raw, want := range map[string]string{
		"mariadb://u:p@127.0.0.1:3306/db":                          "prepared statements on candor's wire, pipelined",
		"mysql://u:p@127.0.0.1:3306/db?pipelines=off":              "prepared statements on candor's wire, one per round trip (pipelines=off)",
		"dolt://u:p@127.0.0.1:3306/db":                             "prepared statements on candor's wire, one per round trip (Dolt gets no pipelines)",
		"mysql://u:p@127.0.0.1:3306/db?tls=skip-verify":            "prepared statements through go-sql-driver, one per round trip (TLS: candor's wire does not speak it)",
		"mariadb://u:p@127.0.0.1:3306/db?batches=on":               "prepared statements on candor's wire, pipelined; batches=on: multi-statement batches where a transaction has them",
		"mariadb://u:p@127.0.0.1:3306/db?pipelines=on&batches=off": "prepared statements on candor's wire, pipelined",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		cfg, o, err := parseURL(u, raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		db := &DB{engine: engineFor(u.Scheme), cfg: cfg, opts: o}
		if got := db.ClientPath(); got != want {
			t.Errorf("%s: client path\n%q, want\n%q", raw, got, want)
		}
	}
	// sessions that could not take candor's wire are said, with how many were opened
	db := &DB{engine: engineMariaDB, cfg: &gomysql.Config{}}
	db.sessions.Store(4)
	db.noteOffWire("the server's greeting was not readable")
	if got, want := db.ClientPath(), "prepared statements on candor's wire, pipelined; but 1 of 4 sessions on go-sql-driver's prepared statements, one per round trip (the server's greeting was not readable)"; got != want {
		t.Errorf("with a session off the wire: %q, want %q", got, want)
	}
	t.Setenv(PreparedEnv, "go-sql-driver")
	t.Setenv(SocketEnv, "held")
	sockets, err := blockconn.NewTally(SocketEnv)
	if err != nil {
		t.Fatal(err)
	}
	db = &DB{engine: engineMariaDB, cfg: &gomysql.Config{}, sockets: sockets}
	if got, want := db.ClientPath(), "prepared statements through go-sql-driver, one per round trip (CANDOR_MYSQL_PREPARED=go-sql-driver); CANDOR_MYSQL_SOCKET=held, but no run's connection was held"; got != want {
		t.Errorf("with the environment's switches: %q, want %q", got, want)
	}
}

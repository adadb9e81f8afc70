// Package mysql is candor's MySQL and MariaDB engine (and that of servers speaking their protocol):
// go-sql-driver/mysql, one dedicated *sql.Conn per Connect whose driver connection runs the
// statements directly (see driverConn in conn.go), prepared on the server once per SQL text.
//
// URLs: mysql://user:pass@host:port/db, or mariadb://, tidb://, dolt:// (the scheme names the
// engine: engines.go), with parameters connect_timeout=SECONDS, socket=PATH,
// tls=true|false|skip-verify|preferred, tls-ca=PATH (verify against that authority), bulk=auto|load-data|insert, batches=on|off and
// pipelines=on|off (see url.go).
// Open connects once to check the server and reports what is wrong (unreachable, refused
// credentials, missing database) as a user error; it reads the server's version, default isolation
// level, max_allowed_packet and local_infile, which choose the bulk path of CopyFrom.
package mysql

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/userr"
)

// DB is an opened MySQL or MariaDB database (or one of another engine of engines.go).
type DB struct {
	engine   *engine
	sqlDB    *sql.DB
	cfg      *gomysql.Config
	opts     options
	redacted string
	raw      string // the URL as given: a library's message that echoes it whole shows redacted instead

	version            string           // "MariaDB 10.11.19-0+deb12u1 (Debian 12)"
	doltVersion        string           // Dolt's own release (dolt_version()); "" on other engines
	serverIso          driver.Isolation // the server's default level; "" if candor has no name for it
	defaultIso         driver.Isolation // what transactions run at when TxOptions leave it unset
	maxPacket          int              // max_allowed_packet, bytes
	noBackslashEscapes bool             // sql_mode has NO_BACKSLASH_ESCAPES: '\' is not an escape in literals

	// loadData: CopyFrom uses LOAD DATA LOCAL INFILE. It starts true when the URL asks for it or
	// the server has local_infile on, and turns false for good if the server refuses it.
	loadData atomic.Bool

	// sessions counts the sessions Connect opened; offWire those of them that were meant for
	// candor's wire and could not take it (newWire: the server's greeting or the client's response
	// unreadable, or flags negotiated that the wire does not read), offWhy by reason, which
	// ClientPath then says.
	sessions, offWire atomic.Int64
	// tlsSessions counts the sessions of a tls=preferred URL that negotiated TLS (the server
	// offered it): they run on go-sql-driver's statements, as every session of a URL that
	// requires TLS does.
	tlsSessions atomic.Int64
	offMu       sync.Mutex
	offWhy      map[string]int64
	// kills counts the KILL QUERY statements sent for interrupted statements (killQuery).
	kills driver.Cancels
	// sockets: SocketEnv's kind, and the held sockets a run's connections got (driver/blockconn)
	sockets *blockconn.Tally
}

var _ driver.DB = (*DB)(nil)

// open is the driver.Opener of the schemes of engines.go: mysql://, mariadb://, tidb://, dolt://.
func open(ctx context.Context, u *url.URL, raw string) (driver.DB, error) {
	cfg, o, err := parseURL(u, raw)
	if err != nil {
		return nil, err
	}
	db := &DB{engine: engineFor(strings.ToLower(u.Scheme)), cfg: cfg, opts: o, redacted: driver.Redact(raw), raw: raw}
	if db.sockets, err = blockconn.NewTally(SocketEnv); err != nil {
		return nil, err
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, db.userError("the %s URL %s is not usable (%v): use %s", o.engine, db.redacted, err, urlForm)
	}
	db.sqlDB = sql.OpenDB(connector)
	db.sqlDB.SetMaxOpenConns(0) // unlimited: every Connect gets its own session
	// No idle connections: a session closed by its owner is closed on the server too, never handed
	// to the next Connect with its session state (isolation level, an open transaction).
	db.sqlDB.SetMaxIdleConns(0)
	if err := db.inspect(ctx); err != nil {
		db.sqlDB.Close()
		return nil, err
	}
	return db, nil
}

// inspect connects once, which checks that the server answers and accepts us, and reads what the
// driver needs to know about it.
func (db *DB) inspect(ctx context.Context) error {
	c, err := db.conn(ctx, nil)
	if err != nil {
		return db.connectError(ctx, err)
	}
	defer c.Close()
	var version, comment, sqlMode string
	if err := c.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment, @@sql_mode").Scan(&version, &comment, &sqlMode); err != nil {
		return fmt.Errorf("%s at %s: reading the server version: %w", db.opts.engine, db.addr(), err)
	}
	db.version = versionString(version, comment)
	if db.engine == engineDolt || mayBeDolt(version, comment) {
		// Dolt answers VERSION() with the MySQL release it is compatible with; its own is
		// dolt_version()'s. Asked once per open, and only of a server that may be Dolt: an
		// error (no such function: go-mysql-server alone, or another engine) leaves the label
		// as the server gave it.
		var dv sql.NullString
		if err := c.QueryRowContext(ctx, "SELECT dolt_version()").Scan(&dv); err == nil && dv.String != "" {
			db.doltVersion = dv.String
			db.version = doltVersionString(dv.String, version)
		}
	}
	db.noBackslashEscapes = strings.Contains(strings.ToUpper(sqlMode), "NO_BACKSLASH_ESCAPES")

	// transaction_isolation since MySQL 5.7.20 and MariaDB 11.1; tx_isolation before.
	iso, err := sysvar(ctx, c, "@@transaction_isolation", "@@tx_isolation")
	if err != nil {
		return fmt.Errorf("%s at %s: reading the default isolation level: %w", db.opts.engine, db.addr(), err)
	}
	db.serverIso = isolationFromServer(iso)
	db.defaultIso = db.serverIso
	if db.defaultIso == driver.IsolationDefault {
		// READ UNCOMMITTED, or a name candor does not know: transactions that leave the level
		// unset run at repeatable read, MySQL's own default, stated explicitly.
		db.defaultIso = driver.IsolationRepeatableRead
	}

	packet, err := sysvar(ctx, c, "@@max_allowed_packet")
	if err != nil {
		return fmt.Errorf("%s at %s: reading max_allowed_packet: %w", db.opts.engine, db.addr(), err)
	}
	if db.maxPacket, err = strconv.Atoi(packet); err != nil || db.maxPacket < 1024 {
		return fmt.Errorf("%s at %s: max_allowed_packet is %q", db.opts.engine, db.addr(), packet)
	}

	switch db.opts.bulk {
	case bulkLoadData:
		db.loadData.Store(true)
	case bulkAuto:
		// local_infile may be unknown to a server that speaks the protocol without it: then INSERT.
		v, err := sysvar(ctx, c, "@@local_infile")
		db.loadData.Store(err == nil && (v == "1" || strings.EqualFold(v, "ON")))
	}
	return nil
}

// sysvar reads the first of the named system variables the server knows, as text.
func sysvar(ctx context.Context, c *sql.Conn, names ...string) (string, error) {
	var err error
	for _, n := range names {
		var v sql.NullString
		if err = c.QueryRowContext(ctx, "SELECT "+n).Scan(&v); err == nil {
			return v.String, nil
		}
		var me *gomysql.MySQLError
		if !errors.As(err, &me) || me.Number != erUnknownSystemVariable {
			return "", err
		}
	}
	return "", err
}

// versionString names the server: "MariaDB 10.11.19-0+deb12u1 (Debian 12)", "MySQL 8.0.36 (MySQL
// Community Server - GPL)", "TiDB v7.5.0 (MySQL 8.0.11 compatible)". It is for display (and the
// DIALECT_MISMATCH warning) only: the engine is the URL's, and nothing in candor behaves
// differently by what the server says.
func versionString(version, comment string) string {
	name, v := "MySQL", version
	switch {
	case strings.Contains(version, "-MariaDB"):
		name, v = "MariaDB", strings.Replace(version, "-MariaDB", "", 1)
	case strings.Contains(version, "-TiDB-"):
		i := strings.Index(version, "-TiDB-")
		return "TiDB " + version[i+len("-TiDB-"):] + " (MySQL " + version[:i] + " compatible)"
	case strings.Contains(strings.ToLower(comment), "dolt"):
		name = "Dolt"
	}
	if comment != "" && !strings.EqualFold(comment, name) {
		return name + " " + v + " (" + comment + ")"
	}
	return name + " " + v
}

// mayBeDolt: a server's VERSION() or @@version_comment names Dolt (Dolt 2.3.1 says "8.0.31" and
// "Dolt"), so that a mysql:// URL reaching it is asked dolt_version() too.
func mayBeDolt(version, comment string) bool {
	return strings.Contains(strings.ToLower(version+" "+comment), "dolt")
}

// doltVersionString names a Dolt server by its own release and the MySQL release its VERSION()
// says it is compatible with: "Dolt 2.3.1 (MySQL 8.0.31 compatible)".
func doltVersionString(dolt, mysqlVersion string) string {
	return "Dolt " + dolt + " (MySQL " + mysqlVersion + " compatible)"
}

// DoltVersion is Dolt's own release as dolt_version() said it when Open connected, or "" when the
// server is not Dolt (or is go-mysql-server without Dolt's functions).
func (db *DB) DoltVersion() string { return db.doltVersion }

// isolationFromServer maps a level as MySQL writes it (REPEATABLE-READ) to candor's; levels candor
// has no name for give IsolationDefault.
func isolationFromServer(s string) driver.Isolation {
	switch strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", "-")) {
	case "READ-COMMITTED":
		return driver.IsolationReadCommitted
	case "REPEATABLE-READ":
		return driver.IsolationRepeatableRead
	case "SERIALIZABLE":
		return driver.IsolationSerializable
	}
	return driver.IsolationDefault
}

// Kind is the engine's dialect as the URL named it: "mysql", "mariadb", "tidb" or "dolt"; Version
// is what the server says it is.
func (db *DB) Kind() string { return db.engine.dialect.Name }

// Dialect: the MySQL family, no array parameters, concurrent writers; stored procedures (for
// --procedures) on MySQL and MariaDB only (engines.go).
func (db *DB) Dialect() driver.Dialect {
	d := db.engine.dialect
	d.Batches = d.Batches && db.cfg.MultiStatements // only with batches=on in the URL
	return d
}

func (db *DB) Redacted() string { return db.redacted }

// Connect opens a dedicated session with its own statement cache.
func (db *DB) Connect(ctx context.Context) (driver.Conn, error) {
	sock := socketHolder{sockets: db.sockets}
	sc, err := db.conn(ctx, &sock)
	if err != nil {
		return nil, db.connectError(ctx, err)
	}
	dc, conv, err := rawConn(sc)
	if err != nil {
		sc.Close()
		return nil, err
	}
	c := &Conn{db: db, sc: sc, dc: dc, conv: conv, stmts: make(map[string]sqldriver.Stmt), sock: sock.c, sessIso: db.serverIso}
	if ra, ok := sock.c.(*readAhead); ok && ra.caps.known {
		c.id = ra.caps.id
	} else if err := sc.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&c.id); err != nil {
		sc.Close()
		return nil, fmt.Errorf("%s at %s: reading the session's connection id: %w", db.opts.engine, db.addr(), err)
	}
	db.sessions.Add(1)
	if ownWire() && !db.tlsRequired() {
		ra, _ := sock.c.(*readAhead)
		var why string
		if db.cfg.TLSConfig == "preferred" && !plainSession(ra) {
			db.tlsSessions.Add(1)
		} else if c.w, why = newWire(ra, false); c.w != nil {
			c.wstmts = make(map[string]*wstmt)
		} else {
			c.offWire = why
			db.noteOffWire(why)
		}
	}
	c.unwatchFn = c.unwatch
	return c, nil
}

// conn opens one session. The URL's connect timeout (connect_timeout, 10 s by default) bounds the
// whole of it, the handshake too: go-sql-driver's own bounds the dial only, so a server that never
// greets (PostgreSQL's port, an HTTP server) would hold it until that server gave up. sock, when
// not nil, receives the session's socket (the dial function fills it).
func (db *DB) conn(ctx context.Context, sock *socketHolder) (*sql.Conn, error) {
	cctx := ctx
	if db.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, db.cfg.Timeout)
		defer cancel()
	}
	if sock != nil {
		cctx = context.WithValue(cctx, socketKey{}, sock)
	}
	for attempt := 1; ; attempt++ {
		c, err := db.sqlDB.Conn(cctx)
		if err == nil || attempt == loginAttempts || !errors.Is(err, gomysql.ErrMalformPkt) || cctx.Err() != nil {
			return c, err
		}
		if sock != nil {
			sock.c = nil
		}
	}
}

// loginAttempts bounds the logins of one session that end in go-sql-driver's "malformed packet".
// go-sql-driver (v1.10) trims a trailing zero byte from the data of an authentication switch,
// which for MariaDB's client_ed25519 is a random 32-byte scramble: once in 256 logins it ends in a
// zero, is left with 31 bytes, and the login fails as a malformed packet. A new login draws a new
// scramble. A server that really sends malformed packets fails every attempt, with the same error.
const loginAttempts = 3

// killTimeout bounds a KILL QUERY: its session's handshake and the statement.
const killTimeout = 3 * time.Second

// killQuery stops the statement session id runs on the server (KILL QUERY, on a session of its
// own), for a statement interrupted by its context: the server would run it to its end otherwise
// (a SLEEP(30), a long scan), holding its locks after candor has given up on it. Best effort: a
// server that cannot be reached has nothing running for candor either. kills counts those sent; the
// caller has marked this one in flight (kills.Begin).
func (db *DB) killQuery(id uint32) {
	ok := false
	defer func() { db.kills.End(ok) }() // Begin: the caller's
	if id == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	c, err := db.conn(ctx, nil)
	if err != nil {
		return
	}
	defer c.Close()
	_, err = c.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(uint64(id), 10))
	ok = err == nil
}

// ServerCancels is how many statements interrupted by their context were stopped on the server,
// once the KILL QUERY statements under way are over.
func (db *DB) ServerCancels() int64 { return db.kills.Count(killTimeout + time.Second) }

// tlsRequired reports whether the URL requires TLS (tls=true, skip-verify or a named config):
// candor's wire is not used then (newWire). With tls=preferred each session takes the wire unless
// it negotiated TLS (plainSession).
func (db *DB) tlsRequired() bool {
	return db.cfg.TLSConfig != "" && db.cfg.TLSConfig != "false" && db.cfg.TLSConfig != "preferred"
}

// plainSession reports whether the session on ra was seen to negotiate no TLS: the server's
// greeting and the client's first packet read, and CLIENT_SSL not in both (a client that starts
// TLS sends an SSLRequest with it first).
func plainSession(ra *readAhead) bool {
	if ra == nil {
		return false
	}
	flags, _, ok := ra.negotiated()
	return ok && flags&capSSL == 0
}

// ClientPath says how the sessions send their statements and use their sockets, for the
// disclosure: candor's wire pipelined (the default), one by one, or go-sql-driver's prepared
// statements, and why; and how many sessions opened so far could not take candor's wire.
func (db *DB) ClientPath() string {
	var path string
	switch {
	case !ownWire():
		path = "prepared statements through go-sql-driver, one per round trip (" + PreparedEnv + "=go-sql-driver)"
	case db.tlsRequired() || db.tlsSessions.Load() > 0 && db.tlsSessions.Load() == db.sessions.Load():
		path = "prepared statements through go-sql-driver, one per round trip (TLS: candor's wire does not speak it)"
	case db.tlsSessions.Load() > 0:
		path = fmt.Sprintf("prepared statements on candor's wire; but %d of %d sessions negotiated TLS (tls=preferred) and use go-sql-driver's prepared statements, one per round trip",
			db.tlsSessions.Load(), db.sessions.Load())
	case !db.engine.pipelines:
		path = "prepared statements on candor's wire, one per round trip (" + db.engine.title + " gets no pipelines)"
	case db.opts.noPipes:
		path = "prepared statements on candor's wire, one per round trip (pipelines=off)"
	default:
		path = "prepared statements on candor's wire, pipelined"
	}
	if n := db.offWire.Load(); n > 0 {
		path += fmt.Sprintf("; but %d of %d sessions on go-sql-driver's prepared statements, one per round trip (%s)",
			n, db.sessions.Load(), db.offWireWhy())
	}
	if db.Dialect().Batches {
		path += "; batches=on: multi-statement batches where a transaction has them"
	}
	if k := db.sockets.Describe(); k != "" {
		path += "; " + k
	}
	return path
}

// noteOffWire counts a session that could not take candor's wire, and why.
func (db *DB) noteOffWire(why string) {
	db.offWire.Add(1)
	db.offMu.Lock()
	defer db.offMu.Unlock()
	if db.offWhy == nil {
		db.offWhy = map[string]int64{}
	}
	db.offWhy[why]++
}

// offWireWhy lists the reasons sessions could not take candor's wire, with their counts when
// there are several.
func (db *DB) offWireWhy() string {
	db.offMu.Lock()
	defer db.offMu.Unlock()
	whys := slices.Sorted(maps.Keys(db.offWhy))
	if len(whys) == 1 {
		return whys[0]
	}
	for i, w := range whys {
		whys[i] = fmt.Sprintf("%d: %s", db.offWhy[w], w)
	}
	return strings.Join(whys, "; ")
}

// Version is what the server said when Open connected, e.g. "MariaDB 10.11.19-0+deb12u1 (Debian 12)".
func (db *DB) Version(ctx context.Context) (string, error) { return db.version, nil }

func (db *DB) Classify(err error) driver.ErrorClass { return classify(err) }

// DefaultIsolation is the server's default level (@@transaction_isolation), or repeatable read if
// the server's is one candor has no name for (read uncommitted).
func (db *DB) DefaultIsolation() driver.Isolation { return db.defaultIso }

// BulkPath says how CopyFrom loads rows: BulkLoadData or BulkInsert. It may change from the first
// to the second during a load if the server refuses LOAD DATA LOCAL.
func (db *DB) BulkPath() string {
	if db.loadData.Load() {
		return BulkLoadData
	}
	return BulkInsert
}

// MaxAllowedPacket is the server's max_allowed_packet in bytes.
func (db *DB) MaxAllowedPacket() int { return db.maxPacket }

func (db *DB) Close() error { return db.sqlDB.Close() }

// userError is a userr error whose message never contains the URL's password: its parts are the
// redacted URL, the user, host and database, and the server's or library's message. The password is
// never masked as a substring afterwards (a short one, "e", would mask every "e" and show itself);
// only a message that echoes the whole URL has it replaced by the redacted one.
func (db *DB) userError(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if db.raw != "" {
		msg = strings.ReplaceAll(msg, db.raw, db.redacted)
	}
	return userr.Errorf("%s", msg)
}

// addr is the server's "host:port" (or socket path) as the URL gave it.
func (db *DB) addr() string { return db.cfg.Addr }

// ServerHost is the server's address as the URL names it, for telling whether it runs on the
// driver's host: an IP address, a host name resolved to its first address, or "" for a Unix socket.
func (db *DB) ServerHost() string {
	if db.cfg.Net == "unix" {
		return ""
	}
	host, _, err := net.SplitHostPort(db.cfg.Addr)
	if err != nil {
		return db.cfg.Addr
	}
	if net.ParseIP(host) == nil {
		if ips, err := net.LookupIP(host); err == nil && len(ips) > 0 {
			return ips[0].String()
		}
	}
	return host
}

// Limits: a statement, and a row read back, are one packet each, at most the server's
// max_allowed_packet (read when the database was opened); so is a value.
func (db *DB) Limits() driver.Limits {
	name := "the server's max_allowed_packet"
	return driver.Limits{Value: int64(db.maxPacket), ValueName: name, Row: int64(db.maxPacket), RowName: name}
}

package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/driver/rawsock"
	"github.com/candor-bench/candor/userr"
)

// Bulk paths of CopyFrom (see copy.go), as BulkPath reports them.
const (
	BulkLoadData = "LOAD DATA LOCAL INFILE (streamed)"
	BulkInsert   = "multi-row INSERT"
)

// bulkChoice is what the URL's bulk= parameter asks for.
type bulkChoice uint8

const (
	bulkAuto     bulkChoice = iota // LOAD DATA LOCAL when the server allows it, else INSERT
	bulkLoadData                   // LOAD DATA LOCAL, an error if the server refuses it
	bulkInsert                     // multi-row INSERT always
)

// options are what the URL says, beyond go-sql-driver's configuration.
type options struct {
	engine string // "MySQL", "MariaDB", "TiDB" or "Dolt", from the scheme, for messages
	bulk   bulkChoice
	// batches: batches=on, several statements in one round trip where the engine takes them
	// (off by default: measured on loopback MariaDB, they cost the server more than they save).
	batches bool
	// noPipes: pipelines=off, statements one by one where a pipeline would send them together
	// (Conn.Pipe is nil).
	noPipes bool
}

// connectTimeout applies when the URL sets no connect_timeout.
const connectTimeout = 10 * time.Second

// urlForm is how a URL should look, for messages.
const urlForm = "mysql://user:pass@host:port/db"

// parseURL turns mysql://user:pass@host:port/db?param=value (or mariadb://, tidb://, dolt://) into
// go-sql-driver's configuration. Parameters: connect_timeout=SECONDS, socket=PATH (a Unix socket instead of
// host:port), tls=true|false|skip-verify|preferred, bulk=auto|load-data|insert, batches=on|off
// (on: multi-statements for the batches of Conn.ExecBatch and QueryBatch where the engine has them;
// off, the default: every statement prepared and sent on its own), pipelines=on|off (on, the
// default: Conn.Pipe sends a workload's pipelined statements in one write; off: one by one).
//
// The configuration always has: parseTime (DATETIME columns scan into time.Time) in UTC, the
// server's own max_allowed_packet, CLIENT_FOUND_ROWS (an UPDATE reports the rows it matched, not
// only those it changed), multi-statements only with batches=on where the engine has batches (Conn.ExecBatch and QueryBatch,
// which carry no parameters), no client-side interpolation (statements with
// arguments are prepared on the server), and no local file access: LOAD DATA LOCAL reads only the
// readers CopyFrom registers for itself.
func parseURL(u *url.URL, raw string) (*gomysql.Config, options, error) {
	o := options{engine: engineFor(strings.ToLower(u.Scheme)).title}
	red := driver.Redact(raw)
	if u.Opaque != "" {
		return nil, o, userr.Errorf("the %s URL %s is malformed: use %s", o.engine, red, urlForm)
	}
	cfg := gomysql.NewConfig()
	cfg.Net = "tcp"
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.MaxAllowedPacket = 0 // read the server's max_allowed_packet at connect
	cfg.ClientFoundRows = true
	cfg.AllowAllFiles = false
	cfg.InterpolateParams = false
	batches := engineFor(strings.ToLower(u.Scheme)).dialect.Batches // Conn.ExecBatch and QueryBatch only
	cfg.Timeout = connectTimeout
	cfg.Logger = &gomysql.NopLogger{} // errors are returned; none printed behind our back
	cfg.DialFunc = dial
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" || strings.Contains(cfg.DBName, "/") {
		return nil, o, userr.Errorf("the %s URL %s names no database: use %s", o.engine, red, urlForm)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "3306"
	} else if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return nil, o, userr.Errorf("the %s URL %s has a bad port %q: use %s", o.engine, red, port, urlForm)
	}
	cfg.Addr = net.JoinHostPort(host, port)

	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, o, userr.Errorf("the parameters of the %s URL %s are malformed: use %s?bulk=auto", o.engine, red, urlForm)
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "connect_timeout":
			s, err := strconv.Atoi(v)
			if err != nil || s < 0 {
				return nil, o, userr.Errorf("connect_timeout=%s in the %s URL is not a number of seconds: use for example connect_timeout=10", v, o.engine)
			}
			cfg.Timeout = time.Duration(s) * time.Second // 0: no timeout
		case "socket":
			if v == "" {
				return nil, o, userr.Errorf("socket= in the %s URL names no file: use socket=/path/to/mysqld.sock", o.engine)
			}
			cfg.Net, cfg.Addr = "unix", v
		case "tls-ca":
			if v == "" {
				return nil, o, userr.Errorf("tls-ca= in the %s URL names no file: use tls-ca=/path/to/ca.pem (the certificate of the authority that signed the server's)", o.engine)
			}
			pem, err := os.ReadFile(v)
			if err != nil {
				return nil, o, userr.Errorf("tls-ca=%s in the %s URL: %v: name a readable PEM file of the authority's certificate", v, o.engine, err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, o, userr.Errorf("tls-ca=%s in the %s URL holds no PEM certificate: name the authority's certificate (-----BEGIN CERTIFICATE-----)", v, o.engine)
			}
			cfg.TLS = &tls.Config{RootCAs: pool}
		case "tls":
			switch v {
			case "true", "false", "skip-verify", "preferred":
				cfg.TLSConfig = v
			default:
				return nil, o, userr.Errorf("tls=%s in the %s URL is not a TLS mode: use tls=true, false, skip-verify or preferred", v, o.engine)
			}
		case "bulk":
			switch v {
			case "auto":
				o.bulk = bulkAuto
			case "load-data":
				o.bulk = bulkLoadData
			case "insert":
				o.bulk = bulkInsert
			default:
				return nil, o, userr.Errorf("bulk=%s in the %s URL is not a bulk path: use bulk=auto, load-data or insert", v, o.engine)
			}
		case "batches", "pipelines":
			if v != "on" && v != "off" {
				return nil, o, userr.Errorf("%s=%s in the %s URL is not a choice: use %s=on or %s=off", k, v, o.engine, k, k)
			}
			if k == "batches" {
				o.batches = v == "on"
			} else {
				o.noPipes = v == "off"
			}
		default:
			return nil, o, userr.Errorf("the %s URL parameter %q is unknown: use connect_timeout=, socket=, tls=, tls-ca=, bulk=, batches= or pipelines=", o.engine, k)
		}
	}
	if cfg.TLS != nil { // tls-ca: verified against that authority
		switch cfg.TLSConfig {
		case "", "true":
			cfg.TLSConfig = "true"
		default:
			return nil, o, userr.Errorf("tls-ca= in the %s URL verifies the server's certificate, which tls=%s does not: use tls=true with it, or leave tls out", o.engine, cfg.TLSConfig)
		}
	}
	cfg.MultiStatements = batches && o.batches
	return cfg, o, nil
}

// socketKey is the context key under which Connect asks dial for the session's socket.
type socketKey struct{}

// socketHolder receives the socket dial opened for one Connect, and carries the DB's choice of
// sockets (driver/blockconn's Tally) to dial.
type socketHolder struct {
	c       net.Conn
	sockets *blockconn.Tally
}

// dial opens the connection's socket and hands it to the Connect that asked for it (see
// Conn.interrupt): database/sql dials synchronously in the caller's context when it has no idle
// connection, which the DB never keeps.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	dc := d.DialContext
	h, _ := ctx.Value(socketKey{}).(*socketHolder)
	if h != nil {
		dc = h.sockets.Dial(ctx, dc) // held for a run's own connections with SocketEnv=held
	}
	c, err := dc(ctx, network, addr)
	if err == nil {
		// raw system calls on a netpoller's socket; blockconn's are left as they are (rawsock.Wrap)
		c = newReadAhead(rawsock.Wrap(c))
		if h != nil {
			h.c = c
		}
	}
	return c, err
}

// SocketEnv chooses the sockets' kind, as driver/postgres's CANDOR_PG_SOCKET does: "held" for a
// run's own connections (driver/blockconn), unset or "netpoll" Go's netpoller (the default);
// anything else is refused.
const SocketEnv = "CANDOR_MYSQL_SOCKET"

// PreparedEnv chooses who executes the prepared statements: "go-sql-driver" sends them through
// go-sql-driver's statements, for measuring; anything else through candor's own wire (wire.go), the
// default.
const PreparedEnv = "CANDOR_MYSQL_PREPARED"

// ownWire reports whether PreparedEnv leaves the prepared statements to candor's wire.
func ownWire() bool { return os.Getenv(PreparedEnv) != "go-sql-driver" }

package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// classify tells what an error means for the transaction that saw it.
func classify(err error) driver.ErrorClass {
	if err == nil {
		return driver.ErrFatal
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "40001", // serialization_failure
			"40P01", // deadlock_detected
			"55P03": // lock_not_available
			return driver.ErrRetry
		case "57P01", // admin_shutdown
			"57P02", // crash_shutdown
			"57P03": // cannot_connect_now
			return driver.ErrConnLost
		}
		if strings.HasPrefix(pgErr.Code, "08") { // connection_exception class
			return driver.ErrConnLost
		}
		return driver.ErrFatal
	}
	// The caller's context ended: not the engine's doing, and the caller is stopping anyway. (If it
	// ended during a query, pgx closed the connection; its next use reports ErrConnLost.)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return driver.ErrFatal
	}
	if errors.Is(err, errWire) { // wire.go closed the socket: a message out of place
		return driver.ErrConnLost
	}
	if errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) {
		return driver.ErrConnLost
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return driver.ErrConnLost // pgconn closes the connection on any network error
	}
	msg := err.Error()
	if strings.Contains(msg, "conn closed") {
		return driver.ErrConnLost
	}
	// SafeToRetry: nothing reached the server, because the connection could not be written to. A
	// "conn busy" error is also SafeToRetry but is a misuse of the connection, not a lost one.
	if pgconn.SafeToRetry(err) && !strings.Contains(msg, "conn busy") {
		return driver.ErrConnLost
	}
	return driver.ErrFatal
}

// userError is a userr error whose message never contains the URL's password: its parts are the
// redacted URL, the user, host and database, and the server's or pgx's message (pgx names the user
// and database, never the password). The password is never masked as a substring afterwards (a
// short one, "e", would mask every "e" and show itself); only a message that echoes the whole URL
// has it replaced by the redacted one.
func (db *DB) userError(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if db.raw != "" {
		msg = strings.ReplaceAll(msg, db.raw, db.redacted)
	}
	return userr.Errorf("%s", msg)
}

// connectError turns a failed connection attempt into one sentence naming the cause and the fix.
func (db *DB) connectError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("connecting to PostgreSQL at %s: %w", db.addr(), ctx.Err())
	}
	addr := db.addr()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return db.userError("PostgreSQL at %s refused user %s (%s): check the user and password in --db",
				addr, db.cfg.User, pgErr.Message)
		case "3D000": // invalid_catalog_name
			return db.userError("database %s does not exist on %s: create it (createdb %s) or fix --db",
				db.cfg.Database, addr, db.cfg.Database)
		case "53300": // too_many_connections
			return db.userError("PostgreSQL at %s has no connection slot left (%s): raise max_connections on the server or run fewer connections",
				addr, pgErr.Message)
		case "57P03": // cannot_connect_now
			return db.userError("PostgreSQL at %s does not accept connections now (%s): wait until it has started, then retry",
				addr, pgErr.Message)
		}
		return db.userError("PostgreSQL at %s refused the connection (%s): check the server log and --db", addr, pgErr.Message)
	}
	var dnsErr *net.DNSError
	reason := ""
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.As(err, &dnsErr):
		reason = "no such host"
	case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) || isNetTimeout(err):
		// A server that never answers the startup message may speak another protocol.
		if wrong := driver.WrongServer(driver.Identify(ctx, db.network(), db.dialAddr()), driver.ProtoPostgreSQL); wrong != "" {
			return db.userError("cannot connect to PostgreSQL at %s: %s", addr, wrong)
		}
		reason = "timeout"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		reason = "no route to host"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		reason = "connection closed by the server"
	default:
		// A protocol error: perhaps another server's port (MariaDB's greeting read as PostgreSQL's).
		if wrong := driver.WrongServer(driver.Identify(ctx, db.network(), db.dialAddr()), driver.ProtoPostgreSQL); wrong != "" {
			return db.userError("cannot connect to PostgreSQL at %s: %s", addr, wrong)
		}
		// TLS refused, a protocol error...: say what pgx said, without the connection details prefix.
		return db.userError("cannot connect to PostgreSQL at %s (%s): check the server and --db", addr, innermost(err))
	}
	return db.userError("cannot reach PostgreSQL at %s (%s): start the server or fix --db", addr, reason)
}

func isNetTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// innermost is the message of the deepest wrapped error, which is the actual cause.
func innermost(err error) string { return driver.Innermost(err) }

// network and dialAddr are where connections go: a Unix socket's path (host=/dir) or host:port.
func (db *DB) network() string {
	if strings.HasPrefix(db.cfg.Host, "/") {
		return "unix"
	}
	return "tcp"
}

func (db *DB) dialAddr() string {
	if db.network() == "unix" {
		return filepath.Join(db.cfg.Host, ".s.PGSQL."+strconv.Itoa(int(db.cfg.Port)))
	}
	return db.addr()
}

// parseProblem is what pgx found wrong in a URL, without the URL it repeats.
func parseProblem(err error) string {
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) && errors.Unwrap(pce) != nil {
		return innermost(pce)
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		return msg[i+len("`: "):]
	}
	return msg
}

// addr is the server's "host:port" as the user wrote it.
func (db *DB) addr() string {
	return net.JoinHostPort(db.cfg.Host, strconv.Itoa(int(db.cfg.Port)))
}

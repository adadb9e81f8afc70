package mysql

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
)

// Server error numbers candor acts on.
const (
	erCheckRead             = 1020 // MariaDB: "Record has changed since last read" (innodb_snapshot_isolation)
	erDBAccessDenied        = 1044
	erAccessDenied          = 1045
	erBadDB                 = 1049
	erServerShutdown        = 1053
	erTooManyConnections    = 1040
	erHostNotPrivileged     = 1130
	erLockWaitTimeout       = 1205
	erLockDeadlock          = 1213
	erNotSupportedAuthMode  = 1251
	erUnknownSystemVariable = 1193
	erConnectionKilled      = 1927 // MariaDB: "Connection was killed"
	erLoadInfileDisabled    = 1148 // "The used command is not allowed with this MariaDB/MySQL version"
	erLoadInfileDisabled8   = 3948 // MySQL 8: "Loading local data is disabled"
	crServerGone            = 2006 // client errors a proxy may pass on
	crServerLost            = 2013
	tidbWriteConflict       = 9007 // TiDB: "Write conflict ... please retry"
	tidbRetryForUpdate      = 8002 // TiDB: "can not retry select for update statement"
)

// classify tells what an error means for the transaction that saw it: a deadlock or a lock wait
// timeout (and the engines' own write-conflict errors) is retried; a connection that is gone is
// replaced; anything else is fatal.
func classify(err error) driver.ErrorClass {
	if err == nil {
		return driver.ErrFatal
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case erLockDeadlock, erLockWaitTimeout, erCheckRead, tidbWriteConflict, tidbRetryForUpdate:
			return driver.ErrRetry
		case erServerShutdown, erConnectionKilled, crServerGone, crServerLost:
			return driver.ErrConnLost
		}
		return driver.ErrFatal
	}
	// The caller's context ended: not the engine's doing, and the caller is stopping anyway.
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return driver.ErrFatal
	}
	if errors.Is(err, sqldriver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) {
		return driver.ErrConnLost
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return driver.ErrConnLost
	}
	return driver.ErrFatal
}

// connectError turns a failed connection attempt into one sentence naming the cause and the fix.
func (db *DB) connectError(ctx context.Context, err error) error {
	engine, addr := db.opts.engine, db.addr()
	if ctx.Err() != nil {
		return errors.Join(errors.New(engine+" at "+addr+": connecting was interrupted"), ctx.Err())
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case erAccessDenied:
			return db.userError("%s at %s refused user %s (%s): check the user and password in --db", engine, addr, db.cfg.User, me.Message)
		case erBadDB:
			return db.userError("database %s does not exist on %s at %s: create it (CREATE DATABASE %s) or fix --db", db.cfg.DBName, engine, addr, db.cfg.DBName)
		case erDBAccessDenied:
			return db.userError("%s at %s does not let user %s use database %s (%s): grant the privileges or fix --db", engine, addr, db.cfg.User, db.cfg.DBName, me.Message)
		case erTooManyConnections:
			return db.userError("%s at %s has no connection slot left (%s): raise max_connections on the server or run fewer connections", engine, addr, me.Message)
		case erHostNotPrivileged:
			return db.userError("%s at %s does not accept connections from this host (%s): grant the user access from it or fix --db", engine, addr, me.Message)
		case erNotSupportedAuthMode:
			return db.userError("%s at %s asks for an authentication method the client does not offer (%s): check the user's authentication plugin", engine, addr, me.Message)
		}
		return db.userError("%s at %s refused the connection (%s): check the server log and --db", engine, addr, me.Message)
	}
	var dnsErr *net.DNSError
	reason := ""
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.Is(err, syscall.ENOENT):
		reason = "no such socket"
	case errors.As(err, &dnsErr):
		reason = "no such host"
	case errors.Is(err, context.DeadlineExceeded) || isNetTimeout(err):
		// No greeting: a server that waits for the client to speak (PostgreSQL, HTTP)?
		if wrong := db.wrongServer(ctx); wrong != "" {
			return db.userError("cannot connect to %s at %s: %s", engine, addr, wrong)
		}
		reason = "timeout"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		reason = "no route to host"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, gomysql.ErrInvalidConn) || errors.Is(err, sqldriver.ErrBadConn):
		reason = "connection closed by the server"
	default:
		// A greeting that does not parse: another server's port?
		if wrong := db.wrongServer(ctx); wrong != "" {
			return db.userError("cannot connect to %s at %s: %s", engine, addr, wrong)
		}
		// TLS refused, an unsupported authentication plugin...: say what the driver said.
		return db.userError("cannot connect to %s at %s (%s): check the server and --db", engine, addr, oneLine(innermost(err)))
	}
	return db.userError("cannot reach %s at %s (%s): start the server or fix --db", engine, addr, reason)
}

// wrongServer names the protocol of the server at the URL's address, for a connection that failed
// the way a server of another protocol makes it fail: no greeting within the connect timeout (a
// PostgreSQL or HTTP server waits for the client to speak), or a greeting that does not parse. It
// is "" when that server speaks MySQL's protocol after all, or cannot be told.
func (db *DB) wrongServer(ctx context.Context) string {
	return driver.WrongServer(driver.Identify(ctx, db.cfg.Net, db.cfg.Addr), driver.ProtoMySQL)
}

func isNetTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// innermost is the message of the deepest wrapped error, which is the actual cause.
func innermost(err error) string { return driver.Innermost(err) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

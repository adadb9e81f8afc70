package postgres

import (
	"context"
	"strings"

	"github.com/candor-bench/candor/driver"
)

// The engines this driver reaches over PostgreSQL's wire protocol, each named by its URL scheme
// (or by --dialect, which rewrites the scheme): the engine is taken from configuration, never
// guessed from a port or a banner.
//
//	postgres://, postgresql://   PostgreSQL
//	cockroachdb://               CockroachDB (pgx connects to it as to PostgreSQL)
//	yugabytedb://                YugabyteDB's YSQL
//	doltgres://                  Doltgres, Dolt's PostgreSQL-compatible server; a postgres:// URL
//	                             whose server turns out to be Doltgres (readVersion) is taken as
//	                             doltgres:// too
type engine struct {
	name string // the dialect name: "postgres", "cockroachdb", "yugabytedb"
	// defaultIso is the level candor runs at when --isolation is not given: the engine's own
	// effective default (see the isolation notes below).
	defaultIso driver.Isolation
}

var (
	enginePostgres = &engine{name: "postgres", defaultIso: driver.IsolationReadCommitted}
	// CockroachDB: SERIALIZABLE is the default. READ COMMITTED runs as such only where the cluster
	// setting sql.txn.read_committed_isolation.enabled is true (the default since v24.1); elsewhere
	// it is silently upgraded to SERIALIZABLE, which EffectiveIsolation reports.
	engineCockroach = &engine{name: "cockroachdb", defaultIso: driver.IsolationSerializable}
	// YugabyteDB: READ COMMITTED is YSQL's syntactic default but maps to snapshot isolation
	// (PostgreSQL's REPEATABLE READ) unless the tserver flag yb_enable_read_committed_isolation is
	// set, so the effective default is repeatable read.
	engineYugabyte = &engine{name: "yugabytedb", defaultIso: driver.IsolationRepeatableRead}
	// Doltgres (1.2.0) reports every transaction as read committed, whatever BEGIN asked for.
	engineDoltgres = &engine{name: "doltgres", defaultIso: driver.IsolationReadCommitted}
)

func init() {
	driver.Register("cockroachdb", open)
	driver.Register("yugabytedb", open)
	driver.Register("doltgres", open)
	driver.RegisterDialect("postgres", driver.FamilyPostgres, "postgresql")
	driver.RegisterDialect("cockroachdb", driver.FamilyPostgres)
	driver.RegisterDialect("yugabytedb", driver.FamilyPostgres)
	driver.RegisterDialect("doltgres", driver.FamilyPostgres)
	for _, e := range []*engine{enginePostgres, engineCockroach, engineYugabyte, engineDoltgres} {
		driver.DescribeDialect(e.dialect())
	}
}

// dialect is the engine's Dialect: PostgreSQL's statements (its family), array parameters
// (= ANY($1), unnest) and concurrent writers, for PostgreSQL, CockroachDB and YugabyteDB (Doltgres:
// no array parameters); the workloads apply per-engine overrides by Name. Procedures (PL/pgSQL,
// --procedures): PostgreSQL itself; not tried on the others.
func (e *engine) dialect() driver.Dialect {
	return driver.Dialect{Name: e.name, Family: driver.FamilyPostgres, Arrays: e != engineDoltgres, Procedures: e == enginePostgres}
}

// engineFor returns the engine a (lower-case) URL scheme names.
func engineFor(scheme string) *engine {
	switch scheme {
	case "cockroachdb":
		return engineCockroach
	case "yugabytedb":
		return engineYugabyte
	case "doltgres":
		return engineDoltgres
	}
	return enginePostgres
}

// readVersion reads the server's version string. PostgreSQL's server_version is its own; CockroachDB
// and YugabyteDB report a PostgreSQL compatibility version there ("13.0.0", "11.2-YB-..."), so for
// them version() is read, which names the engine and its release.
//
// Doltgres says it is PostgreSQL 15.17 there; its own release is dolt_version()'s. It is asked only
// of a server that did not report DateStyle and integer_datetimes at startup, which every
// PostgreSQL since 8.0 does and Doltgres does not, so that PostgreSQL is never asked.
func (db *DB) readVersion(ctx context.Context, c *Conn) (string, error) {
	if db.engine == enginePostgres || db.engine == engineDoltgres {
		pc := c.pc.PgConn()
		v := pc.ParameterStatus("server_version")
		if v == "" {
			c.viaPgx()
			if err := c.pc.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
				return "", err
			}
		}
		if db.engine == engineDoltgres || mayBeDoltgres(pc.ParameterStatus) {
			var dv string
			c.viaPgx()
			if err := c.pc.QueryRow(ctx, "SELECT dolt_version()").Scan(&dv); err == nil && dv != "" {
				db.doltgres = dv
				db.engine = engineDoltgres // a postgres:// URL of a Doltgres server: its dialect
				return doltgresVersionString(dv, v), nil
			}
			if db.engine == engineDoltgres {
				return "Doltgres (PostgreSQL " + v + " compatible)", nil
			}
		}
		return "PostgreSQL " + v, nil
	}
	var v string
	c.viaPgx()
	if err := c.pc.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		return "", err
	}
	return v, nil
}

// mayBeDoltgres: the server's startup parameters (param, pgconn's ParameterStatus) lack DateStyle
// and integer_datetimes, which PostgreSQL always reports and Doltgres does not.
func mayBeDoltgres(param func(string) string) bool {
	return param("DateStyle") == "" && param("integer_datetimes") == ""
}

// doltgresVersionString names a Doltgres server: "Doltgres 0.55.0 (PostgreSQL 15.17 compatible)".
func doltgresVersionString(doltgres, pgVersion string) string {
	return "Doltgres " + doltgres + " (PostgreSQL " + pgVersion + " compatible)"
}

// DoltgresVersion is Doltgres's own release as dolt_version() said it when Open connected, or ""
// when the server is not Doltgres.
func (db *DB) DoltgresVersion() string { return db.doltgres }

// EffectiveIsolation runs an empty read-only transaction at iso and reads the level the server
// reports for it (SHOW transaction_isolation). On CockroachDB that is the level it really runs
// (an upgraded READ COMMITTED shows as serializable). YugabyteDB reports the level asked for even
// when it runs READ COMMITTED as snapshot isolation, so there the tserver flag is read too when the
// server exposes it (yb_enable_read_committed_isolation); when it does not, ok is false for READ
// COMMITTED.
func (db *DB) EffectiveIsolation(ctx context.Context, dc driver.Conn, iso driver.Isolation) (driver.Isolation, bool, error) {
	if err := dc.Begin(ctx, driver.TxOptions{ReadOnly: true, Isolation: iso}); err != nil {
		return "", false, err
	}
	defer dc.Rollback(context.WithoutCancel(ctx))
	var level string
	if err := dc.QueryRow(ctx, "SHOW transaction_isolation").Scan(&level); err != nil {
		return "", false, err
	}
	eff, ok := parseLevel(level)
	if !ok || db.engine != engineYugabyte || eff != driver.IsolationReadCommitted {
		return eff, ok, nil
	}
	var flag *string
	if err := dc.QueryRow(ctx, "SELECT current_setting('yb_enable_read_committed_isolation', true)").Scan(&flag); err != nil || flag == nil || *flag == "" {
		return eff, false, nil
	}
	if *flag == "true" || *flag == "on" {
		return driver.IsolationReadCommitted, true, nil
	}
	return driver.IsolationRepeatableRead, true, nil
}

var _ driver.IsolationProber = (*DB)(nil)

// parseLevel reads a transaction_isolation value ("read committed", "SERIALIZABLE", ...).
func parseLevel(s string) (driver.Isolation, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read committed", "read uncommitted":
		return driver.IsolationReadCommitted, true
	case "repeatable read", "snapshot":
		return driver.IsolationRepeatableRead, true
	case "serializable":
		return driver.IsolationSerializable, true
	}
	return "", false
}

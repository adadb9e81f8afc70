package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/tpcc"
)

// Several endpoints of one database (--db URL --db URL ...), the isolation level the engine really
// runs, and the check that --dialect matches the server: the run-side half of the distributed SQL
// engines (workload/tpcc/distsql.go and endpoints.go hold the workload's).

// DialectURLs applies --dialect to every database URL (driver.ApplyDialect): --dialect cockroachdb
// turns postgres://... into cockroachdb://.... An empty dialect leaves them as they are.
func DialectURLs(dialect string, urls []string) ([]string, error) {
	out := make([]string, len(urls))
	for i, u := range urls {
		var err error
		if out[i], err = driver.ApplyDialect(u, dialect); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// validateEndpoints adds the problems of several endpoints that need no database.
func (r *RunPlan) validateEndpoints(p *problems) {
	e := 1 + len(r.ExtraDB)
	if e == 1 {
		return
	}
	if r.Connections != 0 && r.Connections < e {
		p.add("--connections %d cannot serve %d endpoints (--db given %d times): give --connections %d or more", r.Connections, e, e, e)
	}
	if r.Warehouses != 0 && r.Warehouses < e {
		p.add("%d warehouses cannot be spread over %d endpoints: terminals are spread by warehouse, so give at most %d --db endpoints", r.Warehouses, e, r.Warehouses)
	}
	for i, u := range r.ExtraDB {
		if u == "" {
			p.add("--db number %d is empty: give a URL", i+2)
		}
	}
}

// openEndpoints opens the extra endpoints and checks that they are the same database as db: the
// same engine and the same load (candor_load's seed, warehouses and start). It finishes resolving
// the plan: the endpoints' redacted URLs and at least one connection per endpoint.
func openEndpoints(ctx context.Context, p *RunPlan, db driver.DB, info tpcc.LoadInfo, out Out) ([]driver.DB, error) {
	p.Dialect = db.Dialect().Name
	if len(p.ExtraDB) == 0 {
		return nil, nil
	}
	e := 1 + len(p.ExtraDB)
	if p.Warehouses < e {
		return nil, userr.Errorf("%d warehouses cannot be spread over %d endpoints: terminals are spread by warehouse, so give at most %d --db endpoints", p.Warehouses, e, p.Warehouses)
	}
	if p.Mode == tpcc.ModeThroughput && p.Terminals < e {
		return nil, userr.Errorf("%d terminals cannot be spread over %d endpoints: give --terminals %d or more", p.Terminals, e, e)
	}
	p.Connections = max(p.Connections, e)
	p.Endpoints = []string{db.Redacted()}
	var eps []driver.DB
	fail := func(err error) ([]driver.DB, error) {
		closeEndpoints(eps)
		return nil, err
	}
	for i, u := range p.ExtraDB {
		ep, err := driver.Open(ctx, u)
		if err != nil {
			return fail(err)
		}
		eps = append(eps, ep)
		if ep.Dialect().Name != db.Dialect().Name {
			return fail(userr.Errorf("endpoint %d (%s) is %s but the first --db is %s: every --db must reach the same database", i+2, ep.Redacted(), ep.Dialect().Name, db.Dialect().Name))
		}
		li, err := tpcc.ReadLoadInfo(ctx, ep)
		if err != nil {
			return fail(err)
		}
		if li.Seed != info.Seed || li.Warehouses != info.Warehouses || !li.StartedAt.Equal(info.StartedAt) {
			return fail(userr.Errorf("endpoint %d (%s) holds another TPC-C load (%d warehouses, seed %d, loaded %s) than the first --db (%d warehouses, seed %d, loaded %s): every --db must reach the same database",
				i+2, ep.Redacted(), li.Warehouses, li.Seed, li.StartedAt.Format(time.RFC3339), info.Warehouses, info.Seed, info.StartedAt.Format(time.RFC3339)))
		}
		p.Endpoints = append(p.Endpoints, ep.Redacted())
	}
	fmt.Fprintf(out.Stderr, "spreading the terminals over %d endpoints by warehouse (warehouse w on endpoint (w-1) mod %d): %s\n", e, e, strings.Join(p.Endpoints, ", "))
	return eps, nil
}

func closeEndpoints(eps []driver.DB) {
	for _, ep := range eps {
		ep.Close()
	}
}

// isolationFacts is what the engine says about the levels the run's transactions run at.
type isolationFacts struct {
	asked, stockLevel driver.Isolation
	// effective and stockEffective are the levels the engine reports running them at; known is
	// false when it cannot tell (an engine without driver.IsolationProber, or YugabyteDB's READ
	// COMMITTED without the server flag in sight).
	effective, stockEffective driver.Isolation
	known, stockKnown         bool
}

// probeIsolation asks the engine which levels iso and Stock-Level's level really run at. Failing to
// ask is not fatal: the result then says nothing about it.
func probeIsolation(ctx context.Context, db driver.DB, iso driver.Isolation) isolationFacts {
	f := isolationFacts{asked: iso, stockLevel: tpcc.StockLevelIsolation(iso)}
	pr, ok := db.(driver.IsolationProber)
	if !ok {
		return f
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return f
	}
	defer c.Close()
	if eff, ok, err := pr.EffectiveIsolation(ctx, c, f.asked); err == nil {
		f.effective, f.known = eff, ok
	}
	if eff, ok, err := pr.EffectiveIsolation(ctx, c, f.stockLevel); err == nil {
		f.stockEffective, f.stockKnown = eff, ok
	}
	return f
}

// addEngineFacts puts the per-endpoint counts, the effective isolation levels and their warnings,
// and a dialect that the server's version contradicts, into the result.
func addEngineFacts(r *report.Result, p *RunPlan, o *tpcc.RunOutput, iso isolationFacts, dbVersion string) {
	if iso.known {
		r.IsolationEffective = string(iso.effective)
	}
	r.StockLevelIsolation = string(iso.stockLevel)
	if iso.stockKnown {
		r.StockLevelIsolation = string(iso.stockEffective)
	}
	if iso.known && iso.effective != iso.asked {
		r.Warnings = append(r.Warnings, report.Warning{Code: "ISOLATION_UPGRADED",
			Message: fmt.Sprintf("%s transactions were asked for, but the engine runs them at %s: the results are those of %s", iso.asked, iso.effective, iso.effective)})
	}
	if !iso.known && r.Database.Kind == "yugabytedb" && iso.asked == driver.IsolationReadCommitted {
		r.Warnings = append(r.Warnings, report.Warning{Code: "ISOLATION_UNVERIFIED",
			Message: "YugabyteDB runs READ COMMITTED as snapshot isolation (repeatable read) unless its tserver flag yb_enable_read_committed_isolation is on, and the server did not say whether it is"})
	}
	if hint, ok := dialectHints[p.Dialect]; ok && !strings.Contains(dbVersion, hint) {
		r.Warnings = append(r.Warnings, report.Warning{Code: "DIALECT_MISMATCH",
			Message: fmt.Sprintf("the dialect is %s but the server calls itself %q: the SQL and load path of %s ran against another engine", p.Dialect, dbVersion, p.Dialect)})
	}
	if other := namedEngine(p.Dialect, dbVersion); other != "" {
		r.Warnings = append(r.Warnings, report.Warning{Code: "DIALECT_MISMATCH",
			Message: fmt.Sprintf("the dialect is %s but the server calls itself %q: the SQL and capabilities of %s ran against it; name the engine with a %s:// URL or --dialect %s", p.Dialect, dbVersion, p.Dialect, other, other)})
	}
	if len(o.Endpoints) < 2 && len(p.Endpoints) < 2 {
		return
	}
	for i, e := range o.Endpoints {
		url := ""
		if i < len(p.Endpoints) {
			url = p.Endpoints[i]
		}
		r.Endpoints = append(r.Endpoints, report.Endpoint{URL: url, Terminals: e.Terminals, Connections: e.Connections,
			Transactions: e.Transactions, Errors: e.Errors, Retries: e.Retries,
			DeferredDeliveries: e.DeferredDeliveries, DeferredErrors: e.DeferredErrors, DeferredRetries: e.DeferredRetries})
	}
}

// dialectHints are what the version() of each distributed engine contains, and what the version
// of each engine of the MySQL family with a dialect of its own starts with (driver/mysql's
// versionString).
var dialectHints = map[string]string{
	"cockroachdb": "CockroachDB",
	"yugabytedb":  "-YB-",
	"mariadb":     "MariaDB ",
	"tidb":        "TiDB ",
	"dolt":        "Dolt ",
}

// namedEngine returns the dialect of another engine of the MySQL family that a server reached with
// the generic mysql dialect calls itself (TiDB, Dolt), or "". The dialect is never chosen from the
// version (design.md: the engine is identified from configuration); a mismatch is only warned of.
// MariaDB is not named: the mysql dialect is MariaDB's too, with the same capabilities.
func namedEngine(dialect, version string) string {
	if dialect != "mysql" {
		return ""
	}
	for _, d := range []string{"tidb", "dolt"} {
		if strings.HasPrefix(version, dialectHints[d]) {
			return d
		}
	}
	return ""
}

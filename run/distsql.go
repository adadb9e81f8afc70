package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// Several endpoints of one database (--db URL --db URL ...), the isolation level the engine really
// runs, and the check that --dialect matches the server: the run-side half of the distributed SQL
// engines (a workload spreads its terminals over the endpoints and checks they hold its load).

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
	for i, u := range r.ExtraDB {
		if u == "" {
			p.add("--db number %d is empty: give a URL", i+2)
		}
	}
}

// openEndpoints opens the extra endpoints and checks that they are the same engine as db (the
// workload checks they hold the same load, in Open). It resolves the plan's dialect and the
// endpoints' redacted URLs.
func openEndpoints(ctx context.Context, p *RunPlan, db driver.DB) ([]driver.DB, error) {
	p.Dialect = db.Dialect().Name
	if len(p.ExtraDB) == 0 {
		return nil, nil
	}
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
		p.Endpoints = append(p.Endpoints, ep.Redacted())
	}
	return eps, nil
}

func closeEndpoints(eps []driver.DB) {
	for _, ep := range eps {
		ep.Close()
	}
}

// isolationFacts is what the engine says about the level the run's operations run at.
type isolationFacts struct {
	asked driver.Isolation
	// effective is the level the engine reports running asked at; known is false when it cannot
	// tell (an engine without driver.IsolationProber, or YugabyteDB's READ COMMITTED without the
	// server flag in sight).
	effective driver.Isolation
	known     bool
}

// probeIsolation asks the engine which level iso really runs at. Failing to ask is not fatal: the
// result then says nothing about it. (A workload with operations at another level, TPC-C's
// Stock-Level, probes those itself.)
func probeIsolation(ctx context.Context, db driver.DB, iso driver.Isolation) isolationFacts {
	f := isolationFacts{asked: iso}
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
	return f
}

// addEngineFacts puts the effective isolation level and its warnings, and a dialect that the
// server's version contradicts, into the result.
func addEngineFacts(r *report.Result, p *RunPlan, iso isolationFacts, dbVersion string) {
	if iso.known {
		r.IsolationEffective = string(iso.effective)
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

package postgres

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
)

// TestEnginesBySchemeOnPostgres: cockroachdb:// and yugabytedb:// URLs open through pgx (here
// against PostgreSQL, the only server the tests have), name their engine in Kind and Dialect, read
// version() and default to the engine's effective isolation level.
func TestEnginesBySchemeOnPostgres(t *testing.T) {
	cases := []struct {
		scheme string
		iso    driver.Isolation
	}{
		{"cockroachdb", driver.IsolationSerializable},
		{"yugabytedb", driver.IsolationRepeatableRead},
		{"postgres", driver.IsolationReadCommitted},
	}
	for _, c := range cases {
		raw, err := driver.ApplyDialect(pgURL(t), c.scheme)
		if err != nil {
			t.Fatal(err)
		}
		db, err := driver.Open(testCtx(t), raw)
		if err != nil {
			t.Fatalf("open %s: %v", driver.Redact(raw), err)
		}
		defer db.Close()
		d := db.Dialect()
		if db.Kind() != c.scheme || d.Name != c.scheme || d.SQLFamily() != "postgres" || !d.Arrays {
			t.Errorf("%s: Kind %q, Dialect %+v", c.scheme, db.Kind(), d)
		}
		if db.DefaultIsolation() != c.iso {
			t.Errorf("%s: DefaultIsolation %q, want %q", c.scheme, db.DefaultIsolation(), c.iso)
		}
		if !strings.HasPrefix(db.Redacted(), c.scheme+"://") {
			t.Errorf("%s: Redacted %q does not keep the scheme that names the engine", c.scheme, db.Redacted())
		}
		v, err := db.Version(testCtx(t))
		if err != nil || !strings.HasPrefix(v, "PostgreSQL ") {
			t.Errorf("%s: Version %q, %v", c.scheme, v, err)
		}
		if c.scheme != "postgres" && !strings.Contains(v, " on ") { // version(), not server_version
			t.Errorf("%s: Version %q is not version()'s", c.scheme, v)
		}
	}
}

// TestEffectiveIsolation: PostgreSQL runs every level as asked, and says so; on YugabyteDB, READ
// COMMITTED is reported as unknown when the server does not expose yb_enable_read_committed_isolation
// (as PostgreSQL does not).
func TestEffectiveIsolation(t *testing.T) {
	for _, scheme := range []string{"postgres", "yugabytedb"} {
		raw, _ := driver.ApplyDialect(pgURL(t), scheme)
		db, err := driver.Open(testCtx(t), raw)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		c := connect(t, db)
		pr := db.(driver.IsolationProber)
		for _, iso := range []driver.Isolation{driver.IsolationReadCommitted, driver.IsolationRepeatableRead, driver.IsolationSerializable} {
			eff, ok, err := pr.EffectiveIsolation(testCtx(t), c, iso)
			if err != nil {
				t.Fatalf("%s %s: %v", scheme, iso, err)
			}
			wantOK := !(scheme == "yugabytedb" && iso == driver.IsolationReadCommitted)
			if ok != wantOK || (ok && eff != iso) {
				t.Errorf("%s %s: effective %q, known %v; want %q, known %v", scheme, iso, eff, ok, iso, wantOK)
			}
		}
		// The probe leaves no transaction open.
		var n int
		if err := c.QueryRow(testCtx(t), "SELECT 1").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := c.Begin(testCtx(t), driver.TxOptions{}); err != nil {
			t.Fatalf("%s: BEGIN after the probe: %v", scheme, err)
		}
		c.Rollback(testCtx(t))
	}
	if l, ok := parseLevel("SERIALIZABLE"); !ok || l != driver.IsolationSerializable {
		t.Errorf("parseLevel(SERIALIZABLE) = %q, %v", l, ok)
	}
	if _, ok := parseLevel("snapshot-ish"); ok {
		t.Error("parseLevel accepted an unknown level")
	}
}

// TestDoltgresProbe: Doltgres (which says it is PostgreSQL 15.17) is asked dolt_version() only
// when the server's startup parameters lack DateStyle and integer_datetimes, as Doltgres's do (it
// reports server_version, client_encoding, standard_conforming_strings and in_hot_standby); the
// real PostgreSQL reports both, is never asked, and keeps its name.
func TestDoltgresProbe(t *testing.T) {
	doltgres := map[string]string{"server_version": "15.17", "client_encoding": "UTF8", "standard_conforming_strings": "on", "in_hot_standby": "off"}
	if !mayBeDoltgres(func(k string) string { return doltgres[k] }) {
		t.Error("Doltgres's startup parameters are not taken for Doltgres's")
	}
	if got, want := doltgresVersionString("0.55.0", "15.17"), "Doltgres 0.55.0 (PostgreSQL 15.17 compatible)"; got != want {
		t.Errorf("doltgresVersionString = %q, want %q", got, want)
	}
	db := openDB(t).(*DB)
	c, err := db.connect(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if mayBeDoltgres(c.pc.PgConn().ParameterStatus) {
		t.Error("PostgreSQL's startup parameters are taken for Doltgres's: it would be asked dolt_version()")
	}
	if v, _ := db.Version(testCtx(t)); !strings.HasPrefix(v, "PostgreSQL ") || db.DoltgresVersion() != "" {
		t.Errorf("PostgreSQL: Version %q, DoltgresVersion %q", v, db.DoltgresVersion())
	}
}

// TestDoltgresScheme: doltgres:// names the Doltgres dialect (PostgreSQL's family, no array
// parameters, read committed by default, multi-row INSERT for loads) from the URL alone, before
// and after opening; against PostgreSQL, which has no dolt_version(), it says it is Doltgres all the
// same (the URL names the engine), with the compatibility version PostgreSQL reports.
func TestDoltgresScheme(t *testing.T) {
	raw, err := driver.ApplyDialect(pgURL(t), "doltgres")
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := driver.URLDialect(raw); !ok || d.Name != "doltgres" || d.SQLFamily() != "postgres" || d.Arrays || d.Procedures {
		t.Errorf("URLDialect(doltgres://) = %+v, %v", d, ok)
	}
	dbi, err := driver.Open(testCtx(t), raw)
	if err != nil {
		t.Fatal(err)
	}
	defer dbi.Close()
	db := dbi.(*DB)
	if db.Kind() != "doltgres" || db.Dialect().Arrays || db.DefaultIsolation() != driver.IsolationReadCommitted {
		t.Errorf("Kind %q, Dialect %+v, DefaultIsolation %q", db.Kind(), db.Dialect(), db.DefaultIsolation())
	}
	if v, _ := db.Version(testCtx(t)); !strings.HasPrefix(v, "Doltgres (PostgreSQL ") {
		t.Errorf("Version %q", v)
	}
	if db.bulk.copy.Load() != copyRefusedState || db.BulkPath() != BulkInsert {
		t.Errorf("Doltgres's loads: BulkPath %q", db.BulkPath())
	}
	withCopy, err := driver.Open(testCtx(t), raw+map[bool]string{true: "&", false: "?"}[strings.Contains(raw, "?")]+"bulk=copy")
	if err != nil {
		t.Fatal(err)
	}
	defer withCopy.Close()
	if withCopy.(*DB).bulk.copy.Load() != copyWorks {
		t.Error("doltgres:// with bulk=copy does not load with COPY")
	}
}

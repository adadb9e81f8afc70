package run

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"github.com/candor-bench/candor/workload"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/tpcc"
)

// The Delivery result file of clause 2.7.4.2 (deliveries.csv): after a short throughput run, every
// line agrees with the database and with result.json, on each engine and in both modes.
//
// The same runs check the round trips per transaction that result.json reports (trips: the range
// it must fall in; none for SQLite, which is embedded). On PostgreSQL at read committed: New-Order
// 2 (BEGIN travels with its first statement, COMMIT with its last: CarryCommit; 3 for the 1% that
// roll back), the others 1, so 0.435 x 2 + 0.565 = 1.44 with the deck's shares; with procedures 1.
// On MySQL, with pipelines (workload/tpcc/sql_mysql.go), New-Order 3, Payment 2 or 3, Order-Status 2
// or 3, Delivery 4, Stock-Level 2 (a read-write transaction is started by its first statement,
// driver/mysql's Begin): about 2.8.
func TestDeliveriesFileSQLite(t *testing.T) {
	deliveriesRun(t, "sqlite:"+filepath.Join(t.TempDir(), "tpcc.db"), false, tripRange{})
}
func TestDeliveriesFilePostgres(t *testing.T) {
	deliveriesRun(t, dbtest.FreshPostgresURL(t, "candor_del"), false, tripRange{1.35, 1.6})
}
func TestDeliveriesFilePostgresProcedures(t *testing.T) {
	deliveriesRun(t, dbtest.FreshPostgresURL(t, "candor_del"), true, tripRange{0.99, 1.05})
}
func TestDeliveriesFileMySQL(t *testing.T) {
	deliveriesRun(t, dbtest.FreshMySQLURL(t, "candor_del"), false, tripRange{2.5, 3.5})
}
func TestDeliveriesFileMySQLProcedures(t *testing.T) {
	deliveriesRun(t, dbtest.FreshMySQLURL(t, "candor_del"), true, tripRange{0.99, 1.05})
}

// tripRange bounds the round trips per transaction; the zero value means none are counted.
type tripRange struct{ min, max float64 }

func deliveriesRun(t *testing.T, url string, procs bool, trips tripRange) {
	err := Load(t.Context(), LoadPlan{Workload: tpccW(1, procs), DB: url, Loaders: 2, Seed: 1, Quiet: true}, Out{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatalf("loading one warehouse: %v", err)
	}
	staggerDistricts(t, url)
	dir := filepath.Join(t.TempDir(), "out")
	var stdout bytes.Buffer
	res, err := Run(t.Context(), RunPlan{Workload: tpccW(0, procs), DB: url, Mode: workload.ModeThroughput, Terminals: 4, Duration: 4 * time.Second,
		Warmup: time.Second, Grace: 10 * time.Second, Interval: time.Second, Out: dir, Seed: 5, Quiet: true},
		Out{Stdout: &stdout, Stderr: io.Discard})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stdout.String())
	}
	checkDeliveries(t, url, dir, res)
	d := res.Driver
	t.Logf("round trips: %d, %.3f per transaction", d.RoundTrips, d.RoundTripsPerTx)
	if trips == (tripRange{}) {
		if d.RoundTrips != 0 || d.RoundTripsPerTx != 0 {
			t.Errorf("round trips %d (%.2f per transaction) on an engine that has none", d.RoundTrips, d.RoundTripsPerTx)
		}
	} else if d.RoundTripsPerTx < trips.min || d.RoundTripsPerTx > trips.max {
		t.Errorf("%.3f round trips per transaction, want %.2f..%.2f", d.RoundTripsPerTx, trips.min, trips.max)
	}
}

// An interrupted run (Ctrl-C) keeps its result file whole: the Deliveries queued before the
// interruption finish, and each is in the file.
func TestDeliveriesFileInterrupted(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	loadOne(t, url)
	staggerDistricts(t, url)
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	time.AfterFunc(4*time.Second, cancel)
	res, err := Run(ctx, RunPlan{Workload: tpccW(0, false), DB: url, Mode: workload.ModeThroughput, Terminals: 4, Duration: time.Minute,
		Warmup: time.Second, Grace: 10 * time.Second, Interval: time.Second, Out: dir, Seed: 6, Quiet: true},
		Out{Stdout: io.Discard, Stderr: io.Discard})
	if !errors.Is(err, ErrPartial) || res == nil || !res.Partial {
		t.Fatalf("interrupted run: %v, want ErrPartial and a partial result", err)
	}
	checkDeliveries(t, url, dir, res)
}

// A Delivery that fails after its retries is in the file too, with its error and nothing else:
// here every one fails (candor_delivery replaced by one that raises an error).
func TestDeliveriesFileErrors(t *testing.T) {
	url := dbtest.FreshPostgresURL(t, "candor_del")
	err := Load(t.Context(), LoadPlan{Workload: tpccW(1, true), DB: url, Loaders: 2, Seed: 1, Quiet: true}, Out{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatalf("loading one warehouse: %v", err)
	}
	c := drivertest.Connect(t, drivertest.Open(t, url))
	if _, err := c.Exec(t.Context(), `CREATE OR REPLACE FUNCTION candor_delivery(p_w int, p_carrier int, p_now timestamp,
	OUT r_delivered int, OUT r_skipped int, OUT r_o1 int, OUT r_o2 int, OUT r_o3 int, OUT r_o4 int,
	OUT r_o5 int, OUT r_o6 int, OUT r_o7 int, OUT r_o8 int, OUT r_o9 int, OUT r_o10 int)
LANGUAGE plpgsql AS $fn$ BEGIN RAISE EXCEPTION 'delivery broken "on purpose"'; END $fn$`); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Run(t.Context(), RunPlan{Workload: tpccW(0, true), DB: url, Mode: workload.ModeThroughput, Terminals: 4, Duration: 3 * time.Second,
		Warmup: time.Second, Grace: 10 * time.Second, Interval: time.Second, Out: dir, Seed: 5, Quiet: true},
		Out{Stdout: io.Discard, Stderr: io.Discard})
	// Every deferred Delivery failed: the run fails its failure verdict (exit status 1), naming it,
	// with the procedure's exception as a statement error and its message.
	if !errors.Is(err, ErrFailures) || res == nil {
		t.Fatalf("run: %v, want ErrFailures", err)
	}
	if v := res.FailureVerdict; v == nil || v.Pass || len(v.Over) != 1 || v.Over[0].Operation != "delivery_deferred" {
		t.Fatalf("failure verdict %+v: want delivery_deferred alone above the limit", v)
	}
	if f := res.Operations["delivery_deferred"].Failures; f == nil || f.ByClass["statement"] == 0 || len(f.Messages) == 0 ||
		!strings.Contains(f.Messages[0].Message, `delivery broken "on purpose"`) {
		t.Fatalf("delivery_deferred failures %+v: want statement errors with the procedure's message", f)
	}
	f, err := os.Open(filepath.Join(dir, report.DeliveriesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %d records, %v; want the header and lines", report.DeliveriesFile, len(recs), err)
	}
	var measured int64
	for i, r := range recs[1:] {
		if !strings.HasPrefix(r[16], "fatal: ") || !strings.Contains(r[16], `delivery broken "on purpose"`) || strings.Join(r[5:16], "") != "" {
			t.Errorf("line %d: %v; want the error's class and message, no skipped count, no O_IDs", i+1, r)
		}
		if r[2] == "true" {
			measured++
		}
	}
	dd := res.DeliveryDeferred
	if dd.Count != 0 || dd.Errors != measured || dd.Errors == 0 || dd.Lines != int64(len(recs)-1) {
		t.Errorf("result delivery_deferred %+v; the file has %d lines, %d measured", dd, len(recs)-1, measured)
	}
}

// staggerDistricts drops the new_order rows of the 3(d-1) oldest undelivered orders of district d
// (those orders are then never delivered). After a load every district's oldest undelivered order
// is 2101 and Deliveries take one per district, so the O_IDs would be the same in every district,
// and an O_ID recorded under the wrong district would go unseen.
func staggerDistricts(t *testing.T, url string) {
	t.Helper()
	c := drivertest.Connect(t, drivertest.Open(t, url))
	if n, err := c.Exec(t.Context(), "DELETE FROM new_order WHERE no_o_id < 2101 + 3 * (no_d_id - 1)"); err != nil || n != 3*45 {
		t.Fatalf("staggering the districts: %d rows, %v", n, err)
	}
}

// orderKey is one order: warehouse, district, O_ID.
type orderKey struct{ w, d, o int64 }

// checkDeliveries reads DIR/deliveries.csv and checks it against result.json and the database.
func checkDeliveries(t *testing.T, url, dir string, res *report.Result) {
	t.Helper()
	dd := res.DeliveryDeferred
	if dd == nil || dd.File != report.DeliveriesFile {
		t.Fatalf("result delivery_deferred = %+v, want the file named", dd)
	}
	saved, err := report.Read(dir)
	if err != nil || saved.DeliveryDeferred == nil || saved.DeliveryDeferred.File != report.DeliveriesFile {
		t.Fatalf("result.json does not name %s: %v", report.DeliveriesFile, err)
	}
	f, err := os.Open(filepath.Join(dir, dd.File))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s is not CSV: %v", dd.File, err)
	}
	header := "queued_at,completed_at,measured,w_id,carrier_id,skipped,d1_o_id,d2_o_id,d3_o_id,d4_o_id,d5_o_id," +
		"d6_o_id,d7_o_id,d8_o_id,d9_o_id,d10_o_id,error"
	if len(recs) == 0 || strings.Join(recs[0], ",") != header {
		t.Fatalf("%s header %v, want %s", dd.File, recs[:min(1, len(recs))], header)
	}
	lines := recs[1:]
	if int64(len(lines)) != dd.Lines || len(lines) == 0 {
		t.Fatalf("%d lines, result.json says %d; want as many, and some", len(lines), dd.Lines)
	}

	num := func(s string) int64 {
		t.Helper()
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%q is not a number", s)
		}
		return v
	}
	var okMeasured, errMeasured, skippedMeasured int64
	delivered := map[orderKey]int64{} // order -> carrier, from the file
	last := map[[2]int64]int64{}      // (w, d) -> the last O_ID delivered, in file order
	for i, r := range lines {
		queued, err1 := time.Parse(time.RFC3339Nano, r[0])
		completed, err2 := time.Parse(time.RFC3339Nano, r[1])
		if err1 != nil || err2 != nil || !strings.HasSuffix(r[0], "Z") || len(r[0]) != len("2006-01-02T15:04:05.000000Z") {
			t.Fatalf("line %d: times %q %q, want UTC RFC 3339 with microseconds", i+1, r[0], r[1])
		}
		// completed_at is queued_at plus the recorded response time.
		if completed.Before(queued) || queued.Before(res.StartedAt.Add(-time.Second)) {
			t.Errorf("line %d: queued %s, completed %s, run started %s", i+1, r[0], r[1], res.StartedAt)
		}
		measured, err := strconv.ParseBool(r[2])
		if err != nil {
			t.Fatalf("line %d: measured %q", i+1, r[2])
		}
		w, carrier := num(r[3]), num(r[4])
		if w < 1 || w > int64(res.Warehouses) || carrier < 1 || carrier > 10 {
			t.Errorf("line %d: w_id %d, carrier %d", i+1, w, carrier)
		}
		if r[16] != "" { // failed after its retries: nothing delivered, nothing else recorded
			if strings.Join(r[5:16], "") != "" {
				t.Errorf("line %d: a failed Delivery with a skipped count or O_IDs: %v", i+1, r)
			}
			if measured {
				errMeasured++
			}
			continue
		}
		skipped := num(r[5])
		empty := int64(0)
		for d := int64(1); d <= tpcc.DistrictsPerWarehouse; d++ {
			if r[5+d] == "" {
				empty++
				continue
			}
			o := num(r[5+d])
			k := orderKey{w, d, o}
			if _, dup := delivered[k]; dup {
				t.Errorf("line %d: order %v delivered twice", i+1, k)
			}
			delivered[k] = carrier
			// The deliveries of a warehouse run one at a time on one worker, each taking the oldest
			// undelivered order, and New-Orders of a district commit in O_ID order: O_IDs grow.
			if p := last[[2]int64{w, d}]; o <= p {
				t.Errorf("line %d: district %d/%d delivers order %d after %d", i+1, w, d, o, p)
			}
			last[[2]int64{w, d}] = o
		}
		if skipped != empty {
			t.Errorf("line %d: skipped %d, but %d districts without an O_ID", i+1, skipped, empty)
		}
		if measured {
			okMeasured++
			skippedMeasured += skipped
		}
	}
	// The measured lines are the deliveries result.json counts.
	if okMeasured != dd.Count || errMeasured != dd.Errors || skippedMeasured != dd.SkippedDistricts ||
		okMeasured*tpcc.DistrictsPerWarehouse != dd.Districts || dd.Count == 0 {
		t.Errorf("measured lines: %d completed, %d failed, %d districts skipped; result.json: %+v", okMeasured, errMeasured, skippedMeasured, dd)
	}

	// The database: the orders delivered since the load (the load delivers O_IDs 1..2100 of each
	// district, clause 4.3.3.1) are exactly those of the file, with its carrier, every line delivered
	// and no new_order row left.
	ctx := t.Context()
	c := drivertest.Connect(t, drivertest.Open(t, url))
	query := func(sql string, n int, each func(v []int64)) { // n integer columns

		t.Helper()
		rows, err := c.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		v := make([]int64, n)
		dest := make([]any, n)
		for i := range v {
			dest[i] = &v[i]
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			each(v)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	inDB := 0
	query("SELECT o_w_id, o_d_id, o_id, o_carrier_id FROM orders WHERE o_carrier_id IS NOT NULL AND o_id > 2100", 4, func(v []int64) {
		inDB++
		k := orderKey{v[0], v[1], v[2]}
		carrier, ok := delivered[k]
		switch {
		case !ok:
			t.Errorf("order %v was delivered (carrier %d) but is not in %s", k, v[3], dd.File)
		case carrier != v[3]:
			t.Errorf("order %v: carrier %d in the database, %d in %s", k, v[3], carrier, dd.File)
		}
	})
	if inDB != len(delivered) {
		t.Errorf("%d orders delivered since the load in the database, %d in %s", inDB, len(delivered), dd.File)
	}
	lineCounts := map[orderKey][2]int64{}
	query("SELECT ol_w_id, ol_d_id, ol_o_id, count(*), count(ol_delivery_d) FROM order_line WHERE ol_o_id > 2100 GROUP BY ol_w_id, ol_d_id, ol_o_id", 5, func(v []int64) {
		lineCounts[orderKey{v[0], v[1], v[2]}] = [2]int64{v[3], v[4]}
	})
	for k := range delivered {
		if n := lineCounts[k]; n[0] == 0 || n[1] != n[0] {
			t.Errorf("order %v of %s: %d lines, %d of them delivered", k, dd.File, n[0], n[1])
		}
	}
	query("SELECT no_w_id, no_d_id, no_o_id FROM new_order", 3, func(v []int64) {
		if k := (orderKey{v[0], v[1], v[2]}); delivered[k] != 0 {
			t.Errorf("order %v of %s still has its new_order row", k, dd.File)
		}
	})
	t.Logf("%s: %d lines, %d orders delivered, %d measured deliveries", dd.File, len(lines), len(delivered), okMeasured)
}

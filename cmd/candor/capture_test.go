package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/workload/script/capture"
)

// candor capture on real servers: a known mix runs, is captured, the capture is replayed with
// candor script run, and each statement's share of the replay's calls (read from the same
// statistics) is within 2 percentage points of its captured share.

func TestCapturePostgres(t *testing.T) {
	parallel(t)
	url := dbtest.FreshPostgresURL(t, "candor_capture")
	// without the extension in the database: refused, saying how to enable it
	out := workloadFlow{}.cli(t, 2, "capture", "--db", url, "--for", "1s", "--out", filepath.Join(t.TempDir(), "c"))
	for _, want := range []string{"pg_stat_statements is not installed in this database", "shared_preload_libraries", "CREATE EXTENSION pg_stat_statements"} {
		if !strings.Contains(out, want) {
			t.Errorf("refusal lacks %q", want)
		}
	}
	if err := dbtest.Exec(url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		t.Fatalf("pg_stat_statements: %v (scripts/test starts the server with shared_preload_libraries=pg_stat_statements)", err)
	}
	captureFlow(t, url, "$")
}

// TestCaptureMySQL runs on MariaDB, whose digests hold no prepared statement's executions (candor's
// driver prepares every statement): capture reads the statements prepared at its end, so only the
// CLI part runs here (the API part ends its capture after the run has closed its connections), and
// the replay's shares are read from its result.json.
func TestCaptureMySQL(t *testing.T) {
	parallel(t)
	captureFlow(t, dbtest.FreshMySQLURL(t, "candor_capture"), "?")
}

func captureFlow(t *testing.T, url, ph string) {
	dir := t.TempDir()
	f := workloadFlow{}
	f.cli(t, 0, "script", "load", "--db", url, "--scale", "1")
	ctx := context.Background()
	db, err := driver.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	if ph == "$" {
		captureAPI(t, db, url, dir)
	}
	captureCLI(t, db, url, dir, ph)
}

// captureAPI: the API around a CLI run of a known mix, tpcb-like once for every three select-only.
func captureAPI(t *testing.T, db driver.DB, url, dir string) {
	ctx := context.Background()
	f := workloadFlow{}
	s, err := capture.Begin(ctx, db, capture.Options{Cover: 0.95, Sample: 200})
	if err != nil {
		t.Fatal(err)
	}
	f.cli(t, 0, "script", "run", "--db", url, "-b", "tpcb-like@1", "-b", "select-only@3", "-c", "4",
		"--duration", "10s", "--warmup", "0s", "--no-check", "-q", "--out", filepath.Join(dir, "orig"))
	r, err := s.End(ctx, false)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cap")
	if err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	// tpcb-like's five DML statements (BEGIN and END are utility), the SELECT shared with select-only:
	// per 4 transactions 3+1 SELECTs and one of each other, 50% and 12.5% each.
	for _, st := range r.Statements {
		t.Logf("captured %s %.2f%% %s", st.ID, st.Share*100, st.Text)
	}
	if len(r.Statements) != 5 || r.UtilityCalls == 0 {
		t.Fatalf("captured %d statements (utility calls %d), want tpcb-like's 5 DML statements", len(r.Statements), r.UtilityCalls)
	}
	if sel := r.Statements[0]; !strings.Contains(sel.Text, "SELECT abalance FROM") || math.Abs(sel.Share-0.5) > 0.03 {
		t.Errorf("first statement %q share %.3f, want the SELECT at about 0.5", sel.Text, sel.Share)
	}
	for _, st := range r.Statements {
		for _, p := range st.Params {
			if !p.Inferred {
				t.Errorf("%s: $%d not inferred: %s", st.File, p.N, p.Note)
			}
		}
		if strings.Contains(st.Text, "WHERE aid") {
			if m := st.Params[len(st.Params)-1].Method; m != "random(1, 100000)" {
				t.Errorf("%s: aid drawn by %q, want random(1, 100000) (an integer key)", st.File, m)
			}
		}
	}
	replayShares(t, db, url, r, out, dir, "replay1", false)
}

// captureCLI: the CLI around statements sent by the test itself: 6 SELECTs, 3 UPDATEs, 1 with an
// IN list in every 10.
func captureCLI(t *testing.T, db driver.DB, url, dir, ph string) {
	ctx := context.Background()
	f := workloadFlow{}
	// Values are written into the text (the statistics normalize them to placeholders): MariaDB's
	// digests hold no statement sent as a server-side prepared statement.
	stmts := []string{
		"SELECT abalance FROM pgbench_accounts WHERE aid = %d",
		"UPDATE pgbench_tellers SET tbalance = tbalance + %d WHERE tid = %d",
		"SELECT count(*) FROM pgbench_accounts WHERE bid = %d AND aid IN (%d, %d)",
	}
	mix := []int{0, 1, 0, 0, 1, 0, 2, 0, 1, 0}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := db.Connect(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var err error
			switch k := mix[i%len(mix)]; k {
			case 0:
				_, err = c.Exec(ctx, fmt.Sprintf(stmts[0], i%100000+1))
			case 1:
				_, err = c.Exec(ctx, fmt.Sprintf(stmts[1], 1, i%10+1))
			case 2:
				_, err = c.Exec(ctx, fmt.Sprintf(stmts[2], 1, i%100000+1, i%1000+1))
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	out2 := filepath.Join(dir, "cap2")
	cliOut := f.cli(t, 0, "capture", "--db", url, "--for", "6s", "--out", out2, "--sample", "100")
	close(stop)
	wg.Wait()
	for _, want := range []string{"kept 3 statements", "what a capture cannot hold:", "transaction boundaries", "run.sh"} {
		if !strings.Contains(cliOut, want) {
			t.Errorf("capture's output lacks %q", want)
		}
	}
	var r2 capture.Result
	b, err := os.ReadFile(filepath.Join(out2, "capture.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r2); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.6, 0.3, 0.1}
	if len(r2.Statements) != 3 {
		t.Fatalf("CLI capture: %d statements, want 3", len(r2.Statements))
	}
	for i, st := range r2.Statements {
		if math.Abs(st.Share-want[i]) > 0.02 {
			t.Errorf("CLI capture: %s share %.3f, want %.2f (the mix sent)", st.File, st.Share, want[i])
		}
		if _, err := os.Stat(filepath.Join(out2, st.File)); err != nil {
			t.Error(err)
		}
	}
	in := r2.Statements[2]
	wantIN := 3
	if ph == "?" {
		wantIN = 2 // the digest collapses the list: IN (...) replayed as IN (?)
	}
	if len(in.Params) != wantIN || in.Params[0].Column != "bid" || in.Params[1].Column != "aid" || in.Params[1].How != "IN" {
		t.Errorf("the IN statement's parameters: %+v", in.Params)
	}
	sh, err := os.ReadFile(filepath.Join(out2, "run.sh"))
	if err != nil || !strings.Contains(string(sh), "candor script run --db \"$DB\" -f 01-") {
		t.Errorf("run.sh: %s %v", sh, err)
	}
	replayShares(t, db, url, &r2, out2, dir, "replay2", ph == "?")

	// Ctrl-C is an interrupted capture that still writes (see runCapture); bad input is exit 2.
	f.cli(t, 2, "capture", "--db", url, "--for", "1s", "--out", out2)
	f.cli(t, 2, "capture", "--db", url, "--for", "1s", "--out", filepath.Join(dir, "x"), "--cover", "0")
}

// replayShares replays a capture written in out with candor script run (closed loop, the weights
// of its statements) and compares each statement's share of the replay's calls with its captured
// share, both over the captured statements only.
// fromResult: the replay's calls are its result.json's counts per script (MariaDB, whose statistics
// lose a run's prepared statements when it ends), else the server's statistics.
func replayShares(t *testing.T, db driver.DB, url string, r *capture.Result, out, dir, name string, fromResult bool) {
	t.Helper()
	ctx := context.Background()
	args := []string{"script", "run", "--db", url, "-c", "4", "--duration", "10s", "--warmup", "0s", "--no-check", "-q",
		"--out", filepath.Join(dir, name)}
	for _, st := range r.Statements {
		args = append(args, "-f", fmt.Sprintf("%s@%d", filepath.Join(out, st.File), st.Weight))
	}
	s, err := capture.Begin(ctx, db, capture.Options{Cover: 1, Sample: 1})
	if err != nil {
		t.Fatal(err)
	}
	workloadFlow{}.cli(t, 0, args...)
	rr, err := s.End(ctx, false)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	// capture.Compare matches by queryid, else by text (a statement sent with its values in the text
	// has another queryid than the same with parameters: a Const, not a Param, in the jumble)
	replayed := map[string]int64{}
	rows := capture.Compare(r, rr)
	for i, st := range r.Statements {
		replayed[st.ID] = rows[i].Calls
	}
	var b strings.Builder
	capture.PrintCompare(&b, "capture.json", rows)
	t.Log(b.String())
	if fromResult {
		ops := readResult(t, filepath.Join(dir, name))["operations"].(map[string]any)
		for _, st := range r.Statements {
			o, _ := ops[strings.TrimSuffix(st.File, ".sql")].(map[string]any)
			if o == nil {
				t.Fatalf("%s: no operation %s in result.json", name, st.File)
			}
			replayed[st.ID] = int64(o["count"].(float64))
		}
	}
	var capTotal, repTotal int64
	for _, st := range r.Statements {
		capTotal += st.Calls
		repTotal += replayed[st.ID]
	}
	if repTotal < 1000 {
		t.Fatalf("%s: only %d calls of the captured statements replayed", name, repTotal)
	}
	for _, st := range r.Statements {
		c := float64(st.Calls) / float64(capTotal)
		p := float64(replayed[st.ID]) / float64(repTotal)
		// The replay draws each call's script by weight: its share is binomial around the captured
		// one. 2 points, or 4 standard deviations where the replay made too few calls for 2 (on a
		// busy host, 1,500 calls put one standard deviation of a 30% share at 1.2 points).
		tol := max(0.02, 4*math.Sqrt(c*(1-c)/float64(repTotal)))
		t.Logf("%s: %s captured %.2f%% replayed %.2f%% (%d calls)", name, st.File, c*100, p*100, repTotal)
		if math.Abs(c-p) > tol {
			t.Errorf("%s: %s (%s) captured share %.2f%%, replayed %.2f%% of %d calls: more than %.1f points apart", name, st.File, st.Text, c*100, p*100, repTotal, tol*100)
		}
	}
}

// TestCaptureBadInput: capture's bad input is one clear sentence and exit status 2, before anything
// connects where it can be, and never prints a password.
func TestCaptureBadInput(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	pg := "postgres://candor:secret@127.0.0.1:1/candor"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capture", "--out", out}, "no database given"},
		{[]string{"capture", "--db", pg}, "pass --out DIR"},
		{[]string{"capture", "--db", pg, "--out", out, "--for", "0s"}, "--for 0s: give a positive duration"},
		{[]string{"capture", "--db", pg, "--out", out, "--cover", "0"}, "--cover 0: give a percent above 0"},
		{[]string{"capture", "--db", pg, "--out", out, "--cover", "101"}, "--cover 101"},
		{[]string{"capture", "--db", pg, "--out", out, "--sample", "0"}, "--sample 0"},
		{[]string{"capture", "--db", pg, "--out", full}, "pass --replace"},
		{[]string{"capture", "--db", pg, "--out", out, "--baseline", filepath.Join(dir, "none.json")}, "cannot read the baseline capture"},
		{[]string{"capture", "--db", pg, "--out", out}, "cannot reach"},
		{[]string{"capture", "--db", "sqlite:" + filepath.Join(dir, "x.db"), "--out", out}, "reads PostgreSQL's pg_stat_statements or MySQL's"},
	} {
		code, o := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(o, c.want) {
			t.Errorf("candor %v: exit %d, output %q; want exit 2 saying %q", c.args, code, o, c.want)
		}
		if strings.Contains(o, "secret") {
			t.Errorf("candor %v printed the password", c.args)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused capture created %s", out)
	}
}

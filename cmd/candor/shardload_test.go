package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/workload/loadstate"
)

// shardLoads are the workloads whose load splits by shard besides TPC-C, with load flags whose
// data spans several chunks, and the tables (with their ordering keys) that hold their rows.
var shardLoads = []struct {
	name   string
	load   []string
	tables map[string]string // table: ORDER BY
}{
	{"kv", []string{"--insert-count", "25000"}, map[string]string{"kv": "k"}},
	{"ycsb", []string{"-p", "recordcount=25000", "-p", "fieldcount=2"}, map[string]string{"usertable": "ycsb_key"}},
	{"sysbench", []string{"--tables", "2", "--table-size", "15000"}, map[string]string{"sbtest1": "id", "sbtest2": "id"}},
	{"script", []string{"--scale", "1"}, map[string]string{"pgbench_accounts": "aid", "pgbench_branches": "bid", "pgbench_tellers": "tid"}},
}

// TestShardedLoadWorkloadsPostgres and ...SQLite: kv, ycsb, sysbench and script loaded as 3
// shards (three processes, `load --shard i/3`) write exactly the rows one unsharded load writes
// (every table's rows digested in key order), each shard its own part; while a part is missing
// the run is refused naming it, and once every part is in the run works. Shard 0 gives up waiting
// for the others first (a short --shard-wait) and, started again without --drop once they are
// in, resumes: it finishes the load without writing its part again (the bug fixed: it needed
// --drop); shard 1 started again says its part is complete and ends.
func TestShardedLoadWorkloadsPostgres(t *testing.T) {
	parallel(t)
	for _, w := range shardLoads {
		t.Run(w.name, func(t *testing.T) {
			testShardedLoad(t, w.name, w.load, w.tables, dbtest.FreshPostgresURL(t, "shl"), dbtest.FreshPostgresURL(t, "shl1"))
		})
	}
}

func TestShardedLoadWorkloadsSQLite(t *testing.T) {
	parallel(t)
	for _, w := range shardLoads {
		t.Run(w.name, func(t *testing.T) {
			dir := t.TempDir()
			testShardedLoad(t, w.name, w.load, w.tables, "sqlite:"+filepath.Join(dir, "sharded.db"), "sqlite:"+filepath.Join(dir, "one.db"))
		})
	}
}

func testShardedLoad(t *testing.T, name string, load []string, tables map[string]string, sharded, one string) {
	dir := t.TempDir()
	args := append([]string{name, "load", "--db", sharded, "--seed", "7", "--shard-wait", "2m"}, load...)
	// Shard 0 first: it begins the load, writes its part and gives up waiting for the others.
	code, out := runCLI(t, append(args, "--shard", "0/3", "--shard-wait", "2s")...)
	if code != 2 || !strings.Contains(out, "gave up") || !strings.Contains(out, "1/3, 2/3") {
		t.Fatalf("shard 0 alone: exit %d, want 2 giving up on 1/3, 2/3\n%s", code, out)
	}
	// Shard 1 next; then shard 1's part is in, shard 2's is not: a run is refused naming it.
	release := holdSlots(1) // a call of this package
	p := startChildCLI(t, filepath.Join(dir, "shard-1.log"), nil, append(args, "--shard", "1/3")...)
	err := p.Wait()
	release()
	if err != nil {
		t.Fatalf("shard 1: %v\n%s", err, readFile(t, filepath.Join(dir, "shard-1.log")))
	}
	code, out = runCLI(t, name, "run", "--db", sharded, "--duration", "1s", "--warmup", "0s", "--no-check", "--out", filepath.Join(dir, "refused"))
	t.Logf("the run before shard 2/3: exit %d: %s", code, strings.TrimSpace(out))
	if code != 2 || !strings.Contains(out, "2/3") {
		t.Errorf("a run before every part is in: exit %d, want 2 saying the part 2/3 is not complete\n%s", code, out)
	}
	if code, out := runCLI(t, append(args, "--shard", "2/3")...); code != 0 || !strings.Contains(out, "shard 2/3's part") {
		t.Fatalf("shard 2: exit %d\n%s", code, out)
	}
	if code, out := runCLI(t, append(args, "--shard", "1/3")...); code != 0 || !strings.Contains(out, "complete already") {
		t.Errorf("shard 1 again: exit %d, want 0 saying its part is complete already\n%s", code, out)
	}
	// Every part is in; shard 0 has not finished: a run says so, and shard 0 started again does.
	code, out = runCLI(t, name, "run", "--db", sharded, "--duration", "1s", "--warmup", "0s", "--no-check", "--out", filepath.Join(dir, "refused0"))
	if code != 2 || !strings.Contains(out, "shard 0 has not finished") {
		t.Errorf("a run before shard 0 finished: exit %d, want 2 saying shard 0 has not finished\n%s", code, out)
	}
	// As if shard 0's first start had been stopped after the first of the indexes or keys it
	// builds once every part is in: its restart builds the rest only (built again, the first would
	// fail as existing).
	pg := strings.HasPrefix(sharded, "postgres")
	switch {
	case name == "sysbench":
		execURL(t, sharded, "CREATE INDEX k_1 ON sbtest1(k)")
	case name == "script" && pg: // pgbench's keys come after the rows on PostgreSQL only
		execURL(t, sharded, "ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)")
	}
	if code, out := runCLI(t, append(args, "--shard", "0/3")...); code != 0 || !strings.Contains(out, "and the whole load completed") || !strings.Contains(out, "in already") {
		t.Fatalf("shard 0 again: exit %d, want it to resume and complete the load\n%s", code, out)
	}
	switch keys := readKeysURL(t, sharded); {
	case name == "sysbench" && (!keys.Indexes["k_1"] || !keys.Indexes["k_2"]):
		t.Errorf("the k indexes after shard 0's restart: %v, want k_1 and k_2", keys.Indexes)
	case name == "script" && pg && !(keys.PrimaryKeys["pgbench_branches"] && keys.PrimaryKeys["pgbench_tellers"] && keys.PrimaryKeys["pgbench_accounts"]):
		t.Errorf("the tables with a primary key after shard 0's restart: %v, want pgbench_branches, _tellers and _accounts", keys.PrimaryKeys)
	}
	if code, out := runCLI(t, append([]string{name, "load", "--db", one, "--seed", "7"}, load...)...); code != 0 {
		t.Fatalf("the unsharded load: exit %d\n%s", code, out)
	}
	for table, key := range tables {
		a, na := tableDigest(t, sharded, table, key)
		b, nb := tableDigest(t, one, table, key)
		if a != b || na != nb || na == 0 {
			t.Errorf("%s: the sharded load's %d rows (digest %x) are not the unsharded load's %d (%x)", table, na, a[:6], nb, b[:6])
		}
	}
	if code, out := runCLI(t, name, "run", "--db", sharded, "--duration", "1s", "--warmup", "0s", "--no-check", "--out", filepath.Join(dir, "run")); code != 0 {
		t.Errorf("a run on the complete sharded load: exit %d\n%s", code, out)
	}
}

// tableDigest is the SHA-256 of table's rows in key order (every column as text) and their count.
func tableDigest(t *testing.T, url, table, key string) ([32]byte, int) {
	t.Helper()
	ctx := context.Background()
	_, c := connectURL(t, url)
	var ncol int
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM ("+columnsQuery(url, table)+") x").Scan(&ncol); err != nil {
		t.Fatalf("columns of %s: %v", table, err)
	}
	rows, err := c.Query(ctx, "SELECT * FROM "+table+" ORDER BY "+key)
	if err != nil {
		t.Fatalf("reading %s: %v", table, err)
	}
	defer rows.Close()
	h := sha256.New()
	n := 0
	vals := make([]any, ncol)
	ptrs := make([]any, ncol)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("reading %s: %v", table, err)
		}
		for _, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			fmt.Fprintf(h, "%v\x00", v)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, n
}

// columnsQuery lists table's columns, one row each.
func columnsQuery(url, table string) string {
	if strings.HasPrefix(url, "sqlite:") {
		return "SELECT name FROM pragma_table_info('" + table + "')"
	}
	return "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '" + table + "'"
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return string(b)
}

// execURL runs one statement on the database at url.
func execURL(t *testing.T, url, sql string) {
	t.Helper()
	_, c := connectURL(t, url)
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// readKeysURL is the indexes and primary keys of the database at url (loadstate.ReadKeys).
func readKeysURL(t *testing.T, url string) loadstate.Keys {
	t.Helper()
	db, c := connectURL(t, url)
	k, err := loadstate.ReadKeys(context.Background(), c, db.Dialect().SQLFamily())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

package kv

import (
	"bytes"
	"fmt"
	"github.com/candor-bench/candor/internal/memcap"
	"github.com/candor-bench/candor/workload/textfmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/workload"
)

// memChild is the environment variable a memory test's child reads: the SQLite file to load.
const memChild = "CANDOR_KV_MEM_CHILD"

// A load of values of 20 MiB, longer than a chunk holds (chunkBytes), streams them: it holds a few
// rows at a time, not the chunk's rows (all 8 of them: 160 MiB made at once, then bound to one
// INSERT, before), measured as the load's peak resident set under an address-space cap. SQLite's
// own page cache (cache_size, per connection, at most what was written) is part of the bound.
func TestLoadLargeValuesMemorySQLite(t *testing.T) {
	t.Parallel() // mostly waiting for its child and the disk
	const value, rows = 20 << 20, 8
	args := []string{"--insert-count", strconv.Itoa(rows), "--min-block-bytes", strconv.Itoa(value), "--max-block-bytes", strconv.Itoa(value)}
	if path := os.Getenv(memChild); path != "" {
		db := drivertest.Open(t, "sqlite:"+path)
		mustLoad(t, db, 1, args...)
		return
	}
	path := filepath.Join(t.TempDir(), "kv.db")
	db := drivertest.Open(t, "sqlite:"+path)
	cache := sqliteCacheBytes(t, db.(interface{ Pragmas() map[string]string }).Pragmas())
	// The Go runtime, the test binary and SQLite's page cache (at most what was written), then a
	// few rows: the one drawn and those before not yet collected, the engine's copies of it (its
	// bound value, the record written).
	bound := int64(128<<20) + min(cache, rows*value) + 6*value
	rss := memcap.RunTest(t, bound+(2<<30), t.Name(), memChild+"="+path)
	t.Logf("peak RSS %d MiB (bound %d MiB)", rss>>20, bound>>20)
	if rss > bound {
		t.Errorf("loading %d values of %d MiB held %d MiB at its peak, more than %d MiB", rows, value>>20, rss>>20, bound>>20)
	}
	var n, lo, hi int64
	if err := drivertest.Connect(t, db).QueryRow(ctxFor(t), "SELECT count(*), min(length(v)), max(length(v)) FROM kv").Scan(&n, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if n != rows || lo != value || hi != value {
		t.Errorf("the table holds %d rows of %d..%d bytes, want %d of %d", n, lo, hi, rows, value)
	}
}

// sqliteCacheBytes is the page cache a SQLite connection may hold (cache_size: pages, or -KiB).
func sqliteCacheBytes(t *testing.T, pragmas map[string]string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(pragmas["cache_size"], 10, 64)
	if err != nil {
		t.Fatalf("cache_size %q: %v", pragmas["cache_size"], err)
	}
	if n < 0 {
		return -n << 10
	}
	return n * 4096
}

// A run whose write statements would carry more than the engine takes is refused when it opens,
// naming the engine's limit, before any value is drawn: --batch 16383 of 64 MiB values (a TiB held
// at once) on SQLite; and one whose terminals would hold more than the host's memory.
func TestRunBatchOverLimitSQLite(t *testing.T) {
	db := drivertest.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "kv.db"))
	mustLoad(t, db, 1, "--insert-count", "10")
	k := newTestKV(t, workload.CmdRun, "--preset", "kv0", "--batch", strconv.Itoa(maxBatch), "--max-block-bytes", strconv.Itoa(maxBlockBytes))
	s, err := k.Open(ctxFor(t), db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1, Seed: 1})
	if err == nil {
		s.Close()
	}
	wantUserError(t, err, "--batch 16383", "SQLite's SQLITE_MAX_LENGTH", "give a smaller --batch or --max-block-bytes")

	// Within the limit, but a hundred thousand terminals each holding their batch: more than the
	// host's memory, refused with the figures.
	batch := (driver.LimitsOf(db).Row - 2048) / (maxBlockBytes + 8)
	k = newTestKV(t, workload.CmdRun, "--preset", "kv0", "--batch", strconv.FormatInt(batch, 10), "--max-block-bytes", strconv.Itoa(maxBlockBytes))
	s, err = k.Open(ctxFor(t), db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 100_000, Seed: 1})
	if err == nil {
		s.Close()
	}
	wantUserError(t, err, fmt.Sprintf("--batch %d", batch), "100,000 terminals", "memory this host has available", "give fewer --terminals")
}

// On MariaDB the limit is the server's max_allowed_packet, read from it: a load of values past it
// is refused before it drops the loaded data, and a run's batch of values past it before it starts.
func TestValuesOverMaxAllowedPacketMySQL(t *testing.T) {
	ctx := ctxFor(t)
	db := drivertest.Open(t, dbtest.FreshMySQLURL(t, "candor_test"))
	var packet int64
	if err := drivertest.Connect(t, db).QueryRow(ctx, "SELECT @@max_allowed_packet").Scan(&packet); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, db, 1, "--insert-count", "5")
	// The largest value kv takes is 64 MiB: past the packet when the server's is at most that.
	if packet < maxBlockBytes+8+1024 {
		k := newTestKV(t, workload.CmdLoad, "--insert-count", "2", "--max-block-bytes", strconv.Itoa(maxBlockBytes), "--min-block-bytes", "1")
		_, err := k.Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 2, Drop: true})
		wantUserError(t, err, "max_allowed_packet ("+textfmt.Thousands(packet)+" bytes)", "--max-block-bytes", "raise max_allowed_packet")
		var n int64
		if err := drivertest.Connect(t, db).QueryRow(ctx, "SELECT count(*) FROM kv").Scan(&n); err != nil || n != 5 {
			t.Fatalf("after the refused load the table holds %d rows (%v), want the 5 loaded before", n, err)
		}
		if ok, err := newTestKV(t, workload.CmdOneShot).Loaded(ctx, db); !ok || err != nil {
			t.Fatalf("after the refused load: Loaded %v, %v", ok, err)
		}
	}
	// A write of --batch values past the packet, however large the server's (at most 1 GiB).
	val := int64(64 << 10)
	batch := min(int64(maxBatch), packet/val+1)
	k := newTestKV(t, workload.CmdRun, "--preset", "kv0", "--batch", strconv.FormatInt(batch, 10), "--max-block-bytes", strconv.FormatInt(val, 10))
	s, err := k.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1, Seed: 1})
	if err == nil {
		s.Close()
	}
	wantUserError(t, err, fmt.Sprintf("--batch %d", batch), "max_allowed_packet ("+textfmt.Thousands(packet)+" bytes)")
}

// On SQLite the closed loop's default connections are bounded (a million terminals share 256),
// and connections past the process's open files are refused with the figure, before any opens.
func TestTerminalsBoundedSQLite(t *testing.T) {
	ctx := ctxFor(t)
	db := drivertest.Open(t, "sqlite:"+filepath.Join(t.TempDir(), "kv.db"))
	mustLoad(t, db, 1, "--insert-count", "10")
	s, err := newTestKV(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1_000_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	setup := s.Setup()
	s.Close()
	if setup.Terminals != 1_000_000 || setup.Connections < 1 || setup.Connections > 256 {
		t.Errorf("a million terminals on SQLite: %d terminals, %d connections; want a million sharing at most 256", setup.Terminals, setup.Connections)
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	conns := int(min(rl.Cur, math.MaxInt32/2))
	_, err = newTestKV(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: conns, Connections: conns, Seed: 1})
	wantUserError(t, err, fmt.Sprintf("--connections %d", conns), "ulimit -n: "+textfmt.Thousands(int64(rl.Cur)), "raise ulimit -n")
}

// A chunk made row by row as it is read holds the same rows as one made ahead.
func TestChunkStreamedSameRows(t *testing.T) {
	s := loadSpec{dist: Uniform, seed: 5, count: 300, minBytes: 0, maxBytes: 50, blob: true}
	ahead := makeChunk(s, 0)
	defer func(b int64) { aheadBytes = b }(aheadBytes)
	aheadBytes = 0
	streamed := makeChunk(s, 0)
	if !ahead.ahead || streamed.ahead || streamed.vals != nil {
		t.Fatalf("made ahead: %v and %v, want true and false", ahead.ahead, streamed.ahead)
	}
	n := 0
	for ahead.Next() {
		if !streamed.Next() {
			t.Fatal("the streamed chunk ended early")
		}
		a, _ := ahead.Values()
		b, _ := streamed.Values()
		if a[0] != b[0] || string(a[1].(blob)) != string(b[1].(blob)) || b[1].(blob) == nil {
			t.Fatalf("row %d: made ahead %v %x, streamed %v %x", n, a[0], a[1], b[0], b[1])
		}
		n++
	}
	if streamed.Next() || n != 300 {
		t.Fatalf("%d rows, the streamed chunk longer", n)
	}
}

// MySQL's INSERT path sends a row longer than its statement budget (4 MiB) in a statement of its
// own, within max_allowed_packet, where it refused it.
func TestMySQLInsertPathLongRows(t *testing.T) {
	db := mysqlInsertPath(t)
	const value = 5 << 20
	res := mustLoad(t, db, 3, "--insert-count", "3", "--min-block-bytes", strconv.Itoa(value), "--max-block-bytes", strconv.Itoa(value))
	if !strings.Contains(strings.ToLower(res.BulkPath), "insert") {
		t.Errorf("bulk path %q, want INSERT", res.BulkPath)
	}
	want := makeChunk(loadSpec{dist: Uniform, seed: 3, count: 3, minBytes: value, maxBytes: value}, 0)
	m := readAll(t, drivertest.Connect(t, db))
	for i, key := range want.keys {
		if v := m[key]; !bytes.Equal(v, want.vals[i]) {
			t.Fatalf("key %d holds %d bytes, want the %d loaded", key, len(v), len(want.vals[i]))
		}
	}
}

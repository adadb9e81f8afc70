package ycsb

import (
	"github.com/candor-bench/candor/internal/memcap"
	"github.com/candor-bench/candor/workload/textfmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/workload"
)

// memChild is the environment variable a memory test's child reads: the SQLite file to load.
const memChild = "CANDOR_YCSB_MEM_CHILD"

// Records of long fields (two of 12 MiB: a chunk of one record, past the 16 MiB a chunk makes
// ahead) are made one at a time as they are copied, not every chunk at once on the generator
// goroutines with a copy of each (before: the four records twice over, then the engine's), measured
// as the load's peak resident set under an address-space cap. SQLite's page cache (cache_size)
// holds what was written, within the bound.
func TestLoadLongFieldsMemorySQLite(t *testing.T) {
	t.Parallel() // mostly waiting for its child and the disk
	const field, fields, records = 12 << 20, 2, 4
	args := []string{"-p", "fieldlength=" + strconv.Itoa(field), "-p", "fieldcount=" + strconv.Itoa(fields), "-p", "recordcount=" + strconv.Itoa(records)}
	if path := os.Getenv(memChild); path != "" {
		mustLoad(t, drivertest.Open(t, "sqlite:"+path), 1, args...)
		return
	}
	path := filepath.Join(t.TempDir(), "ycsb.db")
	db := drivertest.Open(t, "sqlite:"+path)
	n, err := strconv.ParseInt(db.(interface{ Pragmas() map[string]string }).Pragmas()["cache_size"], 10, 64)
	if err != nil || n >= 0 {
		t.Fatalf("cache_size %d (%v), want -KiB", n, err)
	}
	row := int64(field * fields)
	// The Go runtime and the test binary, SQLite's page cache (at most what was written), then a
	// few records: the one drawn and those before not yet collected, the engine's copies of it (its
	// bound values, the record written).
	bound := int64(128<<20) + min(-n<<10, records*row) + 5*row
	rss := memcap.RunTest(t, bound+(2<<30), t.Name(), memChild+"="+path)
	t.Logf("peak RSS %d MiB (bound %d MiB)", rss>>20, bound>>20)
	if rss > bound {
		t.Errorf("loading %d records of %d fields of %d MiB held %d MiB at its peak, more than %d MiB", records, fields, field>>20, rss>>20, bound>>20)
	}
	var count, lo, hi int64
	if err := drivertest.Connect(t, db).QueryRow(ctxFor(t), "SELECT count(*), min(length(field0)), max(length(field1)) FROM usertable").Scan(&count, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if count != records || lo != field || hi != field {
		t.Errorf("the table holds %d records of fields of %d..%d characters, want %d of %d", count, lo, hi, records, field)
	}
}

// A record past the engine's limit is refused before the load drops the data there: on SQLite
// (SQLITE_MAX_LENGTH) and PostgreSQL (1 GB) a hundred fields of 64 MiB, on MariaDB a record past
// the server's max_allowed_packet, read from it.
func TestRecordOverLimit(t *testing.T) {
	for _, e := range []struct {
		name, url string
		// args are the properties of a record past the limit (none: past the server's
		// max_allowed_packet), want the refusal's words.
		args, want []string
	}{
		{"sqlite", "sqlite:" + filepath.Join(t.TempDir(), "ycsb.db"),
			[]string{"-p", "fieldlength=67108864", "-p", "fieldcount=100"}, []string{"fieldlength", "SQLite's SQLITE_MAX_LENGTH ("}},
		{"postgres", dbtest.FreshPostgresURL(t, "candor_test"),
			[]string{"-p", "fieldlength=67108864", "-p", "fieldcount=100"}, []string{"fieldlength", "PostgreSQL's 1 GB limit on a message"}},
		{"mysql", dbtest.FreshMySQLURL(t, "candor_test"), nil, nil},
	} {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url)
			mustLoad(t, db, 1, "-p", "recordcount=7", "-p", "fieldcount=2", "-p", "fieldlength=10")
			args, want := e.args, e.want
			if args == nil {
				var packet int64
				if err := drivertest.Connect(t, db).QueryRow(ctx, "SELECT @@max_allowed_packet").Scan(&packet); err != nil {
					t.Fatal(err)
				}
				// Fields of 1 MiB, one more of them than the packet holds.
				args = []string{"-p", "fieldlength=1048576", "-p", "fieldcount=" + strconv.FormatInt(packet>>20+1, 10)}
				want = []string{"max_allowed_packet (" + textfmt.Thousands(packet) + " bytes)", "raise max_allowed_packet"}
			}
			y := newTestYCSB(t, workload.CmdLoad, append(args, "-p", "recordcount=2")...)
			if p := y.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) > 0 {
				t.Fatal(p)
			}
			_, err := y.Load(ctx, db, workload.LoadOptions{Loaders: 2, Seed: 2, Drop: true})
			wantUserError(t, err, want...)
			var n int64
			if err := drivertest.Connect(t, db).QueryRow(ctx, "SELECT count(*) FROM usertable").Scan(&n); err != nil || n != 7 {
				t.Fatalf("after the refused load usertable holds %d records (%v), want the 7 loaded before", n, err)
			}
			if ok, err := newTestYCSB(t, workload.CmdOneShot).Loaded(ctx, db); !ok || err != nil {
				t.Fatalf("after the refused load: Loaded %v, %v", ok, err)
			}
		})
	}
}

// A chunk made record by record as it is read holds the same records as one made ahead, with or
// without dataintegrity.
func TestChunkStreamedSameRows(t *testing.T) {
	for _, integrity := range []string{"false", "true"} {
		y := newTestYCSB(t, workload.CmdLoad, "-p", "recordcount=200", "-p", "fieldcount=3", "-p", "fieldlength=40",
			"-p", "fieldlengthdistribution=uniform", "-p", "dataintegrity="+integrity)
		spec, err := newLoadSpec(y.options().cfg, 9)
		if err != nil {
			t.Fatal(err)
		}
		ahead := makeChunk(spec, 0)
		saved := aheadBytes
		aheadBytes = 0
		streamed := makeChunk(spec, 0)
		aheadBytes = saved
		if !ahead.ahead || streamed.ahead {
			t.Fatalf("made ahead: %v and %v, want true and false", ahead.ahead, streamed.ahead)
		}
		n := 0
		for ahead.Next() {
			if !streamed.Next() {
				t.Fatal("the streamed chunk ended early")
			}
			a, _ := ahead.Values()
			a = append([]any(nil), a...)
			b, _ := streamed.Values()
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("dataintegrity=%s, record %d, column %d: made ahead %q, streamed %q", integrity, n, i, a[i], b[i])
				}
			}
			n++
		}
		if streamed.Next() || n != 200 {
			t.Fatalf("%d records, the streamed chunk longer", n)
		}
	}
}

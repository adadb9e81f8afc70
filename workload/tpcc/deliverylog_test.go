package tpcc

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
)

func TestDeliveriesHeader(t *testing.T) {
	want := "queued_at,completed_at,measured,w_id,carrier_id,skipped," +
		"d1_o_id,d2_o_id,d3_o_id,d4_o_id,d5_o_id,d6_o_id,d7_o_id,d8_o_id,d9_o_id,d10_o_id,error\n"
	if deliveriesHeader != want {
		t.Errorf("header %q, want %q", deliveriesHeader, want)
	}
}

// The lines of a delivered, a partly skipped and a failed Delivery, read back as CSV.
func TestDeliveryLineFormat(t *testing.T) {
	// Not UTC, to see the times converted; microseconds kept, nanoseconds dropped.
	zone := time.FixedZone("X", 2*3600)
	queued := time.Date(2025, 3, 4, 7, 8, 9, 123456789, zone)
	completed := queued.Add(1500*time.Millisecond + 7*time.Microsecond)

	full := DeliveryResult{Delivered: 10}
	for d := range full.OIDs {
		full.OIDs[d] = int32(2101 + d)
	}
	part := DeliveryResult{Delivered: 2, Skipped: 8}
	part.OIDs[2], part.OIDs[9] = 3001, 2999
	failure := deliveryErrorText(driver.ErrRetry, errors.New(`ERROR: could not serialize access due to "concurrent update" (SQLSTATE 40001)`+"\nDETAIL: more"))

	cases := []struct {
		l    deliveryLine
		want string
	}{
		{deliveryLine{queued: queued, completed: completed, measured: true, w: 3, carrier: 7, res: &full},
			"2025-03-04T05:08:09.123456Z,2025-03-04T05:08:10.623463Z,true,3,7,0,2101,2102,2103,2104,2105,2106,2107,2108,2109,2110,\n"},
		{deliveryLine{queued: queued, completed: completed, measured: false, w: 12, carrier: 1, res: &part},
			"2025-03-04T05:08:09.123456Z,2025-03-04T05:08:10.623463Z,false,12,1,8,,,3001,,,,,,,2999,\n"},
		{deliveryLine{queued: queued, completed: completed, measured: true, w: 1, carrier: 10, err: failure},
			`2025-03-04T05:08:09.123456Z,2025-03-04T05:08:10.623463Z,true,1,10,,,,,,,,,,,,"retry: ERROR: could not serialize access due to ""concurrent update"" (SQLSTATE 40001)"` + "\n"},
	}
	for _, c := range cases {
		got := string(appendDeliveryLine(nil, &c.l))
		if got != c.want {
			t.Errorf("line\n%q, want\n%q", got, c.want)
		}
		rec, err := csv.NewReader(strings.NewReader(deliveriesHeader + got)).ReadAll()
		if err != nil || len(rec) != 2 || len(rec[1]) != len(rec[0]) || len(rec[0]) != 17 {
			t.Errorf("%q does not read back as CSV under the header: %v %v", got, rec, err)
		}
	}
	if got := failure; got != `retry: ERROR: could not serialize access due to "concurrent update" (SQLSTATE 40001)` {
		t.Errorf("error text %q: want the class and the first line", got)
	}
}

// The error column never holds a password, stays short and is valid UTF-8 when cut.
func TestDeliveryErrorText(t *testing.T) {
	got := deliveryErrorText(driver.ErrConnLost, fmt.Errorf("cannot reach (postgres://candor:s3cret@db:5432/x): refused"))
	if strings.Contains(got, "s3cret") || !strings.HasPrefix(got, "connection lost: cannot reach") || !strings.Contains(got, "postgres://candor:xxxxx@db:5432/x") {
		t.Errorf("error text %q: want the class and the URL redacted", got)
	}
	long := deliveryErrorText(driver.ErrFatal, errors.New(strings.Repeat("é", 300)))
	if len(long) > maxDeliveryErrorLen+3 || !strings.HasSuffix(long, "...") || !strings.HasPrefix(long, "fatal: ") || strings.ContainsRune(long, '\uFFFD') {
		t.Errorf("long error text (%d bytes) %q: want it cut at a character, with ...", len(long), long)
	}
}

// Formatting a line into a reused buffer allocates nothing.
func TestDeliveryLineAllocs(t *testing.T) {
	res := DeliveryResult{Delivered: 9, Skipped: 1}
	for d := 1; d < DistrictsPerWarehouse; d++ {
		res.OIDs[d] = int32(3000 + d)
	}
	now := time.Now()
	l := deliveryLine{queued: now, completed: now.Add(time.Second), measured: true, w: 1, carrier: 2, res: &res}
	buf := appendDeliveryLine(nil, &l)
	if n := testing.AllocsPerRun(100, func() { buf = appendDeliveryLine(buf[:0], &l) }); n != 0 {
		t.Errorf("%v allocations per line, want 0", n)
	}
}

// failingWriter accepts n bytes, then fails.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// Lines written at once by several workers all arrive whole, after the header; a write error is
// kept; no writer means no log, and a nil log takes calls.
func TestDeliveryLog(t *testing.T) {
	var out bytes.Buffer
	l := newDeliveryLog(&out)
	const workers, each = 4, 500
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			var buf []byte
			res := DeliveryResult{Delivered: 1, Skipped: 9}
			for i := 0; i < each; i++ {
				res.OIDs[0] = int32(i + 1)
				buf = appendDeliveryLine(buf[:0], &deliveryLine{queued: time.Now(), completed: time.Now(), w: k + 1, carrier: 1, res: &res})
				l.write(buf)
			}
		}(k)
	}
	wg.Wait()
	l.flush()
	lines, err := l.result()
	if lines != workers*each || err != nil {
		t.Fatalf("%d lines, %v; want %d, nil", lines, err, workers*each)
	}
	rec, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(rec) != 1+workers*each || strings.Join(rec[0], ",")+"\n" != deliveriesHeader {
		t.Fatalf("%d records, %v; want the header and %d lines", len(rec), err, workers*each)
	}
	last := map[string]int{} // per warehouse (one writer each), O_IDs in the order written
	for _, r := range rec[1:] {
		var o int
		fmt.Sscan(r[6], &o)
		if o != last[r[3]]+1 {
			t.Fatalf("warehouse %s: o_id %d after %d", r[3], o, last[r[3]])
		}
		last[r[3]] = o
	}

	bad := newDeliveryLog(&failingWriter{n: len(deliveriesHeader) + 10})
	line := appendDeliveryLine(nil, &deliveryLine{queued: time.Now(), completed: time.Now(), w: 1, carrier: 1, res: &DeliveryResult{Skipped: 10}})
	for i := 0; i < 1000; i++ { // past the buffer: the writer fails
		bad.write(line)
	}
	bad.flush()
	if n, err := bad.result(); err == nil || n >= 1000 {
		t.Errorf("a failing writer: %d lines, error %v; want fewer lines and the error", n, err)
	}

	var none *deliveryLog = newDeliveryLog(nil)
	if none != nil {
		t.Fatal("a log without a writer")
	}
	none.write(line)
	none.flush()
	if n, err := none.result(); n != 0 || err != nil {
		t.Errorf("nil log: %d, %v", n, err)
	}
}

package tpcc

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/candor-bench/candor/driver"
)

// The Delivery result file, clause 2.7.4.2: upon completion of each deferred Delivery the time it
// was queued, its warehouse (W_ID) and carrier (O_CARRIER_ID), the district and O_ID of each order it
// delivered, the number of districts it skipped and the time it completed are recorded. candor
// writes one CSV line per deferred Delivery that ran (RunOptions.Deliveries, deliveries.csv in the
// results directory), in completion order per delivery worker:
//
//	queued_at,completed_at,measured,w_id,carrier_id,skipped,d1_o_id,...,d10_o_id,error
//
// The times are UTC, RFC 3339 with microseconds; completed_at is queued_at plus the response time
// the run recorded for it (both from the monotonic clock), so the file and the histograms agree.
// measured is the run's verdict (the Delivery was queued inside the measurement window: it counts
// in result.json's delivery_deferred). A skipped district has an empty O_ID. A Delivery that failed
// after its retries has error set (the error's class and the first line of its message, quoted)
// and no skipped count or O_IDs: it rolled back and delivered nothing, except when the class is
// "connection lost": a connection that broke while its COMMIT (or its single statement) was on the
// way leaves the outcome unknown, and the database tells (o_carrier_id). Deliveries never run, or
// still running when the run was cut off after its grace period, are not in the file; the result
// counts them as incomplete.

// deliveriesHeader is the file's first line.
var deliveriesHeader = func() string {
	var b strings.Builder
	b.WriteString("queued_at,completed_at,measured,w_id,carrier_id,skipped")
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		b.WriteString(",d" + strconv.Itoa(d) + "_o_id")
	}
	b.WriteString(",error\n")
	return b.String()
}()

// deliveryTimeLayout is RFC 3339 with microseconds; times are written in UTC, so the zone is "Z".
const deliveryTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// deliveryLine is one line of the file.
type deliveryLine struct {
	queued, completed time.Time
	measured          bool
	w, carrier        int
	res               *DeliveryResult // nil when the Delivery failed
	err               string          // the failure (deliveryErrorText); empty on success
}

// appendDeliveryLine appends l as a CSV line (with its newline) to b; with b's capacity reused it
// allocates nothing.
func appendDeliveryLine(b []byte, l *deliveryLine) []byte {
	b = l.queued.UTC().AppendFormat(b, deliveryTimeLayout)
	b = append(b, ',')
	b = l.completed.UTC().AppendFormat(b, deliveryTimeLayout)
	b = append(b, ',')
	b = strconv.AppendBool(b, l.measured)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(l.w), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(l.carrier), 10)
	b = append(b, ',')
	if l.res != nil {
		b = strconv.AppendInt(b, int64(l.res.Skipped), 10)
	}
	for d := 0; d < DistrictsPerWarehouse; d++ {
		b = append(b, ',')
		if l.res != nil && l.res.OIDs[d] != 0 {
			b = strconv.AppendInt(b, int64(l.res.OIDs[d]), 10)
		}
	}
	b = append(b, ',')
	if l.err != "" {
		b = appendQuoted(b, l.err)
	}
	return append(b, '\n')
}

// appendQuoted appends s as a quoted CSV field (RFC 4180: quotes doubled).
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// maxDeliveryErrorLen bounds the error column: the class and the start of the message are enough
// to tell failures apart, and the file stays one short line per Delivery.
const maxDeliveryErrorLen = 200

// deliveryErrorText is the error column for err: its class (fatal, retry, connection lost), then the
// first line of its message, shortened, with any URL in it redacted (driver.Redact), so the file
// never holds a password.
func deliveryErrorText(class driver.ErrorClass, err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if strings.Contains(msg, "://") {
		f := strings.Fields(msg)
		for i, w := range f {
			if strings.Contains(w, "://") {
				f[i] = driver.Redact(strings.Trim(w, "\"'`()[]<>,;"))
			}
		}
		msg = strings.Join(f, " ")
	}
	s := class.String() + ": " + strings.TrimSpace(msg)
	if len(s) > maxDeliveryErrorLen {
		cut := maxDeliveryErrorLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// deliveryLog writes the file for all delivery workers: each formats its line in its own buffer,
// then appends it to one buffered writer under a mutex (a Delivery is 4% of the mix: the lock is
// never contended). A nil *deliveryLog writes nothing.
type deliveryLog struct {
	mu    sync.Mutex
	w     *bufio.Writer
	lines int64
	err   error // the first write error; nothing is written after it
}

// newDeliveryLog writes the header to w and returns the log; nil w gives a nil log.
func newDeliveryLog(w io.Writer) *deliveryLog {
	if w == nil {
		return nil
	}
	l := &deliveryLog{w: bufio.NewWriterSize(w, 64<<10)}
	_, l.err = l.w.WriteString(deliveriesHeader)
	return l
}

// write appends one formatted line.
func (l *deliveryLog) write(line []byte) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.err == nil {
		if _, l.err = l.w.Write(line); l.err == nil {
			l.lines++
		}
	}
	l.mu.Unlock()
}

// flush writes out what is buffered; the run calls it every interval and at its end, so a run
// killed outright loses at most the last interval's lines.
func (l *deliveryLog) flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.err == nil {
		l.err = l.w.Flush()
	}
	l.mu.Unlock()
}

// result is the number of lines written and the first write error.
func (l *deliveryLog) result() (int64, error) {
	if l == nil {
		return 0, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lines, l.err
}

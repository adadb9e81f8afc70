package postgres

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
)

// msg is one backend message: its type and body.
func msg(typ byte, body ...[]byte) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	for _, p := range body {
		b = append(b, p...)
	}
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	return b
}

func cstr(s string) []byte { return append([]byte(s), 0) }

// dataRow is a DataRow of values (nil for a NULL).
func dataRow(values ...[]byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(values)))
	for _, v := range values {
		if v == nil {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return msg('D', b)
}

func errorResponse(severity, code, message string) []byte {
	var b []byte
	b = append(b, 'S')
	b = append(b, cstr(severity)...)
	b = append(b, 'V')
	b = append(b, cstr(severity)...)
	b = append(b, 'C')
	b = append(b, cstr(code)...)
	b = append(b, 'M')
	b = append(b, cstr(message)...)
	b = append(b, 0)
	return msg('E', b)
}

// fakeServer answers a wire over a pipe with script's bytes, chunk bytes at a time, then closes
// (when closeAfter) or keeps the pipe open. What the wire writes is read and dropped.
func fakeServer(t *testing.T, script []byte, chunk int, closeAfter bool) *wire {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	go io.Copy(io.Discard, server)
	go func() {
		for len(script) > 0 {
			n := min(chunk, len(script))
			if _, err := server.Write(script[:n]); err != nil {
				return
			}
			script = script[n:]
		}
		if closeAfter {
			server.Close()
		}
	}()
	return &wire{nc: client, tx: 'I'}
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestWireRows: rows split across reads one byte at a time, a NULL, the messages the server may
// send at any time in between, the tag and the transaction status.
func TestWireRows(t *testing.T) {
	script := concat(
		msg('2'),
		msg('N', []byte("Snotice\x00\x00")),
		dataRow([]byte("abc"), nil, []byte{}),
		msg('S', cstr("TimeZone"), cstr("UTC")),
		dataRow([]byte("de"), []byte("f"), []byte("g")),
		msg('C', cstr("SELECT 2")),
		msg('Z', []byte{'T'}),
	)
	w := fakeServer(t, script, 1, false)
	var got [][]string
	for {
		row, err := w.nextRow()
		if err != nil {
			t.Fatal(err)
		}
		if !row {
			break
		}
		var r []string
		for _, v := range w.values {
			if v == nil {
				r = append(r, "NULL")
			} else {
				r = append(r, "'"+string(v)+"'")
			}
		}
		got = append(got, r)
	}
	want := [][]string{{"'abc'", "NULL", "''"}, {"'de'", "'f'", "'g'"}}
	if len(got) != 2 || len(got[0]) != 3 || got[0][1] != "NULL" || got[0][2] != "''" || got[1][0] != "'de'" {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if string(w.tag) != "SELECT 2" || rowsAffected(w.tag) != 2 {
		t.Fatalf("tag %q (%d rows)", w.tag, rowsAffected(w.tag))
	}
	if err := w.sync(); err != nil || w.tx != 'T' {
		t.Fatalf("sync: %v, status %c", err, w.tx)
	}
}

// TestWireLargeMessage: a value larger than the buffer grows it; once the exchange ends, a buffer
// grown past wireKeep is let go.
func TestWireLargeMessage(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2*wireKeep)
	w := fakeServer(t, concat(msg('2'), dataRow(big), msg('C', cstr("SELECT 1")), msg('Z', []byte{'I'})), 64<<10, false)
	row, err := w.nextRow()
	if err != nil || !row || !bytes.Equal(w.values[0], big) {
		t.Fatalf("row %v, %v, value of %d bytes", row, err, len(w.values[0]))
	}
	if row, err := w.nextRow(); row || err != nil {
		t.Fatalf("after the row: %v, %v", row, err)
	}
	if err := w.sync(); err != nil {
		t.Fatal(err)
	}
	if w.buf != nil {
		t.Fatalf("a buffer of %d bytes kept", len(w.buf))
	}
}

// TestWireErrors: a statement's error is the server's (its SQLSTATE kept), the exchange still
// ends at ReadyForQuery; a FATAL error followed by the server closing is returned, not the EOF.
func TestWireErrors(t *testing.T) {
	w := fakeServer(t, concat(msg('2'), errorResponse("ERROR", "40001", "could not serialize"), msg('Z', []byte{'E'})), 7, false)
	row, err := w.nextRow()
	var pgErr *pgconn.PgError
	if row || !errors.As(err, &pgErr) || pgErr.Code != "40001" || classify(err) != driver.ErrRetry {
		t.Fatalf("row %v, error %v", row, err)
	}
	if err := w.sync(); err != nil || w.tx != 'E' || w.broken != nil {
		t.Fatalf("sync: %v, status %c, broken %v", err, w.tx, w.broken)
	}

	w = fakeServer(t, concat(errorResponse("FATAL", "57P01", "terminating connection due to administrator command")), 5, true)
	err = w.sync()
	if !errors.As(err, &pgErr) || pgErr.Code != "57P01" || classify(err) != driver.ErrConnLost {
		t.Fatalf("sync after FATAL: %v", err)
	}
	if w.broken == nil {
		t.Fatal("the socket is not marked closed after the server closed it")
	}
}

// TestWireProtocolError: a message out of place closes the socket; every later use says why, as a
// lost connection.
func TestWireProtocolError(t *testing.T) {
	w := fakeServer(t, concat(msg('2'), msg('?', []byte("junk"))), 100, false)
	if _, err := w.nextRow(); !errors.Is(err, errWire) {
		t.Fatalf("got %v, want a protocol error", err)
	}
	if classify(w.broken) != driver.ErrConnLost {
		t.Fatalf("a protocol error is classified %v, want connection lost", classify(w.broken))
	}
	w.syncMessage()
	if err := w.flush(); !errors.Is(err, errWire) {
		t.Fatalf("flush after the failure: %v", err)
	}
	if _, err := w.query("COMMIT"); !errors.Is(err, errWire) {
		t.Fatalf("query after the failure: %v", err)
	}
	// a length below the header's own
	w = fakeServer(t, []byte{'D', 0, 0, 0, 2}, 100, false)
	if _, err := w.nextRow(); !errors.Is(err, errWire) {
		t.Fatalf("a length of 2: %v", err)
	}
	// a DataRow whose value runs past its end
	w = fakeServer(t, msg('D', []byte{0, 1, 0, 0, 0, 9, 'a'}), 100, false)
	if _, err := w.nextRow(); !errors.Is(err, errWire) {
		t.Fatalf("a value cut short: %v", err)
	}
}

// FuzzWireMessages: whatever the server sends, the wire returns rows, an end or an error, never
// panics and never reads outside its buffer.
func FuzzWireMessages(f *testing.F) {
	f.Add(concat(msg('2'), dataRow([]byte("a"), nil), msg('C', cstr("SELECT 1")), msg('Z', []byte{'I'})))
	f.Add(concat(msg('2'), errorResponse("ERROR", "23505", "duplicate"), msg('Z', []byte{'E'})))
	f.Add([]byte{'D', 0, 0, 0, 6, 0, 1})
	f.Fuzz(func(t *testing.T, script []byte) {
		w := fakeServer(t, script, 3, true)
		for range 100 {
			row, err := w.nextRow()
			if err != nil || !row {
				break
			}
		}
		w.sync()
	})
}

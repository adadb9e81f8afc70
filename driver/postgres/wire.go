package postgres

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"net"

	"github.com/candor-bench/candor/driver/rawsock"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wire is the direct path's own reading and writing of PostgreSQL's frontend/backend protocol
// (version 3) on the connection's socket, beside pgconn, which opened the connection and still runs
// what the direct path does not (statements without arguments, COPY, pgx's path).
//
// Why: pgconn reads each message into a decoded struct through a chunk reader behind a background
// reader, arms a 15 ms slow-write timer around each write and takes its own lock per statement;
// for a point select that was about a third of the driver's CPU (scripts/bench section 3's
// breakdown: "pgconn reading"). wire keeps one buffer per connection, reads as much as the socket
// holds in one system call, and hands a row's values to decode.go as slices of that buffer.
//
// The two share the socket safely because each exchange is whole: a statement sent by either is
// read by the same one up to its ReadyForQuery, after which the server sends nothing until the
// next statement (candor never LISTENs). Messages the server may send at any time (notices,
// parameter changes, notifications) are skipped. What wire does not do, pgconn's slow-write guard:
// a statement whose parameters exceed the socket's buffers, while the server fills ours with a
// large result, could block both; the direct path's statements are far smaller.
//
// Any failure to read or write, or a message out of place, closes the socket: the connection is
// then lost (classify), as pgconn treats its own.
type wire struct {
	nc     net.Conn
	out    []byte // messages being written
	buf    []byte // messages read: [r, w) not yet consumed
	r, w   int
	tx     byte     // the transaction status of the last ReadyForQuery
	values [][]byte // the current row's values, slices of buf (nil for a NULL)
	tag    []byte   // the last CommandComplete's tag
	// desc describes the rows of a statement prepared without columns, as the server described
	// them when it ran (a FETCH of a cursor declared later, say); busy: a statement's answer is
	// still being read (Conn.wireTurn refuses another)
	desc   []pgconn.FieldDescription
	busy   bool
	broken error // why the socket was closed
	// maxBody bounds a message's body (DB.maxMessage; MaxMessageDefault when 0): a larger one fails
	// the statement with messageTooLarge and closes the socket, before anything is allocated for it
	maxBody int
}

const (
	wireBufSize = 16 << 10 // most results fit: sysbench's 100-row ranges are about 14 KiB
	// wireKeep: a buffer grown past it for one large message is let go after its exchange
	wireKeep       = 1 << 20
	wireMaxMessage = 1 << 30 // the server's own limit on a message
)

// messageTooLarge is a message from the server larger than candor reads (max_message_size).
type messageTooLarge struct{ size, bound int }

func (e *messageTooLarge) Error() string {
	return fmt.Sprintf("PostgreSQL sent a message of %d bytes (%s), more than the %d bytes (%s) candor reads in one: raise max_message_size in the URL (up to 1GB) if the run needs values that large; the connection was closed",
		e.size, mib(e.size), e.bound, mib(e.bound))
}

// mib is n bytes in MiB, to one decimal.
func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// tooLarge is err with pgconn's refusal of a message past its bound (pgproto3's
// ExceededMaxBodyLenErr) said as candor's wire says it (messageTooLarge); err itself otherwise.
func tooLarge(err error) error {
	var e *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &e) {
		return fmt.Errorf("%w (%w)", &messageTooLarge{size: e.ActualBodyLen, bound: e.MaxExpectedBodyLen}, err)
	}
	return err
}

// errWire marks a failure of the protocol itself (a message out of place): the connection is lost.
var errWire = errors.New("postgres: protocol error")

// fail closes the socket and remembers why; every later use returns the same error.
func (w *wire) fail(err error) error {
	if w.broken == nil {
		w.broken = err
		w.nc.Close()
	}
	return w.broken
}

func (w *wire) protocol(format string, args ...any) error {
	return w.fail(fmt.Errorf("%w: %s", errWire, fmt.Sprintf(format, args...)))
}

// flush writes the messages appended to out in one write. Every flush is of messages whose answer
// is read next: the write is a request (rawsock.Request), which returns once the answer begins to
// arrive.
func (w *wire) flush() error {
	if w.broken != nil {
		w.out = w.out[:0]
		return w.broken
	}
	_, err := rawsock.Request(w.nc, w.out)
	w.out = w.out[:0]
	if err != nil {
		return w.fail(err)
	}
	return nil
}

// fill reads until need bytes are unconsumed, growing the buffer for a message larger than it.
func (w *wire) fill(need int) error {
	if w.w-w.r >= need {
		return nil
	}
	if w.buf == nil {
		w.buf = make([]byte, wireBufSize)
	}
	if w.r == w.w {
		w.r, w.w = 0, 0
	}
	if len(w.buf)-w.r < need {
		if need > len(w.buf) {
			nb := make([]byte, max(need, 2*len(w.buf)))
			w.w = copy(nb, w.buf[w.r:w.w])
			w.buf = nb
		} else {
			w.w = copy(w.buf, w.buf[w.r:w.w])
		}
		w.r = 0
	}
	for w.w-w.r < need {
		n, err := w.nc.Read(w.buf[w.w:])
		w.w += n
		if err != nil && w.w-w.r < need {
			return w.fail(err)
		}
	}
	return nil
}

// message returns the next message the statement's exchange answers with: its type and body,
// valid until the next call. Notices, parameter changes and notifications are skipped.
func (w *wire) message() (byte, []byte, error) {
	for {
		if w.broken != nil {
			return 0, nil, w.broken
		}
		if err := w.fill(5); err != nil {
			return 0, nil, err
		}
		typ := w.buf[w.r]
		n := int(binary.BigEndian.Uint32(w.buf[w.r+1:]))
		if n < 4 || n > wireMaxMessage {
			return 0, nil, w.protocol("message %q of length %d", typ, n)
		}
		if bound := cmp.Or(w.maxBody, MaxMessageDefault); n-4 > bound {
			return 0, nil, w.fail(&messageTooLarge{size: n - 4, bound: bound})
		}
		if err := w.fill(1 + n); err != nil {
			return 0, nil, err
		}
		body := w.buf[w.r+5 : w.r+1+n : w.r+1+n]
		w.r += 1 + n
		switch typ {
		case 'N', 'S', 'A': // NoticeResponse, ParameterStatus, NotificationResponse
			continue
		}
		return typ, body, nil
	}
}

// pgError decodes an ErrorResponse as pgconn does.
func (w *wire) pgError(body []byte) error {
	var m pgproto3.ErrorResponse
	if err := m.Decode(body); err != nil {
		return w.protocol("an ErrorResponse that does not decode: %v", err)
	}
	return pgconn.ErrorResponseToPgError(&m)
}

// nextRow reads the current result (one Execute's) to its next row: true with w.values set, or
// false at its end, with w.tag set when it completed and the server's error when it failed (the
// server then skips what follows up to the Sync).
func (w *wire) nextRow() (bool, error) {
	for {
		typ, body, err := w.message()
		if err != nil {
			return false, err
		}
		switch typ {
		case 'D': // DataRow
			return true, w.row(body)
		case 'C': // CommandComplete
			if len(body) == 0 || body[len(body)-1] != 0 {
				return false, w.protocol("CommandComplete without its terminator")
			}
			w.tag = append(w.tag[:0], body[:len(body)-1]...)
			return false, nil
		case 'I', 's': // EmptyQueryResponse, PortalSuspended
			w.tag = w.tag[:0]
			return false, nil
		case 'E':
			return false, w.pgError(body)
		case 'T': // RowDescription: the Describe of a statement prepared without columns (execute)
			fields, err := w.rowDescription(body)
			if err != nil {
				return false, err
			}
			w.desc = fields
		case '1', '2', 'n', 't': // ParseComplete, BindComplete, NoData, ParameterDescription
			continue
		default:
			return false, w.protocol("unexpected message %q in a statement's result", typ)
		}
	}
}

// row slices a DataRow's values into w.values.
func (w *wire) row(body []byte) error {
	if len(body) < 2 {
		return w.protocol("a DataRow of %d bytes", len(body))
	}
	n := int(binary.BigEndian.Uint16(body))
	p := 2
	vals := w.values[:0]
	for range n {
		if len(body)-p < 4 {
			return w.protocol("a DataRow cut short")
		}
		l := int(int32(binary.BigEndian.Uint32(body[p:])))
		p += 4
		if l < 0 {
			vals = append(vals, nil)
			continue
		}
		if len(body)-p < l {
			return w.protocol("a DataRow value cut short")
		}
		vals = append(vals, body[p:p+l:p+l])
		p += l
	}
	w.values = vals
	return nil
}

// sync reads the rest of the exchange up to its ReadyForQuery, keeping the transaction status;
// it returns the first error the server sent on the way, or the socket's.
func (w *wire) sync() error { return w.answer(nil) }

// answer reads an exchange's messages up to its ReadyForQuery, keeping the transaction status; each
// is given every other message but the server's errors (nil: they are skipped), and an error it
// returns ends the reading. It returns the first error the server sent on the way, or the socket's.
func (w *wire) answer(each func(typ byte, body []byte) error) error {
	var first error
	for {
		typ, body, err := w.message()
		if err != nil {
			if first != nil { // a FATAL error, then the server closed: its error says why
				return first
			}
			return err
		}
		switch typ {
		case 'Z':
			if len(body) != 1 {
				return w.protocol("a ReadyForQuery of %d bytes", len(body))
			}
			w.tx = body[0]
			if len(w.buf) > wireKeep && w.r == w.w {
				w.buf = nil
			}
			return first
		case 'E':
			if first == nil {
				first = w.pgError(body)
			}
		default:
			if each != nil {
				if err := each(typ, body); err != nil {
					return err
				}
			}
		}
	}
}

// query runs sql, without arguments, with the simple protocol (one Query message) and returns its
// last tag: BEGIN, COMMIT and ROLLBACK.
func (w *wire) query(sql string) ([]byte, error) {
	w.out = append(w.out, 'Q', 0, 0, 0, 0)
	start := len(w.out) - 4
	w.out = append(w.out, sql...)
	w.out = append(w.out, 0)
	binary.BigEndian.PutUint32(w.out[start:], uint32(len(w.out)-start))
	if err := w.flush(); err != nil {
		return nil, err
	}
	err := w.answer(func(typ byte, body []byte) error {
		if typ == 'C' && len(body) > 0 {
			w.tag = append(w.tag[:0], body[:len(body)-1]...)
		}
		return nil
	})
	return w.tag, err
}

// prepare prepares sql as the statement name (Parse, Describe, Sync, as pgconn's Prepare sends
// them) and describes it.
func (w *wire) prepare(name, sql string) (*pgconn.StatementDescription, error) {
	o := append(w.out, 'P', 0, 0, 0, 0)
	start := len(o) - 4
	o = append(o, name...)
	o = append(o, 0)
	o = append(o, sql...)
	o = append(o, 0, 0, 0) // no parameter types: the server infers them
	binary.BigEndian.PutUint32(o[start:], uint32(len(o)-start))
	o = append(o, 'D', 0, 0, 0, 0, 'S')
	start = len(o) - 5
	o = append(o, name...)
	o = append(o, 0)
	binary.BigEndian.PutUint32(o[start:], uint32(len(o)-start))
	w.out = append(o, 'S', 0, 0, 0, 4)
	if err := w.flush(); err != nil {
		return nil, err
	}
	sd := &pgconn.StatementDescription{Name: name, SQL: sql}
	err := w.answer(func(typ byte, body []byte) (err error) {
		switch typ {
		case 't':
			var m pgproto3.ParameterDescription
			if err := m.Decode(body); err != nil {
				return w.protocol("a ParameterDescription that does not decode: %v", err)
			}
			sd.ParamOIDs = m.ParameterOIDs
		case 'T':
			sd.Fields, err = w.rowDescription(body)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return sd, nil
}

// rowDescription decodes a RowDescription as pgconn does.
func (w *wire) rowDescription(body []byte) ([]pgconn.FieldDescription, error) {
	var m pgproto3.RowDescription
	if err := m.Decode(body); err != nil {
		return nil, w.protocol("a RowDescription that does not decode: %v", err)
	}
	fields := make([]pgconn.FieldDescription, len(m.Fields))
	for i, f := range m.Fields {
		fields[i] = pgconn.FieldDescription{
			Name:                 string(f.Name),
			TableOID:             f.TableOID,
			TableAttributeNumber: f.TableAttributeNumber,
			DataTypeOID:          f.DataTypeOID,
			DataTypeSize:         f.DataTypeSize,
			TypeModifier:         f.TypeModifier,
			Format:               f.Format,
		}
	}
	return fields, nil
}

// execute appends Bind and Execute of st with the encoded parameters (and a Describe of the portal
// when the statement returns no columns, as pgconn's ExecStatement sends one).
func (w *wire) execute(st *pstmt, fmts []int16, vals [][]byte) {
	o := append(w.out, 'B', 0, 0, 0, 0)
	start := len(o) - 4
	o = append(o, 0) // the unnamed portal
	o = append(o, st.sd.Name...)
	o = append(o, 0)
	o = binary.BigEndian.AppendUint16(o, uint16(len(fmts)))
	for _, f := range fmts {
		o = binary.BigEndian.AppendUint16(o, uint16(f))
	}
	o = binary.BigEndian.AppendUint16(o, uint16(len(vals)))
	for _, v := range vals {
		if v == nil {
			o = binary.BigEndian.AppendUint32(o, 0xffffffff)
			continue
		}
		o = binary.BigEndian.AppendUint32(o, uint32(len(v)))
		o = append(o, v...)
	}
	o = binary.BigEndian.AppendUint16(o, uint16(len(st.rfmts)))
	for _, f := range st.rfmts {
		o = binary.BigEndian.AppendUint16(o, uint16(f))
	}
	binary.BigEndian.PutUint32(o[start:], uint32(len(o)-start))
	if len(st.sd.Fields) == 0 {
		o = append(o, 'D', 0, 0, 0, 6, 'P', 0)
		w.desc = nil
	}
	w.out = append(o, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
}

// syncMessage appends Sync, which ends the messages of one exchange.
func (w *wire) syncMessage() { w.out = append(w.out, 'S', 0, 0, 0, 4) }

// rowsAffected reads the count at the end of a CommandComplete tag ("UPDATE 3", "INSERT 0 1").
func rowsAffected(tag []byte) int64 {
	var n, mult int64 = 0, 1
	for i := len(tag) - 1; i >= 0 && tag[i] >= '0' && tag[i] <= '9'; i-- {
		n += int64(tag[i]-'0') * mult
		mult *= 10
	}
	return n
}

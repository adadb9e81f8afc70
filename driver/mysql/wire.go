package mysql

import (
	"bytes"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/candor-bench/candor/driver/rawsock"
	gomysql "github.com/go-sql-driver/mysql"
)

// wire.go is candor's own client side of MySQL's prepared statements, on the session's socket
// beside go-sql-driver: COM_STMT_PREPARE once per SQL text, COM_STMT_EXECUTE with the arguments in
// the binary protocol, and the answer read in place from the socket's buffer (readAhead.next):
// rows decoded into the connection's reused values, strings and decimals as slices of the buffer,
// the OK's affected rows. go-sql-driver still logs in, runs text statements (BEGIN, COMMIT, SET,
// batches, DDL) and LOAD DATA; a command of either is read to its end before the next is sent, so
// the two never interleave on the socket. Measured against go-sql-driver's own execution of the
// same prepared statements: docs/performance/driver-cpu-mysql.md, "Prepared statements on
// candor's own wire".
//
// What the session negotiated is read as it passes on the socket: the server's greeting
// (readAhead.caps) and go-sql-driver's handshake response (readAhead.client), intersected
// (readAhead.negotiated); wire reads answers as those flags shape them and is used only when they
// are flags it reads right (newWire): CLIENT_PROTOCOL_41 and CLIENT_DEPRECATE_EOF (result sets
// end with an OK packet whose header is 0xFE, and no EOF follows the column definitions: the
// servers candor is tested on all offer it), MariaDB's MARIADB_CLIENT_CACHE_METADATA or not (an
// execution sends its columns only when they changed), and none that changes the packets' form
// (compression, TLS, query attributes, optional result set metadata, ...). Otherwise the session's
// statements go through go-sql-driver, and the disclosure's client path says why (DB.ClientPath).

// Capability flags, as the protocol numbers them.
const (
	capClientMySQL      = 1       // CLIENT_MYSQL (CLIENT_LONG_PASSWORD): clear on MariaDB, which then has extended flags
	capProtocol41       = 1 << 9  // CLIENT_PROTOCOL_41
	capSSL              = 1 << 11 // CLIENT_SSL
	capDeprecateEOF     = 1 << 24 // CLIENT_DEPRECATE_EOF
	extCacheMetadata    = 1 << 4  // MARIADB_CLIENT_CACHE_METADATA
	statusMoreResults   = 0x0008  // SERVER_MORE_RESULTS_EXISTS
	comQuery            = 0x03
	comStmtPrepare      = 0x16
	comStmtExecute      = 0x17
	comStmtClose        = 0x19
	maxPacketPayload    = 1<<24 - 1
	flagUnsignedColumn  = 0x20
	typeDecimal         = 0x00
	typeTiny            = 0x01
	typeShort           = 0x02
	typeLong            = 0x03
	typeFloat           = 0x04
	typeDouble          = 0x05
	typeNull            = 0x06
	typeTimestamp       = 0x07
	typeLongLong        = 0x08
	typeInt24           = 0x09
	typeDate            = 0x0a
	typeTime            = 0x0b
	typeDateTime        = 0x0c
	typeYear            = 0x0d
	typeNewDate         = 0x0e
	typeString          = 0xfe
	paramUnsigned       = 0x80
	headerOK, headerEOF = 0x00, 0xfe
	headerErr           = 0xff
)

// wire is one session's own statements (see above). err is set once the stream is lost (an I/O
// error or an answer candor cannot read): the socket is closed then, so go-sql-driver's next
// command fails too, and the session is replaced by its owner.
type wire struct {
	ra                      *readAhead
	flags, ext              uint32 // the capabilities the session negotiated (readAhead.negotiated)
	deprecateEOF, cacheMeta bool   // deprecateEOF: always on a session newWire takes; off in FuzzWireAnswer only
	out                     []byte // the commands being written
	prep                    []byte // a prepare's command, written while a pipeline's wait in out
	big                     []byte // a packet of 16 MiB or more, put together
	seq                     byte   // the sequence number the next packet of the answer must have
	// The sequence number each command's answer starts at, the number of packets the command took
	// (1 below 16 MiB, more above: a command's packets are numbered from 0 and its answer's go on
	// from there): pending for the commands in out, prepPending for prep's, sent for those flushed
	// last, whose answers answer readies in turn (ans: the next).
	pending, prepPending, sent []byte
	ans                        int
	err                        error
	// closing: statements to close on the server (COM_STMT_CLOSE, which has no answer), sent in
	// front of the next prepare
	closing []uint32
}

// bufKeep is the most a session's buffers keep between exchanges (wire's out and big,
// readAhead's buf): one grown past it for a large parameter, row or packet is let go once that
// exchange is over, when the session's next command is written.
const bufKeep = 1 << 20

// wireFlags are the capability flags wire reads answers right with, by name: those go-sql-driver
// v1.10.1 may ask for but compression and TLS. A session that negotiated any other is not wire's.
var wireFlags = map[uint32]string{
	capClientMySQL: "CLIENT_MYSQL", 1 << 1: "CLIENT_FOUND_ROWS", 1 << 2: "CLIENT_LONG_FLAG",
	1 << 3: "CLIENT_CONNECT_WITH_DB", 1 << 7: "CLIENT_LOCAL_FILES", capProtocol41: "CLIENT_PROTOCOL_41",
	1 << 13: "CLIENT_TRANSACTIONS", 1 << 15: "CLIENT_SECURE_CONNECTION", 1 << 16: "CLIENT_MULTI_STATEMENTS",
	1 << 17: "CLIENT_MULTI_RESULTS", 1 << 19: "CLIENT_PLUGIN_AUTH", 1 << 20: "CLIENT_CONNECT_ATTRS",
	1 << 21: "CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA", capDeprecateEOF: "CLIENT_DEPRECATE_EOF",
}

// otherFlags names the flags wire does not read, for the reason it gives.
var otherFlags = map[uint32]string{
	1 << 5: "CLIENT_COMPRESS", capSSL: "CLIENT_SSL", 1 << 18: "CLIENT_PS_MULTI_RESULTS",
	1 << 22: "CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS", 1 << 23: "CLIENT_SESSION_TRACK",
	1 << 25: "CLIENT_OPTIONAL_RESULTSET_METADATA", 1 << 26: "CLIENT_ZSTD_COMPRESSION_ALGORITHM",
	1 << 27: "CLIENT_QUERY_ATTRIBUTES",
}

// newWire is the session's wire, or nil and the reason it cannot be used (see above).
func newWire(ra *readAhead, tls bool) (*wire, string) {
	switch {
	case ra == nil:
		return nil, "the session's socket is not candor's"
	case tls:
		return nil, "TLS: candor's wire does not speak it"
	case !ra.caps.known:
		return nil, "the server's greeting was not readable"
	case !ra.client.known:
		return nil, "the client's handshake response was not readable"
	}
	flags, ext, _ := ra.negotiated()
	if reason := wireReason(ra.caps.flags, flags, ext); reason != "" {
		return nil, reason
	}
	return &wire{
		ra:           ra,
		flags:        flags,
		ext:          ext,
		deprecateEOF: true,
		cacheMeta:    ext&extCacheMetadata != 0,
	}, ""
}

// wireReason says why wire cannot read a session that negotiated flags and ext (server: the
// greeting's flags), or "" when it can.
func wireReason(server, flags, ext uint32) string {
	for _, f := range []uint32{capProtocol41, capDeprecateEOF} {
		if flags&f == 0 {
			why := "the client did not ask for it"
			if server&f == 0 {
				why = "the server does not offer it"
			}
			return fmt.Sprintf("the session did not negotiate %s (%s)", wireFlags[f], why)
		}
	}
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if flags&bit == 0 || wireFlags[bit] != "" {
			continue
		}
		name := otherFlags[bit]
		if name == "" {
			name = fmt.Sprintf("capability flag %#x", bit)
		}
		return fmt.Sprintf("the session negotiated %s, which candor's wire does not read", name)
	}
	if other := ext &^ extCacheMetadata; other != 0 {
		return fmt.Sprintf("the session negotiated MariaDB's extended capabilities %#x, which candor's wire does not read", other)
	}
	return ""
}

// wstmt is a statement prepared on the server through wire.
type wstmt struct {
	id      uint32
	used    uint64 // the session's use count at its last use (Conn.wprepared)
	nParams int
	cols    []wcol   // its result's columns, as the last answer that sent them said
	names   []string // their names, from the prepare
}

// wcol is what decoding a column of a binary row needs.
type wcol struct {
	typ      byte
	flags    uint16
	decimals byte
}

// lost ends the stream: it closes the socket (so that nothing else is sent on it) and keeps err,
// which every later statement of wire returns.
func (w *wire) lost(err error) error {
	if w.err == nil {
		w.err = fmt.Errorf("mysql: the session's connection is lost: %w", err)
		w.ra.Close()
	}
	return w.err
}

// errConnLost marks what wire's check of an answer found as a lost connection (classify).
var errConnLost = sqldriver.ErrBadConn

// protocol is an answer wire cannot read: the stream is lost.
func (w *wire) protocol(format string, args ...any) error {
	return w.lost(fmt.Errorf("%w: %s", errConnLost, fmt.Sprintf(format, args...)))
}

// command starts a command's packet in out; its header is written by done.
func (w *wire) command(cmd byte) int {
	start := len(w.out)
	w.out = append(w.out, 0, 0, 0, 0, cmd)
	return start
}

// done writes the header of the command that starts at start (sequence 0): one packet, or several
// of 16 MiB when it is longer (the last one shorter, empty when the payload is a multiple of
// 16 MiB - 1). Its answer's packets are numbered on from its last one's.
func (w *wire) done(start int) {
	n := len(w.out) - start - 4
	if n < maxPacketPayload {
		w.out[start], w.out[start+1], w.out[start+2], w.out[start+3] = byte(n), byte(n>>8), byte(n>>16), 0
		w.pending = append(w.pending, 1)
		return
	}
	payload := append([]byte(nil), w.out[start+4:]...)
	w.out = w.out[:start]
	for seq := byte(0); ; seq++ {
		k := min(len(payload), maxPacketPayload)
		w.out = append(w.out, byte(k), byte(k>>8), byte(k>>16), seq)
		w.out = append(w.out, payload[:k]...)
		payload = payload[k:]
		if k < maxPacketPayload {
			w.pending = append(w.pending, seq+1)
			return
		}
	}
}

// discardQueued drops the commands queued in out, never sent.
func (w *wire) discardQueued() {
	w.out, w.pending = w.out[:0], w.pending[:0]
}

// flush writes the commands in out, and readies the reading of the first one's answer. Every
// command wire sends has an answer, read next: the write is a request (rawsock.Request), which
// returns once the answer begins to arrive.
func (w *wire) flush() error {
	if w.err != nil {
		w.discardQueued()
		return w.err
	}
	w.ra.shrink() // the last exchange is read whole: a buffer it grew goes
	_, err := rawsock.Request(w.ra.Conn, w.out)
	w.sent = append(w.sent[:0], w.pending...)
	w.discardQueued()
	if cap(w.out) > bufKeep { // a command of a large parameter is written
		w.out = nil
	}
	if cap(w.big) > bufKeep { // a packet of 16 MiB or more was read
		w.big = nil
	}
	w.ans = 0
	w.seq = w.first(0)
	if err != nil {
		return w.lost(err)
	}
	return nil
}

// answer readies the reading of the next answer of the commands flushed last, in the order they
// were queued (a pipeline's; flush readies the first one's already, for a single command).
func (w *wire) answer() {
	w.seq = w.first(w.ans)
	w.ans++
}

// first is the sequence number the answer of the i-th command flushed last starts at.
func (w *wire) first(i int) byte {
	if i < len(w.sent) {
		return w.sent[i]
	}
	return 1
}

// text queues query as a text command (COM_QUERY), whose answer result reads.
func (w *wire) text(query string) {
	start := w.command(comQuery)
	w.out = append(w.out, query...)
	w.done(start)
}

// packet reads the answer's next packet, in place (valid until the next read).
func (w *wire) packet() ([]byte, error) {
	h, err := w.ra.next(4)
	if err != nil {
		return nil, w.lost(err)
	}
	n, seq := int(h[0])|int(h[1])<<8|int(h[2])<<16, h[3]
	if seq != w.seq {
		return nil, w.protocol("packet %d of an answer came as %d", w.seq, seq)
	}
	w.seq++
	if n == 0 { // every packet of an answer begins with its kind's byte
		return nil, w.protocol("an empty packet")
	}
	p, err := w.ra.next(n)
	if err != nil {
		return nil, w.lost(err)
	}
	if n < maxPacketPayload {
		return p, nil
	}
	w.big = append(w.big[:0], p...)
	for n == maxPacketPayload {
		if h, err = w.ra.next(4); err != nil {
			return nil, w.lost(err)
		}
		n, seq = int(h[0])|int(h[1])<<8|int(h[2])<<16, h[3]
		if seq != w.seq {
			return nil, w.protocol("packet %d of an answer came as %d", w.seq, seq)
		}
		w.seq++
		if p, err = w.ra.next(n); err != nil {
			return nil, w.lost(err)
		}
		w.big = append(w.big, p...)
	}
	return w.big, nil
}

// serverError is an ERR packet's error, as go-sql-driver returns it (classify reads its number).
func serverError(p []byte) error {
	if len(p) < 3 {
		return &gomysql.MySQLError{Number: 0, Message: "malformed error packet"}
	}
	e := &gomysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:3])}
	i := 3
	if len(p) >= 9 && p[3] == '#' {
		copy(e.SQLState[:], p[4:9])
		i = 9
	}
	e.Message = string(p[i:])
	return e
}

// forget closes the statement id on the server: the command goes in front of the next prepare.
func (w *wire) forget(id uint32) { w.closing = append(w.closing, id) }

// prepare prepares query on the server (COM_STMT_PREPARE) and reads the statement's parameters
// and columns.
func (w *wire) prepare(query string) (*wstmt, error) {
	if w.err != nil {
		return nil, w.err
	}
	// commands a pipeline has queued wait in out, behind this one (see pipe.go)
	queued, queuedPending := w.out, w.pending
	w.out, w.pending = w.prep[:0], w.prepPending[:0]
	for _, id := range w.closing { // no answer: no pending entry, and the prepare's packets start at 0 again
		w.out = append(w.out, 5, 0, 0, 0, comStmtClose)
		w.out = binary.LittleEndian.AppendUint32(w.out, id)
	}
	w.closing = w.closing[:0]
	start := w.command(comStmtPrepare)
	w.out = append(w.out, query...)
	w.done(start)
	err := w.flush()
	w.prep, w.out = w.out, queued
	w.prepPending, w.pending = w.pending, queuedPending
	if err != nil {
		return nil, err
	}
	p, err := w.packet()
	if err != nil {
		return nil, err
	}
	if p[0] == headerErr {
		return nil, serverError(p)
	}
	if p[0] != headerOK || len(p) < 12 {
		return nil, w.protocol("a prepare's answer began with %#x", p[0])
	}
	s := &wstmt{id: binary.LittleEndian.Uint32(p[1:5])}
	ncols := int(binary.LittleEndian.Uint16(p[5:7]))
	s.nParams = int(binary.LittleEndian.Uint16(p[7:9]))
	if s.nParams > 0 {
		if err := w.skipColumns(s.nParams); err != nil {
			return nil, err
		}
	}
	if ncols > 0 {
		s.cols = make([]wcol, ncols)
		s.names = make([]string, ncols)
		if err := w.columns(s.cols, s.names); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// skipColumns reads n column definitions and the EOF after them (without CLIENT_DEPRECATE_EOF).
func (w *wire) skipColumns(n int) error {
	for range n {
		if _, err := w.packet(); err != nil {
			return err
		}
	}
	return w.skipEOF()
}

func (w *wire) skipEOF() error {
	if w.deprecateEOF {
		return nil
	}
	p, err := w.packet()
	if err != nil {
		return err
	}
	if p[0] != headerEOF {
		return w.protocol("an EOF packet began with %#x", p[0])
	}
	return nil
}

// columns reads len(cols) column definitions (Protocol::ColumnDefinition41) into cols, and their
// names into names unless it is nil, then the EOF after them.
func (w *wire) columns(cols []wcol, names []string) error {
	for i := range cols {
		p, err := w.packet()
		if err != nil {
			return err
		}
		// catalog, schema, table, org_table, name, org_name, then the fixed fields' length
		pos := 0
		for f := 0; f < 6; f++ {
			s, n, ok := lenencString(p[pos:])
			if !ok {
				return w.protocol("a column definition is cut short")
			}
			if f == 4 && names != nil {
				names[i] = string(s)
			}
			pos += n
		}
		_, n, ok := lenencInt(p[pos:])
		pos += n
		// charset 2, column length 4, type 1, flags 2, decimals 1
		if !ok || pos+10 > len(p) {
			return w.protocol("a column definition is cut short")
		}
		cols[i] = wcol{typ: p[pos+6], flags: binary.LittleEndian.Uint16(p[pos+7:]), decimals: p[pos+9]}
	}
	return w.skipEOF()
}

// run sends query as a text command and reads its answer, rows discarded.
func (w *wire) run(query string) error {
	w.text(query)
	if err := w.flush(); err != nil {
		return err
	}
	ncols, _, status, err := w.result(nil)
	if err == nil && (ncols > 0 || status&statusMoreResults != 0) {
		err = w.discard(ncols > 0, status)
	}
	return err
}

// lenencInt reads a length-encoded integer: its value, its length in bytes, and false when b is cut
// short or holds NULL (0xfb).
func lenencInt(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	switch b[0] {
	case 0xfb:
		return 0, 1, false
	case 0xfc:
		if len(b) < 3 {
			return 0, 0, false
		}
		return uint64(binary.LittleEndian.Uint16(b[1:])), 3, true
	case 0xfd:
		if len(b) < 4 {
			return 0, 0, false
		}
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4, true
	case 0xfe:
		if len(b) < 9 {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint64(b[1:]), 9, true
	}
	return uint64(b[0]), 1, true
}

// lenencString reads a length-encoded string, in place.
func lenencString(b []byte) ([]byte, int, bool) {
	l, n, ok := lenencInt(b)
	if !ok || uint64(len(b)-n) < l {
		return nil, n, false
	}
	return b[n : n+int(l) : n+int(l)], n + int(l), true
}

// execute queues s's execution with args (COM_STMT_EXECUTE, no cursor, the parameters' types sent
// each time) in out; flush sends it. The common Go types are written as they are; any other is
// converted first as go-sql-driver converts it (conv, its CheckNamedValue).
func (w *wire) execute(s *wstmt, args []any, conv sqldriver.NamedValueChecker) error {
	if len(args) != s.nParams {
		return fmt.Errorf("sql: expected %d arguments, got %d", s.nParams, len(args))
	}
	start := w.command(comStmtExecute)
	w.out = binary.LittleEndian.AppendUint32(w.out, s.id)
	w.out = append(w.out, 0, 1, 0, 0, 0) // flags, iteration count 1
	if len(args) > 0 {
		nulls := len(w.out)
		for range (len(args) + 7) / 8 {
			w.out = append(w.out, 0)
		}
		w.out = append(w.out, 1) // new parameters bound: their types follow
		types := len(w.out)
		for range args {
			w.out = append(w.out, 0, 0)
		}
		for i, a := range args {
			switch v := a.(type) {
			case int, int32, int64, string, []byte, float64, bool, time.Time, nil:
			case json.RawMessage:
				a = []byte(v)
			default:
				var err error
				if a, err = driverArg(conv, a); err != nil {
					w.out = w.out[:start]
					return fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
				}
			}
			t, u := byte(typeString), byte(0)
			switch v := a.(type) {
			case nil:
				t = typeNull
			case int:
				t = typeLongLong
				w.out = binary.LittleEndian.AppendUint64(w.out, uint64(v))
			case int32:
				t = typeLongLong
				w.out = binary.LittleEndian.AppendUint64(w.out, uint64(int64(v)))
			case int64:
				t = typeLongLong
				w.out = binary.LittleEndian.AppendUint64(w.out, uint64(v))
			case uint64:
				t, u = typeLongLong, paramUnsigned
				w.out = binary.LittleEndian.AppendUint64(w.out, v)
			case float64:
				t = typeDouble
				w.out = binary.LittleEndian.AppendUint64(w.out, math.Float64bits(v))
			case bool:
				t = typeTiny
				b := byte(0)
				if v {
					b = 1
				}
				w.out = append(w.out, b)
			case []byte:
				if v == nil {
					t = typeNull
					break
				}
				w.out = appendLenenc(w.out, uint64(len(v)))
				w.out = append(w.out, v...)
			case string:
				w.out = appendLenenc(w.out, uint64(len(v)))
				w.out = append(w.out, v...)
			case time.Time:
				// as go-sql-driver sends it: text in the URL's zone (UTC), digits trimmed
				var buf [32]byte
				b, err := appendDateTime(buf[:0], v.In(time.UTC))
				if err != nil {
					w.out = w.out[:start]
					return err
				}
				w.out = appendLenenc(w.out, uint64(len(b)))
				w.out = append(w.out, b...)
			default:
				w.out = w.out[:start]
				return fmt.Errorf("sql: converting argument $%d type: unsupported type %T", i+1, a)
			}
			if t == typeNull {
				w.out[nulls+i/8] |= 1 << (i & 7)
			}
			w.out[types+2*i], w.out[types+2*i+1] = t, u
		}
	}
	w.done(start)
	return nil
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// appendDateTime writes t as go-sql-driver writes a time argument: "2006-01-02", with
// " 15:04:05" unless midnight, and the fraction's digits without trailing zeros.
func appendDateTime(b []byte, t time.Time) ([]byte, error) {
	if t.IsZero() {
		return append(b, "0000-00-00"...), nil
	}
	year, month, day := t.Date()
	if year < 1 || year > 9999 {
		return b, errors.New("year is not in the range [1, 9999]: " + strconv.Itoa(year))
	}
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10))
	hour, min, sec := t.Clock()
	nsec := t.Nanosecond()
	if hour == 0 && min == 0 && sec == 0 && nsec == 0 {
		return b, nil
	}
	b = append(b, ' ', byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+min/10), byte('0'+min%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if nsec == 0 {
		return b, nil
	}
	b = append(b, '.')
	for d := 100_000_000; d > 0 && nsec > 0; d /= 10 {
		b = append(b, byte('0'+nsec/d))
		nsec %= d
	}
	return b, nil
}

// result reads the head of an execution's answer: for a result set (ncols > 0) its columns, into
// s.cols when the server sends them (else s.cols stand); for an OK its affected rows and status.
// A server's error is returned as go-sql-driver's MySQLError; the session goes on.
func (w *wire) result(s *wstmt) (ncols int, affected int64, status uint16, err error) {
	p, err := w.packet()
	if err != nil {
		return 0, 0, 0, err
	}
	switch p[0] {
	case headerOK:
		affected, status, err = w.ok(p)
		return 0, affected, status, err
	case headerErr:
		return 0, 0, 0, serverError(p)
	}
	n, k, ok := lenencInt(p)
	if !ok || n == 0 || n > 4096 {
		return 0, 0, 0, w.protocol("an answer began with %#x", p[0])
	}
	ncols = int(n)
	follows := true
	if w.cacheMeta {
		follows = k < len(p) && p[k] == 1
	}
	if !follows { // the columns are those the server sent last for the statement
		if s != nil && len(s.cols) != ncols {
			return 0, 0, 0, w.protocol("the server sent no columns for a result of %d", ncols)
		}
		return ncols, 0, 0, w.skipEOF()
	}
	if s != nil && len(s.cols) == ncols {
		return ncols, 0, 0, w.columns(s.cols, nil)
	}
	if s != nil { // the statement's columns changed (its table was altered): read them again
		s.cols, s.names = make([]wcol, ncols), make([]string, ncols)
		return ncols, 0, 0, w.columns(s.cols, s.names)
	}
	return ncols, 0, 0, w.skipColumns(ncols)
}

// ok reads an OK packet's affected rows and status.
func (w *wire) ok(p []byte) (int64, uint16, error) {
	a, n, ok := lenencInt(p[1:])
	if !ok {
		return 0, 0, w.protocol("an OK packet is cut short")
	}
	_, m, ok := lenencInt(p[1+n:])
	if !ok || 1+n+m+2 > len(p) {
		return 0, 0, w.protocol("an OK packet is cut short")
	}
	return int64(a), binary.LittleEndian.Uint16(p[1+n+m:]), nil
}

// end reads the status of the packet that ends a result set's rows (an OK with the header 0xFE, or
// an EOF without CLIENT_DEPRECATE_EOF).
func (w *wire) end(p []byte) (uint16, error) {
	if w.deprecateEOF {
		_, status, err := w.ok(p)
		return status, err
	}
	if len(p) < 5 {
		return 0, w.protocol("an EOF packet is cut short")
	}
	return binary.LittleEndian.Uint16(p[3:]), nil
}

// discard reads the rest of an answer whose rows are not wanted: rows to the end of the result
// set (when inRows), then every further result while the status says more follow. It returns
// the first server error among them.
func (w *wire) discard(inRows bool, status uint16) error {
	var first error
	for {
		if inRows {
			for {
				p, err := w.packet()
				if err != nil {
					return err
				}
				if p[0] == headerErr {
					status = 0
					if first == nil {
						first = serverError(p)
					}
					break
				}
				if p[0] == headerEOF && len(p) < maxPacketPayload {
					if status, err = w.end(p); err != nil {
						return err
					}
					break
				}
			}
		}
		if status&statusMoreResults == 0 {
			return first
		}
		ncols, _, st, err := w.result(nil)
		if err != nil {
			if w.err != nil {
				return err
			}
			if first == nil {
				first = err
			}
			return first
		}
		inRows, status = ncols > 0, st
	}
}

// wrows is an execution's result set read through wire, as go-sql-driver's binary rows are
// (sqldriver.Rows, and RowsNextResultSet for a procedure's several).
type wrows struct {
	w      *wire
	cols   []wcol
	names  []string
	done   bool   // the result set's end was read
	status uint16 // the status of its end
	closed bool
	row    []byte // the current row's packet, in place (next)
}

// start readies r for the result set whose head result read (ncols columns of s, or none and the
// OK's status), and returns it.
func (r *wrows) start(w *wire, s *wstmt, ncols int, status uint16) *wrows {
	*r = wrows{w: w}
	if ncols == 0 {
		r.done, r.status = true, status
	} else {
		r.cols, r.names = s.cols, s.names
	}
	return r
}

func (r *wrows) Columns() []string { return r.names }

func (r *wrows) Next(dest []sqldriver.Value) error {
	if err := r.next(); err != nil {
		return err
	}
	return r.decode(dest)
}

// next reads the next row into r.row (in place: valid until the next read), or io.EOF at the end of
// the result set.
func (r *wrows) next() error {
	if r.done || r.closed {
		return io.EOF
	}
	w := r.w
	p, err := w.packet()
	if err != nil {
		r.done = true
		return err
	}
	switch {
	case p[0] == headerEOF && len(p) < maxPacketPayload:
		r.done = true
		r.status, err = w.end(p)
		if err != nil {
			return err
		}
		return io.EOF
	case p[0] == headerErr:
		r.done = true
		return serverError(p)
	case p[0] != headerOK:
		r.done = true
		return w.protocol("a row began with %#x", p[0])
	}
	pos := 1 + (len(r.cols)+7+2)>>3
	if pos > len(p) {
		return w.protocol("a row is cut short")
	}
	r.row = p
	return nil
}

// decode reads the current row (Protocol::BinaryResultsetRow) into dest: integers as int64 (an
// unsigned BIGINT beyond int64 as its digits), floating point as float32 and float64, dates and
// times as time.Time in UTC, TIME as its text, everything else as the bytes the server sent, in
// place: the values go-sql-driver's binary rows give.
func (r *wrows) decode(dest []sqldriver.Value) error {
	if len(dest) != len(r.cols) {
		return fmt.Errorf("mysql: %d destinations for %d columns", len(dest), len(r.cols))
	}
	pos := 1 + (len(r.cols)+7+2)>>3
	for i := range r.cols {
		var v cval
		var err error
		if v, pos, err = r.column(i, pos); err != nil {
			return err
		}
		dest[i] = v.value()
	}
	return nil
}

// scan stores the current row in dest as assign would store decode's values, without making them
// values first: the common pairs (an integer into an int64, int32, int, bool or sql.NullInt64, text
// into a string, sql.NullString, []byte or sql.RawBytes, a date into a time.Time or sql.NullTime)
// directly, the rest through assign.
func (r *wrows) scan(dest []any) error {
	pos := 1 + (len(r.cols)+7+2)>>3
	for i := range r.cols {
		var v cval
		var err error
		if v, pos, err = r.column(i, pos); err != nil {
			return err
		}
		if !v.store(dest[i]) {
			err = assign(dest[i], v.value())
		}
		if err != nil {
			return fmt.Errorf("sql: Scan error on column index %d, name %q: %w", i, r.names[i], err)
		}
	}
	return nil
}

// cval is a column's value as read, before it is made a driver value or stored.
type cval struct {
	kind byte // cvNull, cvInt, cvFloat32, cvFloat64, cvBytes, cvTime
	i    int64
	f    float64
	b    []byte
	t    time.Time
}

const (
	cvNull = iota
	cvInt
	cvFloat32
	cvFloat64
	cvBytes
	cvTime
)

// value is v as decode gives it.
func (v *cval) value() sqldriver.Value {
	switch v.kind {
	case cvInt:
		return v.i
	case cvFloat32:
		return float32(v.f)
	case cvFloat64:
		return v.f
	case cvBytes:
		return v.b
	case cvTime:
		return v.t
	}
	return nil
}

// store stores v in dest when the pair is a common one (see scan), and says whether it did.
func (v *cval) store(dest any) bool {
	switch v.kind {
	case cvInt:
		switch d := dest.(type) {
		case *int64:
			*d = v.i
		case *int:
			if int64(int(v.i)) != v.i {
				return false
			}
			*d = int(v.i)
		case *int32:
			if int64(int32(v.i)) != v.i {
				return false // assign reports the overflow
			}
			*d = int32(v.i)
		case *bool:
			if v.i != 0 && v.i != 1 {
				return false
			}
			*d = v.i == 1
		case *sql.NullInt64:
			*d = sql.NullInt64{Int64: v.i, Valid: true}
		default:
			return false
		}
	case cvBytes:
		switch d := dest.(type) {
		case *string:
			*d = string(v.b)
		case *sql.NullString:
			*d = sql.NullString{String: string(v.b), Valid: true}
		case *sql.RawBytes:
			*d = v.b
		case *[]byte:
			*d = bytes.Clone(v.b)
		default:
			return false
		}
	case cvTime:
		switch d := dest.(type) {
		case *time.Time:
			*d = v.t
		case *sql.NullTime:
			*d = sql.NullTime{Time: v.t, Valid: true}
		default:
			return false
		}
	case cvNull:
		switch d := dest.(type) {
		case *sql.NullInt64:
			*d = sql.NullInt64{}
		case *sql.NullString:
			*d = sql.NullString{}
		case *sql.NullTime:
			*d = sql.NullTime{}
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// column reads column i of the current row from pos, and returns where the next begins.
func (r *wrows) column(i, pos int) (cval, int, error) {
	p, c := r.row, r.cols[i]
	short := func() (cval, int, error) { return cval{}, pos, r.w.protocol("a row is cut short") }
	if p[1+(i+2)>>3]>>((i+2)&7)&1 == 1 {
		return cval{}, pos, nil
	}
	unsigned := c.flags&flagUnsignedColumn != 0
	var v cval
	switch c.typ {
	case typeNull:
		return cval{}, pos, nil
	case typeTiny, typeShort, typeYear, typeInt24, typeLong, typeLongLong:
		size := intSizes[c.typ]
		if pos+size > len(p) {
			return short()
		}
		v = intColumn(p[pos:pos+size], unsigned)
		pos += size
	case typeFloat:
		if pos+4 > len(p) {
			return short()
		}
		v = cval{kind: cvFloat32, f: float64(math.Float32frombits(binary.LittleEndian.Uint32(p[pos:])))}
		pos += 4
	case typeDouble:
		if pos+8 > len(p) {
			return short()
		}
		v = cval{kind: cvFloat64, f: math.Float64frombits(binary.LittleEndian.Uint64(p[pos:]))}
		pos += 8
	case typeDate, typeNewDate, typeTimestamp, typeDateTime, typeTime:
		n, k, ok := lenencInt(p[pos:])
		if !ok || n > uint64(len(p)-pos-k) {
			return short()
		}
		b := p[pos+k : pos+k+int(n)]
		pos += k + int(n)
		var err error
		if c.typ == typeTime {
			v.kind = cvBytes
			v.b, err = binaryTime(b, c.decimals)
		} else {
			v.kind = cvTime
			v.t, err = binaryDateTime(b)
		}
		if err != nil {
			return cval{}, pos, r.w.protocol("%v", err)
		}
	default: // DECIMAL, strings, blobs, BIT, ENUM, SET, JSON, GEOMETRY, VECTOR: length-encoded
		b, n, ok := lenencString(p[pos:])
		if !ok {
			return short()
		}
		v = cval{kind: cvBytes, b: b}
		pos += n
	}
	return v, pos, nil
}

// intSizes is the size in a binary row of each integer type.
var intSizes = [...]int{typeTiny: 1, typeShort: 2, typeYear: 2, typeInt24: 4, typeLong: 4, typeLongLong: 8}

// intColumn is a binary row's integer of len(b) bytes; an unsigned BIGINT beyond int64 as its
// digits, as go-sql-driver gives it.
func intColumn(b []byte, unsigned bool) cval {
	var u uint64
	var signed int64
	switch len(b) {
	case 1:
		u, signed = uint64(b[0]), int64(int8(b[0]))
	case 2:
		x := binary.LittleEndian.Uint16(b)
		u, signed = uint64(x), int64(int16(x))
	case 4:
		x := binary.LittleEndian.Uint32(b)
		u, signed = uint64(x), int64(int32(x))
	default:
		u = binary.LittleEndian.Uint64(b)
		signed = int64(u)
	}
	switch {
	case !unsigned:
		return cval{kind: cvInt, i: signed}
	case u > math.MaxInt64:
		return cval{kind: cvBytes, b: strconv.AppendUint(nil, u, 10)}
	}
	return cval{kind: cvInt, i: int64(u)}
}

// binaryDateTime is a binary DATE, DATETIME or TIMESTAMP (0, 4, 7 or 11 bytes) in UTC.
func binaryDateTime(b []byte) (time.Time, error) {
	var y, mo, d, h, mi, s, us int
	switch len(b) {
	case 11:
		us = int(binary.LittleEndian.Uint32(b[7:]))
		fallthrough
	case 7:
		h, mi, s = int(b[4]), int(b[5]), int(b[6])
		fallthrough
	case 4:
		y, mo, d = int(binary.LittleEndian.Uint16(b)), int(b[2]), int(b[3])
	case 0:
		return time.Time{}, nil
	default:
		return time.Time{}, fmt.Errorf("a DATETIME of %d bytes", len(b))
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, us*1000, time.UTC), nil
}

// binaryTime is a binary TIME (0, 8 or 12 bytes) as go-sql-driver shows it: "[-]HH:MM:SS[.ffffff]"
// with the column's decimals.
func binaryTime(b []byte, decimals byte) ([]byte, error) {
	frac := 0
	if decimals >= 1 && decimals <= 6 {
		frac = int(decimals)
	}
	if len(b) == 0 {
		out := []byte("00:00:00")
		if frac > 0 {
			out = append(out, '.')
			for range frac {
				out = append(out, '0')
			}
		}
		return out, nil
	}
	if len(b) != 8 && len(b) != 12 {
		return nil, fmt.Errorf("a TIME of %d bytes", len(b))
	}
	var out []byte
	if b[0] == 1 {
		out = append(out, '-')
	}
	hours := int64(binary.LittleEndian.Uint32(b[1:5]))*24 + int64(b[5])
	if hours < 10 {
		out = append(out, '0')
	}
	out = strconv.AppendInt(out, hours, 10)
	out = append(out, ':', '0'+b[6]/10, '0'+b[6]%10, ':', '0'+b[7]/10, '0'+b[7]%10)
	if frac > 0 {
		us := 0
		if len(b) == 12 {
			us = int(binary.LittleEndian.Uint32(b[8:]))
		}
		digits := fmt.Sprintf("%06d", us)
		out = append(out, '.')
		out = append(out, digits[:frac]...)
	}
	return out, nil
}

// Close reads what is left of the answer: the rows, and any further result sets.
func (r *wrows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.w.err != nil {
		return r.w.err
	}
	return r.w.discard(!r.done, r.status)
}

func (r *wrows) HasNextResultSet() bool {
	return !r.closed && r.done && r.status&statusMoreResults != 0
}

// NextResultSet reads the head of the next result set (a procedure's): its columns are its own.
func (r *wrows) NextResultSet() error {
	if !r.HasNextResultSet() {
		return io.EOF
	}
	for {
		p, err := r.w.packet()
		if err != nil {
			return err
		}
		switch p[0] {
		case headerErr:
			r.status = 0
			return serverError(p)
		case headerOK: // a result without rows (a procedure's final status): none is left, or go on
			_, st, err := r.w.ok(p)
			if err != nil {
				return err
			}
			r.status = st
			if st&statusMoreResults == 0 {
				return io.EOF
			}
			continue
		}
		n, k, ok := lenencInt(p)
		if !ok || n == 0 || n > 4096 {
			return r.w.protocol("an answer began with %#x", p[0])
		}
		if r.w.cacheMeta && (k >= len(p) || p[k] != 1) {
			return r.w.protocol("a procedure's result set came without its columns")
		}
		r.cols, r.names = make([]wcol, n), make([]string, n)
		r.done, r.status = false, 0
		return r.w.columns(r.cols, r.names)
	}
}

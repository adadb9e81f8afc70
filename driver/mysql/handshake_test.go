package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// Recorded from the servers scripts/test runs, as go-sql-driver v1.10.1 logged in to them with
// candor's configuration: the server's greeting and the client's handshake response (its
// authentication bytes zeroed; the parse does not read them).
const (
	mariadbGreeting = "640000000a352e352e352d31302e31312e31392d4d6172696144422d302b64656231327531001c0500003d724c60217e7d7500feff2e0200ff81150000000000001d00000054265f2b575421436f29773f006d7973716c5f6e61746976655f70617373776f726400"
	mariadbResponse = "b30000018ea23a01000000002d000000000000000000000000000000000000001000000063616e646f720014000000000000000000000000000000000000000063616e646f72006d797371" +
		"6c5f6e61746976655f70617373776f726400590c5f636c69656e745f6e616d650f476f2d4d7953514c2d447269766572035f6f73056c696e7578095f706c6174666f726d05616d643634045f7069640531393138370c5f7365727665725f686f7374093132372e302e302e31"
	gmsGreeting = "620000000a382e302e33332d676f2d6d7973716c2d7365727665722d7374616e64696e0005000000714b60615a4e6257008fa22100003b0115000000000000000000000a551b6b71312d567c750f20006d7973716c5f6e61746976655f70617373776f726400"
	gmsResponse = "ae0000018fa23a01000000002d0000000000000000000000000000000000000000000000726f6f74000063616e646f725f7265635f613430326233356633326331006d7973716c5f6e61746976655f70617373776f726400590c5f636c69656e745f6e616d650f476f2d4d7953514c2d447269766572035f6f73056c696e7578095f706c6174666f726d05616d643634045f7069640531393138370c5f7365727665725f686f7374093132372e302e302e31"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withFlags is a copy of a recorded packet with its capability flags changed: in a greeting
// (greeting true) the lower and upper halves, in a response the 4 bytes at the payload's start.
func withFlags(t *testing.T, pkt []byte, greeting bool, set, clear uint32) []byte {
	t.Helper()
	b := bytes.Clone(pkt)
	if !greeting {
		f := binary.LittleEndian.Uint32(b[4:])
		binary.LittleEndian.PutUint32(b[4:], (f|set)&^clear)
		return b
	}
	p := b[4:]
	i := 1 + bytes.IndexByte(p[1:], 0) + 1 + 4 + 8 + 1
	f := uint32(binary.LittleEndian.Uint16(p[i:])) | uint32(binary.LittleEndian.Uint16(p[i+5:]))<<16
	f = (f | set) &^ clear
	binary.LittleEndian.PutUint16(p[i:], uint16(f))
	binary.LittleEndian.PutUint16(p[i+5:], uint16(f>>16))
	return b
}

// TestHandshakeRecorded: the negotiated capabilities of the recorded sessions, and what the wire
// does with them; then the same packets with a flag taken away or added, each refused with its
// reason, never read with the wrong form.
func TestHandshakeRecorded(t *testing.T) {
	type session struct{ greeting, response []byte }
	maria := session{unhex(t, mariadbGreeting), unhex(t, mariadbResponse)}
	gms := session{unhex(t, gmsGreeting), unhex(t, gmsResponse)}
	const quattrs = 1 << 27
	for _, tc := range []struct {
		name      string
		s         session
		cacheMeta bool
		why       string
	}{
		{"mariadb", maria, true, ""},
		{"go-mysql-server", gms, false, ""},
		{"no DEPRECATE_EOF from the server", session{withFlags(t, maria.greeting, true, 0, capDeprecateEOF), maria.response}, false,
			"the session did not negotiate CLIENT_DEPRECATE_EOF (the server does not offer it)"},
		{"no DEPRECATE_EOF asked", session{gms.greeting, withFlags(t, gms.response, false, 0, capDeprecateEOF)}, false,
			"the session did not negotiate CLIENT_DEPRECATE_EOF (the client did not ask for it)"},
		{"no PROTOCOL_41 from the server", session{withFlags(t, gms.greeting, true, 0, capProtocol41), gms.response}, false,
			"the session did not negotiate CLIENT_PROTOCOL_41 (the server does not offer it)"},
		{"compression", session{withFlags(t, maria.greeting, true, 1<<5, 0), withFlags(t, maria.response, false, 1<<5, 0)}, false,
			"the session negotiated CLIENT_COMPRESS, which candor's wire does not read"},
		{"query attributes", session{withFlags(t, gms.greeting, true, quattrs, 0), withFlags(t, gms.response, false, quattrs, 0)}, false,
			"the session negotiated CLIENT_QUERY_ATTRIBUTES, which candor's wire does not read"},
		{"query attributes offered, not asked", session{withFlags(t, gms.greeting, true, quattrs, 0), gms.response}, false, ""},
		{"a response cut short", session{maria.greeting, append(bytes.Clone(maria.response[:4]), maria.response[4:20]...)}, false,
			"the client's handshake response was not readable"},
		{"a greeting cut short", session{maria.greeting[:30], maria.response}, false, "the server's greeting was not readable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ra := &readAhead{caps: greeting(tc.s.greeting), client: handshakeResponse(tc.s.response)}
			w, why := newWire(ra, false)
			if why != tc.why || (w == nil) != (tc.why != "") {
				t.Fatalf("wire %v, reason %q; want %q", w != nil, why, tc.why)
			}
			if w == nil {
				return
			}
			if w.flags&(capProtocol41|capDeprecateEOF) != capProtocol41|capDeprecateEOF || !w.deprecateEOF || w.cacheMeta != tc.cacheMeta {
				t.Errorf("negotiated %#x, ext %#x: deprecate EOF %v, cache metadata %v (want %v)", w.flags, w.ext, w.deprecateEOF, w.cacheMeta, tc.cacheMeta)
			}
			if w.flags&quattrs != 0 || w.flags&^ra.client.flags != 0 || w.flags&^ra.caps.flags != 0 {
				t.Errorf("negotiated %#x is not within the server's %#x and the client's %#x", w.flags, ra.caps.flags, ra.client.flags)
			}
		})
	}
	// MariaDB's extended capabilities: one the wire does not read, asked and offered.
	ra := &readAhead{caps: greeting(maria.greeting), client: handshakeResponse(maria.response)}
	ra.caps.ext |= 1 << 2
	ra.client.ext |= 1 << 2
	if _, why := newWire(ra, false); why != "the session negotiated MariaDB's extended capabilities 0x4, which candor's wire does not read" {
		t.Errorf("an extended capability: %q", why)
	}
	// A response before protocol 4.1 (2 bytes of flags) is known, without PROTOCOL_41.
	old := []byte{7, 0, 0, 1, 0x0f, 0x00, 0, 0, 0, 'u', 0}
	if c := handshakeResponse(old); !c.known || c.flags != 0x0f {
		t.Errorf("an old response: %+v", c)
	}
	// A packet of another sequence number is not a response.
	if c := handshakeResponse(append([]byte{}, 7, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7)); c.known {
		t.Errorf("sequence 0 read as a response: %+v", c)
	}
}

// sink is a net.Conn whose writes are kept.
type sink struct {
	net.Conn
	w [][]byte
}

func (s *sink) Write(p []byte) (int, error) { s.w = append(s.w, bytes.Clone(p)); return len(p), nil }

// TestReadAheadSeesTheResponse: the first write is read as the client's response and passed on;
// later writes are passed on unread.
func TestReadAheadSeesTheResponse(t *testing.T) {
	s := &sink{}
	ra := newReadAhead(s)
	resp := unhex(t, gmsResponse)
	ra.Write(resp)
	ra.Write(withFlags(t, resp, false, 0, capDeprecateEOF))
	if len(s.w) != 2 || !bytes.Equal(s.w[0], resp) {
		t.Fatalf("writes passed on: %d", len(s.w))
	}
	if !ra.client.known || ra.client.flags&capDeprecateEOF == 0 || ra.client.flags != binary.LittleEndian.Uint32(resp[4:]) {
		t.Errorf("client %+v", ra.client)
	}
}

// fakeServer speaks the handshake of a MySQL server that does not offer CLIENT_DEPRECATE_EOF
// (greeting, the client's response, OK), then reads until the client quits: a protocol fixture
// for what candor does with a session whose flags its wire does not take.
func fakeServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	g := withFlags(t, unhex(t, gmsGreeting), true, 0, capDeprecateEOF)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				if _, err := c.Write(g); err != nil {
					return
				}
				var h [4]byte
				if _, err := io.ReadFull(c, h[:]); err != nil {
					return
				}
				if _, err := io.CopyN(io.Discard, c, int64(payloadLen(h[:]))); err != nil {
					return
				}
				c.Write([]byte{7, 0, 0, 2, headerOK, 0, 0, 2, 0, 0, 0}) // OK, autocommit
				io.Copy(io.Discard, c)                                  // COM_QUIT, then the end
			}()
		}
	}()
	return l.Addr().String()
}

// TestWireRefusedWithTheReason: go-sql-driver logs in to a server that does not offer
// CLIENT_DEPRECATE_EOF; the session's statements go to go-sql-driver, and the client path says why.
func TestWireRefusedWithTheReason(t *testing.T) {
	addr := fakeServer(t)
	raw := "mysql://root@" + addr + "/db"
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	cfg, o, err := parseURL(u, raw)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxAllowedPacket = 1 << 20 // no query for the server's
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := &DB{engine: engineFor("mysql"), cfg: cfg, opts: o, sqlDB: sql.OpenDB(connector)}
	defer db.sqlDB.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dc, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	c := dc.(*Conn)
	why := "the session did not negotiate CLIENT_DEPRECATE_EOF (the server does not offer it)"
	if c.w != nil || c.offWire != why {
		t.Errorf("on the wire %v, reason %q; want %q", c.w != nil, c.offWire, why)
	}
	if p := db.ClientPath(); !strings.HasSuffix(p, "but 1 of 1 sessions on go-sql-driver's prepared statements, one per round trip ("+why+")") {
		t.Errorf("client path %q", p)
	}
}

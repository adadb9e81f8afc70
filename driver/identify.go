package driver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"
)

// Protocols a server may speak, as Identify names them.
const (
	ProtoMySQL      = "MySQL"
	ProtoPostgreSQL = "PostgreSQL"
	ProtoHTTP       = "HTTP"
	ProtoSSH        = "SSH"
)

// identifyWait bounds each read of Identify's exchange.
const identifyWait = time.Second

// Identify says which protocol the server at addr (network "tcp" or "unix") speaks, as far as a
// short exchange on a fresh connection shows, or "" when it cannot tell. A MySQL server (and
// MariaDB, TiDB, Dolt) speaks first: a greeting of protocol version 10; an SSH server too. A
// PostgreSQL server waits for the client, and answers an SSLRequest with one byte, 'S' or 'N'; an
// HTTP server answers a HEAD request with an "HTTP/" status line. It lasts at most about four
// seconds and sends nothing a server would act on: an SSLRequest is the first message of every
// TLS-capable PostgreSQL client, a HEAD request changes nothing, and a MySQL server is never written
// to.
//
// The drivers call it when a connection failed in a way that suggests the wrong server (a timeout
// waiting for the handshake, a protocol error), to name what answered.
func Identify(ctx context.Context, network, addr string) string {
	ctx, cancel := context.WithTimeout(ctx, 4*identifyWait)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return ""
	}
	defer c.Close()
	buf := make([]byte, 64)
	c.SetReadDeadline(time.Now().Add(identifyWait))
	if n, err := c.Read(buf); n > 0 {
		return serverFirst(buf[:n])
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		return "" // closed at once: nothing to tell
	}
	// Silent: the client speaks first. PostgreSQL's SSLRequest: length 8, code 80877103.
	c.SetWriteDeadline(time.Now().Add(identifyWait))
	if _, err := c.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}); err != nil {
		return ""
	}
	c.SetReadDeadline(time.Now().Add(identifyWait))
	n, _ := c.Read(buf)
	switch {
	case n == 1 && (buf[0] == 'S' || buf[0] == 'N'):
		return ProtoPostgreSQL
	case bytes.HasPrefix(buf[:n], []byte("HTTP/")):
		return ProtoHTTP
	}
	// An HTTP server waits for a whole request line: ask it, on a connection of its own.
	h, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return ""
	}
	defer h.Close()
	h.SetDeadline(time.Now().Add(identifyWait))
	if _, err := h.Write([]byte("HEAD / HTTP/1.0\r\n\r\n")); err != nil {
		return ""
	}
	if n, _ := io.ReadAtLeast(h, buf, 5); n >= 5 && bytes.HasPrefix(buf[:n], []byte("HTTP/")) {
		return ProtoHTTP
	}
	return ""
}

// serverFirst names the protocol of a server that spoke first with b.
func serverFirst(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("SSH-")):
		return ProtoSSH
	case len(b) >= 5 && b[3] == 0 && b[4] == 10: // packet header (sequence 0), protocol version 10
		return ProtoMySQL
	case len(b) >= 5 && b[3] == 0 && b[4] == 0xff: // an error packet in place of the greeting (host blocked, too many connections)
		return ProtoMySQL
	}
	return ""
}

// WrongServer is the sentence a driver adds when Identify named a protocol other than its own
// (want): what answered, and the URL scheme that speaks it; "" when it is want's or unknown.
func WrongServer(got, want string) string {
	if got == "" || got == want {
		return ""
	}
	switch got {
	case ProtoMySQL:
		return "the server there speaks MySQL's protocol: use mysql:// (or mariadb://, tidb://, dolt://)"
	case ProtoPostgreSQL:
		return "the server there speaks PostgreSQL's protocol: use postgres:// (or cockroach://, yugabyte://)"
	}
	return "the server there speaks " + got + ", not " + want + ": check the port"
}

// Innermost is the message of the deepest wrapped error that says something, the actual cause. An
// error made by wrapping nothing (fmt.Errorf("...: %w", nil), which some libraries do) prints as
// "%!w(<nil>)": the error around it is used then, without that mark.
func Innermost(err error) string {
	msg := err.Error()
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
		if m := err.Error(); m != "" && !strings.Contains(m, "%!") {
			msg = m
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(msg, ": %!w(<nil>)", ""), "%!w(<nil>)", "")
}

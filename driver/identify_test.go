package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// listen serves each connection on a loopback port with serve, until the test ends.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return l.Addr().String()
}

func TestIdentify(t *testing.T) {
	greeting := []byte{0x0a, 0, 0, 0, 10, '1', '1', '.', '4', 0} // header (length 10, sequence 0), protocol 10, version
	cases := []struct {
		name  string
		serve func(net.Conn)
		want  string
	}{
		{"mysql greeting", func(c net.Conn) { c.Write(greeting); time.Sleep(3 * time.Second) }, ProtoMySQL},
		{"ssh banner", func(c net.Conn) { c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n")); time.Sleep(3 * time.Second) }, ProtoSSH},
		{"postgres answers SSLRequest", func(c net.Conn) {
			b := make([]byte, 8)
			if n, _ := c.Read(b); n == 8 && b[4] == 0x04 && b[5] == 0xd2 {
				c.Write([]byte("N"))
			}
			time.Sleep(time.Second)
		}, ProtoPostgreSQL},
		{"silent", func(c net.Conn) { time.Sleep(5 * time.Second) }, ""},
		{"closes at once", func(c net.Conn) {}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := listen(t, tc.serve)
			start := time.Now()
			if got := Identify(context.Background(), "tcp", addr); got != tc.want {
				t.Errorf("Identify = %q, want %q", got, tc.want)
			}
			if el := time.Since(start); el > 4*identifyWait+time.Second {
				t.Errorf("Identify took %v", el)
			}
		})
	}
	t.Run("http", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer srv.Close()
		if got := Identify(context.Background(), "tcp", strings.TrimPrefix(srv.URL, "http://")); got != ProtoHTTP {
			t.Errorf("Identify at an HTTP server = %q, want %q", got, ProtoHTTP)
		}
	})
	t.Run("nothing listening", func(t *testing.T) {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close()
		if got := Identify(context.Background(), "tcp", addr); got != "" {
			t.Errorf("Identify with nothing listening = %q", got)
		}
	})
}

func TestWrongServer(t *testing.T) {
	if s := WrongServer(ProtoMySQL, ProtoMySQL); s != "" {
		t.Errorf("own protocol: %q", s)
	}
	if s := WrongServer("", ProtoMySQL); s != "" {
		t.Errorf("unknown: %q", s)
	}
	if s := WrongServer(ProtoPostgreSQL, ProtoMySQL); !strings.Contains(s, "use postgres://") {
		t.Errorf("PostgreSQL at a MySQL URL: %q", s)
	}
	if s := WrongServer(ProtoMySQL, ProtoPostgreSQL); !strings.Contains(s, "use mysql://") {
		t.Errorf("MySQL at a PostgreSQL URL: %q", s)
	}
	if s := WrongServer(ProtoHTTP, ProtoMySQL); !strings.Contains(s, "speaks HTTP") {
		t.Errorf("HTTP: %q", s)
	}
}

func TestInnermost(t *testing.T) {
	inner := fmt.Errorf("unexpected message: %w", nil) //nolint:govet // as a library may make it
	err := fmt.Errorf("connecting: %w", fmt.Errorf("startup: %w", inner))
	if got := Innermost(err); strings.Contains(got, "%!") || !strings.Contains(got, "unexpected message") {
		t.Errorf("Innermost = %q", got)
	}
	if got := Innermost(fmt.Errorf("a: %w", errors.New("the cause"))); got != "the cause" {
		t.Errorf("Innermost = %q", got)
	}
}

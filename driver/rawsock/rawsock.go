// Package rawsock is the engines' default socket: Go's own TCP (or Unix) connection, on the
// netpoller as ever, whose reads and writes are made as raw system calls (syscall.RawSyscall)
// through the connection's syscall.RawConn instead of net.Conn's Read and Write.
//
// Why: net.Conn's Read and Write enter the system call through the runtime's entersyscall, which
// wakes the runtime's monitor thread (sysmon) whenever it sleeps, and it sleeps whenever every P is
// idle: a benchmark driver's process does, each time all its sessions wait on the database. The
// monitor then polls every 20 µs before it sleeps again, so each idle-to-busy turn of the process
// cost two to three context switches on top of the socket's own: measured on MariaDB (8
// terminals, batches=on, TPC-C), half of the driver's voluntary context switches were the monitor's.
// A read or write of a non-blocking socket never blocks (EAGAIN instead), so it needs none of what
// entersyscall is for (handing the P on if the call blocks); waiting for the socket stays the
// netpoller's (RawConn parks the goroutine until the descriptor is ready); deadlines, Close from
// another goroutine and calls from several goroutines at once work as on any net.Conn. What
// differs: a read or write of nothing returns at once without checking the connection, and the
// raw calls are invisible to the race detector's and the execution tracer's accounting of system
// calls. A descriptor in blocking mode is left as it is (a raw read of it would hold its thread),
// and so is every connection on systems other than Linux.
package rawsock

import (
	"context"
	"net"
)

// DialFunc is pgconn's DialFunc and go-sql-driver's DialContextFunc.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Dial wraps dial (the engine's, with its timeout and keep-alive): the connection it returns gets
// raw reads and writes (Wrap).
func Dial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return Wrap(c), nil
	}
}

// Request writes p on c: a request whose answer the caller reads next. On a raw connection (Conn,
// Linux) it returns once the answer begins to arrive, which spares the read that would find the
// socket empty before the wait (Conn.Request); on any other, it is c.Write.
func Request(c net.Conn, p []byte) (int, error) {
	if rq, ok := c.(interface{ Request([]byte) (int, error) }); ok {
		return rq.Request(p)
	}
	return c.Write(p)
}

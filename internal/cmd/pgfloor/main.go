// Command pgfloor measures the least CPU a Go client spends per statement on PostgreSQL: pgbench's
// select-only statement (a prepared SELECT of one account by a random aid) sent as pre-encoded
// protocol bytes (Bind, Execute, Sync) on a hijacked connection and answered by reading raw bytes
// up to ReadyForQuery: no driver, no measurement, no workload. It is the floor candor's
// per-statement CPU is compared with in scripts/bench section 8, beside pgbench's (C, libpq).
//
//	pgfloor -db URL -clients 4 -seconds 15 -scale 10 -mode goroutines|blocking|epoll
//
// goroutines: one goroutine per connection on Go's netpoller (as candor and every Go driver);
// blocking: one goroutine per connection, blocking read(2)/write(2) on the socket (libpq's way, one
// thread per connection as sysbench); epoll: one goroutine locked to its thread serving every
// connection from one epoll set (pgbench -j 1's way). It prints one line: statements, statements per
// second, and CPU (getrusage of the process, user + system) per statement.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

const query = "SELECT abalance FROM pgbench_accounts WHERE aid = $1"

func main() {
	db := flag.String("db", "", "PostgreSQL URL (pgbench's tables loaded)")
	clients := flag.Int("clients", 4, "connections")
	seconds := flag.Float64("seconds", 10, "how long to run")
	scale := flag.Int("scale", 10, "pgbench's scale factor of the loaded tables (aids 1..100000 x scale)")
	mode := flag.String("mode", "goroutines", "goroutines, blocking or epoll")
	flag.Parse()
	if *db == "" || *clients < 1 || *seconds <= 0 || *scale < 1 {
		fmt.Fprintln(os.Stderr, "pgfloor: -db URL is required; -clients, -seconds and -scale must be positive")
		os.Exit(2)
	}
	if *mode != "goroutines" && *mode != "blocking" && *mode != "epoll" {
		fmt.Fprintf(os.Stderr, "pgfloor: unknown -mode %q: goroutines, blocking or epoll\n", *mode)
		os.Exit(2)
	}
	conns := make([]net.Conn, *clients)
	for i := range conns {
		c, err := connect(*db)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgfloor:", err)
			os.Exit(1)
		}
		conns[i] = c
	}
	accounts := int32(100000 * *scale)
	var done atomic.Bool
	var total atomic.Int64
	time.AfterFunc(time.Duration(*seconds*float64(time.Second)), func() { done.Store(true) })
	before := cpu()
	start := time.Now()
	var err error
	switch *mode {
	case "goroutines", "blocking":
		err = perConnection(conns, *mode == "blocking", accounts, &done, &total)
	case "epoll":
		err = eventLoop(conns, accounts, &done, &total)
	}
	elapsed := time.Since(start).Seconds()
	used := cpu() - before
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgfloor:", err)
		os.Exit(1)
	}
	n := total.Load()
	fmt.Printf("pgfloor %s: %d statements in %.1f s = %.0f/s, CPU %.2f s = %.2f µs per statement (GOMAXPROCS %d)\n",
		*mode, n, elapsed, float64(n)/elapsed, used, used*1e6/float64(n), runtime.GOMAXPROCS(0))
}

// connect opens a session, prepares the statement as "s" and hands over the socket.
func connect(url string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pc, err := pgconn.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := pc.Prepare(ctx, "s", query, nil); err != nil {
		return nil, fmt.Errorf("preparing %q (are pgbench's tables loaded?): %w", query, err)
	}
	h, err := pc.Hijack()
	if err != nil {
		return nil, err
	}
	return h.Conn, nil
}

// message is one Bind (portal "", statement "s", one binary int4 parameter, binary results),
// Execute and Sync; aid is at aidAt.
var message = func() []byte {
	b := []byte{'B', 0, 0, 0, 0, 0, 's', 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 1, 0, 1}
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
	return append(b, 'S', 0, 0, 0, 4)
}()

const aidAt = 18

// replyEnd reports whether buf holds whole messages ending with ReadyForQuery, and an error for an
// ErrorResponse.
func replyEnd(buf []byte) (bool, error) {
	for len(buf) >= 5 {
		n := int(binary.BigEndian.Uint32(buf[1:])) + 1
		if len(buf) < n {
			return false, nil
		}
		switch buf[0] {
		case 'E':
			return false, errors.New("the server answered with an error")
		case 'Z':
			return len(buf) == n, nil
		}
		buf = buf[n:]
	}
	return false, nil
}

// perConnection runs one goroutine per connection, each sending a statement and reading its reply
// in turn, through the netpoller or with blocking system calls on the socket.
func perConnection(conns []net.Conn, blocking bool, accounts int32, done *atomic.Bool, total *atomic.Int64) error {
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rd, wr := c.Read, c.Write
			if blocking {
				f, err := c.(*net.TCPConn).File() // a duplicate descriptor in blocking mode
				if err != nil {
					errs[i] = err
					return
				}
				fd := int(f.Fd())
				rd = func(b []byte) (int, error) { return syscall.Read(fd, b) }
				wr = func(b []byte) (int, error) { return syscall.Write(fd, b) }
				defer f.Close()
			}
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			msg := append([]byte(nil), message...)
			buf := make([]byte, 8192)
			n := int64(0)
			for !done.Load() {
				binary.BigEndian.PutUint32(msg[aidAt:], uint32(1+rng.Int32N(accounts)))
				if _, err := wr(msg); err != nil {
					errs[i] = err
					return
				}
				got := 0
				for {
					k, err := rd(buf[got:])
					if err != nil {
						errs[i] = err
						return
					}
					got += k
					end, err := replyEnd(buf[:got])
					if err != nil {
						errs[i] = err
						return
					}
					if end {
						break
					}
				}
				n++
			}
			total.Add(n)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// eventLoop serves every connection from one thread: send on each, then wait in epoll_wait for
// replies and send the next statement on each connection whose reply is whole.
func eventLoop(conns []net.Conn, accounts int32, done *atomic.Bool, total *atomic.Int64) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ep, err := syscall.EpollCreate1(0)
	if err != nil {
		return err
	}
	defer syscall.Close(ep)
	type conn struct {
		fd  int
		buf []byte
		got int
		msg []byte
	}
	cs := make([]*conn, len(conns))
	rng := rand.New(rand.NewPCG(7, 1))
	for i, c := range conns {
		f, err := c.(*net.TCPConn).File()
		if err != nil {
			return err
		}
		defer f.Close()
		fd := int(f.Fd())
		if err := syscall.SetNonblock(fd, true); err != nil {
			return err
		}
		cs[i] = &conn{fd: fd, buf: make([]byte, 8192), msg: append([]byte(nil), message...)}
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(i)}
		if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return err
		}
	}
	send := func(c *conn) error {
		binary.BigEndian.PutUint32(c.msg[aidAt:], uint32(1+rng.Int32N(accounts)))
		_, err := syscall.Write(c.fd, c.msg)
		return err
	}
	for _, c := range cs {
		if err := send(c); err != nil {
			return err
		}
	}
	events := make([]syscall.EpollEvent, len(cs))
	n := int64(0)
	for !done.Load() {
		k, err := syscall.EpollWait(ep, events, 100)
		if err != nil {
			if err == syscall.EINTR {
				continue
			}
			return err
		}
		for _, ev := range events[:k] {
			c := cs[ev.Fd]
			r, err := syscall.Read(c.fd, c.buf[c.got:])
			if err == syscall.EAGAIN {
				continue
			}
			if err != nil {
				return err
			}
			c.got += r
			end, err := replyEnd(c.buf[:c.got])
			if err != nil {
				return err
			}
			if end {
				c.got = 0
				n++
				if err := send(c); err != nil {
					return err
				}
			}
		}
	}
	total.Add(n)
	return nil
}

// cpu is the process's CPU time so far (user + system), in seconds.
func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

package sysmon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/common"

	"github.com/candor-bench/candor/driver"
)

// serverFaults follows the page faults of a database server's processes when the server runs on
// this host: db.pgfaults_per_s and db.pgmajfaults_per_s (minor and major faults, a major one read
// from disk), over the server's main process and its children (PostgreSQL's backends and
// auxiliary processes; MySQL is one process). The process is found once, on the statistics
// connection, by find: PostgreSQL's backend PID and its parent, MySQL's pid_file; it counts only
// when its start time in /proc matches the server's own (a server in another PID namespace or on
// another host has none of this host's processes). Where it is not found the series are absent and
// the reason is reported once.
type serverFaults struct {
	find  func(ctx context.Context, c driver.Conn, proc string) (int, error)
	tried bool
	pid   int
	// prevMin and prevMaj are the last reading's totals (cumulative, the children reaped included)
	prevMin, prevMaj float64
	prevAt           time.Time
	havePrev         bool
	noChildrenFile   bool
}

// sample adds the faults since the previous reading to v; its error (the process not found) comes
// once.
func (f *serverFaults) sample(ctx context.Context, c driver.Conn, now time.Time, v map[string]float64) error {
	proc := envPath(ctx, common.HostProcEnvKey, "/proc")
	if !f.tried {
		f.tried = true
		pid, err := f.find(ctx, c, proc)
		if err != nil {
			return fmt.Errorf("the page faults of the server's processes are not sampled: %w", err)
		}
		f.pid = pid
	}
	if f.pid == 0 {
		return nil
	}
	minflt, majflt, err := f.read(proc)
	if err != nil { // the server restarted or stopped: no rate this time, and none from this reading
		f.havePrev = false
		return nil
	}
	if f.havePrev && minflt >= f.prevMin && majflt >= f.prevMaj {
		if dt := now.Sub(f.prevAt).Seconds(); dt > 0 {
			v["db.pgfaults_per_s"] = (minflt - f.prevMin) / dt
			v["db.pgmajfaults_per_s"] = (majflt - f.prevMaj) / dt
		}
	}
	f.prevMin, f.prevMaj, f.prevAt, f.havePrev = minflt, majflt, now, true
	return nil
}

// read sums the faults of the server's process and of its children, each with the faults of the
// children it has reaped (cminflt, cmajflt), so a backend that ended still counts.
func (f *serverFaults) read(proc string) (minflt, majflt float64, err error) {
	st, err := readPidStat(proc, f.pid)
	if err != nil {
		return 0, 0, err
	}
	minflt, majflt = st.minflt, st.majflt
	for _, child := range f.children(proc) {
		if cs, err := readPidStat(proc, child); err == nil && cs.ppid == f.pid {
			minflt += cs.minflt
			majflt += cs.majflt
		}
	}
	return minflt, majflt, nil
}

// children lists the server's child processes: /proc/PID/task/PID/children where the kernel has it,
// else every process whose parent it is.
func (f *serverFaults) children(proc string) []int {
	if !f.noChildrenFile {
		b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(f.pid), "task", strconv.Itoa(f.pid), "children"))
		if err == nil {
			var out []int
			for _, s := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(s); err == nil {
					out = append(out, n)
				}
			}
			return out
		}
		f.noChildrenFile = true
	}
	ents, err := os.ReadDir(proc)
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == f.pid {
			continue
		}
		if st, err := readPidStat(proc, n); err == nil && st.ppid == f.pid {
			out = append(out, n)
		}
	}
	return out
}

// pidStat is what is used of /proc/PID/stat: the command, the parent, the faults (the process's
// own plus those of its reaped children) and the start time in clock ticks since boot.
type pidStat struct {
	comm           string
	ppid           int
	minflt, majflt float64
	startTicks     float64
}

func readPidStat(proc string, pid int) (pidStat, error) {
	path := filepath.Join(proc, strconv.Itoa(pid), "stat")
	b, err := os.ReadFile(path)
	if err != nil {
		return pidStat{}, err
	}
	// "PID (comm) S PPID ...": the command may hold spaces and parentheses; it ends at the last ')'.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return pidStat{}, fmt.Errorf("%s is not a process's stat line", path)
	}
	f := strings.Fields(string(b[end+1:]))
	// after the command: state(3) ppid(4) ... minflt(10) cminflt(11) majflt(12) cmajflt(13) ... starttime(22)
	if len(f) < 20 {
		return pidStat{}, fmt.Errorf("%s has %d fields after the command, want 20 or more", path, len(f))
	}
	var n [20]float64
	for _, i := range []int{1, 7, 8, 9, 10, 19} {
		if n[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return pidStat{}, fmt.Errorf("%s: field %d is %q", path, i+3, f[i])
		}
	}
	return pidStat{comm: string(b[open+1 : end]), ppid: int(n[1]), minflt: n[7] + n[8], majflt: n[9] + n[10], startTicks: n[19]}, nil
}

// clockTicks is USER_HZ, the unit of /proc's process times: 100 on every Linux architecture Go
// runs on.
const clockTicks = 100

// startedAt is when process pid started, from its start time in ticks since boot and the boot time
// (btime of /proc/stat).
func startedAt(proc string, st pidStat) (time.Time, error) {
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return time.Time{}, err
	}
	for line := range bytes.Lines(b) {
		f := strings.Fields(string(line))
		if len(f) == 2 && f[0] == "btime" {
			boot, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				break
			}
			sec := boot + st.startTicks/clockTicks
			return time.Unix(0, int64(sec*1e9)), nil
		}
	}
	return time.Time{}, errors.New(filepath.Join(proc, "stat") + " has no btime")
}

// sameStart checks that process pid of this host started when the server says it did (within 2 s:
// the boot time is in whole seconds and the server's own clock reading takes a moment).
func sameStart(proc string, pid int, serverStart time.Time, names ...string) error {
	st, err := readPidStat(proc, pid)
	if err != nil {
		return fmt.Errorf("process %d of the server is not on this host (%v)", pid, err)
	}
	known := false
	for _, n := range names {
		known = known || st.comm == n
	}
	if !known {
		return fmt.Errorf("process %d of this host is %q, not the server (%s): the server runs elsewhere or in another PID namespace", pid, st.comm, strings.Join(names, " or "))
	}
	at, err := startedAt(proc, st)
	if err != nil {
		return err
	}
	if d := at.Sub(serverStart); math.Abs(d.Seconds()) > 2 {
		return fmt.Errorf("process %d of this host started at %s, the server at %s: it is another server's", pid, at.UTC().Format(time.RFC3339), serverStart.UTC().Format(time.RFC3339))
	}
	return nil
}

// findPostgres finds the postmaster: the parent of the statistics connection's backend.
func findPostgres(ctx context.Context, c driver.Conn, proc string) (int, error) {
	var backend, start float64
	if err := c.QueryRow(ctx, "SELECT pg_backend_pid()::float8, extract(epoch FROM pg_postmaster_start_time())::float8").Scan(&backend, &start); err != nil {
		return 0, fmt.Errorf("reading pg_backend_pid(): %w", err)
	}
	st, err := readPidStat(proc, int(backend))
	if err != nil {
		return 0, fmt.Errorf("the server's backend %d is not a process of this host: the server runs elsewhere or in another PID namespace", int(backend))
	}
	return st.ppid, sameStart(proc, st.ppid, time.Unix(0, int64(start*1e9)), "postgres", "postmaster")
}

// findMySQL finds mysqld (or mariadbd) from its pid_file, or, where that file cannot be read,
// from the thread of the statistics connection (performance_schema.threads' THREAD_OS_ID, whose
// /proc/TID/status names the process).
func findMySQL(ctx context.Context, c driver.Conn, proc string) (int, error) {
	var pidFile string
	var uptime float64
	if err := c.QueryRow(ctx, "SELECT @@pid_file").Scan(&pidFile); err != nil {
		return 0, fmt.Errorf("reading pid_file: %w", err)
	}
	var name, val string
	if err := c.QueryRow(ctx, "SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &val); err != nil {
		return 0, fmt.Errorf("reading the server's Uptime: %w", err)
	}
	uptime, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return 0, fmt.Errorf("the server's Uptime is %q", val)
	}
	start := time.Now().Add(-time.Duration(uptime * float64(time.Second)))
	pid := 0
	b, ferr := os.ReadFile(pidFile)
	if ferr == nil {
		pid, ferr = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if ferr != nil {
		var tid float64
		if err := c.QueryRow(ctx, "SELECT THREAD_OS_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()").Scan(&tid); err != nil || tid <= 0 {
			return 0, fmt.Errorf("cannot read pid_file %s (%v) nor the connection's thread in performance_schema.threads", pidFile, ferr)
		}
		if pid, err = tgid(proc, int(tid)); err != nil {
			return 0, fmt.Errorf("the server's thread %d is not on this host: the server runs elsewhere or in another PID namespace", int(tid))
		}
	}
	return pid, sameStart(proc, pid, start, "mysqld", "mariadbd")
}

// tgid is the process a thread belongs to (/proc/TID/status's Tgid).
func tgid(proc string, tid int) (int, error) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(tid), "status"))
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(b) {
		if v, ok := strings.CutPrefix(string(line), "Tgid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no Tgid in /proc/%d/status", tid)
}

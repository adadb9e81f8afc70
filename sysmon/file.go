package sysmon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// File is the name of the samples file in a run's --out directory.
const File = "resources.jsonl"

// Sample is one line of resources.jsonl:
//
//	{"t":12.001,"v":{"host.cpu.busy_pct":63.2,"host.runq":3,"db.commits_per_s":812.5,...}}
//
// T is the time of reading in seconds since the run's start (result.json's started_at, the same
// origin as the interval log's StartTime and the latency intervals), rounded to the millisecond.
// Samples are taken every second (result.json's resources.every_seconds). Rates (…_per_s) and
// utilisations (…_pct, await, queue) cover the time since the previous line; the other values
// (gauges: memory, run queue, sessions waiting) are read at T. A series absent from a line was not
// available then (the database did not answer, a device appeared); values are always finite.
//
// Series names are dotted: source.object.metric, with the unit in the suffix (see Unit):
//
//	host.cpu.{busy,user,system,iowait,steal,irq}_pct  all cores together, 100 = every core busy
//	                                               (irq: interrupts and softirqs, inside system)
//	host.cpuN.{busy,irq}_pct                       one core, 100 = that core busy
//	host.cpuN.{irqs,softirqs}_per_s                interrupts (/proc/interrupts) and softirqs one
//	                                               core handled; at most 64 cores (the busiest)
//	host.cpuN.device_irqs_per_s                    the numbered (device) lines only
//	host.{irqs,device_irqs,softirqs,context_switches}_per_s  all cores together
//	host.softirq.{net_rx,net_tx,block,timer,sched}_per_s  softirqs of a kind, all cores together
//	host.runq, host.procs_blocked                  runnable / uninterruptible tasks (/proc/stat)
//	host.mem.{used,available,anon_huge}_bytes, host.hugepages.{free,rsvd}_bytes,
//	host.swap.used_bytes, host.swap.{in,out}_bytes_per_s, host.{pgfaults,pgmajfaults}_per_s
//	disk.DEV.{util_pct,await_ms,queue,iops,read_bytes_per_s,write_bytes_per_s}, as iostat -x:
//	disk.DEV.{reads,writes,read_merges,write_merges}_per_s, disk.DEV.{read,write}_size_bytes
//	(mean request size), disk.DEV.{read,write}_await_ms (the size and await only in an interval
//	with requests of that direction), disk.DEV.flushes_per_s and flush_await_ms (kernels 5.5+)
//	net.IF.{rx,tx}_bytes_per_s, host.net.{rx,tx}_bytes_per_s (all interfaces, lo included),
//	host.net.{errors,drops}_per_s (all interfaces, both directions),
//	host.tcp.{retrans,out_segs}_per_s (/proc/net/snmp)
//	driver.cpu_pct (100 = one core), driver.sched_latency_p99_ms, driver.gc_pause_{max,total}_ms,
//	driver.gc_pauses, driver.heap_bytes, driver.goroutines
//	db.{commits,rollbacks}_per_s, db.deadlocks (PostgreSQL; MySQL's Com_commit, Com_rollback and,
//	where the server has it, Innodb_deadlocks), db.{blks_hit,blks_read,wal_bytes,buffers_checkpoint}_per_s,
//	db.checkpoints_{timed,req}, db.sessions_active, db.wait.TYPE (PostgreSQL wait_event_type,
//	"running" for none), db.file_bytes and db.wal_bytes (SQLite),
//	db.{row_lock_waits,row_lock_time_ms,buffer_pool_read_requests,buffer_pool_reads,data_fsyncs,
//	redo_log_bytes,tmp_disk_tables}_per_s, db.buffer_pool_hit_pct, db.threads_{running,connected},
//	db.buffer_pool_dirty_pages (MySQL family: SHOW GLOBAL STATUS, see db_mysql.go),
//	db.{pgfaults,pgmajfaults}_per_s (the server's processes on this host: procfaults.go)
type Sample struct {
	T float64            `json:"t"`
	V map[string]float64 `json:"v"`
}

// Unit names the unit of a series from its suffix: "%", "bytes", "bytes/s", "/s" (also for
// disk.DEV.iops), "ms" or "" (a count: run queue, sessions, disk queue, deadlocks in the interval).
func Unit(series string) string {
	switch {
	case strings.HasSuffix(series, "_pct"):
		return "%"
	case strings.HasSuffix(series, "_bytes_per_s"):
		return "bytes/s"
	case strings.HasSuffix(series, "_per_s"), strings.HasSuffix(series, ".iops"):
		return "/s"
	case strings.HasSuffix(series, "_bytes"):
		return "bytes"
	case strings.HasSuffix(series, "_ms"):
		return "ms"
	}
	return ""
}

// ReadSamples reads a resources.jsonl file. A last line cut short (a run killed while writing) is
// ignored; any other malformed line is an error.
func ReadSamples(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSamples(f, path)
}

func readSamples(r io.Reader, name string) ([]Sample, error) {
	var out []Sample
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var s Sample
			if jerr := json.Unmarshal(line, &s); jerr != nil {
				if errors.Is(err, io.EOF) { // an unterminated last line: cut short by a crash
					return out, nil
				}
				return out, fmt.Errorf("%s:%d: not a resources sample: %v", name, n, jerr)
			}
			if s.V == nil {
				s.V = map[string]float64{}
			}
			out = append(out, s)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// SeriesNames lists every series that appears in samples, sorted.
func SeriesNames(samples []Sample) []string {
	seen := map[string]bool{}
	for _, s := range samples {
		for k := range s.V {
			seen[k] = true
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// writer appends one line per sample and writes it through at once, so an interrupted run keeps
// every sample taken.
type writer struct {
	f   io.WriteCloser
	buf []byte
}

func createWriter(path string) (*writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &writer{f: f}, nil
}

func (w *writer) write(s Sample) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	w.buf = append(append(w.buf[:0], b...), '\n')
	_, err = w.f.Write(w.buf)
	return err
}

func (w *writer) close() error { return w.f.Close() }

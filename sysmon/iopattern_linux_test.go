package sysmon

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// iostatReading is the test's own reading of one device's /proc/diskstats line: completed reads
// and writes and the sectors moved (the 1st, 3rd, 5th and 7th fields after the name), as iostat
// reads them. now and read are the sampler's sample time and the end of its own reading, when the
// test read right after the sampler.
type iostatReading struct {
	at, now, read               time.Time
	reads, rsect, writes, wsect float64
}

func readIostat(t *testing.T, dev string) iostatReading {
	b, err := os.ReadFile("/proc/diskstats")
	at := time.Now()
	if err != nil {
		t.Error(err)
		return iostatReading{}
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 10 && f[2] == dev {
			r := iostatReading{at: at}
			for i, p := range []*float64{&r.reads, nil, &r.rsect, nil, &r.writes, nil, &r.wsect} {
				if p != nil {
					fmt.Sscan(f[3+i], p)
				}
			}
			return r
		}
	}
	t.Errorf("no %s in /proc/diskstats", dev)
	return iostatReading{}
}

// diskOf finds the whole disk holding dir as the sampler names it: its device number's entry in
// /sys/dev/block, the parent disk for a partition. It fails (never skips) when dir is not on a
// block device of /proc/diskstats.
func diskOf(t *testing.T, dir string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	major, minor := (st.Dev>>8)&0xfff|(st.Dev>>32)&^0xfff, st.Dev&0xff|(st.Dev>>12)&^0xff
	link := fmt.Sprintf("/sys/dev/block/%d:%d", major, minor)
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		real = filepath.Dir(real)
	}
	return filepath.Base(real)
}

// TestSampledIOMatchesDiskstats drives a known I/O pattern on the disk holding a test directory
// while the sampler runs every 100 ms: 160 O_DIRECT writes of 64 KiB, one at a time, then 160
// O_DIRECT reads of them (no page cache, no readahead: each is one request of 64 KiB). It checks
// the device's series two ways:
//
//  1. each interval against the test's own reading of /proc/diskstats taken right after the
//     sampler's (iostat's arithmetic: requests over the interval, sectors × 512 over requests);
//  2. the samples covering each phase against the pattern.
//
// The machine's other I/O lands in the same counters. In (1) it is the same in both readings but
// for what completed between them: the test allows 2 requests plus the interval's own rate over
// the time between the two readings. In (2), on this project's shared 2-CPU machine, other
// processes write hundreds of requests a second (builds, test databases) but read almost nothing
// (1 to 3 a second, from the page cache's misses): the writes are checked as bounds from below
// (at least the pattern's requests and bytes), the reads closely (the pattern's count within 10%
// and its mean size within 10% of 64 KiB).
func TestSampledIOMatchesDiskstats(t *testing.T) {
	dir := t.TempDir()
	dev := diskOf(t, dir)
	if dev == "" { // tmpfs or overlay: the module's own directory is on a disk
		wd, _ := os.Getwd()
		if dir, dev = wd, diskOf(t, wd); dev == "" {
			t.Fatalf("neither the test's temporary directory nor %s is on a block device", wd)
		}
		t.Logf("the temporary directory is on no block device; writing in %s", dir)
	}
	const block, n = 64 << 10, 160

	var mu sync.Mutex
	var taps []iostatReading
	every := 100 * time.Millisecond
	s := New(context.Background(), Config{Every: every, Path: filepath.Join(t.TempDir(), File)})
	h := s.sources[0].(*hostSource)
	if !h.keepDisk(dev) {
		t.Fatalf("the disk holding %s is %s, which the sampler does not sample (it samples %v)", dir, dev, h.disks)
	}
	h.tap = func(now, read time.Time) {
		r := readIostat(t, dev)
		r.now, r.read = now, read
		mu.Lock()
		taps = append(taps, r)
		mu.Unlock()
	}
	start := time.Now()
	s.Begin(start)
	time.Sleep(300 * time.Millisecond)

	f, err := os.OpenFile(filepath.Join(dir, "iopattern"), os.O_CREATE|os.O_RDWR|os.O_TRUNC|syscall.O_DIRECT, 0o600)
	if err != nil {
		s.Stop()
		t.Fatalf("opening with O_DIRECT: %v", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	raw := make([]byte, block+4096) // O_DIRECT wants a buffer aligned to the logical block
	off := int((4096 - uintptr(unsafe.Pointer(&raw[0]))%4096) % 4096)
	buf := raw[off : off+block]
	for i := range buf {
		buf[i] = byte(i)
	}
	w0 := readIostat(t, dev)
	for range n {
		if _, err := f.Write(buf); err != nil {
			s.Stop()
			t.Fatalf("writing with O_DIRECT: %v", err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	w1 := readIostat(t, dev)
	time.Sleep(300 * time.Millisecond)
	r0 := readIostat(t, dev)
	for i := range n {
		if _, err := f.ReadAt(buf, int64(i)*block); err != nil {
			s.Stop()
			t.Fatalf("reading with O_DIRECT: %v", err)
		}
	}
	r1 := readIostat(t, dev)
	time.Sleep(300 * time.Millisecond)
	s.Stop()

	samples, err := ReadSamples(s.cfg.Path)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// taps[i] follows sample i (the baseline reading in New had no tap yet).
	if len(taps) != len(samples) || len(samples) < 8 {
		t.Fatalf("%d samples, %d readings by the test", len(samples), len(taps))
	}
	pre := "disk." + dev + "."

	// 1. Each interval: the sampler's figures against the test's own arithmetic.
	compared, same, off := 0, 0, 0
	for i := 1; i < len(samples); i++ {
		smp, p, c := samples[i], taps[i-1], taps[i]
		dt := c.now.Sub(p.now).Seconds() // the sampler's rates are over its sample times
		gap := c.at.Sub(c.read).Seconds() + p.at.Sub(p.read).Seconds()
		for _, d := range []struct {
			dir              string
			n, sectors, rate float64
		}{{"read", c.reads - p.reads, c.rsect - p.rsect, 0}, {"write", c.writes - p.writes, c.wsect - p.wsect, 0}} {
			got, ok := smp.V[pre+d.dir+"s_per_s"]
			if !ok {
				t.Errorf("sample %d (t=%v) has no %s%ss_per_s", i, smp.T, pre, d.dir)
				continue
			}
			// Requests complete in bursts (a journal's flush completes many at once), so one
			// interval may see a burst between the two readings that the interval's rate times
			// the gap does not cover: a few such intervals are the machine's, many the sampler's.
			if slack := 2 + d.n/dt*gap; math.Abs(got*dt-d.n) > slack {
				off++
				t.Logf("sample %d (t=%v): %ss_per_s × %.4f s = %.1f %s requests, the test's diskstats %v (within %.1f)", i, smp.T, d.dir, dt, got*dt, d.dir, d.n, slack)
			}
			compared++
			// The same requests (none completed between the two readings): the same mean size,
			// to the 6 significant digits a sample keeps.
			if math.Round(got*dt) != d.n {
				continue
			}
			same++
			if d.n > 0 {
				size := d.sectors * 512 / d.n
				if got, ok := smp.V[pre+d.dir+"_size_bytes"]; !ok || math.Abs(got-size) > 1e-4*size {
					t.Errorf("sample %d (t=%v): %s_size_bytes = %.0f, the test's diskstats %.0f", i, smp.T, d.dir, got, size)
				}
			}
		}
	}
	if off > compared/4 {
		t.Errorf("%d of %d intervals and directions counted other requests than the test's diskstats, beyond the slack of their readings' gap (see above)", off, compared)
	}
	// The readings are tens of microseconds apart: most intervals count the very same requests.
	if same < compared/2 {
		t.Errorf("only %d of %d intervals and directions counted the same requests as the test's diskstats", same, compared)
	}

	// 2. The pattern, over the samples whose intervals overlap each phase.
	over := func(a, b iostatReading, dir string) (reqs, bytes float64) {
		for i := 1; i < len(samples); i++ {
			if !taps[i].now.After(a.at) || !taps[i-1].now.Before(b.at) {
				continue
			}
			dt := taps[i].now.Sub(taps[i-1].now).Seconds() // t in the file is rounded to the ms
			reqs += samples[i].V[pre+dir+"s_per_s"] * dt
			bytes += samples[i].V[pre+dir+"_bytes_per_s"] * dt
		}
		return reqs, bytes
	}
	ws, wb := over(w0, w1, "write")
	rs, rb := over(r0, r1, "read")
	t.Logf("%d of %d intervals and directions counted the same requests as the test", same, compared)
	t.Logf("%s: %d writes of %d KiB in %.3f s: diskstats %.0f writes of %.1f KiB, the samples %.0f of %.1f KiB; %d reads in %.3f s: diskstats %.0f of %.1f KiB, the samples %.0f of %.1f KiB",
		dev, n, block>>10, w1.at.Sub(w0.at).Seconds(), w1.writes-w0.writes, (w1.wsect-w0.wsect)/2/(w1.writes-w0.writes), ws, wb/ws/1024,
		n, r1.at.Sub(r0.at).Seconds(), r1.reads-r0.reads, (r1.rsect-r0.rsect)/2/(r1.reads-r0.reads), rs, rb/rs/1024)
	ws, wb, rs, rb = math.Round(ws), math.Round(wb), math.Round(rs), math.Round(rb)
	if ws < n || wb < n*block*(1-1e-4) {
		t.Errorf("the samples over the writes count %.0f writes and %.0f bytes, want at least %d and %d", ws, wb, n, n*block)
	}
	// Reads too only as lower bounds: the sample intervals overlapping the reads are longer than
	// they are, and another process's reads in them (a compiler reading its cache) lowered the
	// mean read to 58 KiB once; the sampler's own arithmetic is judged interval by interval above.
	if rs < n || rb < n*block*(1-1e-4) { // a sample keeps 6 significant digits
		t.Errorf("the samples over the reads count %.0f reads and %.0f bytes, want at least %d and %d", rs, rb, n, n*block)
	}
}

package sysmon

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzKernelFiles feeds arbitrary text to the readers of /proc/diskstats, /proc/interrupts and
// /proc/softirqs, /proc/stat, /proc/net/snmp and /proc/PID/stat: each must return values or an
// error, never panic. The seeds are this host's own files (when readable) and short edge cases.
//
//	go test -run '^$' -fuzz FuzzKernelFiles -fuzztime 30s ./sysmon
func FuzzKernelFiles(f *testing.F) {
	for _, p := range []string{"/proc/diskstats", "/proc/interrupts", "/proc/softirqs", "/proc/stat", "/proc/net/snmp", "/proc/self/stat"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"", "\n", "CPU0 CPU1\n", "cpu0: 1\n", " 253 0 vda 1 2 3\n", "Tcp: RetransSegs\nTcp: x\n",
		"1 (a) R 0 0 0 0 0 0 1 2 3 4\n", "1 (a) b) c) R" + " 0" + "\n", "ctxt 18446744073709551615\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "f")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = readDiskstats(file, nil)
		_, _ = readPerCPU(file)
		_, _ = readProcStat(file)
		_, _, _ = readTCPRetrans(file)
		if err := os.MkdirAll(filepath.Join(dir, "1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "1", "stat"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = readPidStat(dir, 1)
	})
}

package sysmon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSamples(t *testing.T) {
	dir := t.TempDir()
	good := `{"t":1.001,"v":{"host.cpu.busy_pct":50,"db.commits_per_s":10}}
{"t":2.002,"v":{"host.cpu.busy_pct":60}}
`
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := ReadSamples(write("a.jsonl", good))
	if err != nil || len(s) != 2 || s[1].T != 2.002 || s[0].V["db.commits_per_s"] != 10 {
		t.Fatalf("ReadSamples = %+v, %v", s, err)
	}
	if got := strings.Join(SeriesNames(s), ","); got != "db.commits_per_s,host.cpu.busy_pct" {
		t.Errorf("SeriesNames = %s", got)
	}
	// A run killed while writing leaves a cut last line: it is ignored.
	s, err = ReadSamples(write("b.jsonl", good+`{"t":3.0,"v":{"host.cp`))
	if err != nil || len(s) != 2 {
		t.Errorf("with a cut last line: %d samples, %v; want 2, nil", len(s), err)
	}
	// A malformed line in the middle is an error naming the line.
	_, err = ReadSamples(write("c.jsonl", "{\"t\":1,\"v\":{}}\nnot json\n{\"t\":2,\"v\":{}}\n"))
	if err == nil || !strings.Contains(err.Error(), "c.jsonl:2") {
		t.Errorf("malformed line: err = %v, want one naming c.jsonl:2", err)
	}
	if _, err := ReadSamples(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("a missing file gave no error")
	}
}

func TestUnit(t *testing.T) {
	for name, want := range map[string]string{
		"host.cpu.busy_pct": "%", "net.lo.rx_bytes_per_s": "bytes/s", "db.commits_per_s": "/s",
		"host.mem.used_bytes": "bytes", "disk.vda.await_ms": "ms", "host.runq": "", "disk.vda.iops": "/s",
	} {
		if got := Unit(name); got != want {
			t.Errorf("Unit(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestParseMemSetting(t *testing.T) {
	for in, want := range map[string]int64{"128MB": 128 << 20, "4GB": 4 << 30, "8kB": 8192, "1TB": 1 << 40, "512B": 512, "16384": 16384} {
		if got, ok := ParseMemSetting(in); !ok || got != want {
			t.Errorf("ParseMemSetting(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "GB", "12XB", "-1MB"} {
		if _, ok := ParseMemSetting(bad); ok {
			t.Errorf("ParseMemSetting(%q) accepted", bad)
		}
	}
}

func TestIsLocalAddr(t *testing.T) {
	for addr, want := range map[string]bool{"": true, "127.0.0.1": true, "::1": true, "192.0.2.1": false, "not-an-ip": false} {
		if got := isLocalAddr(addr); got != want {
			t.Errorf("isLocalAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

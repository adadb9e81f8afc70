package run

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysinfo"
)

// fixtureSystem reads the system of a fixture tree of package sysinfo (testdata/NAME standing in
// for /sys and /proc), the database's files at the paths of devs (path: MAJ:MIN).
func fixtureSystem(t *testing.T, name string, places []sysinfo.Place, devs map[string]string, local bool) *sysinfo.System {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "sysinfo", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	root := sysinfo.Root{Dir: dir, Stat: func(path string) (string, string, error) {
		if d, ok := devs[path]; ok {
			return d, path, nil
		}
		return "", "", fmt.Errorf("stat %s: no such file or directory", path)
	}}
	s := sysinfo.Read(root, places, local)
	return &s
}

func pgOn(s *sysinfo.System, kind string, local bool) *report.Result {
	return &report.Result{Database: report.Database{Kind: kind, OnDriverHost: local}, System: s}
}

func messages(ws []report.Warning) map[string]string {
	m := map[string]string{}
	for _, w := range ws {
		m[w.Code] = w.Message
	}
	return m
}

// TestSystemWarningsMetal: the metal fixture's NVMe disk holds the WAL under bfq, its THP is always
// on and its governor powersave under acpi-cpufreq: each warning comes with its evidence. The
// device-mapper volume of the data (scheduler none) gives none.
func TestSystemWarningsMetal(t *testing.T) {
	places := []sysinfo.Place{{Role: "data", Path: "/srv/pg/data"}, {Role: "wal", Path: "/wal"}}
	devs := map[string]string{"/srv/pg/data": "253:0", "/wal": "259:2"}
	s := fixtureSystem(t, "metal", places, devs, true)
	got := messages(systemWarnings(pgOn(s, "postgres", true)))
	for code, evidence := range map[string][]string{
		"ROTATIONAL_SCHEDULER": {"nvme0n1 holds the database's wal /wal, data /srv/pg/data (through dm-0)", "not rotational", "scheduler is bfq", "none or mq-deadline"},
		"THP_ALWAYS":           {"[always]", "defrag madvise", "PostgreSQL", "madvise or never"},
		"CPU_POWERSAVE":        {"powersave (scaling_driver acpi-cpufreq)", "lowest frequency", "which is the database's"},
	} {
		msg, ok := got[code]
		if !ok {
			t.Errorf("no %s: %v", code, got)
			continue
		}
		for _, e := range evidence {
			if !strings.Contains(msg, e) {
				t.Errorf("%s does not say %q: %s", code, e, msg)
			}
		}
	}
	if len(got) != 3 || strings.HasPrefix(got["ROTATIONAL_SCHEDULER"], "dm-0") {
		t.Errorf("warnings %v", got)
	}
	// MySQL: THP's warning is PostgreSQL's; the others stay.
	if got := messages(systemWarnings(pgOn(s, "mysql", true))); len(got) != 2 || got["THP_ALWAYS"] != "" {
		t.Errorf("MySQL on the metal fixture: %v", got)
	}
	// A database on another host: its devices are unknown, its host's THP unseen; the driver's
	// host's governor is still said, as the driver's.
	remote := fixtureSystem(t, "metal", places, devs, false)
	got = messages(systemWarnings(pgOn(remote, "postgres", false)))
	if len(got) != 1 || !strings.Contains(got["CPU_POWERSAVE"], "powersave (scaling_driver acpi-cpufreq) on the driver's host:") {
		t.Errorf("a remote PostgreSQL on the metal fixture: %v", got)
	}
}

// TestSystemWarningsVM: the VM fixture (a virtio disk the kernel marks rotational under
// mq-deadline, no THP file, no cpufreq) has no evidence for any warning, and an old result (no
// system) none either.
func TestSystemWarningsVM(t *testing.T) {
	s := fixtureSystem(t, "vm", []sysinfo.Place{{Role: "data", Path: "/d"}}, map[string]string{"/d": "254:0"}, true)
	if s.Devices[0].Scheduler != "mq-deadline" || !sysinfo.IsUnknown(s.CPU.Governor) || !sysinfo.IsUnknown(s.Memory.THP) {
		t.Fatalf("the fixture changed: %+v", s)
	}
	if ws := systemWarnings(pgOn(s, "postgres", true)); len(ws) != 0 {
		t.Errorf("warnings on the VM fixture: %v", ws)
	}
	if ws := systemWarnings(pgOn(nil, "postgres", true)); len(ws) != 0 {
		t.Errorf("warnings without a system: %v", ws)
	}
}

// TestSystemWarningsPstate: powersave under intel_pstate is its dynamic policy, said so.
func TestSystemWarningsPstate(t *testing.T) {
	s := &sysinfo.System{CPU: sysinfo.CPU{Governor: "powersave on 0-3; performance on 4-7", Driver: "intel_pstate"}}
	got := messages(systemWarnings(pgOn(s, "postgres", true)))
	if m := got["CPU_POWERSAVE"]; !strings.Contains(m, "powersave on 0-3; performance on 4-7 (scaling_driver intel_pstate)") || !strings.Contains(m, "raising it late under bursts") {
		t.Errorf("CPU_POWERSAVE under intel_pstate: %q", m)
	}
}

// TestSystemWarningsMD: under an md mirror of a rotating disk and an SSD, both under bfq, only the
// SSD is warned about, as holding the data through md0.
func TestSystemWarningsMD(t *testing.T) {
	s := fixtureSystem(t, "metal", []sysinfo.Place{{Role: "data", Path: "/mirror/db"}}, map[string]string{"/mirror/db": "9:0"}, true)
	var rot []string
	for _, w := range systemWarnings(pgOn(s, "mysql", true)) {
		if w.Code == "ROTATIONAL_SCHEDULER" {
			rot = append(rot, w.Message)
		}
	}
	if len(rot) != 1 || !strings.HasPrefix(rot[0], "sdb holds the database's data /mirror/db (through md0)") || !strings.Contains(rot[0], "scheduler is bfq") {
		t.Errorf("ROTATIONAL_SCHEDULER %q", rot)
	}
}

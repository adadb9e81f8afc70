package run

import (
	"fmt"
	"strings"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysinfo"
)

// rotationalSchedulers are the I/O schedulers made for rotating disks: they idle between requests
// to batch seeks (bfq; cfq before the multi-queue block layer).
var rotationalSchedulers = map[string]bool{"bfq": true, "cfq": true}

// systemWarnings are the static warnings of the system under test (result.json's system, package
// sysinfo), each only when its evidence is there, with the evidence in the sentence:
// ROTATIONAL_SCHEDULER, THP_ALWAYS and CPU_POWERSAVE.
func systemWarnings(r *report.Result) []report.Warning {
	s := r.System
	if s == nil {
		return nil
	}
	var ws []report.Warning
	add := func(code, format string, a ...any) {
		ws = append(ws, report.Warning{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	roles := map[string][]string{} // disk: what it holds
	for _, p := range s.Storage {
		if p.Disk != "" {
			roles[p.Disk] = append(roles[p.Disk], strings.TrimSpace(p.Role+" "+p.Path))
		}
	}
	for _, d := range s.Devices { // the disks beneath a device-mapper device hold its files too
		for _, u := range d.Under {
			for _, role := range roles[d.Name] {
				roles[u] = append(roles[u], role+" (through "+d.Name+")")
			}
		}
	}
	for _, d := range s.Devices {
		if d.Rotational == "no" && rotationalSchedulers[d.Scheduler] && len(roles[d.Name]) > 0 {
			add("ROTATIONAL_SCHEDULER", "%s holds the database's %s and the kernel marks it not rotational (queue/rotational 0), yet its I/O scheduler is %s, made for rotating disks: it idles between requests to batch seeks and spends CPU on every I/O, which costs a fast device throughput and latency; none or mq-deadline suits it (/sys/block/%s/queue/scheduler)",
				d.Name, strings.Join(roles[d.Name], ", "), d.Scheduler, d.Name)
		}
	}
	if r.Database.Kind == "postgres" && r.Database.OnDriverHost && s.Memory.THP == "always" {
		add("THP_ALWAYS", "transparent huge pages are always on (/sys/kernel/mm/transparent_hugepage/enabled [always], defrag %s) on PostgreSQL's host: the kernel backs the backends' memory with huge pages and compacts memory to make them (khugepaged, and at page faults when defrag allows), which stalls backends and shows as latency spikes; set it to madvise or never",
			s.Memory.THPDefrag)
	}
	if g := s.CPU.Governor; strings.Contains(g, "powersave") && !sysinfo.IsUnknown(g) {
		whose := "the driver's host, which is the database's"
		if !r.Database.OnDriverHost {
			whose = "the driver's host"
		}
		why := "the cores run at their lowest frequency, so throughput is lower and latencies longer than the machine gives"
		if d := s.CPU.Driver; strings.HasPrefix(d, "intel_pstate") || strings.HasPrefix(d, "amd-pstate") {
			why = "under " + d + " powersave scales the frequency with the load but favours energy, raising it late under bursts, so latencies are longer and noisier than under performance"
		}
		add("CPU_POWERSAVE", "the CPU frequency governor is %s (scaling_driver %s) on %s: %s; set it to performance (cpupower frequency-set -g performance)",
			g, orUnknown(s.CPU.Driver), whose, why)
	}
	return ws
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

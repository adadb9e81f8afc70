package compare

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysinfo"
)

// systemDifferences are the values of the system under test (result.json's system) that differ,
// as a reader acts on them: each file's device and file system, each device's scheduler,
// rotational flag, nr_requests, read-ahead and model, memory's huge pages, swap and dirty limits,
// the CPUs and their governor, the CPUs each device's interrupts may run on, irqbalance, the
// kernel and the virtualisation. What changes while a host runs (free huge pages, IRQ numbers,
// where an interrupt was last delivered) is left out. A result without a system (made before it
// was disclosed) differs from one with it in one line.
func systemDifferences(a, b any) []Difference {
	sa, oka := decodeSystem(a)
	sb, okb := decodeSystem(b)
	if !oka && !okb {
		return nil
	}
	if oka != okb {
		shown := map[bool]string{true: "recorded", false: "(absent)"}
		return []Difference{newDifference("system", shown[oka], shown[okb])}
	}
	fa, fb := systemValues(sa), systemValues(sb)
	var out []Difference
	for k := range fa {
		if _, ok := fb[k]; !ok {
			fb[k] = "(absent)"
		}
	}
	for k, vb := range fb {
		va, ok := fa[k]
		if !ok {
			va = "(absent)"
		}
		if va != vb {
			out = append(out, newDifference(k, va, vb))
		}
	}
	return out
}

func decodeSystem(v any) (*sysinfo.System, bool) {
	if v == nil {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var s sysinfo.System
	if json.Unmarshal(b, &s) != nil {
		return nil, false
	}
	return &s, true
}

// systemValues flattens a system into the names and values compared.
func systemValues(s *sysinfo.System) map[string]string {
	m := map[string]string{
		"system.host": s.Host, "system.kernel": s.Kernel, "system.virtualization": s.Virtualization,
		"system.irqbalance": s.IRQBalance,
	}
	for _, p := range s.Storage {
		v := p.Device
		if p.FS != "" {
			v += " (" + strings.TrimSpace(p.FS+" "+p.MountOptions) + ")"
		}
		m["system.storage."+p.Role] = v
		if p.Path != "" {
			m["system.storage."+p.Role+".path"] = p.Path
		}
	}
	for _, d := range s.Devices {
		k := "system.devices." + d.Name + "."
		m[k+"model"], m[k+"kind"], m[k+"rotational"] = d.Model, d.Kind, d.Rotational
		m[k+"scheduler"], m[k+"nr_requests"], m[k+"read_ahead_kb"] = d.Scheduler, d.NrRequests, d.ReadAheadKB
		m[k+"irq_cpus"] = irqCPUs(d.IRQs, d.IRQsUnknown)
	}
	for _, n := range s.NICs {
		m["system.nics."+n.Name+".irq_cpus"] = irqCPUs(n.IRQs, n.IRQsUnknown)
	}
	mem := s.Memory
	for k, v := range map[string]string{"thp": mem.THP, "thp_defrag": mem.THPDefrag, "huge_pages_total": mem.HugePagesTotal,
		"huge_page_size": bytesText(mem.HugePageBytes), "swap_total": bytesText(mem.SwapTotalBytes), "swappiness": mem.Swappiness,
		"dirty_ratio": mem.DirtyRatio, "dirty_background_ratio": mem.DirtyBackground,
		"dirty_bytes": bytesText(mem.DirtyBytes), "dirty_background_bytes": bytesText(mem.DirtyBackgroundBytes)} {
		if v != "" {
			m["system.memory."+k] = v
		}
	}
	c := s.CPU
	var nodes []string
	for _, n := range c.NUMA {
		nodes = append(nodes, "node"+strconv.Itoa(n.Node)+" "+n.CPUs)
	}
	for k, v := range map[string]string{"model": c.Model, "threads": c.Threads, "cores": c.Cores, "smt": c.SMT,
		"numa": strings.Join(nodes, ", "), "governor": c.Governor, "freq_driver": c.Driver} {
		if v != "" {
			m["system.cpu."+k] = v
		}
	}
	return m
}

// irqCPUs is the distinct CPU lists a device's interrupts may run on ("0-3 / 0").
func irqCPUs(irqs []sysinfo.IRQ, unknown string) string {
	if len(irqs) == 0 {
		return unknown
	}
	var l []string
	for _, q := range irqs {
		if !slices.Contains(l, q.CPUs) {
			l = append(l, q.CPUs)
		}
	}
	return strings.Join(l, " / ")
}

// bytesText is a size in bytes as a reader reads it (8.0 GiB); an unknown one as it is.
func bytesText(v string) string {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		return report.BytesIEC(n)
	}
	return v
}

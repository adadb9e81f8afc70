package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/sysinfo"
)

// SystemRow is one line of the system under test, as the console and report.html show it.
type SystemRow struct{ Label, Value string }

// SystemRows says the system under test in a few lines: where the database's files are and their
// devices' settings, memory, CPUs, interrupts. Nil for a result without it.
func SystemRows(s *sysinfo.System) []SystemRow {
	if s == nil {
		return nil
	}
	rows := []SystemRow{}
	if st := storageLine(s); st != "" {
		rows = append(rows, SystemRow{"storage", st})
	}
	m := s.Memory
	mem := []string{"THP " + shown(m.THP)}
	if !sysinfo.IsUnknown(m.THP) {
		mem[0] += " (defrag " + shown(m.THPDefrag) + ")"
	}
	hp := "huge pages " + shown(m.HugePagesTotal)
	if !sysinfo.IsUnknown(m.HugePagesTotal) {
		hp = fmt.Sprintf("huge pages %s of %s free", shown(m.HugePagesFree), m.HugePagesTotal)
		if n, err := strconv.ParseFloat(m.HugePageBytes, 64); err == nil {
			hp += ", " + BytesIEC(n) + " each"
		}
	}
	mem = append(mem, hp, "swap "+bytesShown(m.SwapTotalBytes), "swappiness "+shown(m.Swappiness))
	dirty := "dirty_ratio " + shown(m.DirtyRatio) + ", dirty_background_ratio " + shown(m.DirtyBackground)
	if m.DirtyBytes != "" {
		dirty += ", dirty_bytes " + bytesShown(m.DirtyBytes)
	}
	if m.DirtyBackgroundBytes != "" {
		dirty += ", dirty_background_bytes " + bytesShown(m.DirtyBackgroundBytes)
	}
	rows = append(rows, SystemRow{"memory", strings.Join(append(mem, dirty), " · ")})

	c := s.CPU
	cpu := []string{shown(c.Model), fmt.Sprintf("%s threads on %s cores, SMT %s", shown(c.Threads), shown(c.Cores), shown(c.SMT))}
	if len(c.NUMA) > 0 {
		var nodes []string
		for _, n := range c.NUMA {
			nodes = append(nodes, fmt.Sprintf("node%d %s", n.Node, n.CPUs))
		}
		cpu = append(cpu, "NUMA "+strings.Join(nodes, ", "))
	}
	gov := "governor " + shown(c.Governor)
	if c.Driver != "" {
		gov += " (" + c.Driver + ")"
	}
	cpu = append(cpu, gov, shown(s.Virtualization)) // the kernel is on the driver's line
	rows = append(rows, SystemRow{"cpu", strings.Join(cpu, " · ")})

	var irqs []string
	for _, d := range s.Devices {
		irqs = append(irqs, irqText(d.Name, d.IRQs, d.IRQsUnknown))
	}
	for _, n := range s.NICs {
		irqs = append(irqs, irqText(n.Name, n.IRQs, n.IRQsUnknown))
	}
	irqs = append(irqs, "irqbalance "+shown(s.IRQBalance))
	rows = append(rows, SystemRow{"irqs", strings.Join(irqs, " · ")})
	return rows
}

// storageLine places each of the database's files on its device, the device's settings said once.
func storageLine(s *sysinfo.System) string {
	devs := map[string]sysinfo.Device{}
	for _, d := range s.Devices {
		devs[d.Name] = d
	}
	var parts []string
	said := map[string]bool{}
	var first string  // the first file's device (partition)
	var same []string // the roles of the other files on it
	firstAt := 0
	for _, p := range s.Storage {
		where := p.Role
		if p.Path != "" {
			where += " " + p.Path
		}
		if sysinfo.IsUnknown(p.Device) {
			parts = append(parts, where+": device "+shown(p.Device))
			continue
		}
		if p.Device == first {
			same = append(same, p.Role)
			continue
		}
		if first == "" {
			first, firstAt = p.Device, len(parts)
		}
		text := where + " on " + p.Device
		var info []string
		if p.FS != "" {
			info = append(info, strings.TrimSpace(shown(p.FS)+" "+p.MountOptions))
		}
		if d, ok := devs[p.Disk]; ok && !said[p.Disk] {
			said[p.Disk] = true
			dt := deviceText(d)
			if p.Device != d.Name { // a partition: its disk's settings
				dt = d.Name + ": " + dt
			}
			info = append(info, dt)
			for _, u := range d.Under { // a device-mapper device's disks
				if ud, ok := devs[u]; ok && !said[u] {
					said[u] = true
					info = append(info, "beneath it "+u+": "+deviceText(ud))
				}
			}
		}
		if len(info) > 0 {
			text += " (" + strings.Join(info, "; ") + ")"
		}
		parts = append(parts, text)
	}
	if len(same) > 0 && len(parts) > 0 {
		parts = slices.Insert(parts, firstAt+1, strings.Join(same, ", ")+" on the same device")
	}
	return strings.Join(parts, "; ")
}

func deviceText(d sysinfo.Device) string {
	var f []string
	if d.Kind != "disk" {
		f = append(f, d.Kind)
	}
	if !sysinfo.IsUnknown(d.Model) {
		f = append(f, d.Model)
	} else if !sysinfo.IsUnknown(d.Driver) {
		f = append(f, d.Driver)
	}
	switch d.Rotational {
	case "yes":
		f = append(f, "rotational")
	case "no":
		f = append(f, "not rotational")
	default:
		f = append(f, "rotational "+shown(d.Rotational))
	}
	f = append(f, "scheduler "+shown(d.Scheduler), "nr_requests "+shown(d.NrRequests))
	if kb, err := strconv.ParseFloat(d.ReadAheadKB, 64); err == nil {
		f = append(f, "read-ahead "+BytesIEC(kb*1024))
	} else {
		f = append(f, "read-ahead "+shown(d.ReadAheadKB))
	}
	return strings.Join(f, ", ")
}

// irqText: "vda IRQ 35-36 on CPUs 0-1 (delivered to CPUs 1)"; many CPU sets (a queue per CPU) are said
// by their count and union.
func irqText(name string, irqs []sysinfo.IRQ, unknown string) string {
	if len(irqs) == 0 {
		return name + " IRQs " + shown(unknown)
	}
	nums := make([]int, 0, len(irqs))
	var cpus, eff []string
	for _, q := range irqs {
		nums = append(nums, q.N)
		if !slices.Contains(cpus, q.CPUs) {
			cpus = append(cpus, q.CPUs)
		}
		if q.Effective != "" && !slices.Contains(eff, q.Effective) {
			eff = append(eff, q.Effective)
		}
	}
	slices.Sort(nums)
	text := fmt.Sprintf("%s IRQ %s on %s", name, sysinfo.FormatList(nums), cpuSets(cpus))
	if len(eff) > 0 {
		text += " (delivered to " + cpuSets(eff) + ")"
	}
	return text
}

// cpuSets says a few CPU lists one by one ("CPUs 0-3 / 0"), more by their count and union ("8 CPU
// sets over 0-7").
func cpuSets(sets []string) string {
	if len(sets) <= 3 {
		return "CPUs " + strings.Join(sets, " / ")
	}
	var all []int
	for _, s := range sets {
		l, err := sysinfo.ParseList(s)
		if err != nil {
			return "CPUs " + strings.Join(sets, " / ")
		}
		for _, c := range l {
			if !slices.Contains(all, c) {
				all = append(all, c)
			}
		}
	}
	slices.Sort(all)
	return fmt.Sprintf("%d CPU sets over %s", len(sets), sysinfo.FormatList(all))
}

// shown is a value as a reader reads it ("unknown: REASON" as it is).
func shown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}

func bytesShown(v string) string {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		return BytesIEC(n)
	}
	return shown(v)
}

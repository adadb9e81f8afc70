package sysinfo

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// IRQ is one interrupt line of a device and the CPUs it may run on.
type IRQ struct {
	N int `json:"n"`
	// Name is its action's name in /proc/interrupts ("virtio1-req.0", "nvme0q3").
	Name string `json:"name"`
	// CPUs is /proc/irq/N/smp_affinity_list (the CPUs it is allowed on), Effective its
	// effective_affinity_list (where the kernel delivers it) when the kernel has one.
	CPUs      string `json:"cpus"`
	Effective string `json:"effective,omitempty"`
}

// NIC is a network card (an interface that is not under /sys/devices/virtual) and its IRQs.
type NIC struct {
	Name        string `json:"name"`
	Driver      string `json:"driver"`
	IRQs        []IRQ  `json:"irqs,omitempty"`
	IRQsUnknown string `json:"irqs_unknown,omitempty"`
}

// deviceIRQs finds the interrupts of the device at dev (a /sys/devices directory, or a link to
// one): those of the nearest ancestor that has MSI interrupts (msi_irqs/) or a legacy one (irq),
// the PCI function a virtio or NVMe disk hangs off.
func deviceIRQs(r Root, dev string) ([]IRQ, string) {
	dir, err := filepath.EvalSymlinks(dev)
	if err != nil {
		return nil, Unknown("no device link: %v", err)
	}
	top := r.path("/sys/devices")
	var nums []int
	for d := dir; strings.HasPrefix(d, top+string(filepath.Separator)); d = filepath.Dir(d) {
		if ents, err := os.ReadDir(filepath.Join(d, "msi_irqs")); err == nil && len(ents) > 0 {
			for _, e := range ents {
				if n, err := strconv.Atoi(e.Name()); err == nil {
					nums = append(nums, n)
				}
			}
			break
		}
		if b, err := os.ReadFile(filepath.Join(d, "irq")); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
				nums = append(nums, n)
				break
			}
		}
	}
	if len(nums) == 0 {
		return nil, Unknown("neither the device nor a parent has msi_irqs or an irq")
	}
	sort.Ints(nums)
	names := readInterruptNames(r)
	irqs := make([]IRQ, 0, len(nums))
	for _, n := range nums {
		q := IRQ{N: n, Name: names[n]}
		base := "/proc/irq/" + strconv.Itoa(n) + "/"
		q.CPUs = r.value(base + "smp_affinity_list")
		if v, err := r.read(base + "effective_affinity_list"); err == nil {
			q.Effective = v
		}
		irqs = append(irqs, q)
	}
	return irqs, ""
}

// readInterruptNames reads the action names of /proc/interrupts by IRQ number: after the CPUs'
// counts come the chip, the hardware IRQ and its trigger ("1-edge"), then the names.
func readInterruptNames(r Root) map[int]string {
	text, err := r.read("/proc/interrupts")
	names := map[int]string{}
	if err != nil {
		return names
	}
	lines := strings.Split(text, "\n")
	cpus := len(strings.Fields(lines[0]))
	for _, line := range lines[1:] {
		num, rest, ok := strings.Cut(line, ":")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if !ok || err != nil {
			continue
		}
		f := strings.Fields(rest)
		if len(f) <= cpus {
			continue
		}
		f = f[cpus:]
		name := f[len(f)-1]
		for i, x := range f {
			if strings.HasSuffix(x, "-edge") || strings.HasSuffix(x, "-level") || strings.HasSuffix(x, "-fasteoi") {
				if i+1 < len(f) {
					name = strings.Join(f[i+1:], " ")
				}
				break
			}
		}
		names[n] = name
	}
	return names
}

// readNICs reads the network cards of /sys/class/net (the interfaces under /sys/devices/virtual —
// lo, bridges, veths — left out) and their IRQs.
func readNICs(r Root) []NIC {
	links, _ := filepath.Glob(r.path("/sys/class/net/*"))
	var nics []NIC
	for _, l := range links {
		dir, err := filepath.EvalSymlinks(l)
		if err != nil || strings.Contains(filepath.ToSlash(dir), "/devices/virtual/") {
			continue
		}
		n := NIC{Name: filepath.Base(l), Driver: Unknown("no driver link")}
		if drv, err := os.Readlink(filepath.Join(dir, "device", "driver")); err == nil {
			n.Driver = filepath.Base(drv) // the link's own target names the driver (.../drivers/NAME)
		}
		n.IRQs, n.IRQsUnknown = deviceIRQs(r, filepath.Join(dir, "device"))
		nics = append(nics, n)
	}
	return nics
}

// readIRQBalance says whether a process named irqbalance runs (/proc/PID/comm), when /proc shows
// every process (process 1's among them).
func readIRQBalance(r Root) string {
	comms, err := filepath.Glob(r.path("/proc/[0-9]*/comm"))
	if err != nil || len(comms) == 0 {
		return Unknown("no process is listed in /proc")
	}
	if _, err := os.Stat(r.path("/proc/1/comm")); err != nil {
		return Unknown("/proc shows no process 1: it hides other users' processes (hidepid) or is another namespace's")
	}
	for _, c := range comms {
		if b, err := os.ReadFile(c); err == nil && strings.TrimSpace(string(b)) == "irqbalance" {
			return "running"
		}
	}
	return NoIRQBalance
}

// NoIRQBalance is IRQBalance when no process of that name runs.
const NoIRQBalance = "not running (no process named irqbalance in /proc)"

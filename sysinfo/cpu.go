package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// CPU is the processors and their policies.
type CPU struct {
	Model string `json:"model"`
	// Threads are the online logical CPUs (/sys/devices/system/cpu/online), Cores the distinct
	// sets of thread siblings among them.
	Threads string `json:"threads"`
	Cores   string `json:"cores"`
	// SMT: "on", "off", "not supported", or unknown.
	SMT  string `json:"smt"`
	NUMA []Node `json:"numa,omitempty"`
	// NUMAUnknown says why NUMA is empty.
	NUMAUnknown string `json:"numa_unknown,omitempty"`
	// Governor is cpufreq's scaling_governor, one value when all CPUs share it ("performance"),
	// else each with its CPUs ("powersave on 0-3; performance on 4-7"); Driver is scaling_driver.
	Governor string `json:"governor"`
	Driver   string `json:"freq_driver,omitempty"`
}

// Node is a NUMA node and its CPUs.
type Node struct {
	Node int    `json:"node"`
	CPUs string `json:"cpus"`
}

// NoCPUFreq is the governor's reason when the kernel has no cpufreq.
const NoCPUFreq = "no cpufreq (a VM usually hides it)"

func readCPU(r Root) CPU {
	c := CPU{Model: Unknown("/proc/cpuinfo has no model name")}
	if info, err := r.read("/proc/cpuinfo"); err != nil {
		c.Model = unknownErr("/proc/cpuinfo", err)
	} else {
		for _, line := range strings.Split(info, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if k = strings.TrimSpace(k); ok && (k == "model name" || k == "Model" || k == "cpu model") {
				c.Model = strings.TrimSpace(v)
				break
			}
		}
	}
	const sysCPU = "/sys/devices/system/cpu/"
	online := r.value(sysCPU + "online")
	cpus, err := ParseList(online)
	if IsUnknown(online) {
		c.Threads, c.Cores = online, online
	} else if err != nil {
		c.Threads = Unknown("%s%s is %q: %v", sysCPU, "online", online, err)
		c.Cores = c.Threads
	} else {
		c.Threads = strconv.Itoa(len(cpus))
		sib := map[string]bool{}
		smt := false
		for _, n := range cpus {
			s, err := r.read(fmt.Sprintf("%scpu%d/topology/thread_siblings_list", sysCPU, n))
			if err != nil {
				sib = nil
				c.Cores = unknownErr(fmt.Sprintf("%scpu%d/topology/thread_siblings_list", sysCPU, n), err)
				break
			}
			sib[s] = true
			if l, err := ParseList(s); err == nil && len(l) > 1 {
				smt = true
			}
		}
		if sib != nil {
			c.Cores = strconv.Itoa(len(sib))
			c.SMT = map[bool]string{true: "on", false: "off"}[smt]
		}
		c.Governor, c.Driver = readGovernors(r, cpus)
	}
	if a, err := r.read(sysCPU + "smt/active"); err == nil {
		switch ctl, _ := r.read(sysCPU + "smt/control"); {
		case ctl == "notsupported":
			c.SMT = "not supported"
		case a == "1":
			c.SMT = "on"
		case a == "0":
			c.SMT = "off"
		}
	}
	if c.SMT == "" {
		c.SMT = Unknown("no %ssmt/active and no thread siblings", sysCPU)
	}
	nodes, _ := filepath.Glob(r.path("/sys/devices/system/node/node[0-9]*"))
	for _, d := range nodes {
		n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "cpulist"))
		if err != nil {
			continue
		}
		c.NUMA = append(c.NUMA, Node{Node: n, CPUs: strings.TrimSpace(string(b))})
	}
	sort.Slice(c.NUMA, func(i, j int) bool { return c.NUMA[i].Node < c.NUMA[j].Node })
	if len(c.NUMA) == 0 {
		c.NUMAUnknown = Unknown("no /sys/devices/system/node (a kernel without NUMA support)")
	}
	return c
}

// readGovernors reads each CPU's scaling_governor and says them in one value.
func readGovernors(r Root, cpus []int) (string, string) {
	byGov := map[string][]int{}
	driver := ""
	for _, n := range cpus {
		base := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/", n)
		g, err := r.read(base + "scaling_governor")
		if err != nil {
			if os.IsNotExist(err) {
				g = "unknown"
			} else {
				g = unknownErr(base+"scaling_governor", err)
			}
		}
		byGov[g] = append(byGov[g], n)
		if d, err := r.read(base + "scaling_driver"); err == nil && driver == "" {
			driver = d
		}
	}
	if len(byGov) == 1 {
		for g := range byGov {
			if g == "unknown" {
				return Unknown(NoCPUFreq), driver
			}
			return g, driver
		}
	}
	var parts []string
	for _, g := range sortedKeys(byGov) {
		name := g
		if g == "unknown" {
			name = Unknown("no cpufreq")
		}
		parts = append(parts, name+" on "+FormatList(byGov[g]))
	}
	return strings.Join(parts, "; "), driver
}

// ParseList reads a kernel CPU list ("0-3,8,10-11").
func ParseList(s string) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad range %q", part)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// FormatList writes sorted numbers as a kernel CPU list ("0-3,8").
func FormatList(l []int) string {
	var parts []string
	for i := 0; i < len(l); {
		j := i
		for j+1 < len(l) && l[j+1] == l[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(l[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", l[i], l[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

package sysinfo

import (
	"strconv"
	"strings"
)

// Memory is the kernel's memory policy.
type Memory struct {
	// THP is transparent huge pages' mode (transparent_hugepage/enabled: always, madvise or
	// never), THPDefrag when a fault compacts memory for one (defrag).
	THP       string `json:"thp"`
	THPDefrag string `json:"thp_defrag"`
	// Explicit huge pages (/proc/meminfo): HugePages_Total and _Free, their size in bytes.
	HugePagesTotal  string `json:"huge_pages_total"`
	HugePagesFree   string `json:"huge_pages_free"`
	HugePageBytes   string `json:"huge_page_bytes"`
	SwapTotalBytes  string `json:"swap_total_bytes"`
	Swappiness      string `json:"swappiness"`
	DirtyRatio      string `json:"dirty_ratio"`
	DirtyBackground string `json:"dirty_background_ratio"`
	// The byte limits, when set (non-zero, they replace the ratios).
	DirtyBytes           string `json:"dirty_bytes,omitempty"`
	DirtyBackgroundBytes string `json:"dirty_background_bytes,omitempty"`
}

func readMemory(r Root) Memory {
	m := Memory{}
	m.THP = r.value("/sys/kernel/mm/transparent_hugepage/enabled")
	if !IsUnknown(m.THP) {
		m.THP = bracketed(m.THP)
	}
	m.THPDefrag = r.value("/sys/kernel/mm/transparent_hugepage/defrag")
	if !IsUnknown(m.THPDefrag) {
		m.THPDefrag = bracketed(m.THPDefrag)
	}
	info, err := r.read("/proc/meminfo")
	mi := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			mi[k] = strings.TrimSpace(v)
		}
	}
	get := func(k string, bytes bool) string {
		if err != nil {
			return unknownErr("/proc/meminfo", err)
		}
		v, ok := mi[k]
		if !ok {
			return Unknown("/proc/meminfo has no %s", k)
		}
		if !bytes {
			return v
		}
		f := strings.Fields(v)
		n, perr := strconv.ParseUint(f[0], 10, 64)
		if perr != nil || len(f) != 2 || f[1] != "kB" {
			return Unknown("/proc/meminfo's %s is %q, not a size in kB", k, v)
		}
		return strconv.FormatUint(n*1024, 10)
	}
	m.HugePagesTotal, m.HugePagesFree = get("HugePages_Total", false), get("HugePages_Free", false)
	m.HugePageBytes = get("Hugepagesize", true)
	m.SwapTotalBytes = get("SwapTotal", true)
	m.Swappiness = r.value("/proc/sys/vm/swappiness")
	m.DirtyRatio = r.value("/proc/sys/vm/dirty_ratio")
	m.DirtyBackground = r.value("/proc/sys/vm/dirty_background_ratio")
	if v, err := r.read("/proc/sys/vm/dirty_bytes"); err == nil && v != "0" {
		m.DirtyBytes = v
	}
	if v, err := r.read("/proc/sys/vm/dirty_background_bytes"); err == nil && v != "0" {
		m.DirtyBackgroundBytes = v
	}
	return m
}

// Package sysinfo reads the system a database ran on, as Linux shows it in /sys and /proc: the block
// devices holding the database's files and their I/O settings, memory (transparent and explicit huge
// pages, swap, the dirty-page limits), the CPUs (model, cores, NUMA nodes, frequency governor, SMT),
// where the disks' and network cards' interrupts may run, the kernel and the virtualisation.
//
// Every reader takes a Root: "/" on the host, a fixture tree in tests. A value is the text the OS
// gives, or "unknown: REASON" where it gives none (Unknown, IsUnknown); nothing is guessed.
package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Root is where /sys and /proc are read from.
type Root struct {
	// Dir is "/" on the host; a fixture tree's directory in tests.
	Dir string
	// Stat gives the device number ("MAJ:MIN", stat's st_dev) of the file system holding path, and
	// path with its symbolic links resolved. Nil: stat(2) on this host (stat_linux.go).
	Stat func(path string) (majMin, resolved string, err error)
}

// Host is this host's root.
func Host() Root { return Root{Dir: "/"} }

func (r Root) path(p string) string { return filepath.Join(r.Dir, p) }

// read returns the trimmed text of the file p under the root.
func (r Root) read(p string) (string, error) {
	b, err := os.ReadFile(r.path(p))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// value reads p, or says why it cannot.
func (r Root) value(p string) string {
	v, err := r.read(p)
	if err != nil {
		return unknownErr(p, err)
	}
	return v
}

func (r Root) stat(path string) (string, string, error) {
	if r.Stat != nil {
		return r.Stat(path)
	}
	return statDev(path)
}

// UnknownPrefix starts every value the OS does not give.
const UnknownPrefix = "unknown: "

// Unknown is a value the OS does not give, with the reason.
func Unknown(format string, a ...any) string { return UnknownPrefix + fmt.Sprintf(format, a...) }

// IsUnknown says v is a value the OS did not give.
func IsUnknown(v string) bool { return v == "" || strings.HasPrefix(v, UnknownPrefix) }

// unknownErr says why the file p could not be read.
func unknownErr(p string, err error) string {
	if os.IsNotExist(err) {
		return Unknown("no %s", p)
	}
	if os.IsPermission(err) {
		return Unknown("%s is not readable (permission denied)", p)
	}
	return Unknown("%s: %v", p, err)
}

// bracketed is the selected one of a kernel choice list: "none [mq-deadline] kyber" gives
// "mq-deadline"; a file without brackets is returned as it is.
func bracketed(s string) string {
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return s
	}
	return s[i+1 : j]
}

// System is what a result discloses about the system under test.
type System struct {
	// Host says whose host the values describe: the database's and the driver's, or only the
	// driver's (a server elsewhere or not known to be here, whose devices cannot be seen).
	Host           string `json:"host"`
	Kernel         string `json:"kernel"`
	Virtualization string `json:"virtualization"`
	// Storage says which device holds each of the database's files (data, WAL or redo log, each
	// tablespace), Devices those devices' settings.
	Storage []Placement `json:"storage,omitempty"`
	Devices []Device    `json:"devices,omitempty"`
	Memory  Memory      `json:"memory"`
	CPU     CPU         `json:"cpu"`
	// NICs are the network cards (not the virtual interfaces) and their interrupts.
	NICs []NIC `json:"nics,omitempty"`
	// IRQBalance: "running", NoIRQBalance, or unknown.
	IRQBalance string `json:"irqbalance"`
}

// Place is a database file or directory to place on its device: Role is what it holds ("data",
// "wal", "redo log", "tablespace NAME", "file").
type Place struct {
	Role string
	Path string
	// Unknown is why the path itself is unknown (a setting the server refused to show); Path is
	// then empty.
	Unknown string
}

// Read reads the system of this root. places are the database's files; local says the database
// runs on this host (when it does not, its files' devices are unknown).
func Read(r Root, places []Place, local bool) System {
	s := System{Host: "the database's and the driver's"}
	if !local {
		s.Host = "the driver's only (the database is not known to run on it)"
	}
	s.Kernel = r.value("/proc/sys/kernel/osrelease")
	s.Virtualization = readVirtualization(r)
	s.Storage, s.Devices = readStorage(r, places, local)
	s.Memory = readMemory(r)
	s.CPU = readCPU(r)
	s.NICs = readNICs(r)
	s.IRQBalance = readIRQBalance(r)
	return s
}

// readVirtualization reads the CPU's hypervisor flag (/proc/cpuinfo), the hypervisor's type
// (/sys/hypervisor/type, Xen's) and the machine's DMI identity (/sys/class/dmi/id).
func readVirtualization(r Root) string {
	info, err := r.read("/proc/cpuinfo")
	if err != nil {
		return unknownErr("/proc/cpuinfo", err)
	}
	flag := false
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "flags" {
			flag = flag || strings.Contains(" "+v+" ", " hypervisor ")
			break
		}
	}
	var ident []string
	for _, f := range []string{"sys_vendor", "product_name"} {
		if v, err := r.read("/sys/class/dmi/id/" + f); err == nil && v != "" {
			ident = append(ident, v)
		}
	}
	dmi := "no DMI identity in /sys/class/dmi/id"
	if len(ident) > 0 {
		dmi = "DMI " + strings.Join(ident, " ")
	}
	if t, err := r.read("/sys/hypervisor/type"); err == nil && t != "" {
		return fmt.Sprintf("virtual machine (%s hypervisor; %s)", t, dmi)
	}
	if flag {
		return fmt.Sprintf("virtual machine (the CPU's hypervisor flag; %s)", dmi)
	}
	return fmt.Sprintf("none seen (no hypervisor flag in /proc/cpuinfo; %s)", dmi)
}

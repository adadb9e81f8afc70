package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Placement is where one of the database's files lives.
type Placement struct {
	Role string `json:"role"`
	Path string `json:"path"`
	// Device is the block device holding it (a partition: "vda1"), Disk the whole disk whose
	// queue settings apply ("vda"), or both unknown with the reason.
	Device string `json:"device"`
	Disk   string `json:"disk,omitempty"`
	// The mount holding the path (/proc/self/mountinfo): its mount point, file system, the mount's
	// options and the file system's own (super) options.
	MountPoint   string `json:"mount_point,omitempty"`
	FS           string `json:"fs,omitempty"`
	MountOptions string `json:"mount_options,omitempty"`
	SuperOptions string `json:"super_options,omitempty"`
	// Via says how Device was found when not by the path's st_dev.
	Via string `json:"via,omitempty"`
}

// Device is a whole disk holding database files, with its I/O settings.
type Device struct {
	Name string `json:"name"`
	// Kind: "disk", "virtual" (under /sys/devices/virtual: loop, zram), "device-mapper NAME over
	// sda2,sdb2" or "md raid1 over sda1,sdb1".
	Kind        string `json:"kind"`
	Model       string `json:"model"`
	Driver      string `json:"driver"`
	Rotational  string `json:"rotational"` // "yes", "no", or unknown
	Scheduler   string `json:"scheduler"`  // the selected one of queue/scheduler
	NrRequests  string `json:"nr_requests"`
	ReadAheadKB string `json:"read_ahead_kb"`
	// Under are the whole disks beneath a device-mapper or md device (each also among the
	// devices): their queues and interrupts are the ones the I/O reaches.
	Under []string `json:"under,omitempty"`
	IRQs  []IRQ    `json:"irqs,omitempty"`
	// IRQsUnknown says why IRQs is empty.
	IRQsUnknown string `json:"irqs_unknown,omitempty"`
}

// NotLocal is the devices' reason when the database runs on another host.
const NotLocal = "the database is not on the driver's host"

func readStorage(r Root, places []Place, local bool) ([]Placement, []Device) {
	var out []Placement
	var devs []Device
	seen := map[string]bool{}
	mounts, merr := readMountinfo(r)
	for _, p := range places {
		pl := Placement{Role: p.Role, Path: p.Path}
		switch {
		case p.Path == "":
			pl.Device = p.Unknown
			if pl.Device == "" {
				pl.Device = Unknown("the path is not known")
			}
		case !local:
			pl.Device = Unknown(NotLocal)
		default:
			majMin, resolved, err := r.stat(p.Path)
			if err != nil {
				pl.Device = Unknown("%v", err)
				break
			}
			var m mount
			var found bool
			if merr != nil {
				pl.FS = unknownErr("/proc/self/mountinfo", merr)
			} else if m, found = mountOf(mounts, resolved, majMin); found {
				pl.MountPoint, pl.FS, pl.MountOptions, pl.SuperOptions = m.point, m.fs, m.opts, m.super
			} else {
				pl.FS = Unknown("no mount in /proc/self/mountinfo holds %s", resolved)
			}
			dev, err := readDevice(r, majMin)
			if err != nil && found && strings.HasPrefix(m.source, "/dev/") {
				// btrfs gives its files an anonymous device number: the mount's source names the
				// block device (one of them, for a file system over several)
				if d, serr := sourceDevice(r, m.source); serr == nil {
					dev, err = d, nil
					pl.Via = "the mount's source " + m.source + " (st_dev " + majMin + " is anonymous)"
				}
			}
			if err != nil {
				pl.Device = Unknown("%v", err)
				break
			}
			pl.Device, pl.Disk = dev.part, dev.Name
			devs = addDevice(r, devs, seen, dev)
		}
		out = append(out, pl)
	}
	return out, devs
}

// addDevice adds dev to devs once, and the disks beneath it (device-mapper's slaves).
func addDevice(r Root, devs []Device, seen map[string]bool, dev device) []Device {
	if seen[dev.Name] {
		return devs
	}
	seen[dev.Name] = true
	at := len(devs)
	devs = append(devs, dev.Device)
	for _, mm := range dev.slaves {
		under, err := readDevice(r, mm)
		if err != nil {
			continue
		}
		devs[at].Under = append(devs[at].Under, under.Name)
		devs = addDevice(r, devs, seen, under)
	}
	return devs
}

type mount struct {
	majMin, point, fs, opts, source, super string
}

// readMountinfo reads /proc/self/mountinfo: "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3
// /dev/root rw,errors=continue" (the mount point's octal escapes, \040 for a space, undone).
func readMountinfo(r Root) ([]mount, error) {
	text, err := r.read("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var ms []mount
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		sep := -1
		for i, x := range f {
			if x == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || len(f) < sep+3 {
			continue
		}
		m := mount{majMin: f[2], point: unescape(f[4]), opts: f[5], fs: f[sep+1], source: unescape(f[sep+2])}
		if len(f) > sep+3 {
			m.super = f[sep+3]
		}
		ms = append(ms, m)
	}
	return ms, nil
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &c); err == nil {
				b.WriteByte(byte(c))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountOf is the mount holding path: the longest mount point that is a prefix of it among the
// mounts of its device number, or among all when none has it (later mounts over earlier ones).
func mountOf(ms []mount, path, majMin string) (mount, bool) {
	best, found := mount{}, false
	for _, pass := range []bool{true, false} {
		for _, m := range ms {
			if pass && m.majMin != majMin || !under(path, m.point) {
				continue
			}
			if !found || len(m.point) >= len(best.point) {
				best, found = m, true
			}
		}
		if found {
			return best, true
		}
	}
	return best, found
}

func under(path, dir string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

type device struct {
	Device
	part   string   // the partition (or the disk itself)
	slaves []string // the devices beneath a device-mapper or md device: MAJ:MIN
}

// sourceDevice reads the block device a mount's source names (/dev/nvme0n1p2, or a link to it
// such as /dev/mapper/NAME or /dev/disk/by-uuid/...) through /sys/class/block.
func sourceDevice(r Root, source string) (device, error) {
	name := filepath.Base(source)
	if real, err := filepath.EvalSymlinks(r.path(source)); err == nil {
		name = filepath.Base(real)
	}
	b, err := os.ReadFile(r.path("/sys/class/block/" + name + "/dev"))
	if err != nil {
		return device{}, err
	}
	return readDevice(r, strings.TrimSpace(string(b)))
}

// readDevice reads the block device MAJ:MIN (/sys/dev/block/MAJ:MIN): a partition's settings are
// its whole disk's.
func readDevice(r Root, majMin string) (device, error) {
	link := r.path("/sys/dev/block/" + majMin)
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		if os.IsNotExist(err) {
			return device{}, fmt.Errorf("device %s is not a block device (a tmpfs, overlay, network file system or btrfs subvolume has an anonymous one)", majMin)
		}
		return device{}, fmt.Errorf("reading /sys/dev/block/%s: %v", majMin, err)
	}
	d := device{part: filepath.Base(dir)}
	disk := dir
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		disk = filepath.Dir(dir)
	}
	d.Name = filepath.Base(disk)
	rel := func(p string) string { // the disk's path under the root, for messages
		return "/sys/block/" + d.Name + "/" + p
	}
	val := func(p string) string {
		b, err := os.ReadFile(filepath.Join(disk, p))
		if err != nil {
			return unknownErr(rel(p), err)
		}
		return strings.TrimSpace(string(b))
	}
	d.Kind = "disk"
	if strings.Contains(filepath.ToSlash(disk), "/devices/virtual/") {
		d.Kind = "virtual"
	}
	// a device over others (device-mapper, md RAID): its kind and the devices beneath it
	if name, err := os.ReadFile(filepath.Join(disk, "dm", "name")); err == nil {
		d.Kind = "device-mapper " + strings.TrimSpace(string(name))
	} else if level, err := os.ReadFile(filepath.Join(disk, "md", "level")); err == nil {
		d.Kind = "md " + strings.TrimSpace(string(level))
	}
	slaves, _ := filepath.Glob(filepath.Join(disk, "slaves", "*"))
	var names []string
	for _, sl := range slaves {
		names = append(names, filepath.Base(sl))
		if b, err := os.ReadFile(filepath.Join(sl, "dev")); err == nil {
			d.slaves = append(d.slaves, strings.TrimSpace(string(b)))
		}
	}
	if len(names) > 0 {
		d.Kind += " over " + strings.Join(names, ",")
	}
	d.Driver = Unknown("no driver link at %s", rel("device/driver"))
	// an NVMe namespace's device is its controller, whose device (the PCI function) has the driver
	for _, p := range []string{"device/driver", "device/device/driver"} {
		if drv, err := os.Readlink(filepath.Join(disk, p)); err == nil { // .../drivers/NAME
			d.Driver = filepath.Base(drv)
			break
		}
	}
	d.Model = val("device/model")
	if IsUnknown(d.Model) && !IsUnknown(d.Driver) {
		d.Model = Unknown("no %s (driver %s)", rel("device/model"), d.Driver)
	}
	switch rot := val("queue/rotational"); rot {
	case "0":
		d.Rotational = "no"
	case "1":
		d.Rotational = "yes"
	default:
		d.Rotational = rot
	}
	d.Scheduler = val("queue/scheduler")
	if !IsUnknown(d.Scheduler) {
		d.Scheduler = bracketed(d.Scheduler)
	}
	d.NrRequests = val("queue/nr_requests")
	d.ReadAheadKB = val("queue/read_ahead_kb")
	d.IRQs, d.IRQsUnknown = deviceIRQs(r, filepath.Join(disk, "device"))
	if len(d.slaves) > 0 && len(d.IRQs) == 0 {
		d.IRQsUnknown = Unknown("a device over others has none: its I/O reaches the disks beneath it")
	}
	return d, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

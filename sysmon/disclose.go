package sysmon

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/sysinfo"
)

// Disclosure is what a result must say about the conditions of a run: the engine's
// settings that decide durability and memory, the database's size, whether it shares the driver's
// host (and so its memory), and the driver's host.
type Disclosure struct {
	// Settings are read from the engine: PostgreSQL's SHOW values of PGSettings, SQLite's pragmas.
	Settings map[string]string
	// SizeBytes is the database's size when the run starts (pg_database_size; for SQLite the
	// file and its WAL); 0 when unknown.
	SizeBytes int64
	// OnDriverHost: the database server runs on the driver's host (a Unix socket or one of its
	// addresses; always for SQLite), so the host's memory is the server's.
	OnDriverHost bool
	// Client says how candor's driver sends the statements and uses its sockets (ClientPath of
	// the database, where it has one).
	Client string
	Host   HostInfo
	// NotKept are the db.* series the engine does not keep (MySQL family: a status counter it
	// lacks, or on Dolt has but never counts), left out of the samples: not kept, rather than 0.
	NotKept []string
	// System is the system under test: the devices holding the database's files and their I/O
	// settings, memory, CPUs, interrupts (package sysinfo; disclose_system.go).
	System *sysinfo.System
	// Errors say what could not be read.
	Errors []string
}

// HostInfo describes the driver's host.
type HostInfo struct {
	Hostname          string
	OS                string // e.g. "linux debian 12.12"
	Kernel            string
	GoVersion         string
	CPUs              int
	GOMAXPROCS        int
	MemTotalBytes     uint64
	MemAvailableBytes uint64
}

// PGSettings are the PostgreSQL settings a result discloses: durability (fsync, synchronous_commit,
// full_page_writes, wal_level), memory (shared_buffers, effective_cache_size), isolation and the
// connection limit.
var PGSettings = []string{"fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers",
	"effective_cache_size", "default_transaction_isolation", "max_connections"}

// PGIOSettings are the I/O settings a result discloses when the server has them: PostgreSQL 18's
// asynchronous I/O (io_method: worker, io_uring or sync; io_workers, the worker processes of
// io_method=worker), how many reads a backend keeps in flight (effective_io_concurrency and
// maintenance_io_concurrency, whose defaults rose from 1 and 10 to 16 in 18, where they also
// govern the asynchronous reads) and the largest read or write combined into one (17+).
var PGIOSettings = []string{"io_method", "io_workers", "effective_io_concurrency", "maintenance_io_concurrency",
	"io_combine_limit"}

// Disclose reads the disclosure of db and of this host. It does not fail: what cannot be read is
// named in Errors.
func Disclose(ctx context.Context, db driver.DB) Disclosure {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := Disclosure{Host: ReadHostInfo(ctx)}
	if db == nil {
		return d
	}
	if p, ok := db.(interface{ ClientPath() string }); ok {
		d.Client = p.ClientPath()
	}
	kind := db.Kind()
	if db.Dialect().SQLFamily() == driver.FamilyMySQL {
		kind = driver.FamilyMySQL // MySQL, MariaDB, TiDB, Dolt: one disclosure for the family
	}
	switch kind {
	case "postgres":
		if err := disclosePG(ctx, db, &d); err != nil {
			d.Errors = append(d.Errors, err.Error())
		}
	case driver.FamilyMySQL:
		if err := discloseMySQL(ctx, db, &d); err != nil { // disclose_mysql.go
			d.Errors = append(d.Errors, err.Error())
		}
	case "null": // driver/null: no database; its settings are the service-time distribution
		d.OnDriverHost = true
		if p, ok := db.(interface{ Settings() map[string]string }); ok {
			d.Settings = p.Settings()
		}
	case "sqlite":
		d.OnDriverHost = true
		if p, ok := db.(interface{ Pragmas() map[string]string }); ok {
			d.Settings = p.Pragmas()
		}
		if p, ok := db.(interface{ Path() string }); ok {
			for _, f := range []string{p.Path(), p.Path() + "-wal"} {
				if fi, err := os.Stat(f); err == nil {
					d.SizeBytes += fi.Size()
				}
			}
		}
	}
	discloseSystem(ctx, db, kind, &d)
	return d
}

func disclosePG(ctx context.Context, db driver.DB, d *Disclosure) error {
	c, err := db.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connecting to read the settings: %w", err)
	}
	defer c.Close()
	// SHOW's form of each setting ("1GB", "on"), read in one query; those of PGIOSettings the server
	// does not have (before 18, 17) are left out.
	q := "SELECT name, current_setting(name) FROM unnest(ARRAY['" + strings.Join(PGSettings, "','") + "']) AS name" +
		" UNION ALL SELECT name, current_setting(name, true) FROM unnest(ARRAY['" + strings.Join(PGIOSettings, "','") + "']) AS name" +
		" WHERE current_setting(name, true) IS NOT NULL"
	if d.Settings, err = readSettings(ctx, c, q); err != nil {
		return err
	}
	var size float64
	var addr string
	if err := c.QueryRow(ctx, "SELECT pg_database_size(current_database())::float8, coalesce(host(inet_server_addr()), '')").Scan(&size, &addr); err != nil {
		return fmt.Errorf("reading the database size: %w", err)
	}
	d.SizeBytes = int64(size)
	d.OnDriverHost = isLocalAddr(addr)
	return nil
}

// isLocalAddr: the server's address as it sees it is a Unix socket (""), a loopback address or
// one of this host's addresses.
func isLocalAddr(addr string) bool {
	if addr == "" {
		return true
	}
	ip := net.ParseIP(addr)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// ReadHostInfo describes this host (what cannot be read stays empty).
func ReadHostInfo(ctx context.Context) HostInfo {
	h := HostInfo{Hostname: hostname(), OS: runtime.GOOS, GoVersion: runtime.Version(),
		CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if platform, _, version, err := host.PlatformInformationWithContext(ctx); err == nil && platform != "" {
		h.OS = strings.TrimSpace(runtime.GOOS + " " + platform + " " + version)
	}
	if k, err := host.KernelVersionWithContext(ctx); err == nil {
		h.Kernel = k
	}
	if m, err := mem.VirtualMemoryWithContext(ctx); err == nil {
		h.MemTotalBytes, h.MemAvailableBytes = m.Total, m.Available
	}
	return h
}

// ParseMemSetting reads a PostgreSQL memory setting as SHOW prints it ("128MB", "4GB", "8kB",
// "1TB", "512B"; a bare number is taken as bytes) and returns it in bytes.
func ParseMemSetting(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9') {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	mult := map[string]int64{"": 1, "B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}[strings.TrimSpace(s[i:])]
	if mult == 0 {
		return 0, false
	}
	return n * mult, true
}

// readSettings runs q, which returns (name, value) rows, and returns them by lower-case name.
func readSettings(ctx context.Context, c driver.Conn, q string) (map[string]string, error) {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("reading the settings: %w", err)
	}
	defer rows.Close()
	settings := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("reading the settings: %w", err)
		}
		settings[strings.ToLower(k)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the settings: %w", err)
	}
	return settings, nil
}

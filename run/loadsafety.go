package run

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// Load safety (docs/load-safety.md): before a load drops or writes anything, the workload states
// its rows, bytes and the memory its generators hold at once (workload.LoadEstimator), and the load
// is refused past a bound unless --allow-large: a load whose time at a fast load rate for the
// engine is past MaxLoadTime, whose generators hold more than half the memory the process may use,
// or whose bytes do not fit on the database's disk where candor can see that disk.

// MaxLoadTime is the longest load accepted without --allow-large, at the engine's load rate.
const MaxLoadTime = 24 * time.Hour

// AllowLargeFlag is the override's flag.
const AllowLargeFlag = "--allow-large"

// loadRate is a load rate for an engine: rows and bytes a second, and where the figure comes from.
type loadRate struct {
	rows, bytes float64
	source      string
}

// defaultLoadRates are load rates above what candor reaches on a fast host (a load there takes at
// least the time they give, so the ETA is a lower bound and a refused load would not have finished
// in time on faster hardware either), by engine: SQLite's single writer, PostgreSQL's COPY, MySQL's
// LOAD DATA; the distributed engines (CockroachDB, YugabyteDB, TiDB) and Dolt write slower.
var defaultLoadRates = map[string]loadRate{
	"sqlite":   {rows: 500_000, bytes: 400e6},
	"postgres": {rows: 1_000_000, bytes: 500e6},
	"mysql":    {rows: 500_000, bytes: 400e6},
	"mariadb":  {rows: 500_000, bytes: 400e6},
}

// otherLoadRate is the rate of an engine without its own in defaultLoadRates.
var otherLoadRate = loadRate{rows: 300_000, bytes: 200e6}

// rateFor is the load rate for the engine named by url (driver.URLDialect), with its source.
func rateFor(url string) loadRate {
	d, ok := driver.URLDialect(url)
	name := d.Name
	if r, known := defaultLoadRates[name]; ok && known {
		r.source = "candor's default for " + name + ", a fast host's"
		return r
	}
	r := otherLoadRate
	if ok && name != "" {
		r.source = "candor's default for " + name + ", a fast host's"
	} else {
		r.source = "candor's default for an engine it has no rate for"
	}
	return r
}

// loadTime is the time est takes at r: its rows or its bytes, whichever is slower.
func loadTime(est workload.LoadEstimate, r loadRate) float64 {
	return max(float64(est.Rows)/r.rows, float64(est.Bytes)/r.bytes)
}

// memoryLimit is the memory the process may use: the host's, or the address-space limit
// (RLIMIT_AS, as `prlimit --as` or `ulimit -v` set) when that is lower; ok false when unknown.
func memoryLimit() (limit int64, what string, ok bool) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err == nil && si.Totalram > 0 {
		limit, what, ok = int64(si.Totalram)*int64(si.Unit), "the host's memory", true
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != math.MaxUint64 && rl.Cur < math.MaxInt64 {
		if as := int64(rl.Cur); !ok || as < limit {
			limit, what, ok = as, "the process's address-space limit", true
		}
	}
	return limit, what, ok
}

// estimateLoad is w's estimate for loaders, this shard's part of its rows, time and memory (Bytes
// stays the whole load's: every shard writes into the same database). ok false: w states none.
func estimateLoad(w workload.Workload, loaders int, shard workload.Shard) (workload.LoadEstimate, bool) {
	e, ok := w.(workload.LoadEstimator)
	if !ok {
		return workload.LoadEstimate{}, false
	}
	est := e.EstimateLoad(loaders)
	if sh, ok := w.(workload.Sharder); ok && shard.Sharded() && est.Rows > 0 {
		est.Rows = min(est.Rows, sh.ShardRows(shard))
	}
	return est, true
}

// judgeLoad refuses, before anything connects, a load past the time or memory bound (unless
// allow); the text is the estimate's line for the user.
func judgeLoad(p LoadPlan, est workload.LoadEstimate) (line string, err error) {
	r := rateFor(p.DB)
	secs := loadTime(est, r)
	name := p.Workload.Info().Name
	line = fmt.Sprintf("load estimate: %s rows, at least %s on disk, %s in memory at once; at least %s at %s rows/s (%s rate)",
		report.Grouped(est.Rows, ","), sizeText(est.Bytes), sizeText(est.PeakMemory), durationText(secs), report.Grouped(int64(r.rows), ","), r.source)
	var refusals []string
	if secs > MaxLoadTime.Seconds() {
		refusals = append(refusals, fmt.Sprintf("this %s load of %s rows (at least %s) takes at least %s at %s rows/s (%s rate), more than the %s a load may take",
			name, report.Grouped(est.Rows, ","), sizeText(est.Bytes), durationText(secs), report.Grouped(int64(r.rows), ","), r.source, durationText(MaxLoadTime.Seconds())))
	}
	if limit, what, ok := memoryLimit(); ok && est.PeakMemory > limit/2 {
		refusals = append(refusals, fmt.Sprintf("this %s load's generators hold %s at once with %d loader%s, more than half of %s (%s)",
			name, sizeText(est.PeakMemory), p.Loaders, plural(p.Loaders), what, sizeText(limit)))
	}
	if len(refusals) == 0 {
		return line, nil
	}
	if p.AllowLarge {
		return line + "; past the bounds, loading anyway (" + AllowLargeFlag + "): " + strings.Join(refusals, "; "), nil
	}
	return line, userr.Errorf("%s: load less, or pass %s to load it anyway", strings.Join(refusals, "; and "), AllowLargeFlag)
}

// judgeDisk refuses a load whose bytes do not fit on the disk of db where candor can see it
// (SQLite's file; the data directory of a PostgreSQL, MySQL or MariaDB server on this host that says
// where it is), before anything is dropped or created (unless allow). What the database holds now
// counts as room (a --drop frees it). The text says what was found, "unknown" with why otherwise.
func judgeDisk(ctx context.Context, db driver.DB, est workload.LoadEstimate, name string, allow bool, w any) (string, error) {
	dir, used, why := dataDir(ctx, db)
	if why != "" {
		return "disk: unknown (" + why + ")", nil
	}
	if pl, ok := w.(placedLoad); ok {
		dirs, shares, held, err := pl.LoadPlaces(ctx, db)
		if err != nil {
			return "disk: unknown (where the load's tablespaces are cannot be read: " + err.Error() + ")", nil
		}
		if len(dirs) > 0 {
			return judgePlaces(est, name, allow, dir, used, dirs, shares, held)
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Sprintf("disk: unknown (%s cannot be read here: %v)", dir, err), nil
	}
	free := workload.Sum(workload.Product(int64(st.Bavail), int64(st.Bsize)), used)
	line := fmt.Sprintf("disk: %s free on the disk of %s", sizeText(free), dir)
	if est.Bytes <= free {
		return line, nil
	}
	msg := fmt.Sprintf("this %s load needs at least %s of disk, and the disk of %s has %s free (counting what the database holds now)", name, sizeText(est.Bytes), dir, sizeText(free))
	if allow {
		return line + "; past it, loading anyway (" + AllowLargeFlag + "): " + msg, nil
	}
	return line, userr.Errorf("%s: load less, free some space, or pass %s to load it anyway", msg, AllowLargeFlag)
}

// placedLoad is a workload whose load may put its data in other directories than the database's
// data directory (TPC-C's --tablespaces).
type placedLoad interface {
	// LoadPlaces says, for a server on this host, the directories the load writes into, each one's
	// share of the load's bytes, and the bytes the database holds there now (room a --drop frees);
	// "" is the database's data directory. None: it all goes there.
	LoadPlaces(ctx context.Context, db driver.DB) (dirs []string, shares []float64, held []int64, err error)
}

// judgePlaces is judgeDisk for a load spread over dirs: the bytes each filesystem gets (the rest of
// the shares in the data directory dir, which holds used now) against its free space and what the
// database holds on it now.
func judgePlaces(est workload.LoadEstimate, name string, allow bool, dir string, used int64, dirs []string, shares []float64, held []int64) (string, error) {
	type disk struct {
		dirs       []string
		free, need int64
	}
	var disks []*disk
	byFS := map[uint64]*disk{} // by device: directories on one filesystem share its free space
	counted := map[string]bool{}
	rest := 1.0
	add := func(d string, share float64, h int64) error {
		var st syscall.Statfs_t
		var dev syscall.Stat_t
		if err := syscall.Statfs(d, &st); err != nil {
			return fmt.Errorf("%s cannot be read here: %v", d, err)
		}
		if err := syscall.Stat(d, &dev); err != nil {
			return fmt.Errorf("%s cannot be read here: %v", d, err)
		}
		fs := byFS[uint64(dev.Dev)]
		if fs == nil {
			fs = &disk{free: workload.Product(int64(st.Bavail), int64(st.Bsize))}
			byFS[uint64(dev.Dev)] = fs
			disks = append(disks, fs)
		}
		if !counted[d] {
			counted[d] = true
			fs.dirs = append(fs.dirs, d)
			fs.free = workload.Sum(fs.free, h)
		}
		fs.need = workload.Sum(fs.need, int64(share*float64(est.Bytes)))
		return nil
	}
	for i, d := range dirs {
		h := held[i]
		if d == "" {
			d, h = dir, used
		}
		rest -= shares[i]
		if err := add(d, shares[i], h); err != nil {
			return "disk: unknown (" + err.Error() + ")", nil
		}
	}
	if err := add(dir, max(rest, 0), used); err != nil {
		return "disk: unknown (" + err.Error() + ")", nil
	}
	var parts, over []string
	for _, k := range disks {
		if k.need == 0 && len(k.dirs) == 1 && k.dirs[0] == dir {
			continue // the data directory gets nothing of the load's tables
		}
		where := strings.Join(k.dirs, " and ")
		parts = append(parts, fmt.Sprintf("%s free on the disk of %s for at least %s", sizeText(k.free), where, sizeText(k.need)))
		if k.need > k.free {
			over = append(over, fmt.Sprintf("this %s load puts at least %s on the disk of %s, which has %s free (counting what the database holds there now)", name, sizeText(k.need), where, sizeText(k.free)))
		}
	}
	line := "disk: " + strings.Join(parts, "; ")
	if len(over) == 0 {
		return line, nil
	}
	msg := strings.Join(over, "; and ")
	if allow {
		return line + "; past it, loading anyway (" + AllowLargeFlag + "): " + msg, nil
	}
	return line, userr.Errorf("%s: load less, free some space, or pass %s to load it anyway", msg, AllowLargeFlag)
}

// dataDir is where db keeps its files on this host and the bytes it holds now, or why that is
// unknown.
func dataDir(ctx context.Context, db driver.DB) (dir string, used int64, why string) {
	if p, ok := db.(interface{ Path() string }); ok {
		if fi, err := os.Stat(p.Path()); err == nil {
			used = fi.Size()
		}
		dir, err := filepath.Abs(filepath.Dir(p.Path()))
		if err != nil {
			return "", 0, err.Error()
		}
		return dir, used, ""
	}
	var size float64
	var addr string
	c, err := db.Connect(ctx)
	if err != nil {
		return "", 0, "cannot connect to ask: " + err.Error()
	}
	defer c.Close()
	// Only engines that keep the data on one disk of the server's: not CockroachDB, YugabyteDB, TiDB
	// or Dolt.
	switch db.Dialect().Name {
	case "postgres":
		if err := c.QueryRow(ctx, "SELECT current_setting('data_directory'), pg_database_size(current_database())::float8, coalesce(host(inet_server_addr()), '')").Scan(&dir, &size, &addr); err != nil {
			return "", 0, "the server does not say where its data directory is to this user"
		}
	case "mysql", "mariadb":
		a, ok := db.(interface{ ServerHost() string })
		if !ok {
			return "", 0, "the server's address is unknown"
		}
		if err := c.QueryRow(ctx, "SELECT @@datadir, (SELECT coalesce(sum(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE())").Scan(&dir, &size); err != nil {
			return "", 0, "the server does not say where its data directory is to this user"
		}
		addr = a.ServerHost()
	default:
		return "", 0, db.Dialect().Name + " spreads its data over its own nodes"
	}
	if ip := net.ParseIP(addr); addr != "" && (ip == nil || !ip.IsLoopback()) {
		return "", 0, "a server on another host"
	}
	if dir == "" {
		return "", 0, "the server does not say where its data directory is"
	}
	return dir, int64(size), ""
}

// sizeText is a byte count with a binary unit, up to EiB: 112.4 MiB, 8.0 EiB (math.MaxInt64, a
// saturated estimate).
func sizeText(b int64) string { return report.BytesIEC(float64(b)) }

// durationText is a time in seconds in the largest unit that keeps it readable: 0.4 s, 12 minutes,
// 3.5 hours, 2.1 days, 7.9 years (thousands grouped past 10,000 years).
func durationText(secs float64) string {
	const year = 365 * 86400
	switch {
	case secs >= 10_000*year:
		if secs/year > math.MaxInt64/2 {
			return "more than a quintillion years"
		}
		return report.Grouped(int64(secs/year), ",") + " years"
	case secs >= year:
		return fmt.Sprintf("%.1f years", secs/year)
	case secs >= 2*86400:
		return fmt.Sprintf("%.1f days", secs/86400)
	case secs >= 2*3600:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", secs/3600), ".0") + " hours"
	case secs >= 120:
		return fmt.Sprintf("%.0f minutes", secs/60)
	}
	return fmt.Sprintf("%.1f s", secs)
}

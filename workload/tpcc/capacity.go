package tpcc

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// What one load can write, judged before anything connects or is dropped: a warehouse count whose
// load could not finish is refused with its rows, bytes and time (the fault pass's load of a billion
// warehouses dropped the loaded tables, then ran out of memory).
const (
	// minWarehouseBytes is a lower bound of a loaded warehouse's size with its keys and indexes
	// (SQLite: 85 MiB for 1 warehouse, of which about 10 MiB is ITEM; PostgreSQL about 100 MB).
	minWarehouseBytes = 70 << 20
	// fastLoadRate is an optimistic load rate, rows per second, above what candor reaches on any
	// engine, so that a refused count could not have loaded on faster hardware either.
	fastLoadRate = 2_000_000
	// maxLoadTime is the longest load accepted at fastLoadRate.
	maxLoadTime = 30 * 24 * time.Hour
)

// rowsPerWarehouse is the rows of one warehouse (ExpectedRows without ITEM).
var rowsPerWarehouse = ExpectedRows(1) - Items

// MaxWarehouses is the largest warehouse count a load accepts: the one whose rows load in
// maxLoadTime at fastLoadRate.
func MaxWarehouses() int {
	return int((int64(maxLoadTime/time.Second)*fastLoadRate - Items) / rowsPerWarehouse)
}

// loadSize describes the load of W warehouses in rows, bytes and time, for messages: "499 trillion
// rows, at least 66,757 TiB, at least 7.9 years at 2,000,000 rows/s".
func loadSize(W int) string {
	rows := float64(Items) + float64(W)*float64(rowsPerWarehouse)
	secs := rows / fastLoadRate
	var t string
	switch {
	case secs >= 365*86400:
		t = fmt.Sprintf("%.1f years", secs/(365*86400))
	case secs >= 86400:
		t = fmt.Sprintf("%.1f days", secs/86400)
	default:
		t = fmt.Sprintf("%.1f hours", secs/3600)
	}
	size := fmt.Sprintf("%s GiB", report.Grouped(int64(float64(W)*minWarehouseBytes/(1<<30)), ","))
	if tib := float64(W) * minWarehouseBytes / (1 << 40); tib >= 1 {
		size = fmt.Sprintf("%s TiB", report.Grouped(int64(tib), ","))
	}
	return fmt.Sprintf("%s rows, at least %s, at least %s at %s rows/s", approx(rows), size, t, report.Grouped(fastLoadRate, ","))
}

// approx writes a large count with a word: 499 trillion, 5.2 billion, 1,234,567.
func approx(n float64) string {
	switch {
	case n >= 1e12:
		return fmt.Sprintf("%.0f trillion", n/1e12)
	case n >= 1e9:
		return fmt.Sprintf("%.1f billion", n/1e9)
	}
	return report.Grouped(int64(n), ",")
}

// capacityProblem is why W warehouses cannot be loaded at all, or "".
func capacityProblem(W int) string {
	if W <= MaxWarehouses() {
		return ""
	}
	return fmt.Sprintf("--warehouses %s cannot be loaded: that is %s (more than %d days); load at most %s warehouses",
		report.Grouped(int64(W), ","), loadSize(W), int(maxLoadTime.Hours()/24), report.Grouped(int64(MaxWarehouses()), ","))
}

// checkRoom refuses, before anything is dropped or created, a load that cannot fit on the disk of
// the database, where candor can see that disk: SQLite's file, or the data directory of a server
// on this host that says where it is (PostgreSQL to a superuser or pg_read_all_settings, MySQL and
// MariaDB's @@datadir). What the database holds now counts as room (a --drop frees it). Elsewhere the
// load finds out.
func checkRoom(ctx context.Context, db driver.DB, c driver.Conn, W int) error {
	dir, used, ok := dataDir(ctx, db, c)
	if !ok {
		return nil
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return nil // not on this host after all, or not ours to look at
	}
	free := int64(st.Bavail)*int64(st.Bsize) + used
	need := int64(W) * minWarehouseBytes
	if need > free {
		return userr.Errorf("%s warehouses need at least %s of disk, and the disk of %s has %s free: load fewer warehouses or free some space",
			report.Grouped(int64(W), ","), report.BytesIEC(float64(need)), dir, report.BytesIEC(float64(free)))
	}
	return nil
}

// dataDir is where db keeps its files on this host and the bytes it holds now, when that is known.
func dataDir(ctx context.Context, db driver.DB, c driver.Conn) (dir string, used int64, ok bool) {
	if p, ok := db.(interface{ Path() string }); ok {
		if fi, err := os.Stat(p.Path()); err == nil {
			used = fi.Size()
		}
		return filepath.Dir(p.Path()), used, true
	}
	var size float64
	var addr string
	// Only the engines whose warehouse size minWarehouseBytes bounds (stored uncompressed, as
	// measured): not CockroachDB, YugabyteDB, TiDB or Dolt, which store it otherwise.
	switch engineName(db) {
	case "postgres":
		if err := c.QueryRow(ctx, "SELECT current_setting('data_directory'), pg_database_size(current_database())::float8, coalesce(host(inet_server_addr()), '')").Scan(&dir, &size, &addr); err != nil {
			return "", 0, false
		}
	case "mysql", "mariadb":
		if err := c.QueryRow(ctx, "SELECT @@datadir, (SELECT coalesce(sum(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE())").Scan(&dir, &size); err != nil {
			return "", 0, false
		}
		if a, ok := db.(interface{ ServerHost() string }); ok {
			addr = a.ServerHost()
		} else {
			return "", 0, false
		}
	default:
		return "", 0, false
	}
	if ip := net.ParseIP(addr); addr != "" && (ip == nil || !ip.IsLoopback()) || dir == "" {
		return "", 0, false // a server elsewhere: its data directory is not this host's
	}
	return dir, int64(size), true
}

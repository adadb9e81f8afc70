package sysmon

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/sysinfo"
)

// wantDevice is the block device holding path, read here from stat(2) and /sys/dev/block: the test
// servers run on this host, so a path the server names must be found on it.
func wantDevice(t *testing.T, path string) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	dev := uint64(st.Dev) //nolint:unconvert
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	if major == 0 {
		return "unknown: device 0:" + fmt.Sprint(minor) // a tmpfs or overlay: no block device
	}
	real, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", major, minor))
	if err != nil {
		t.Fatalf("%s's device %d:%d: %v", path, major, minor, err)
	}
	return filepath.Base(real)
}

// checkPlace: the disclosure places role at path, on its device, and that device's settings are
// disclosed.
func checkPlace(t *testing.T, d Disclosure, role, path string) {
	t.Helper()
	if d.System == nil {
		t.Fatal("no system disclosed")
	}
	for _, p := range d.System.Storage {
		if p.Role != role {
			continue
		}
		want := wantDevice(t, path)
		if p.Path != path || !strings.HasPrefix(p.Device, want) || sysinfo.IsUnknown(p.FS) {
			t.Errorf("%s: %+v, want %s on %s with its file system", role, p, path, want)
		}
		if sysinfo.IsUnknown(p.Device) {
			return
		}
		for _, dev := range d.System.Devices {
			if dev.Name == p.Disk && !sysinfo.IsUnknown(dev.ReadAheadKB) {
				return
			}
		}
		t.Errorf("%s's disk %s is not among the devices: %+v", role, p.Disk, d.System.Devices)
		return
	}
	t.Errorf("no %s among %+v", role, d.System.Storage)
}

// TestDiscloseSystemPostgres: data_directory, the WAL and a tablespace are found on their devices
// (the test server runs on this host), and the huge-page settings are disclosed.
func TestDiscloseSystemPostgres(t *testing.T) {
	ctx := t.Context()
	raw := dbtest.FreshPostgresURL(t, "candor_sysinfo")
	db, err := driver.Open(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var dataDir string
	err = c.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dataDir)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	// a tablespace in a directory of the server's own user (the owner of its data directory)
	var st syscall.Stat_t
	if err := syscall.Stat(dataDir, &st); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "candor-tblspc-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chown(dir, int(st.Uid), int(st.Gid)); err != nil {
		t.Fatal(err)
	}
	name := "candor_sysinfo_" + strings.ToLower(filepath.Base(dir)[len("candor-tblspc-"):])
	if err := dbtest.Exec(raw, "CREATE TABLESPACE "+name+" LOCATION '"+dir+"'"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := dbtest.Exec(raw, "DROP TABLESPACE "+name); err != nil {
			t.Error(err)
		}
	}()

	d := Disclose(ctx, db)
	if len(d.Errors) > 0 {
		t.Fatalf("disclosure errors: %v", d.Errors)
	}
	t.Logf("%+v", d.System.Storage)
	checkPlace(t, d, "data", dataDir)
	wal := filepath.Join(dataDir, "pg_wal")
	if target, err := os.Readlink(wal); err == nil {
		wal = target
	}
	checkPlace(t, d, "wal", wal)
	checkPlace(t, d, "tablespace "+name, dir)
	for _, k := range []string{"huge_pages", "shared_memory_type"} {
		if d.Settings[k] == "" {
			t.Errorf("%s not disclosed: %v", k, d.Settings)
		}
	}
	if d.System.Host != "the database's and the driver's" || sysinfo.IsUnknown(d.System.Kernel) {
		t.Errorf("system %+v", d.System)
	}
}

// TestDiscloseSystemMySQL: datadir and InnoDB's redo log and system tablespace are found on their
// devices, and large_pages is disclosed.
func TestDiscloseSystemMySQL(t *testing.T) {
	ctx := t.Context()
	db := dbtest.FreshMySQL(t, "candor_sysinfo")
	d := Disclose(ctx, db)
	if len(d.Errors) > 0 {
		t.Fatalf("disclosure errors: %v", d.Errors)
	}
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var dataDir, logDir string
	if err := c.QueryRow(ctx, "SELECT @@datadir, @@innodb_log_group_home_dir").Scan(&dataDir, &logDir); err != nil {
		t.Fatal(err)
	}
	dataDir = filepath.Clean(dataDir)
	if !filepath.IsAbs(logDir) {
		logDir = filepath.Join(dataDir, logDir)
	}
	t.Logf("%+v", d.System.Storage)
	checkPlace(t, d, "data", dataDir)
	checkPlace(t, d, "redo log", filepath.Clean(logDir))
	if d.Settings["large_pages"] == "" {
		t.Errorf("large_pages not disclosed: %v", d.Settings)
	}
}

// TestDiscloseSystemSQLite: the file and its WAL.
func TestDiscloseSystemSQLite(t *testing.T) {
	db := dbtest.SQLite(t)
	c, err := db.Connect(t.Context()) // an open connection keeps the WAL file
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(t.Context(), "CREATE TABLE t (a int)"); err != nil {
		t.Fatal(err)
	}
	d := Disclose(t.Context(), db)
	path := db.(interface{ Path() string }).Path()
	checkPlace(t, d, "data", path)
	checkPlace(t, d, "wal", path+"-wal")
}

// TestDiscloseSystemPostgresRefused: a role without superuser or pg_read_all_settings is refused
// data_directory, and the disclosure says so instead of a path.
func TestDiscloseSystemPostgresRefused(t *testing.T) {
	raw := dbtest.FreshPostgresURL(t, "candor_sysinfo")
	role := "candor_sysinfo_" + strings.ToLower(filepath.Base(t.TempDir()))
	if err := dbtest.Exec(raw, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dbtest.Exec(raw, "DROP ROLE "+role); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	db, err := driver.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	d := Disclose(t.Context(), db)
	db.Close()
	if d.System == nil || len(d.System.Storage) < 2 {
		t.Fatalf("system %+v, errors %v", d.System, d.Errors)
	}
	for _, p := range d.System.Storage[:2] {
		if p.Path != "" || !strings.Contains(p.Device, "refused to show data_directory (it takes superuser or pg_read_all_settings)") {
			t.Errorf("%+v", p)
		}
	}
}

// TestPGWAL: pg_wal linked elsewhere (initdb --waldir) is followed, absolutely or relatively; a
// directory is the WAL's place itself; a server elsewhere is not looked at.
func TestPGWAL(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ data, link, want string }{
		{"abs", filepath.Join(dir, "walabs"), filepath.Join(dir, "walabs")},
		{"rel", "../walrel", filepath.Join(dir, "walrel")},
		{"plain", "", filepath.Join(dir, "plain", "pg_wal")},
	} {
		data := filepath.Join(dir, c.data)
		if err := os.MkdirAll(data, 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if c.link == "" {
			err = os.Mkdir(filepath.Join(data, "pg_wal"), 0o755)
		} else {
			err = os.Symlink(c.link, filepath.Join(data, "pg_wal"))
		}
		if err != nil {
			t.Fatal(err)
		}
		if p := pgWAL(data, true); p.Path != c.want || p.Unknown != "" {
			t.Errorf("%s: %+v, want %s", c.data, p, c.want)
		}
		if p := pgWAL(data, false); p.Path != filepath.Join(data, "pg_wal") {
			t.Errorf("%s, not on this host: %+v", c.data, p)
		}
	}
	if p := pgWAL(filepath.Join(dir, "missing"), true); p.Path != "" || !strings.Contains(p.Unknown, "no such file") {
		t.Errorf("a missing data directory: %+v", p)
	}
}

// TestDiscloseSystemNull: the null engine has no files; its system is the driver's host's.
func TestDiscloseSystemNull(t *testing.T) {
	db, err := driver.Open(t.Context(), "null:?service=fixed:1ms")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := Disclose(t.Context(), db)
	if d.System == nil || len(d.System.Storage) != 0 || d.System.Host != "the driver's (the null engine has no database)" || sysinfo.IsUnknown(d.System.CPU.Threads) {
		t.Errorf("the null engine's system: %+v", d.System)
	}
}

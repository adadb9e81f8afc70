package sysmon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/sysinfo"
)

// systemRoot is where the system is read from: this host (tests give a fixture tree).
var systemRoot = sysinfo.Host()

// PGHugePageSettings are PostgreSQL's settings of its shared memory's huge pages, disclosed where
// the server has them: whether it asks for them (huge_pages: try, on, off), whether it got them
// (huge_pages_status, 17+), their size, and the kind of shared memory (mmap, sysv).
var PGHugePageSettings = []string{"huge_pages", "huge_pages_status", "huge_page_size", "shared_memory_type"}

// discloseSystem reads where the database keeps its files (kind is Disclose's engine family) and
// the system they and the driver run on (package sysinfo) into d.System; the database's huge-page
// settings join d.Settings. What cannot be read is named in the places or in d.Errors.
func discloseSystem(ctx context.Context, db driver.DB, kind string, d *Disclosure) {
	var places []sysinfo.Place
	var err error
	switch kind {
	case "postgres":
		places, err = pgPlaces(ctx, db, d)
	case driver.FamilyMySQL:
		places, err = mysqlPlaces(ctx, db, d)
	case "sqlite":
		if p, ok := db.(interface{ Path() string }); ok {
			places = sqlitePlaces(p.Path())
		}
	}
	if err != nil {
		d.Errors = append(d.Errors, err.Error())
	}
	sys := sysinfo.Read(systemRoot, places, d.OnDriverHost)
	if kind == "null" {
		sys.Host = "the driver's (the null engine has no database)"
	}
	d.System = &sys
}

// pgPlaces reads data_directory (which needs superuser or pg_read_all_settings), the WAL's
// directory (pg_wal, or where it links to when the server is on this host) and each tablespace's
// location, and the huge-page settings.
func pgPlaces(ctx context.Context, db driver.DB, d *Disclosure) ([]sysinfo.Place, error) {
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to read the database's files: %w", err)
	}
	defer c.Close()
	q := "SELECT name, current_setting(name, true) FROM unnest(ARRAY['" + strings.Join(PGHugePageSettings, "','") + "']) AS name" +
		" WHERE current_setting(name, true) IS NOT NULL"
	hp, err := readSettings(ctx, c, q)
	if err != nil {
		return nil, err
	}
	if d.Settings == nil {
		d.Settings = map[string]string{}
	}
	for k, v := range hp {
		d.Settings[k] = v
	}
	var places []sysinfo.Place
	var dataDir string
	if err := c.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dataDir); err != nil {
		why := sysinfo.Unknown("the server refused to show data_directory (it takes superuser or pg_read_all_settings): %v", err)
		places = append(places, sysinfo.Place{Role: "data", Unknown: why}, sysinfo.Place{Role: "wal", Unknown: why})
	} else {
		places = append(places, sysinfo.Place{Role: "data", Path: dataDir}, pgWAL(dataDir, d.OnDriverHost))
	}
	rows, err := c.Query(ctx, "SELECT spcname, pg_tablespace_location(oid) FROM pg_tablespace WHERE pg_tablespace_location(oid) <> '' ORDER BY spcname")
	if err != nil {
		return places, fmt.Errorf("reading the tablespaces: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, loc string
		if err := rows.Scan(&name, &loc); err != nil {
			return places, fmt.Errorf("reading the tablespaces: %w", err)
		}
		places = append(places, sysinfo.Place{Role: "tablespace " + name, Path: loc})
	}
	if err := rows.Err(); err != nil {
		return places, fmt.Errorf("reading the tablespaces: %w", err)
	}
	return places, nil
}

// pgWAL is the WAL's directory: data_directory/pg_wal, or the directory it links to (initdb
// --waldir) when the server runs on this host and the link can be read.
func pgWAL(dataDir string, local bool) sysinfo.Place {
	p := sysinfo.Place{Role: "wal", Path: filepath.Join(dataDir, "pg_wal")}
	if !local {
		return p
	}
	target, err := os.Readlink(p.Path)
	switch {
	case err == nil && filepath.IsAbs(target):
		p.Path = target
	case err == nil:
		p.Path = filepath.Join(dataDir, target)
	case errors.Is(err, syscall.EINVAL): // not a link: the WAL is in the data directory
	default:
		p.Path, p.Unknown = "", sysinfo.Unknown("reading the link %s: %v", p.Path, err)
	}
	return p
}

// MySQLFileVariables are the MySQL/MariaDB variables naming where InnoDB keeps its files, and
// large_pages (whether the buffer pool asks for huge pages).
var MySQLFileVariables = []string{"datadir", "innodb_log_group_home_dir", "innodb_data_home_dir", "large_pages"}

// mysqlPlaces reads datadir, the redo log's directory and the system tablespace's (either, when
// relative or empty, inside datadir), and large_pages.
func mysqlPlaces(ctx context.Context, db driver.DB, d *Disclosure) ([]sysinfo.Place, error) {
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to read the database's files: %w", err)
	}
	defer c.Close()
	v, err := readSettings(ctx, c, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(MySQLFileVariables, "','")+"')")
	if err != nil {
		return nil, err
	}
	if lp, ok := v["large_pages"]; ok && !isDolt(db) { // Dolt has the variable but not InnoDB's buffer pool
		if d.Settings == nil {
			d.Settings = map[string]string{}
		}
		d.Settings["large_pages"] = lp
	}
	dataDir, ok := v["datadir"]
	if !ok || dataDir == "" {
		return []sysinfo.Place{{Role: "data", Unknown: sysinfo.Unknown("the server has no datadir variable")}}, nil
	}
	dataDir = filepath.Clean(dataDir)
	places := []sysinfo.Place{{Role: "data", Path: dataDir}}
	for _, x := range []struct{ role, name string }{{"redo log", "innodb_log_group_home_dir"}, {"system tablespace", "innodb_data_home_dir"}} {
		dir, ok := v[x.name]
		if !ok {
			continue // not InnoDB's server (TiDB, Dolt)
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(dataDir, dir)
		}
		places = append(places, sysinfo.Place{Role: x.role, Path: filepath.Clean(dir)})
	}
	return places, nil
}

// sqlitePlaces are the database's file and its WAL, when there is one.
func sqlitePlaces(path string) []sysinfo.Place {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	places := []sysinfo.Place{{Role: "data", Path: path}}
	if _, err := os.Stat(path + "-wal"); err == nil {
		places = append(places, sysinfo.Place{Role: "wal", Path: path + "-wal"})
	}
	return places
}

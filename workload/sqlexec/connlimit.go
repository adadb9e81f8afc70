package sqlexec

import (
	"fmt"
	"syscall"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/textfmt"
)

// MaxSingleWriterConnections caps the default connections of a closed-loop run on an engine with one
// writer at a time (SQLite): more only wait for its lock, each holding files and a page cache of its
// own. Terminals past it share the connections (a terminal waits for a free one, in its response
// time), as TPC-C's spec mode does; --connections sets more, within the open files the process may
// have (CheckConnections).
const MaxSingleWriterConnections = 256

// reservedFiles are the open files left for what is not a connection: the binary's own, result
// files, the log, the terminal.
const reservedFiles = 128

// filesPerConnection is the files one connection holds open: a socket, or SQLite's database file
// and its write-ahead log (the shared-memory index is one per process).
func filesPerConnection(db driver.DB) int {
	if db != nil && db.Dialect().SingleWriter {
		return 2
	}
	return 1
}

// openFilesLimit is the process's limit of open files (RLIMIT_NOFILE's soft limit, which Go's
// runtime raises to the hard one as the process starts), 0 when unknown.
var openFilesLimit = func() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<40 {
		return 0
	}
	return int64(rl.Cur)
}

// CheckConnections refuses conns connections to db (what says where they come from: "--terminals
// 1000000 in throughput mode, one connection each") when they need more open files than the process
// may have: the run would fail part way with "too many open files" after opening thousands.
func CheckConnections(db driver.DB, conns int, what string) error {
	limit := openFilesLimit()
	if limit == 0 || db == nil || db.Kind() == "null" { // the null engine's connections hold no files
		return nil
	}
	per := int64(filesPerConnection(db))
	need := int64(conns) * per
	if need+reservedFiles <= limit {
		return nil
	}
	most := max(0, (limit-reservedFiles)/per)
	return userr.Errorf("%s connections (%s) need about %s open files, more than this process may have (ulimit -n: %s): give --connections %s or fewer (terminals beyond them share them), or raise ulimit -n",
		textfmt.Thousands(int64(conns)), what, textfmt.Thousands(need), textfmt.Thousands(limit), textfmt.Thousands(most))
}

// connectionsWhat says where a run's connections came from, for CheckConnections.
func connectionsWhat(given, conns int) string {
	if given > 0 {
		return fmt.Sprintf("--connections %d", given)
	}
	return fmt.Sprintf("one per terminal, %s terminals", textfmt.Thousands(int64(conns)))
}

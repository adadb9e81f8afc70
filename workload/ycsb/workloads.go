package ycsb

import (
	"embed"
	"fmt"
	"strings"
)

// The six workload files of YCSB's workloads/ directory, with YCSB's exact property values.
//
//go:embed workloads/workload[a-f]
var builtinFiles embed.FS

// BuiltinNames are the built-in workloads' short names.
var BuiltinNames = []string{"a", "b", "c", "d", "e", "f"}

// Builtin returns the properties of YCSB's core workload A to F, by short name ("a") or file name
// ("workloada"), case-insensitive:
//
//	a  50% read, 50% update, zipfian
//	b  95% read, 5% update, zipfian
//	c  100% read, zipfian
//	d  95% read, 5% insert, latest
//	e  95% scan, 5% insert, zipfian; scans of 1..100 records, uniform
//	f  50% read, 50% read-modify-write, zipfian
//
// Each sets recordcount=1000 and operationcount=1000, as YCSB's files do; override them with a
// later layer (Merge).
func Builtin(name string) (Properties, error) {
	n := strings.TrimPrefix(strings.ToLower(name), "workload")
	if len(n) != 1 || n[0] < 'a' || n[0] > 'f' {
		return nil, fmt.Errorf("ycsb: no built-in workload %q (allowed: a to f, or workloada to workloadf)", name)
	}
	f, err := builtinFiles.Open("workloads/workload" + n)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseProperties(f)
}

// IsBuiltin reports whether name names a built-in workload.
func IsBuiltin(name string) bool {
	_, err := Builtin(name)
	return err == nil
}

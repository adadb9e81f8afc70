package pgscript

import (
	"strings"

	"github.com/candor-bench/candor/userr"
)

// Builtin is one of pgbench's built-in scripts, with its text as `pgbench --show-script=NAME`
// prints it (PostgreSQL 15-17).
type Builtin struct {
	Name, Desc, Script string
}

// Builtins are pgbench's built-in scripts: tpcb-like (the default), simple-update (-N) and
// select-only (-S).
var Builtins = []Builtin{
	{"tpcb-like", "<builtin: TPC-B (sort of)>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"simple-update", "<builtin: simple update>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"select-only", "<builtin: select only>", `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`},
}

// FindBuiltin returns the built-in script named name or by an unambiguous prefix of its name, as
// pgbench's findBuiltin.
func FindBuiltin(name string) (*Builtin, error) {
	var found []*Builtin
	for i := range Builtins {
		if strings.HasPrefix(Builtins[i].Name, name) {
			found = append(found, &Builtins[i])
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		return nil, userr.Errorf("no builtin script found for name %q: the built-in scripts are %s", name, builtinNames())
	}
	return nil, userr.Errorf("ambiguous builtin name: %d builtin scripts found for prefix %q: the built-in scripts are %s", len(found), name, builtinNames())
}

func builtinNames() string {
	var n []string
	for _, b := range Builtins {
		n = append(n, b.Name)
	}
	return strings.Join(n, ", ")
}

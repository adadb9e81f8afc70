package tpcc

import "github.com/candor-bench/candor/workload/loadstate"

// keyBuilt reports whether t's primary key is there (loadstate.Keys): on MySQL the key itself, on
// PostgreSQL and SQLite also the unique index it is made from (keySQL's first statement).
func keyBuilt(k loadstate.Keys, dialect string, t *table) bool {
	if dialect == dialectMySQL {
		return k.PrimaryKeys[t.name]
	}
	return k.Indexes[t.pkName()] || k.PrimaryKeys[t.name]
}

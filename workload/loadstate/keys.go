package loadstate

import (
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// Keys is what the catalog shows of the indexes and primary keys where c's unqualified names
// resolve: the indexes by name (primary keys' own indexes left out on MySQL, where each is named
// PRIMARY), and the tables that have a primary key. A load that builds its keys after its rows
// reads it when it resumes (shard 0 started again after a stop in the middle of the build), to
// build only what is missing: each index or key is made by one statement that completes or leaves
// nothing (PostgreSQL's DDL is transactional, InnoDB's and SQLite's atomic), so what the catalog
// shows is whole.
type Keys struct {
	Indexes     map[string]bool
	PrimaryKeys map[string]bool
}

// keysSQL are the two queries of ReadKeys in each family: the index names, then the tables with
// a primary key. pg_catalog: CockroachDB and YugabyteDB have it too.
var keysSQL = map[string][2]string{
	sqlexec.FamilyPostgres: {
		`SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema()`,
		`SELECT cl.relname::text FROM pg_constraint c JOIN pg_class cl ON cl.oid = c.conrelid
		JOIN pg_namespace n ON n.oid = cl.relnamespace WHERE c.contype = 'p' AND n.nspname = current_schema()`,
	},
	driver.FamilyMySQL: {
		`SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name <> 'PRIMARY'`,
		`SELECT DISTINCT table_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = 'PRIMARY'`,
	},
	sqlexec.FamilySQLite: {
		`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`,
		`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%PRIMARY KEY%'`,
	},
}

// ReadKeys reads the indexes and primary keys there are now, asked in family's SQL; names are
// lower case.
func ReadKeys(ctx context.Context, c driver.Conn, family string) (Keys, error) {
	q, ok := keysSQL[family]
	if !ok {
		return Keys{}, fmt.Errorf("reading the indexes: no SQL for the family %q", family)
	}
	k := Keys{Indexes: map[string]bool{}, PrimaryKeys: map[string]bool{}}
	for i, into := range []map[string]bool{k.Indexes, k.PrimaryKeys} {
		if err := names(ctx, c, q[i], into); err != nil {
			return Keys{}, fmt.Errorf("reading the indexes and keys built: %w", err)
		}
	}
	return k, nil
}

// names adds the first column of query's rows to into, in lower case.
func names(ctx context.Context, c driver.Conn, query string, into map[string]bool) error {
	rows, err := c.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		into[strings.ToLower(name)] = true
	}
	return rows.Err()
}

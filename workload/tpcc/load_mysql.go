package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/candor-bench/candor/driver"
)

// The MySQL load: parallel loaders, each unit in one transaction through the driver's bulk path
// (streamed LOAD DATA LOCAL INFILE when the server allows it, multi-row INSERTs otherwise), into
// tables that have their primary keys already (mysqlKeysFirst); the two secondary indexes are built
// afterwards, then the statistics.

// mysqlLoaderSetup is run on each loader's connection.
var mysqlLoaderSetup = []string{}

// buildKeysMySQL builds the secondary indexes (and the primary keys if the tables were created
// without them) on up to `loaders` connections, then refreshes InnoDB's statistics of every table.
func buildKeysMySQL(ctx context.Context, db driver.DB, loaders int, tasks []string) error {
	phase := time.Now()
	if err := runStatements(ctx, db, loaders, nil, tasks); err != nil {
		return fmt.Errorf("building keys and indexes: %w", err)
	}
	loadTrace("keys and indexes", time.Since(phase))
	phase = time.Now()
	var analyze []string
	for _, t := range bySize {
		analyze = append(analyze, "ANALYZE TABLE "+t.name)
	}
	if err := runStatements(ctx, db, loaders, nil, analyze); err != nil {
		return fmt.Errorf("collecting statistics: %w", err)
	}
	loadTrace("statistics", time.Since(phase))
	return nil
}

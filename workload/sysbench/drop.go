package sysbench

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// Drop removes the sysbench load from db: the tables a load --drop replaces and the record
// (workload.Dropper, `candor sysbench drop`).
func (s *Sysbench) Drop(ctx context.Context, db driver.DB) (bool, error) { return room.Drop(ctx, db) }

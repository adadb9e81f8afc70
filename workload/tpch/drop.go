package tpch

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// Drop removes the tpch load from db: the tables a load --drop replaces and the record
// (workload.Dropper, `candor tpch drop`).
func (t *TPCH) Drop(ctx context.Context, db driver.DB) (bool, error) { return room.Drop(ctx, db) }

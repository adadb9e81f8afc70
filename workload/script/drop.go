package script

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// Drop removes the script load from db: the tables a load --drop replaces and the record
// (workload.Dropper, `candor script drop`).
func (s *Script) Drop(ctx context.Context, db driver.DB) (bool, error) { return room.Drop(ctx, db) }

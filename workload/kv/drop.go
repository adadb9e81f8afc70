package kv

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// Drop removes the kv load from db: the tables a load --drop replaces and the record
// (workload.Dropper, `candor kv drop`).
func (k *KV) Drop(ctx context.Context, db driver.DB) (bool, error) { return room.Drop(ctx, db) }

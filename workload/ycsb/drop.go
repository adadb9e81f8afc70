package ycsb

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// Drop removes the ycsb load from db: the default table usertable, the table the recorded load
// named (-p table=NAME) and the record (workload.Dropper, `candor ycsb drop`).
func (y *YCSB) Drop(ctx context.Context, db driver.DB) (bool, error) {
	return room(db.Dialect().SQLFamily(), DefaultConfig().Table).Drop(ctx, db)
}

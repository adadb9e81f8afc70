package tpcc

import (
	"context"
	"io/fs"
	"path/filepath"

	"github.com/candor-bench/candor/driver"
)

// What a load with --tablespaces puts where, for the load-safety check of the disks
// (run/loadsafety.go): each place's share of the load's bytes, from the sizes of the tables and
// indexes measured on PostgreSQL 15 (2 warehouses, pg_relation_size after the load, halved per
// warehouse; ITEM does not grow with the warehouses). On MySQL's family a table's share is its own
// and its indexes' (InnoDB keeps them in one file).
var objectBytes = map[string]struct{ perWarehouse, fixed int64 }{
	"stock": {35622912, 0}, "stock_pkey": {2256896, 0},
	"order_line": {28672000, 0}, "order_line_pkey": {9482240, 0},
	"customer": {18534400, 0}, "customer_pkey": {958464, 0}, "customer_name_idx": {1687552, 0},
	"orders": {1982464, 0}, "orders_pkey": {958464, 0}, "orders_customer_idx": {958464, 0},
	"history":   {2658304, 0},
	"new_order": {401408, 0}, "new_order_pkey": {290816, 0},
	"district": {8192, 0}, "district_pkey": {8192, 0},
	"warehouse": {8192, 0}, "warehouse_pkey": {8192, 0},
	"item": {0, 10649600}, "item_pkey": {0, 2260992},
}

// shares is each of p's places' share of a load of W warehouses' bytes, in p.Tablespaces' order.
func (p *Placement) shares(W int) []float64 {
	bytes := func(name string) float64 {
		b := objectBytes[name]
		return float64(b.perWarehouse)*float64(W) + float64(b.fixed)
	}
	at := map[string]float64{}
	var total float64
	for _, o := range p.Objects {
		b := bytes(o.Name)
		if p.Family != dialectPostgres { // the table's file holds its indexes too
			for _, t := range tables {
				if t.name == o.Name && len(t.pk) > 0 {
					b += bytes(t.pkName())
				}
			}
			for _, x := range indexes {
				if x.table == o.Name {
					b += bytes(x.name)
				}
			}
		}
		at[o.On] += b
		total += b
	}
	out := make([]float64, len(p.Tablespaces))
	for i, s := range p.Tablespaces {
		out[i] = at[s] / total
	}
	return out
}

// LoadPlaces says where a load with --tablespaces writes on the server's host (run/loadsafety.go):
// each tablespace's directory (pg_tablespace_location; "" for one in the data directory, as
// pg_default) or each MySQL directory, its share of the load's bytes, and what the database holds
// there now: PostgreSQL's pg_tablespace_size, the database's files in a MySQL directory. None
// without --tablespaces; a tablespace that does not exist is left out (the load refuses it).
func (w *Workload) LoadPlaces(ctx context.Context, db driver.DB) (dirs []string, shares []float64, held []int64, err error) {
	if len(w.Tablespaces) == 0 || tablespacesRefusal(engineName(db)) != "" {
		return nil, nil, nil, nil
	}
	family := db.Dialect().SQLFamily()
	p := planPlacement(family, w.Tablespaces)
	all := p.shares(w.loadWarehouses())
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	defer c.Close()
	var dbName string
	if family == dialectMySQL {
		if err := c.QueryRow(ctx, "SELECT DATABASE()").Scan(&dbName); err != nil {
			return nil, nil, nil, err
		}
	}
	for i, s := range w.Tablespaces {
		dir, h := s, int64(0)
		if family == dialectPostgres {
			rows, err := c.Query(ctx, "SELECT pg_tablespace_location(oid), CASE WHEN has_tablespace_privilege(oid, 'CREATE') THEN pg_tablespace_size(oid) ELSE 0 END FROM pg_tablespace WHERE spcname = $1", s)
			if err != nil {
				return nil, nil, nil, err
			}
			found := rows.Next()
			if found {
				err = rows.Scan(&dir, &h)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
			if err != nil {
				return nil, nil, nil, err
			}
			if !found {
				continue
			}
		} else {
			h = filesBytes(filepath.Join(s, mysqlFileName(dbName)))
		}
		dirs, shares, held = append(dirs, dir), append(shares, all[i]), append(held, h)
	}
	return dirs, shares, held, nil
}

// filesBytes is the bytes of the files under dir that can be read (0 for none).
func filesBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

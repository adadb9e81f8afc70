package tpcc

// mysqlCheckFrom replaces the FROM part of the consistency conditions whose SQL MySQL lacks: it has
// no FULL JOIN, so condition 5 (clause 3.3.2.5) is the orders with their new_order rows (LEFT JOIN)
// plus the new_order rows without an order (NOT EXISTS), with the same columns. Doltgres (1.2.0)
// takes it too: its FULL JOIN took 419 s on 1 warehouse, where this takes seconds.
var mysqlCheckFrom = map[int]string{
	5: `FROM orders o LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
  WHERE (o.o_carrier_id IS NULL AND n.no_o_id IS NULL) OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL)
  UNION ALL
  SELECT n.no_w_id, n.no_d_id, n.no_o_id, 0, NULL, 1 FROM new_order n
  WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_w_id = n.no_w_id AND o.o_d_id = n.no_d_id AND o.o_id = n.no_o_id)`,
}

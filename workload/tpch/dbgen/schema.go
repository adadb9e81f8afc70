package dbgen

// columns is clause 1.4's tables, in the .tbl column order.
var columns = [...][]Column{
	Region: {
		{"r_regionkey", KindInt, 0}, {"r_name", KindChar, 25}, {"r_comment", KindVarchar, 152},
	},
	Nation: {
		{"n_nationkey", KindInt, 0}, {"n_name", KindChar, 25}, {"n_regionkey", KindInt, 0}, {"n_comment", KindVarchar, 152},
	},
	Supplier: {
		{"s_suppkey", KindInt, 0}, {"s_name", KindChar, 25}, {"s_address", KindVarchar, 40}, {"s_nationkey", KindInt, 0},
		{"s_phone", KindChar, 15}, {"s_acctbal", KindDecimal, 0}, {"s_comment", KindVarchar, 101},
	},
	Customer: {
		{"c_custkey", KindInt, 0}, {"c_name", KindVarchar, 25}, {"c_address", KindVarchar, 40}, {"c_nationkey", KindInt, 0},
		{"c_phone", KindChar, 15}, {"c_acctbal", KindDecimal, 0}, {"c_mktsegment", KindChar, 10}, {"c_comment", KindVarchar, 117},
	},
	Part: {
		{"p_partkey", KindInt, 0}, {"p_name", KindVarchar, 55}, {"p_mfgr", KindChar, 25}, {"p_brand", KindChar, 10},
		{"p_type", KindVarchar, 25}, {"p_size", KindInt, 0}, {"p_container", KindChar, 10}, {"p_retailprice", KindDecimal, 0},
		{"p_comment", KindVarchar, 23},
	},
	PartSupp: {
		{"ps_partkey", KindInt, 0}, {"ps_suppkey", KindInt, 0}, {"ps_availqty", KindInt, 0}, {"ps_supplycost", KindDecimal, 0},
		{"ps_comment", KindVarchar, 199},
	},
	Orders: {
		{"o_orderkey", KindInt, 0}, {"o_custkey", KindInt, 0}, {"o_orderstatus", KindChar, 1}, {"o_totalprice", KindDecimal, 0},
		{"o_orderdate", KindDate, 0}, {"o_orderpriority", KindChar, 15}, {"o_clerk", KindChar, 15}, {"o_shippriority", KindInt, 0},
		{"o_comment", KindVarchar, 79},
	},
	Lineitem: {
		{"l_orderkey", KindInt, 0}, {"l_partkey", KindInt, 0}, {"l_suppkey", KindInt, 0}, {"l_linenumber", KindInt, 0},
		{"l_quantity", KindDecimal, 0}, {"l_extendedprice", KindDecimal, 0}, {"l_discount", KindDecimal, 0}, {"l_tax", KindDecimal, 0},
		{"l_returnflag", KindChar, 1}, {"l_linestatus", KindChar, 1}, {"l_shipdate", KindDate, 0}, {"l_commitdate", KindDate, 0},
		{"l_receiptdate", KindDate, 0}, {"l_shipinstruct", KindChar, 25}, {"l_shipmode", KindChar, 10}, {"l_comment", KindVarchar, 44},
	},
}

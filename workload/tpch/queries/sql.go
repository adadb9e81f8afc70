package queries

import (
	"fmt"
	"regexp"
	"strings"
)

// The queries are the standard's functional query definitions (clause 2.4.q.2) with the minor
// modifications clause 2.2.3.3 allows, applied the same way in every query of a family:
//   - date arithmetic and literals: PostgreSQL and MySQL/MariaDB run the standard's own
//     `date 'D' + interval 'N' unit`; SQLite, which has no date type (dates are stored as
//     'YYYY-MM-DD' text), runs date('D', '+N unit') and compares the text;
//   - extract(year from X): SQLite's cast(strftime('%Y', X) as integer);
//   - substring(X from 1 for 2): SQLite's substr(X, 1, 2) (clause 2.2.3.3 p);
//   - Q6's DISCOUNT ± 0.01 is rounded to two decimals on SQLite (see decimal);
//   - the row limit of Q2, Q3, Q10, Q18, Q21: LIMIT in every family;
//   - Q13's derived-table column list c_orders (c_custkey, c_count) written as column aliases
//     inside the derived table (MariaDB has no derived-table column lists);
//   - Q15: Appendix B's approved variant (the revenue view as a common table expression), so a
//     query stream never creates or drops a view.
// No other rewrite is used: Q17 and Q20 keep their correlated subqueries in every family (the
// indexes on LINEITEM's (L_PARTKEY, L_SUPPKEY) serve them; see the package's tests for times).

type dialect struct{ family string }

func (d dialect) sqlite() bool { return d.family == "sqlite" }

// date is a date literal.
func (d dialect) date(s string) string {
	if d.sqlite() {
		return "'" + s + "'"
	}
	return "date '" + s + "'"
}

// add is the date s plus n units (day, month, year); n may be negative.
func (d dialect) add(s string, n string, unit string) string {
	if d.sqlite() {
		sign := "+"
		if strings.HasPrefix(n, "-") {
			sign = ""
		}
		return fmt.Sprintf("date('%s', '%s%s %s')", s, sign, n, unit)
	}
	if strings.HasPrefix(n, "-") {
		return fmt.Sprintf("date '%s' - interval '%s' %s", s, n[1:], unit)
	}
	return fmt.Sprintf("date '%s' + interval '%s' %s", s, n, unit)
}

// decimal is an arithmetic expression of decimal literals. SQLite computes it in binary floating
// point, where 0.06 + 0.01 is below 0.07 (and so below the stored L_DISCOUNT 0.07): it is rounded
// to the literals' two decimals there, which is what the standard's decimal arithmetic gives.
func (d dialect) decimal(expr string) string {
	if d.sqlite() {
		return "round(" + expr + ", 2)"
	}
	return expr
}

// year is extract(year from col).
func (d dialect) year(col string) string {
	if d.sqlite() {
		return "cast(strftime('%Y', " + col + ") as integer)"
	}
	return "extract(year from " + col + ")"
}

// cc is substring(col from 1 for 2).
func (d dialect) cc(col string) string {
	if d.sqlite() {
		return "substr(" + col + ", 1, 2)"
	}
	return "substring(" + col + " from 1 for 2)"
}

// safeParam is what a parameter may hold: the value lists' words, numbers, dates.
var safeParam = regexp.MustCompile(`^[A-Za-z0-9#. -]+$`)

func sqlFor(q int, family string, p Params) (Statements, error) {
	switch family {
	case "postgres", "mysql", "sqlite":
	default:
		return Statements{}, fmt.Errorf("tpch: query %d has no SQL for the family %q (known: %s)", q, family, strings.Join(Families(), ", "))
	}
	if len(p) != paramCount(q) {
		return Statements{}, fmt.Errorf("tpch: query %d takes %d parameters, got %d (%v)", q, paramCount(q), len(p), p)
	}
	for i, v := range p {
		if !safeParam.MatchString(v) {
			return Statements{}, fmt.Errorf("tpch: query %d: parameter %d (%q) is not a value the substitution rules make", q, i+1, v)
		}
	}
	d := dialect{family}
	return Statements{Query: strings.TrimSpace(builders[q](d, p))}, nil
}

func inList(vals []string, quote bool) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if quote {
			v = "'" + v + "'"
		}
		out[i] = v
	}
	return strings.Join(out, ", ")
}

var builders = [Count + 1]func(d dialect, p Params) string{
	1: func(d dialect, p Params) string {
		return `
select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
  avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc,
  count(*) as count_order
from lineitem
where l_shipdate <= ` + d.add("1998-12-01", "-"+p[0], "day") + `
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus`
	},
	2: func(d dialect, p Params) string {
		return `
select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey and s_suppkey = ps_suppkey and p_size = ` + p[0] + ` and p_type like '%` + p[1] + `'
  and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = '` + p[2] + `'
  and ps_supplycost = (
    select min(ps_supplycost) from partsupp, supplier, nation, region
    where p_partkey = ps_partkey and s_suppkey = ps_suppkey and s_nationkey = n_nationkey
      and n_regionkey = r_regionkey and r_name = '` + p[2] + `')
order by s_acctbal desc, n_name, s_name, p_partkey
limit 100`
	},
	3: func(d dialect, p Params) string {
		return `
select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate, o_shippriority
from customer, orders, lineitem
where c_mktsegment = '` + p[0] + `' and c_custkey = o_custkey and l_orderkey = o_orderkey
  and o_orderdate < ` + d.date(p[1]) + ` and l_shipdate > ` + d.date(p[1]) + `
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate
limit 10`
	},
	4: func(d dialect, p Params) string {
		return `
select o_orderpriority, count(*) as order_count
from orders
where o_orderdate >= ` + d.date(p[0]) + ` and o_orderdate < ` + d.add(p[0], "3", "month") + `
  and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
group by o_orderpriority
order by o_orderpriority`
	},
	5: func(d dialect, p Params) string {
		return `
select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey
  and c_nationkey = s_nationkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey
  and r_name = '` + p[0] + `' and o_orderdate >= ` + d.date(p[1]) + `
  and o_orderdate < ` + d.add(p[1], "1", "year") + `
group by n_name
order by revenue desc`
	},
	6: func(d dialect, p Params) string {
		return `
select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= ` + d.date(p[0]) + ` and l_shipdate < ` + d.add(p[0], "1", "year") + `
  and l_discount between ` + d.decimal(p[1]+" - 0.01") + ` and ` + d.decimal(p[1]+" + 0.01") + ` and l_quantity < ` + p[2]
	},
	7: func(d dialect, p Params) string {
		return `
select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (
  select n1.n_name as supp_nation, n2.n_name as cust_nation, ` + d.year("l_shipdate") + ` as l_year,
    l_extendedprice * (1 - l_discount) as volume
  from supplier, lineitem, orders, customer, nation n1, nation n2
  where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
    and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
    and ((n1.n_name = '` + p[0] + `' and n2.n_name = '` + p[1] + `') or (n1.n_name = '` + p[1] + `' and n2.n_name = '` + p[0] + `'))
    and l_shipdate between ` + d.date("1995-01-01") + ` and ` + d.date("1996-12-31") + `
) as shipping
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year`
	},
	8: func(d dialect, p Params) string {
		return `
select o_year, sum(case when nation = '` + p[0] + `' then volume else 0 end) / sum(volume) as mkt_share
from (
  select ` + d.year("o_orderdate") + ` as o_year, l_extendedprice * (1 - l_discount) as volume,
    n2.n_name as nation
  from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
  where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey
    and o_custkey = c_custkey and c_nationkey = n1.n_nationkey and n1.n_regionkey = r_regionkey
    and r_name = '` + p[1] + `' and s_nationkey = n2.n_nationkey
    and o_orderdate between ` + d.date("1995-01-01") + ` and ` + d.date("1996-12-31") + `
    and p_type = '` + p[2] + `'
) as all_nations
group by o_year
order by o_year`
	},
	9: func(d dialect, p Params) string {
		return `
select nation, o_year, sum(amount) as sum_profit
from (
  select n_name as nation, ` + d.year("o_orderdate") + ` as o_year,
    l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
  from part, supplier, lineitem, partsupp, orders, nation
  where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey
    and p_partkey = l_partkey and o_orderkey = l_orderkey and s_nationkey = n_nationkey
    and p_name like '%` + p[0] + `%'
) as profit
group by nation, o_year
order by nation, o_year desc`
	},
	10: func(d dialect, p Params) string {
		return `
select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal, n_name,
  c_address, c_phone, c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= ` + d.date(p[0]) + `
  and o_orderdate < ` + d.add(p[0], "3", "month") + ` and l_returnflag = 'R'
  and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc
limit 20`
	},
	11: func(d dialect, p Params) string {
		return `
select ps_partkey, sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = '` + p[0] + `'
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
  select sum(ps_supplycost * ps_availqty) * ` + p[1] + `
  from partsupp, supplier, nation
  where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = '` + p[0] + `')
order by value desc`
	},
	12: func(d dialect, p Params) string {
		return `
select l_shipmode,
  sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end) as high_line_count,
  sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1 else 0 end) as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey and l_shipmode in ('` + p[0] + `', '` + p[1] + `') and l_commitdate < l_receiptdate
  and l_shipdate < l_commitdate and l_receiptdate >= ` + d.date(p[2]) + `
  and l_receiptdate < ` + d.add(p[2], "1", "year") + `
group by l_shipmode
order by l_shipmode`
	},
	13: func(d dialect, p Params) string {
		return `
select c_count, count(*) as custdist
from (
  select c_custkey as c_custkey, count(o_orderkey) as c_count
  from customer left outer join orders on c_custkey = o_custkey and o_comment not like '%` + p[0] + `%` + p[1] + `%'
  group by c_custkey
) as c_orders
group by c_count
order by custdist desc, c_count desc`
	},
	14: func(d dialect, p Params) string {
		return `
select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end)
  / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey and l_shipdate >= ` + d.date(p[0]) + `
  and l_shipdate < ` + d.add(p[0], "1", "month")
	},
	15: func(d dialect, p Params) string {
		return `
with revenue (supplier_no, total_revenue) as (
  select l_suppkey, sum(l_extendedprice * (1 - l_discount))
  from lineitem
  where l_shipdate >= ` + d.date(p[0]) + ` and l_shipdate < ` + d.add(p[0], "3", "month") + `
  group by l_suppkey)
select s_suppkey, s_name, s_address, s_phone, total_revenue
from supplier, revenue
where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue)
order by s_suppkey`
	},
	16: func(d dialect, p Params) string {
		return `
select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey and p_brand <> '` + p[0] + `' and p_type not like '` + p[1] + `%'
  and p_size in (` + inList(p[2:], false) + `)
  and ps_suppkey not in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%')
group by p_brand, p_type, p_size
order by supplier_cnt desc, p_brand, p_type, p_size`
	},
	17: func(d dialect, p Params) string {
		return `
select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey and p_brand = '` + p[0] + `' and p_container = '` + p[1] + `'
  and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)`
	},
	18: func(d dialect, p Params) string {
		return `
select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
from customer, orders, lineitem
where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > ` + p[0] + `)
  and c_custkey = o_custkey and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate
limit 100`
	},
	19: func(d dialect, p Params) string {
		branch := func(qty, brand, size, containers string) string {
			return `(p_partkey = l_partkey and p_brand = '` + brand + `'
    and p_container in (` + containers + `)
    and l_quantity >= ` + qty + ` and l_quantity <= ` + qty + ` + 10 and p_size between 1 and ` + size + `
    and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')`
		}
		return `
select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where ` + branch(p[0], p[3], "5", "'SM CASE', 'SM BOX', 'SM PACK', 'SM PKG'") + `
  or ` + branch(p[1], p[4], "10", "'MED BAG', 'MED BOX', 'MED PKG', 'MED PACK'") + `
  or ` + branch(p[2], p[5], "15", "'LG CASE', 'LG BOX', 'LG PACK', 'LG PKG'")
	},
	20: func(d dialect, p Params) string {
		return `
select s_name, s_address
from supplier, nation
where s_suppkey in (
    select ps_suppkey from partsupp
    where ps_partkey in (select p_partkey from part where p_name like '` + p[0] + `%')
      and ps_availqty > (
        select 0.5 * sum(l_quantity) from lineitem
        where l_partkey = ps_partkey and l_suppkey = ps_suppkey and l_shipdate >= ` + d.date(p[1]) + `
          and l_shipdate < ` + d.add(p[1], "1", "year") + `))
  and s_nationkey = n_nationkey and n_name = '` + p[2] + `'
order by s_name`
	},
	21: func(d dialect, p Params) string {
		return `
select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F'
  and l1.l_receiptdate > l1.l_commitdate
  and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)
  and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey
    and l3.l_suppkey <> l1.l_suppkey and l3.l_receiptdate > l3.l_commitdate)
  and s_nationkey = n_nationkey and n_name = '` + p[0] + `'
group by s_name
order by numwait desc, s_name
limit 100`
	},
	22: func(d dialect, p Params) string {
		codes := inList(p, true)
		return `
select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
from (
  select ` + d.cc("c_phone") + ` as cntrycode, c_acctbal
  from customer
  where ` + d.cc("c_phone") + ` in (` + codes + `)
    and c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > 0.00
      and ` + d.cc("c_phone") + ` in (` + codes + `))
    and not exists (select * from orders where o_custkey = c_custkey)
) as custsale
group by cntrycode
order by cntrycode`
	},
}

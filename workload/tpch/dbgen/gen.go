package dbgen

import (
	"fmt"
	"math"
)

// Row counts (clause 4.2.5.1) and dbgen's arithmetic for them: a table of base rows at SF 1 has
// int64(base × SF) rows at SF (dbgen -s 0.01 gives 100 suppliers, 1,500 customers, ...).
const (
	supplierBase = 10_000
	customerBase = 150_000
	partBase     = 200_000
	ordersBase   = 1_500_000
	// suppliersPerPart is PARTSUPP's rows per part (clause 4.2.5.1).
	suppliersPerPart = 4
	linesMax         = 7
)

func scaled(base int64, sf float64) int64 { return int64(float64(base) * sf) }

func rowsOf(t Table, sf float64) int64 {
	switch t {
	case Region:
		return 5
	case Nation:
		return 25
	case Supplier:
		return scaled(supplierBase, sf)
	case Customer:
		return scaled(customerBase, sf)
	case Part:
		return scaled(partBase, sf)
	case PartSupp:
		return suppliersPerPart * scaled(partBase, sf)
	case Orders:
		return scaled(ordersBase, sf)
	case Lineitem:
		return 4 * scaled(ordersBase, sf)
	}
	return 0
}

// partSpan is the rows [start, start+count) of part (1-based) of parts over total rows: parts of
// total/parts rows, the last one taking the remainder (tpchgen's and dbgen -C's split).
func partSpan(total int64, part, parts int) (start, count int64) {
	per := total / int64(parts)
	start = per * int64(part-1)
	count = per
	if part == parts {
		count += total % int64(parts)
	}
	return start, count
}

// checkArgs is the error for a scale factor or part that cannot be generated.
func checkArgs(t Table, sf float64, part, parts int) error {
	switch {
	case t < Region || t > Lineitem:
		return fmt.Errorf("dbgen: no table %d", int(t))
	case !(sf > 0) || math.IsInf(sf, 0):
		return fmt.Errorf("dbgen: scale factor %v is not a positive number", sf)
	case scaled(ordersBase, sf) > math.MaxInt64>>8:
		return fmt.Errorf("dbgen: scale factor %v is too large", sf)
	case parts < 1 || part < 1 || part > parts:
		return fmt.Errorf("dbgen: part %d of %d: parts are numbered 1 to parts", part, parts)
	}
	return nil
}

func generate(t Table, sf float64, part, parts int, emit func(row []any) error) error {
	if err := checkArgs(t, sf, part, parts); err != nil {
		return err
	}
	switch t {
	case Region, Nation:
		if part != 1 {
			return nil // the fixed tables are all in part 1
		}
		if t == Region {
			return genRegion(emit)
		}
		return genNation(emit)
	case Supplier:
		start, n := partSpan(scaled(supplierBase, sf), part, parts)
		return genSupplier(start, n, emit)
	case Customer:
		start, n := partSpan(scaled(customerBase, sf), part, parts)
		return genCustomer(start, n, emit)
	case Part:
		start, n := partSpan(scaled(partBase, sf), part, parts)
		return genPart(start, n, emit)
	case PartSupp:
		start, n := partSpan(scaled(partBase, sf), part, parts)
		return genPartSupp(sf, start, n, emit)
	}
	start, n := partSpan(scaled(ordersBase, sf), part, parts)
	g := newOrderGen(sf, start, t == Lineitem)
	row := make([]any, len(columns[t]))
	for i := range n {
		g.make(start+i+1, 0)
		if err := g.emit(t, row, emit); err != nil {
			return err
		}
		g.rowFinished()
	}
	return nil
}

// Region and nation (clause 4.2.3): the fixed rows of dists.dss, comments of 72 characters on
// average.
func genRegion(emit func([]any) error) error {
	d := loadDists()
	c := newText(1500869201, pool(), 72, 1)
	row := make([]any, 3)
	for i, name := range d.regions.values {
		row[0], row[1], row[2] = int64(i), name, c.next()
		if err := emit(row); err != nil {
			return err
		}
		c.r.rowFinished()
	}
	return nil
}

func genNation(emit func([]any) error) error {
	d := loadDists()
	c := newText(606179079, pool(), 72, 1)
	row := make([]any, 4)
	for i, name := range d.nations.values {
		// The nation's region is its cumulative weight in dists.dss (dbgen's trick).
		row[0], row[1], row[2], row[3] = int64(i), name, int64(d.nations.weights[i]), c.next()
		if err := emit(row); err != nil {
			return err
		}
		c.r.rowFinished()
	}
	return nil
}

// Supplier (clause 4.2.3): 10,000 × SF rows; five in 10,000 comments get "Customer ...Complaints"
// and five "Customer ...Recommends" (the Better Business Bureau text Q16 looks for).
func genSupplier(start, n int64, emit func([]any) error) error {
	d := loadDists()
	p := pool()
	addr := newAlnum(706178559, 25)
	nation := newRowRand(110356601, 1)
	ph := newPhone(884434366)
	bal := newRowRand(962338209, 1)
	cmt := newText(1341315363, p, 63, 1)
	bbb := newRowRand(202794285, 1)
	junk := newRowRand(263032577, 1)
	off := newRowRand(715851524, 1)
	kind := newRowRand(753643799, 1)
	all := []*rowRand{&addr.r, &nation, &ph.r, &bal, &cmt.r, &bbb, &junk, &off, &kind}
	for _, r := range all {
		r.advanceRows(start)
	}
	const base, complaint, recommend = "Customer ", "Complaints", "Recommends"
	row := make([]any, 7)
	for i := range n {
		key := start + i + 1
		comment := cmt.next()
		if bbb.nextInt(1, supplierBase) <= 10 {
			noise := int(junk.nextInt(0, int32(len(comment)-len(base)-len(complaint))))
			o := int(off.nextInt(0, int32(len(comment)-(len(base)+len(complaint)+noise))))
			what := recommend
			if kind.nextInt(0, 100) < 50 {
				what = complaint
			}
			comment = comment[:o] + base + comment[o+len(base):o+len(base)+noise] + what + comment[o+len(base)+noise+len(what):]
		}
		nk := int64(nation.nextInt(0, int32(len(d.nations.values)-1)))
		row[0] = key
		row[1] = string(appendPad([]byte("Supplier#"), key, 9))
		row[2] = addr.next()
		row[3] = nk
		row[4] = ph.next(nk)
		row[5] = Decimal(bal.nextInt(-99999, 999999))
		row[6] = comment
		if err := emit(row); err != nil {
			return err
		}
		for _, r := range all {
			r.rowFinished()
		}
	}
	return nil
}

// Customer (clause 4.2.3): 150,000 × SF rows.
func genCustomer(start, n int64, emit func([]any) error) error {
	d := loadDists()
	addr := newAlnum(881155353, 25)
	nation := newRowRand(1489529863, 1)
	ph := newPhone(1521138112)
	bal := newRowRand(298370230, 1)
	seg := newPickString(1140279430, d.segments, 1)
	cmt := newText(1335826707, pool(), 73, 1)
	all := []*rowRand{&addr.r, &nation, &ph.r, &bal, &seg.r, &cmt.r}
	for _, r := range all {
		r.advanceRows(start)
	}
	row := make([]any, 8)
	for i := range n {
		key := start + i + 1
		nk := int64(nation.nextInt(0, int32(len(d.nations.values)-1)))
		row[0] = key
		row[1] = string(appendPad([]byte("Customer#"), key, 9))
		row[2] = addr.next()
		row[3] = nk
		row[4] = ph.next(nk)
		row[5] = Decimal(bal.nextInt(-99999, 999999))
		row[6] = seg.next()
		row[7] = cmt.next()
		if err := emit(row); err != nil {
			return err
		}
		for _, r := range all {
			r.rowFinished()
		}
	}
	return nil
}

// partPrice is P_RETAILPRICE of part key pk in hundredths (clause 4.2.3):
// (90000 + ((pk/10) modulo 20001) + 100 × (pk modulo 1000)) / 100.
func partPrice(pk int64) int64 {
	return 90000 + (pk/10)%20001 + (pk%1000)*100
}

// Part (clause 4.2.3): 200,000 × SF rows.
func genPart(start, n int64, emit func([]any) error) error {
	d := loadDists()
	name := newWordSequence(709314158, 5, d.colors)
	mfgr := newRowRand(1, 1)
	brand := newRowRand(46831694, 1)
	typ := newPickString(1841581359, d.types, 1)
	size := newRowRand(1193163244, 1)
	cntr := newPickString(727633698, d.containers, 1)
	cmt := newText(804159733, pool(), 14, 1)
	all := []*rowRand{&name.r, &mfgr, &brand, &typ.r, &size, &cntr.r, &cmt.r}
	for _, r := range all {
		r.advanceRows(start)
	}
	row := make([]any, 9)
	var buf []byte
	for i := range n {
		key := start + i + 1
		buf = name.next(buf[:0])
		m := mfgr.nextInt(1, 5)
		b := m*10 + brand.nextInt(1, 5)
		row[0] = key
		row[1] = string(buf)
		row[2] = "Manufacturer#" + itoa(int64(m))
		row[3] = "Brand#" + itoa(int64(b))
		row[4] = typ.next()
		row[5] = int64(size.nextInt(1, 50))
		row[6] = cntr.next()
		row[7] = Decimal(partPrice(key))
		row[8] = cmt.next()
		if err := emit(row); err != nil {
			return err
		}
		for _, r := range all {
			r.rowFinished()
		}
	}
	return nil
}

// partSupplier is the supplier key of part pk's supplier number i (0..3), clause 4.2.3's
// PS_SUPPKEY = (ps_partkey + (i × ((S/4) + (int)(ps_partkey-1)/S))) modulo S + 1, S = suppliers.
func partSupplier(pk, i int64, sf float64) int64 {
	s := scaled(supplierBase, sf)
	return (pk+i*(s/4+(pk-1)/s))%s + 1
}

// PartSupp (clause 4.2.3): four rows per part, generated by part as dbgen does (part n's rows are
// the rows of the n-th part).
func genPartSupp(sf float64, start, n int64, emit func([]any) error) error {
	qty := newRowRand(1671059989, suppliersPerPart)
	cost := newRowRand(1051288424, suppliersPerPart)
	cmt := newText(1961692154, pool(), 124, suppliersPerPart)
	all := []*rowRand{&qty, &cost, &cmt.r}
	for _, r := range all {
		r.advanceRows(start)
	}
	row := make([]any, 5)
	for i := range n {
		pk := start + i + 1
		for s := range int64(suppliersPerPart) {
			row[0] = pk
			row[1] = partSupplier(pk, s, sf)
			row[2] = int64(qty.nextInt(1, 9999))
			row[3] = Decimal(cost.nextInt(100, 100000))
			row[4] = cmt.next()
			if err := emit(row); err != nil {
				return err
			}
		}
		for _, r := range all {
			r.rowFinished()
		}
	}
	return nil
}

func itoa(v int64) string { return string(appendInt(nil, v)) }

// LineitemRows is lineitem's exact row count at sf: the orders' line counts (1 to 7 each), drawn
// from their stream alone.
func LineitemRows(sf float64) int64 {
	if checkArgs(Lineitem, sf, 1, 1) != nil {
		return 0
	}
	r := newRowRand(1434868289, 1)
	var n int64
	for range scaled(ordersBase, sf) {
		n += int64(r.nextInt(1, linesMax))
		r.rowFinished()
	}
	return n
}

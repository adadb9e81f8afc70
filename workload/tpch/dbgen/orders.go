package dbgen

// Orders and lineitem (clause 4.2.3), generated together as dbgen's mk_order does: an order's
// lines decide its total price and status.

// Dates: dbgen counts days from STARTDATE 1992-01-01 (clause 4.2.3: O_ORDERDATE uniform in
// [STARTDATE, ENDDATE - 151 days], ENDDATE 1998-12-31) and compares with CURRENTDATE 1995-06-17.
var (
	startDate   = MakeDate(1992, 1, 1)
	currentDate = MakeDate(1995, 6, 17)
)

const (
	dateRange = 2557 // days from 1992-01-01 to 1998-12-31, both included
	shipDays  = 121 + 30
	// orderKey's sparse pattern (clause 4.2.3: "O_ORDERKEY ... sparse ... only the first 8 of each
	// 32 keys used"): dbgen's mk_sparse keeps the low 3 bits, then 2 bits of sequence (0 for the
	// load, 1 for the refresh sets), then the rest.
	sparseKeep = 3
	sparseBits = 2
)

// orderKey is dbgen's mk_sparse(index, seq).
func orderKey(index, seq int64) int64 {
	low := index & (1<<sparseKeep - 1)
	k := index >> sparseKeep
	k <<= sparseBits
	k += seq
	k <<= sparseKeep
	return k + low
}

// orderGen holds the streams of orders and lineitems and the order made last.
type orderGen struct {
	sf    float64
	lines bool // draw the lineitem-only columns

	orderDate, lineCount, priority, clerk, comment     rowRand
	custKey                                            boundedLong
	qty, discount, tax, suppNum, ship, commit, receipt rowRand
	partKey                                            boundedLong
	rflag, instruct, mode, lcomment                    rowRand

	d                *dists
	p                *textPool
	maxCust, maxPart int64
	maxClerk         int32

	o order
}

type order struct {
	key, cust int64
	status    string
	total     int64
	date      Date
	priority  string
	clerk     int64
	comment   string
	lines     int
	l         [linesMax]line
}

type line struct {
	part, supp, qty, price, discount, tax int64
	rflag, status                         string
	ship, commit, receipt                 Date
	instruct, mode, comment               string
}

func newOrderGen(sf float64, start int64, lines bool) *orderGen {
	d := loadDists()
	big := sf >= 30000
	g := &orderGen{sf: sf, lines: lines, d: d, p: pool(),
		maxCust: scaled(customerBase, sf), maxPart: scaled(partBase, sf),
		maxClerk: int32(max(sf*1000, 1000))}
	g.orderDate = newRowRand(1066728069, 1)
	g.lineCount = newRowRand(1434868289, 1)
	g.custKey = newBoundedLong(851767375, big, 1, g.maxCust, 1)
	g.priority = newRowRand(591449447, 1)
	g.clerk = newRowRand(1171034773, 1)
	g.comment = newRowRand(276090261, 2)
	g.qty = newRowRand(209208115, linesMax)
	g.discount = newRowRand(554590007, linesMax)
	g.tax = newRowRand(721958466, linesMax)
	g.partKey = newBoundedLong(1808217256, big, 1, g.maxPart, linesMax)
	g.ship = newRowRand(1769349045, linesMax)
	g.suppNum = newRowRand(2095021727, linesMax)
	g.commit = newRowRand(904914315, linesMax)
	g.receipt = newRowRand(373135028, linesMax)
	g.rflag = newRowRand(717419739, linesMax)
	g.instruct = newRowRand(1371272478, linesMax)
	g.mode = newRowRand(675466456, linesMax)
	g.lcomment = newRowRand(1095462486, 2*linesMax)
	for _, r := range g.streams() {
		r.advanceRows(start)
	}
	g.custKey.advanceRows(start)
	g.partKey.advanceRows(start)
	return g
}

func (g *orderGen) streams() []*rowRand {
	return []*rowRand{&g.orderDate, &g.lineCount, &g.priority, &g.clerk, &g.comment, &g.qty, &g.discount,
		&g.tax, &g.suppNum, &g.ship, &g.commit, &g.receipt, &g.rflag, &g.instruct, &g.mode, &g.lcomment}
}

func (g *orderGen) rowFinished() {
	for _, r := range g.streams() {
		r.rowFinished()
	}
	g.custKey.rowFinished()
	g.partKey.rowFinished()
}

// textOf draws a comment from r as dbgen's TEXT does (offset, then length).
func (g *orderGen) textOf(r *rowRand, avg float64) string {
	lo, hi := int32(avg*0.4), int32(avg*1.6)
	off := r.nextInt(0, int32(len(g.p.text))-hi)
	n := r.nextInt(lo, hi)
	return g.p.slice(off, off+n)
}

// make generates order number index (1-based) with key sequence seq.
func (g *orderGen) make(index, seq int64) {
	o := &g.o
	o.key = orderKey(index, seq)
	od := g.orderDate.nextInt(0, dateRange-shipDays-1) // days from STARTDATE
	cust := g.custKey.next()
	// clause 4.2.3: O_CUSTKEY not a multiple of 3 (a third of the customers have no orders)
	for delta := int64(1); cust%3 == 0; delta = -delta {
		cust = min(cust+delta, g.maxCust)
	}
	o.cust = cust
	o.date = startDate + Date(od)
	o.lines = int(g.lineCount.nextInt(1, linesMax))
	var total int64
	shipped := 0
	for i := range o.lines {
		l := &o.l[i]
		l.qty = int64(g.qty.nextInt(1, 50))
		l.discount = int64(g.discount.nextInt(0, 10))
		l.tax = int64(g.tax.nextInt(0, 8))
		l.part = g.partKey.next()
		l.price = partPrice(l.part) * l.qty
		total += l.price * (100 - l.discount) / 100 * (100 + l.tax) / 100
		l.ship = o.date + Date(g.ship.nextInt(1, 121))
		if l.ship <= currentDate {
			shipped++
			l.status = "F"
		} else {
			l.status = "O"
		}
		if !g.lines {
			continue
		}
		l.supp = partSupplier(l.part, int64(g.suppNum.nextInt(0, 3)), g.sf)
		l.commit = o.date + Date(g.commit.nextInt(30, 90))
		l.receipt = l.ship + Date(g.receipt.nextInt(1, 30))
		if l.receipt <= currentDate {
			l.rflag = g.d.returnFlags.random(&g.rflag)
		} else {
			l.rflag = "N"
		}
		l.instruct = g.d.instructions.random(&g.instruct)
		l.mode = g.d.modes.random(&g.mode)
		l.comment = g.textOf(&g.lcomment, 27)
	}
	switch shipped {
	case o.lines:
		o.status = "F"
	case 0:
		o.status = "O"
	default:
		o.status = "P"
	}
	o.total = total
	o.clerk = int64(g.clerk.nextInt(1, g.maxClerk))
	o.priority = g.d.priorities.random(&g.priority)
	o.comment = g.textOf(&g.comment, 49)
}

// emit sends the order made last as a row of t (Orders: one row; Lineitem: its lines).
func (g *orderGen) emit(t Table, row []any, emit func([]any) error) error {
	o := &g.o
	if t == Orders {
		row[0], row[1], row[2], row[3] = o.key, o.cust, o.status, Decimal(o.total)
		row[4], row[5], row[6], row[7], row[8] = o.date, o.priority, string(appendPad([]byte("Clerk#"), o.clerk, 9)), int64(0), o.comment
		return emit(row)
	}
	for i := range o.lines {
		l := &o.l[i]
		row[0], row[1], row[2], row[3] = o.key, l.part, l.supp, int64(i+1)
		row[4], row[5], row[6], row[7] = l.qty, Decimal(l.price), Decimal(l.discount), Decimal(l.tax)
		row[8], row[9], row[10], row[11], row[12] = l.rflag, l.status, l.ship, l.commit, l.receipt
		row[13], row[14], row[15] = l.instruct, l.mode, l.comment
		if err := emit(row); err != nil {
			return err
		}
	}
	return nil
}

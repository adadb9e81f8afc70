package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
)

// The client half of the stored-procedure mode (--procedures): each transaction is one call of a
// server-side procedure (proc_postgres.go, proc_mysql.go), so one round trip at read committed. The
// inputs, the Client's API, its outcomes and the state it leaves (o_id, totals, the customer chosen,
// the lines read, the delivery's skipped districts) are those of the interactive mode, so the runner,
// the measurement and the tests use both modes the same way.

// procOps is the engine half in procedure mode. Payment, Order-Status, Delivery and Stock-Level are
// txOps methods, each one call; New-Order is one call too (newOrder), which replaces the interactive
// mode's read, apply and write.
type procOps interface {
	txOps
	newOrder(ctx context.Context, c driver.Conn, cl *Client) error
}

// noProcNewOrderParts fills txOps' two halves of the interactive New-Order, which the procedure mode
// never calls.
type noProcNewOrderParts struct{}

var errProcParts = errors.New("tpcc: the interactive New-Order was called on a procedure-mode client")

func (noProcNewOrderParts) newOrderRead(context.Context, driver.Conn, *Client) error {
	return errProcParts
}
func (noProcNewOrderParts) newOrderWrite(context.Context, driver.Conn, *Client) error {
	return errProcParts
}

// Markers that start the messages of the errors the procedures raise on purpose.
const (
	// procRollback: New-Order met the unused item, did its work and rolled back (clause 2.4.2.3).
	procRollback = "candor-rollback:"
	// procNotFound: the warehouse, district or customer named does not exist.
	procNotFound = "candor-not-found:"
)

// procState is what a procedure-mode client keeps besides the interactive state: its engine half and
// the rows being scanned with their destinations (built once, so a Scan allocates no argument list).
type procState struct {
	ops procOps
	// conn, if set, gives the connection a transaction runs on, instead of Client.txConn's choice:
	// for procedures that begin and commit their own transactions (proc_mysql.go).
	conn func(ctx context.Context, cl *Client, c driver.Conn, iso driver.Isolation) driver.Conn
	my   myProcState

	no     procNewOrderRow
	noDest []any

	payDest []any
}

// procNewOrderRow is one row of candor_new_order: a line (kind 1) or the header (kind 0).
type procNewOrderRow struct {
	kind, num                  int32
	oID, wTax, dTax, cDiscount int64
	cLast, cCredit             string
	total                      int64
	qty                        int32
	name                       string
	price, amount              int64
	original                   bool
}

// NewProcClient returns a Client that runs each transaction as one call of the procedures that
// CreateProcedures installed. It is a user error when the engine has no procedure mode.
func NewProcClient(db driver.DB) (*Client, error) {
	if err := ProceduresSupported(db); err != nil {
		return nil, err
	}
	return newProcClient(db), nil
}

// newRunClient returns the client of a run: procedure mode or interactive. The run has checked
// ProceduresSupported before (an unsupported engine's calls return its user error).
func newRunClient(db driver.DB, procedures bool) *Client {
	if !procedures {
		return NewClient(db)
	}
	return newProcClient(db)
}

func newProcClient(db driver.DB) *Client {
	cl := NewClient(db)
	ops := procOpsFor(db.Dialect().SQLFamily())
	if ops == nil {
		ops = unsupportedProcOps{unsupportedTxOps{name: db.Dialect().Name}}
	}
	cl.proc = &procState{ops: ops}
	if _, ok := ops.(myProcOps); ok {
		cl.proc.conn = myProcConnFor
	}
	cl.ops = ops
	cl.newOrderFn = cl.procNewOrderTx
	return cl
}

// procOpsFor is the procedure mode's engine half of a dialect, nil when it has none.
func procOpsFor(dialect string) procOps {
	switch dialect {
	case dialectPostgres:
		return pgProcOps{}
	case dialectMySQL:
		return myProcOps{}
	}
	return nil
}

type unsupportedProcOps struct{ unsupportedTxOps }

func (u unsupportedProcOps) newOrder(context.Context, driver.Conn, *Client) error {
	return u.err()
}

// Procedures reports whether the client runs the transactions as procedures.
func (cl *Client) Procedures() bool { return cl.proc != nil }

// procNewOrderTx is New-Order in one call (clause 2.4.2): the procedure does the whole transaction,
// rollback included (then it raises procRollback, mapped to driver.ErrRollback by procError).
func (cl *Client) procNewOrderTx(ctx context.Context, c driver.Conn) error {
	st := &cl.no
	for k := 0; k < st.nRows; k++ {
		st.rows[k].found = false
	}
	st.missing = -1
	return cl.proc.ops.newOrder(ctx, c, cl)
}

// scanNewOrder reads candor_new_order's rows into the New-Order state: the header, and every line
// exactly once (their stock rows marked found, with s_quantity after the order, name, price, brand
// and amount, and the order's total).
func (p *procState) scanNewOrder(rows driver.Rows, st *newOrderState) error {
	sc := &p.no
	if p.noDest == nil {
		p.noDest = []any{&sc.kind, &sc.num, &sc.oID, &sc.wTax, &sc.dTax, &sc.cDiscount, &sc.cLast, &sc.cCredit,
			&sc.total, &sc.qty, &sc.name, &sc.price, &sc.amount, &sc.original}
	}
	in := st.in
	header, lines := false, 0
	var seen uint16
	for rows.Next() {
		if err := rows.Scan(p.noDest...); err != nil {
			return err
		}
		if sc.kind == 0 {
			header = true
			st.oID, st.dTax, st.wTax, st.cDiscount, st.cLast, st.cCredit = sc.oID, sc.dTax, sc.wTax, sc.cDiscount, sc.cLast, sc.cCredit
			continue
		}
		st.total = sc.total // on every line row
		l := int(sc.num) - 1
		if l < 0 || l >= in.OLCnt || seen&(1<<l) != 0 {
			return driver.Checkf("tpcc: new-order: the procedure returned line %d twice or out of 1..%d", sc.num, in.OLCnt)
		}
		seen |= 1 << l
		lines++
		r := &st.rows[st.lineRow[l]]
		r.found, r.qty, r.name, r.price, r.original = true, sc.qty, sc.name, sc.price, sc.original
		st.amount[l] = sc.amount
		st.brand[l] = 'G'
		if sc.original {
			st.brand[l] = 'B'
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !header || lines != in.OLCnt {
		return driver.Checkf("tpcc: new-order: the procedure returned %d of %d lines (header: %v)", lines, in.OLCnt, header)
	}
	return nil
}

// paymentDest is the scan destinations of candor_payment's row: warehouse, district, customer.
func (p *procState) paymentDest(st *paymentState) []any {
	if p.payDest == nil {
		cu := &st.c
		p.payDest = []any{&st.wName, &st.wAddr.street1, &st.wAddr.street2, &st.wAddr.city, &st.wAddr.state, &st.wAddr.zip,
			&st.dName, &st.dAddr.street1, &st.dAddr.street2, &st.dAddr.city, &st.dAddr.state, &st.dAddr.zip,
			&cu.id, &cu.first, &cu.middle, &cu.last, &cu.addr.street1, &cu.addr.street2, &cu.addr.city,
			&cu.addr.state, &cu.addr.zip, &cu.phone, &cu.since, &cu.credit, &cu.creditLim, &cu.discount,
			&cu.balance, &cu.data}
	}
	return p.payDest
}

// scanOrderStatus reads candor_order_status's rows, which have the interactive statement's shape.
func (p *procState) scanOrderStatus(rows driver.Rows, st *orderStatusState) error {
	return st.scanRows(rows)
}

// procError maps the errors the procedures raise on purpose: the New-Order rollback becomes
// driver.ErrRollback (with O_ID, C_LAST and C_CREDIT, which the terminal displays, taken from the
// message), a missing warehouse, district or customer errNotFound (wrapping the engine's error, so
// it is still classified as the engine's). Anything else passes unchanged.
func procError(err error, cl *Client) error {
	if err == nil || errors.Is(err, driver.ErrNoRows) {
		return err
	}
	msg := err.Error()
	if i := strings.Index(msg, procRollback); i >= 0 {
		st := &cl.no
		st.missing = st.in.OLCnt - 1
		f := strings.Fields(msg[i+len(procRollback):])
		for j := 0; j+1 < len(f); j++ {
			switch f[j] {
			case "o_id":
				if v, err := strconv.ParseInt(f[j+1], 10, 64); err == nil {
					st.oID = v
				}
			case "c_last":
				st.cLast = f[j+1]
			case "c_credit":
				st.cCredit = f[j+1]
			}
		}
		return driver.ErrRollback
	}
	if strings.Contains(msg, procNotFound) {
		return fmt.Errorf("%w: %w", errNotFound, err)
	}
	return err
}

package tpcc

import (
	"context"
	"errors"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// MaxRetries bounds how often one transaction is retried after a serialization failure, deadlock or
// busy lock before it counts as an error.
const MaxRetries = 10

// Outcome is what became of one transaction.
type Outcome struct {
	// Retries is the number of times the whole transaction was run again after a retryable error.
	Retries int
	// RolledBack: the New-Order rolled back by design because its last item is unused (clause
	// 2.4.2.3). It is a completed business transaction, not an error.
	RolledBack bool
	// Err is the error that ended the transaction, after retries; nil on success.
	Err error
}

// DeliveryResult is what one Delivery's deferred part did (clause 2.7.4.2).
type DeliveryResult struct {
	// Delivered is the number of districts whose oldest undelivered order was delivered.
	Delivered int
	// Skipped is the number of districts without an undelivered order; they must be counted and
	// reported when above 1% (clause 2.7.4.2).
	Skipped int
	// OIDs[d-1] is the O_ID of the order delivered in district d, 0 when the district was skipped:
	// what the result file of clause 2.7.4.2 records per district (deliverylog.go).
	OIDs [DistrictsPerWarehouse]int32
}

// Client runs the five TPC-C transactions for one worker. It owns reusable buffers and argument
// slices, so it is not safe for concurrent use: give each worker its own. The connection is passed
// to each call (the worker owns it and replaces it when it is lost).
type Client struct {
	db  driver.DB
	ops txOps

	// The transaction bodies bound once as method values, so a call allocates no closure. Each reads
	// its input from the state below.
	newOrderFn, paymentFn, orderStatusFn, deliveryFn, stockLevelFn func(context.Context, driver.Conn) error

	no  newOrderState
	pay paymentState
	os  orderStatusState
	del deliveryState
	sl  stockLevelState

	args []any // reused argument list

	// proc is set in the stored-procedure mode (proc_ops.go): one call per transaction.
	proc *procState

	my mysqlState // MySQL's scan state (sql_mysql.go)
	// batches: the engine sends several statements in one round trip (driver.Dialect.Batches;
	// sql_mysql_batch.go).
	batches bool
	// doltPlans: Order-Status and Stock-Level in the forms Dolt's planner reads by the keys
	// (mysqlOrderStatusDolt, stockLevelDolt); set for the dolt dialect.
	doltPlans bool
	// seq runs a pipeline's statements one by one on a connection without pipelines (sql_mysql.go);
	// noPipes makes every connection do so (tests).
	seq     driver.SeqPipe
	noPipes bool

	// Single-statement transactions (see txConn).
	pg     bool
	auto   autoConn
	rcConn driver.Conn // the connection whose session default was last checked
	rcOK   bool        // its default_transaction_isolation is read committed
}

// txOps is the engine-specific half of the transactions: the statements and how their rows are
// read. The business logic shared by all engines (inputs, stock arithmetic, totals, customer
// selection by name) lives in the transaction files.
type txOps interface {
	// newOrderRead: clause 2.4.2.2 up to the order lines. It reads w_tax, reads and increments
	// d_next_o_id, reads d_tax and the customer, inserts orders and new_order, and reads, locking
	// them, the stock rows of cl.no.rows with their items, setting found on those that exist.
	newOrderRead(ctx context.Context, c driver.Conn, cl *Client) error
	// newOrderWrite writes the stock rows and inserts the order lines computed by newOrderState.apply.
	newOrderWrite(ctx context.Context, c driver.Conn, cl *Client) error
	payment(ctx context.Context, c driver.Conn, cl *Client) error
	orderStatus(ctx context.Context, c driver.Conn, cl *Client) error
	delivery(ctx context.Context, c driver.Conn, cl *Client) error
	stockLevel(ctx context.Context, c driver.Conn, cl *Client) error
}

// NewClient returns a Client for db, with the statements of its dialect.
func NewClient(db driver.DB) *Client {
	cl := &Client{db: db, args: make([]any, 0, 16)}
	switch name := db.Dialect().SQLFamily(); name {
	case "postgres":
		cl.ops = pgTxOps{}
		if db.Dialect().Name == dialectDoltgres {
			cl.ops = doltgresTxOps{} // sql_doltgres.go
		}
		// Implicit single-statement transactions on PostgreSQL itself only (distsql.go, sql_doltgres.go).
		cl.pg = !ownKeys(db.Dialect().Name)
	case "sqlite":
		cl.ops = sqliteTxOps{}
	case "mysql":
		cl.ops = mysqlTxOps{}
		cl.batches = db.Dialect().Batches
		cl.doltPlans = db.Dialect().Name == "dolt"
	default:
		cl.ops = unsupportedTxOps{name: name}
	}
	cl.newOrderFn = cl.newOrderTx
	cl.paymentFn = cl.paymentTx
	cl.orderStatusFn = cl.orderStatusTx
	cl.deliveryFn = cl.deliveryTx
	cl.stockLevelFn = cl.stockLevelTx
	return cl
}

// run runs fn as one transaction with retries and turns the result into an Outcome.
func (cl *Client) run(ctx context.Context, conn driver.Conn, opts driver.TxOptions, fn func(context.Context, driver.Conn) error) Outcome {
	retries, err := driver.Retry(ctx, cl.db, conn, opts, MaxRetries, fn)
	if errors.Is(err, driver.ErrRollback) {
		return Outcome{Retries: retries, RolledBack: true}
	}
	return Outcome{Retries: retries, Err: err}
}

// txConn returns the connection a single-statement transaction (Payment, Order-Status, Delivery
// and Stock-Level on PostgreSQL) runs on. At read committed a single statement sent on its own is
// exactly the transaction BEGIN; statement; COMMIT would be (PostgreSQL runs it as an implicit
// transaction at the session's default level: atomic, one snapshot, the same row locks and
// re-checks), so candor sends it alone, which saves COMMIT's round trip (BEGIN has none of its own:
// the PostgreSQL driver sends it with the first statement) and the server's work for both. That is
// done only when the level asked for is read committed and the session's default level is read
// committed too (checked once per connection); any other level gets an explicit transaction. Retries
// still go through driver.Retry, whose Begin, Commit and Rollback then do nothing.
func (cl *Client) txConn(ctx context.Context, conn driver.Conn, iso driver.Isolation) driver.Conn {
	if cl.proc != nil && cl.proc.conn != nil {
		return cl.proc.conn(ctx, cl, conn, iso) // procedures that run their own transactions (proc_mysql.go)
	}
	if !cl.pg {
		return conn
	}
	if iso == driver.IsolationDefault {
		iso = cl.db.DefaultIsolation()
	}
	if iso != driver.IsolationReadCommitted {
		return conn
	}
	if conn != cl.rcConn {
		var level string
		if err := conn.QueryRow(ctx, "SELECT current_setting('default_transaction_isolation')").Scan(&level); err != nil {
			return conn // an explicit transaction is always right; the error will show again there
		}
		cl.rcConn, cl.rcOK = conn, level == "read committed"
	}
	if !cl.rcOK {
		return conn
	}
	cl.auto.Conn = conn
	return &cl.auto
}

// autoConn runs each statement as its own implicit transaction: Begin, Commit and Rollback do
// nothing (a failed statement has rolled itself back).
type autoConn struct{ driver.Conn }

func (*autoConn) Begin(context.Context, driver.TxOptions) error { return nil }
func (*autoConn) Commit(context.Context) error                  { return nil }
func (*autoConn) Rollback(context.Context) error                { return nil }

// argList returns the reused argument slice filled with vals. Callers pass it on with args...,
// which hands the driver the slice itself instead of a new one per call.
// pipe is c's pipeline (driver.PipeOf): valid until the next call.
func (cl *Client) pipe(c driver.Conn) driver.Pipe {
	if cl.noPipes {
		return cl.seq.Reset(c)
	}
	return driver.PipeOf(c, &cl.seq)
}

func (cl *Client) argList(vals ...any) []any {
	cl.args = append(cl.args[:0], vals...)
	return cl.args
}

// unsupportedTxOps answers every transaction of an engine without TPC-C statements with a user error.
type unsupportedTxOps struct{ name string }

func (u unsupportedTxOps) err() error {
	return userr.Errorf("the TPC-C transactions have no statements for the database kind %q: use PostgreSQL, MySQL/MariaDB or SQLite", u.name)
}
func (u unsupportedTxOps) newOrderRead(context.Context, driver.Conn, *Client) error  { return u.err() }
func (u unsupportedTxOps) newOrderWrite(context.Context, driver.Conn, *Client) error { return u.err() }
func (u unsupportedTxOps) payment(context.Context, driver.Conn, *Client) error       { return u.err() }
func (u unsupportedTxOps) orderStatus(context.Context, driver.Conn, *Client) error   { return u.err() }
func (u unsupportedTxOps) delivery(context.Context, driver.Conn, *Client) error      { return u.err() }
func (u unsupportedTxOps) stockLevel(context.Context, driver.Conn, *Client) error    { return u.err() }

package tpcc

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// DeliveryDeferred is the recorder's operation index of the deferred part of Delivery: its response
// time runs from the moment the request was queued to the end of its database work (clause 2.7.2).
const DeliveryDeferred = NumTxTypes

// OpNames are the recorder's operations: the five transaction types, then the deferred Delivery.
var OpNames = append(TxNames[:], "delivery_deferred")

// RunOptions is the TPC-C part of a validated, fully resolved run plan.
type RunOptions struct {
	Mode       Mode
	Warehouses int
	// HomeLo and HomeHi are the home warehouses of this run's terminals: a shard's range of
	// Warehouses (shard.go), or 1..Warehouses (0, 0: all).
	HomeLo, HomeHi int
	Terminals      int
	Connections    int
	// DeliveryWorkers run the deferred Deliveries, each on its own connection. Deliveries of one
	// warehouse always go to the same worker, so they never race for the same oldest order.
	DeliveryWorkers int
	Warmup, Measure time.Duration
	// Grace is how long in-flight work is waited for after the window (or after an interruption).
	Grace     time.Duration
	Seed      uint64
	Isolation driver.Isolation
	// Procedures runs each transaction as one call of the stored procedures (proc_ops.go).
	Procedures bool
	// Endpoints are further endpoints of the same database (other nodes of a cluster): with them
	// the terminals are spread over the run's db and these by warehouse (endpoints.go).
	Endpoints []driver.DB
	// Deliveries receives the Delivery result file of clause 2.7.4.2 (deliverylog.go): a header,
	// then one CSV line per deferred Delivery that ran. It is flushed every interval and when Run
	// returns, interrupted or not; the caller closes it. Nil writes none.
	Deliveries io.Writer
}

// slot is one worker's share of the run: the client that runs transactions on its connection
// (sqlexec.Slots holds the connections), its run-time audit (merged at the end, so workers never
// share a lock for it) and its measured outcomes for the per-endpoint counts.
type slot struct {
	client *Client
	audit  Audit
	tally  endpointTally
	// in is the scratch a closed-loop terminal's inputs are drawn into when its transaction runs
	// (terminal.draw): a terminal keeps none of them between transactions.
	in txInputs
}

// executor runs the terminals' transactions on the workers' connections (schedule.Executor).
type executor struct {
	db         driver.DB
	iso        driver.Isolation
	warehouses int
	slots      []slot
	// conns are the workers' connections, each to its warehouses' endpoint: reconnects through an
	// outage, the abort past the outage window and the round trips are sqlexec's.
	conns      *sqlexec.Slots
	deliveries *deferredQueue
}

var _ schedule.Executor = (*executor)(nil)

func newExecutor(ctx context.Context, db driver.DB, o RunOptions, abort context.CancelCauseFunc, spread *endpointSpread) (*executor, error) {
	conns, err := sqlexec.OpenGrouped(ctx, spread.dbs, spread.slotGroup, o.Connections, abort)
	if err != nil {
		return nil, err
	}
	e := &executor{db: db, iso: o.Isolation, warehouses: o.Warehouses, slots: make([]slot, o.Connections), conns: conns}
	for i := range e.slots {
		e.slots[i].client = newRunClient(db, o.Procedures)
	}
	return e, nil
}

func (e *executor) close() { e.conns.Close() }

// roundTrips is the round trips of every worker's connections, closed or open, and whether the
// engine counts them. Call it once the workers have stopped.
func (e *executor) roundTrips() (int64, bool) { return e.conns.RoundTrips() }

// Execute runs terminal t's drawn transaction on worker i. A lost connection is re-opened and the
// transaction run again (counted in Reconnects, sqlexec.Slots.Run); the Delivery only queues its
// deferred part.
func (e *executor) Execute(ctx context.Context, i int, st schedule.Terminal, op int, measured bool) schedule.Outcome {
	s := &e.slots[i]
	var in *txInputs
	var w, d int
	switch t := st.(type) {
	case *terminal: // closed loop: the inputs are drawn now, once, from the terminal's own stream
		in = &s.in
		t.draw(op, in)
		w, d = t.home()
	case *arrival: // open loop: drawn in arrival order (arrivals.go)
		in, w, d = &t.in, t.w, t.d
	default:
		panic(fmt.Sprintf("tpcc: the executor was given a %T, not a TPC-C terminal or arrival", st))
	}
	var rolledBack bool
	if op == Delivery {
		// Clause 2.7.2.1: the terminal's response time is the time to queue the request. Queueing
		// needs no connection (on the null engine, which runs no statements, it still happens).
		var res schedule.Outcome
		if res.Err = e.deliveries.enqueue(ctx, w, in.dl.CarrierID, measured); res.Err != nil {
			res.Class = driver.FailureOf(e.db, res.Err)
		}
		s.audit.add(op, in)
		s.tally.add(measured, res.Err, res.Retries)
		return res
	}
	res := e.conns.Run(ctx, i, func(ctx context.Context, c driver.Conn) (int, error) {
		var o Outcome
		switch op {
		case NewOrder:
			o = s.client.NewOrder(ctx, c, &in.no, e.iso)
		case Payment:
			o = s.client.Payment(ctx, c, &in.pay, e.iso)
		case OrderStatus:
			o = s.client.OrderStatus(ctx, c, &in.os, e.iso)
		case StockLevel:
			// Clause 2.8.1.1: always the terminal's own district. Clause 2.8.2.1 allows a weaker
			// isolation level: read committed where the engine has one.
			o, _ = s.client.StockLevel(ctx, c, w, d, &in.sl, stockLevelIsolation(e.iso))
		}
		rolledBack = o.RolledBack
		return o.Retries, o.Err
	})
	res.RolledBack = rolledBack
	s.audit.add(op, in)
	s.tally.add(measured, res.Err, res.Retries)
	return res
}

// stockLevelIsolation is the level Stock-Level runs at: read committed when the run uses a stronger
// level (clause 2.8.2.1 allows it), else the run's.
func stockLevelIsolation(iso driver.Isolation) driver.Isolation {
	if iso == driver.IsolationRepeatableRead || iso == driver.IsolationSerializable {
		return driver.IsolationReadCommitted
	}
	return iso
}

func (e *executor) mergedAudit() *Audit {
	a := &Audit{Warehouses: e.warehouses}
	for i := range e.slots {
		a.Merge(&e.slots[i].audit)
	}
	a.Merge(&e.deliveries.audit)
	return a
}

// deferredQueue runs the deferred part of Delivery (clause 2.7.2) on its own workers and connections.
type deferredQueue struct {
	ctx        context.Context
	db         driver.DB
	iso        driver.Isolation
	procs      bool // procedure mode
	rec        *measure.Recorder
	stripeBase int
	log        *deliveryLog // the result file of clause 2.7.4.2; nil writes none
	// trips are the round trips of the workers' closed connections (driver.RoundTripCounter).
	trips        atomic.Int64
	tripsCounted atomic.Bool
	queues       []chan deliveryJob
	wg           sync.WaitGroup
	stop         context.CancelFunc
	runCtx       context.Context

	districts, skipped atomic.Int64
	// unfinished counts the Deliveries queued and not yet done (run or counted incomplete).
	unfinished atomic.Int64
	auditMu    sync.Mutex
	audit      Audit
	// dbs[i] is worker i's endpoint; tallies[i] its measured outcomes (endpoints.go).
	dbs     []driver.DB
	tallies []endpointTally
}

type deliveryJob struct {
	w, carrier int
	// queued starts the deferred response time (clause 2.7.2.1); measured is the scheduler's verdict
	// on the terminal's Delivery, so both parts count in the same window.
	queued   time.Time
	measured bool
}

// The deferred Deliveries wait in bounded queues, one per worker (deliveries of one warehouse go to
// one worker: they never race for the same oldest order, and run in the order they were queued).
// The room is bounded over all workers, whatever the warehouse count: deliveryQueueRoom entries
// shared out, from deliveryQueueMin to deliveryQueueMax per worker. A full queue blocks the
// terminal, and that wait is in the Delivery's response time: the backlog shows, it is never
// dropped.
const (
	deliveryQueueRoom = 65536
	deliveryQueueMin  = 256
	deliveryQueueMax  = 4096
)

// deliveryQueueLen is each of n workers' queue length.
func deliveryQueueLen(n int) int {
	return min(deliveryQueueMax, max(deliveryQueueMin, deliveryQueueRoom/max(1, n)))
}

func newDeferredQueue(ctx context.Context, db driver.DB, o RunOptions, rec *measure.Recorder, stripeBase int, spread *endpointSpread) (*deferredQueue, error) {
	// With several endpoints, a multiple of their number, so each worker serves one endpoint's
	// warehouses over a connection to it.
	n := spread.deliveryWorkers(max(1, min(o.DeliveryWorkers, o.Warehouses)))
	runCtx, stop := context.WithCancel(ctx)
	q := &deferredQueue{ctx: ctx, db: db, iso: o.Isolation, procs: o.Procedures, rec: rec, stripeBase: stripeBase,
		log: newDeliveryLog(o.Deliveries), queues: make([]chan deliveryJob, n), stop: stop, runCtx: runCtx,
		dbs: make([]driver.DB, n), tallies: make([]endpointTally, n)}
	conns := make([]driver.Conn, n)
	for i := range conns {
		q.dbs[i] = spread.deliveryDB(i)
		c, err := q.dbs[i].Connect(ctx)
		if err != nil {
			for _, c := range conns[:i] {
				c.Close()
			}
			stop()
			return nil, userr.Errorf("cannot open the deferred-delivery connection to %s: %v: raise the server's connection limit", q.dbs[i].Redacted(), err)
		}
		conns[i] = c
	}
	for i := range q.queues {
		q.queues[i] = make(chan deliveryJob, deliveryQueueLen(n))
		q.wg.Add(1)
		go q.work(i, conns[i])
	}
	return q, nil
}

func (q *deferredQueue) enqueue(ctx context.Context, w, carrier int, measured bool) error {
	job := deliveryJob{w: w, carrier: carrier, queued: time.Now(), measured: measured}
	q.unfinished.Add(1)
	select {
	case q.queues[(w-1)%len(q.queues)] <- job:
		return nil
	case <-ctx.Done():
		q.unfinished.Add(-1)
		return ctx.Err()
	}
}

func (q *deferredQueue) work(i int, conn driver.Conn) {
	defer q.wg.Done()
	closeConn := func() { // keeping its round trips
		if n, ok := driver.RoundTrips(conn); ok {
			q.trips.Add(n)
			q.tripsCounted.Store(true)
		}
		conn.Close()
		conn = nil
	}
	defer func() {
		if conn != nil {
			closeConn()
		}
	}()
	client := newRunClient(q.db, q.procs)
	stripe := q.rec.Stripe(q.stripeBase + i)
	var audit Audit
	defer func() {
		q.auditMu.Lock()
		q.audit.Merge(&audit)
		q.auditMu.Unlock()
	}()
	in := DeliveryInput{}
	// What a Delivery's retried attempts failed with (driver.Retry fills the note), as the
	// scheduler's workers keep it for the operations they run.
	var note driver.RetryNote
	noteCtx := driver.WithRetryNote(q.runCtx, &note)
	var line []byte // this worker's line of the result file, formatted outside the log's lock
	logLine := func(l *deliveryLine) {
		if q.log != nil {
			line = appendDeliveryLine(line[:0], l)
			q.log.write(line)
		}
	}
	taken := false // a job was taken: it is done once the next one is taken, or the queue closed
	defer func() {
		if taken {
			q.unfinished.Add(-1)
		}
	}()
	for job := range q.queues[i] {
		if taken {
			q.unfinished.Add(-1)
		}
		taken = true
		m := job.measured
		if q.runCtx.Err() != nil {
			stripe.Incomplete(DeliveryDeferred, m)
			continue
		}
		ev := measure.Event{}
		if conn == nil {
			// Through an outage, as the workers' connections (sqlexec): the job waits, and its
			// response time, from its queueing, holds the wait.
			c, err := sqlexec.Connect(q.runCtx, q.dbs[i], nil)
			if err != nil && q.runCtx.Err() != nil {
				stripe.Incomplete(DeliveryDeferred, m)
				continue
			}
			if err != nil {
				ev.Err, ev.Fail, ev.Msg = true, driver.FailConnLost, driver.FailureMessage(err)
				now := time.Now()
				ev.Response, ev.Lag = now.Sub(job.queued), now.Sub(job.queued)
				stripe.Done(DeliveryDeferred, m, ev)
				q.tallies[i].add(m, err, 0)
				logLine(&deliveryLine{queued: job.queued, completed: job.queued.Add(ev.Response), measured: m,
					w: job.w, carrier: job.carrier, err: deliveryErrorText(q.db.Classify(err), err)})
				continue
			}
			conn = c
			ev.Reconnects++
		}
		in.CarrierID = job.carrier
		begin := time.Now()
		var o Outcome
		var res DeliveryResult
		if sim, ok := driver.Simulated(conn); ok { // the null engine: its service time, no statements
			o.Err = sim.Simulate(q.runCtx)
		} else {
			note = driver.RetryNote{}
			o, res = client.Delivery(noteCtx, conn, job.w, &in, q.iso)
		}
		done := time.Now()
		if o.Err != nil && q.runCtx.Err() != nil {
			stripe.Incomplete(DeliveryDeferred, m)
			continue
		}
		if o.Err != nil && q.db.Classify(o.Err) == driver.ErrConnLost {
			closeConn()
		}
		if o.Err == nil {
			audit.AddDelivery(res.Skipped)
		}
		ev.Response, ev.Service, ev.Lag = done.Sub(job.queued), done.Sub(begin), begin.Sub(job.queued)
		ev.Retries, ev.Err = o.Retries, o.Err != nil
		if o.Retries > 0 && note.Err != nil {
			ev.RetryFail, ev.RetryMsg = note.Class, driver.FailureMessage(note.Err)
		}
		if o.Err != nil {
			ev.Fail, ev.Msg = driver.FailureOf(q.db, o.Err), driver.FailureMessage(o.Err)
		}
		stripe.Done(DeliveryDeferred, m, ev)
		q.tallies[i].add(m, o.Err, o.Retries)
		if q.log != nil { // clause 2.7.4.2: the result file
			l := deliveryLine{queued: job.queued, completed: job.queued.Add(ev.Response), measured: m, w: job.w, carrier: job.carrier, res: &res}
			if o.Err != nil {
				l.res, l.err = nil, deliveryErrorText(q.db.Classify(o.Err), o.Err)
			}
			logLine(&l)
		}
		if m && o.Err == nil {
			q.districts.Add(DistrictsPerWarehouse)
			q.skipped.Add(int64(res.Skipped))
		}
	}
}

// finish closes the queues and waits for the workers; after grace, work still queued or running is
// cancelled and counted as incomplete. The result file is flushed every second meanwhile: the
// schedule's ticks, which flush it during the run, have ended, and a drain can last the 80 s of
// clause 2.7.2 (a second Ctrl-C during it ends the process).
func (q *deferredQueue) finish(grace time.Duration, hurry <-chan struct{}) {
	for _, c := range q.queues {
		close(c)
	}
	done := make(chan struct{})
	go func() { q.wg.Wait(); close(done) }()
	flush := time.NewTicker(time.Second)
	defer flush.Stop()
	timeout := time.After(grace)
wait:
	for {
		select {
		case <-done:
			break wait
		case <-flush.C:
			q.log.flush()
		case <-timeout:
			q.stop()
			<-done
			break wait
		case <-hurry: // a second Ctrl-C: what is left is incomplete
			q.stop()
			<-done
			break wait
		}
	}
	q.stop()
	q.log.flush()
}

// add counts one executed transaction's generated input in the run-time audit (clause 9.2); the
// deferred Delivery counts its skipped districts when it completes.
func (a *Audit) add(op int, in *txInputs) {
	switch op {
	case NewOrder:
		a.AddNewOrder(&in.no)
	case Payment:
		a.AddPayment(&in.pay)
	case OrderStatus:
		a.AddOrderStatus(&in.os)
	case StockLevel:
		a.AddStockLevel()
	}
}

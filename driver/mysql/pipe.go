package mysql

import (
	"context"
	"errors"
	"fmt"

	"github.com/candor-bench/candor/driver"
)

// pipe is the session's pipeline (driver.Pipe) on candor's wire: the commands are queued in the
// wire's out buffer (statements with arguments as COM_STMT_EXECUTE of their prepared statement,
// prepared on first use in a round trip of its own; Exec without arguments as COM_QUERY), a pending
// Begin's statements (or SET autocommit = 1 outside a transaction) in front, and written in one
// write. MariaDB and MySQL read the commands one after another from the socket and send each
// answer as it is done; they are read in order. A command that fails does not stop the ones
// behind it, which is why COMMIT goes in a pipeline only to end a read-only transaction
// (Conn.CarryCommit), where committing changes nothing whichever statement failed.
type pipe struct {
	c     *Conn
	kinds []byte   // per queued command: pipeLead, pipeExec, pipeText, pipeQuery or pipeCommit
	stmts []*wstmt // per queued command: its statement (nil for text)
	next  int      // the next answer to read
	err   error    // an error queueing, returned by Send
	open  bool     // between Pipe and Close
	sent  bool
	// pending: a held-back Begin's statements lead; leadOn: SET autocommit = 1 does.
	pending, leadOn bool
	ctx             context.Context
	stop            func() bool
	rows            *rows // the result being read, closed before the next answer is
}

// The kinds of a pipeline's commands.
const (
	pipeLead   = iota // a statement candor put in front (Begin's, SET autocommit = 1)
	pipeExec          // a prepared statement whose rows are not read
	pipeText          // a text statement whose rows are not read
	pipeQuery         // a prepared statement whose rows are read
	pipeCommit        // the transaction's COMMIT, behind the caller's statements (Conn.CarryCommit)
)

var _ driver.Pipeliner = (*Conn)(nil)

// Pipe returns the session's pipeline, empty, or nil when the session does not run on candor's
// wire, the URL says pipelines=off, or the engine takes no pipelines (engines.go: TiDB, Dolt). A
// pipeline left open is read to its end first.
func (c *Conn) Pipe() driver.Pipe {
	if c.w == nil || c.db.opts.noPipes || !c.db.engine.pipelines {
		return nil
	}
	c.endPipe()
	p := &c.pp
	*p = pipe{c: c, kinds: p.kinds[:0], stmts: p.stmts[:0], open: true}
	switch {
	case c.tx == txPending:
		p.pending = true
		for _, q := range [2]string{c.pendSet, c.pendStart} {
			if q != "" {
				p.lead(q)
			}
		}
	case c.outside() && c.ac != acOn:
		p.lead(autocommitOnSQL)
		p.leadOn = true
	}
	return p
}

// endPipe reads what an open pipeline left: the session's next statement comes after it.
func (c *Conn) endPipe() {
	if c.pp.open {
		c.pp.Close()
	}
}

func (p *pipe) lead(q string) {
	p.c.w.text(q)
	p.kinds = append(p.kinds, pipeLead)
	p.stmts = append(p.stmts, nil)
}

func (p *pipe) Exec(query string, args ...any) {
	if len(args) == 0 {
		if p.queueable() {
			p.c.w.text(query)
			p.kinds = append(p.kinds, pipeText)
			p.stmts = append(p.stmts, nil)
		}
		return
	}
	p.queue(pipeExec, query, args)
}

func (p *pipe) Query(query string, args ...any) { p.queue(pipeQuery, query, args) }

// pipeCap bounds a pipeline's commands (those candor puts in front and behind included): TPC-C's
// largest transaction queues about 50. It keeps the commands written at once, and the answers the
// server writes back before they are read, bounded, and below wstmtCap, so a pipeline's own
// statements are never the least recently used that a new prepare closes.
const pipeCap = 128

// queueable says a statement may be queued: the pipeline is open, not sent, has room, and nothing
// failed.
func (p *pipe) queueable() bool {
	switch {
	case p.err != nil:
		return false
	case len(p.kinds) >= pipeCap-1: // room for a carried COMMIT
		p.err = fmt.Errorf("mysql: a pipeline holds at most %d statements: send it, then queue the rest on another", pipeCap-1)
		return false
	case !p.open || p.sent:
		p.err = errors.New("mysql: a statement queued on a pipeline already sent or closed")
		return false
	}
	return true
}

// queue queues the execution of query's prepared statement (prepared now if it is new).
func (p *pipe) queue(kind byte, query string, args []any) {
	if !p.queueable() {
		return
	}
	c := p.c
	s, err := c.wprepared(query)
	if err != nil {
		p.err = err
		return
	}
	if s.nParams != len(args) {
		p.err = fmt.Errorf("sql: expected %d arguments, got %d", s.nParams, len(args))
		return
	}
	if err := c.w.execute(s, args, c.conv); err != nil {
		p.err = err
		return
	}
	p.kinds = append(p.kinds, kind)
	p.stmts = append(p.stmts, s)
}

func (p *pipe) Send(ctx context.Context) error {
	c := p.c
	if err := ctx.Err(); err != nil {
		p.err = err
	}
	if p.err == nil && (!p.open || p.sent) {
		p.err = errors.New("mysql: a pipeline sent twice, or after Close")
	}
	if p.err != nil {
		c.w.discardQueued() // nothing queued is sent
		p.kinds = p.kinds[:0]
		p.open = false
		return p.err
	}
	p.sent, p.ctx = true, ctx
	if p.pending {
		c.tx = txOpen
	}
	if c.carry { // a read-only transaction's COMMIT, behind its statements
		c.carry = false
		c.w.text("COMMIT")
		p.kinds = append(p.kinds, pipeCommit)
		p.stmts = append(p.stmts, nil)
	}
	c.trips++
	p.stop = c.watch(ctx)
	if err := c.w.flush(); err != nil {
		p.finish()
		return failed(ctx, err)
	}
	// the answers of the statements in front: Begin's (or SET autocommit = 1)
	var first error
	for p.next < len(p.kinds) && p.kinds[p.next] == pipeLead {
		if _, err := p.answer(); err != nil && first == nil {
			first = err
		}
	}
	if p.pending {
		if first != nil {
			c.sessIso = "" // a level set for this transaction only may still be pending
		}
		c.sentBegin(first == nil)
	}
	if p.leadOn {
		if first == nil {
			c.ac = acOn
		} else {
			c.ac = acUnknown
		}
	}
	if first != nil {
		return failed(ctx, first)
	}
	return nil
}

// answer reads the next answer whose rows are not wanted: the rows it affected.
func (p *pipe) answer() (int64, error) {
	w := p.c.w
	var s *wstmt
	if p.kinds[p.next] == pipeExec {
		s = p.stmts[p.next]
	}
	p.next++
	w.answer()
	ncols, affected, status, err := w.result(s)
	if err == nil && (ncols > 0 || status&statusMoreResults != 0) {
		err = w.discard(ncols > 0, status)
	}
	return affected, err
}

// ready checks that the next answer is of the kind the caller reads, and closes the rows before it.
func (p *pipe) ready(kinds ...byte) error {
	if p.rows != nil {
		p.rows.close()
		p.rows = nil
	}
	switch {
	case !p.sent || !p.open:
		return errors.New("mysql: a pipeline's answer read before Send or after Close")
	case p.c.w.err != nil:
		return p.c.w.err
	case p.next >= len(p.kinds):
		return errors.New("mysql: a pipeline's answers read beyond its statements")
	}
	for _, k := range kinds {
		if p.kinds[p.next] == k {
			return nil
		}
	}
	return fmt.Errorf("mysql: a pipeline's answer %d read as another kind than it was queued", p.next+1)
}

func (p *pipe) Affected() (int64, error) {
	if err := p.ready(pipeExec, pipeText); err != nil {
		return 0, err
	}
	n, err := p.answer()
	return n, failed(p.ctx, err)
}

func (p *pipe) Rows() (driver.Rows, error) {
	if err := p.ready(pipeQuery); err != nil {
		return nil, err
	}
	c, s := p.c, p.stmts[p.next]
	p.next++
	c.w.answer()
	ncols, _, status, err := c.w.result(s)
	if err != nil {
		return nil, failed(p.ctx, err)
	}
	r := c.newRows(nil, p.ctx, nil)
	r.r = r.w.start(c.w, s, ncols, status)
	p.rows = r
	return r, nil
}

func (p *pipe) Close() error {
	if !p.open {
		return nil
	}
	var first error
	if p.sent {
		if p.rows != nil {
			p.rows.close()
			p.rows = nil
		}
		for p.next < len(p.kinds) && p.c.w.err == nil {
			k := p.kinds[p.next]
			_, err := p.answer()
			if err != nil && first == nil {
				first = err
			}
			if k == pipeCommit && err == nil {
				p.c.tx = txEnded // Commit has nothing left to send
			}
		}
		if p.c.w.err != nil && first == nil {
			first = p.c.w.err
		}
	} else {
		p.c.w.discardQueued() // queued, never sent
	}
	p.finish()
	return failed(p.ctx, first)
}

// finish ends the pipeline: the context is no longer watched.
func (p *pipe) finish() {
	p.open = false
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
}

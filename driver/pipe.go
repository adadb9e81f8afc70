package driver

import (
	"context"
	"errors"
)

// PipeOf is c's pipeline when it has one (Pipeliner), else seq made ready to run the statements on c
// one at a time: code written for a pipeline runs on every connection, in one round trip where the
// engine takes it.
func PipeOf(c Conn, seq *SeqPipe) Pipe {
	if pl, ok := c.(Pipeliner); ok {
		if p := pl.Pipe(); p != nil {
			return p
		}
	}
	return seq.Reset(c)
}

// SeqPipe is the Pipe of a connection without one: each statement runs when its answer is read, in a
// round trip of its own, as the caller would run it. A statement whose answer is never read (after an
// earlier one failed) is not run. Reusable: Reset readies it for the next pipeline.
type SeqPipe struct {
	c    Conn
	ctx  context.Context
	q    []seqStmt
	args []any // the queued statements' arguments, one after another
	next int
	rows Rows
	sent bool
}

type seqStmt struct {
	query  string
	rows   bool // queued by Query
	lo, hi int  // its arguments in args
}

// Reset empties p for a pipeline on c.
func (p *SeqPipe) Reset(c Conn) *SeqPipe {
	p.closeRows()
	clear(p.args)
	*p = SeqPipe{c: c, q: p.q[:0], args: p.args[:0]}
	return p
}

func (p *SeqPipe) queue(query string, rows bool, args []any) {
	lo := len(p.args)
	p.args = append(p.args, args...)
	p.q = append(p.q, seqStmt{query: query, rows: rows, lo: lo, hi: len(p.args)})
}

func (p *SeqPipe) Exec(query string, args ...any)  { p.queue(query, false, args) }
func (p *SeqPipe) Query(query string, args ...any) { p.queue(query, true, args) }

// Send sends nothing: each statement goes when its answer is read.
func (p *SeqPipe) Send(ctx context.Context) error {
	if p.sent {
		return errors.New("driver: a pipeline sent twice")
	}
	p.ctx, p.sent = ctx, true
	return ctx.Err()
}

// step is the next statement, after the rows of the one before are closed.
func (p *SeqPipe) step(rows bool) (seqStmt, error) {
	p.closeRows()
	switch {
	case !p.sent:
		return seqStmt{}, errors.New("driver: a pipeline's answer read before Send")
	case p.next >= len(p.q):
		return seqStmt{}, errors.New("driver: a pipeline's answers read beyond its statements")
	case p.q[p.next].rows != rows:
		return seqStmt{}, errors.New("driver: a pipeline's answer read as another kind than it was queued")
	}
	s := p.q[p.next]
	p.next++
	return s, nil
}

func (p *SeqPipe) Affected() (int64, error) {
	s, err := p.step(false)
	if err != nil {
		return 0, err
	}
	return p.c.Exec(p.ctx, s.query, p.args[s.lo:s.hi]...)
}

func (p *SeqPipe) Rows() (Rows, error) {
	s, err := p.step(true)
	if err != nil {
		return nil, err
	}
	rows, err := p.c.Query(p.ctx, s.query, p.args[s.lo:s.hi]...)
	p.rows = rows
	return rows, err
}

// Close closes the rows being read; the statements not read are not run.
func (p *SeqPipe) Close() error {
	p.closeRows()
	p.next = len(p.q)
	return nil
}

func (p *SeqPipe) closeRows() {
	if p.rows != nil {
		p.rows.Close()
		p.rows = nil
	}
}

package tpcc

import (
	"context"
	"iter"
	"sync"

	"github.com/candor-bench/candor/driver"
)

// The single-writer path (SQLite): `loaders` goroutines generate units into memory in parallel and
// one connection writes them, each unit in its own transaction, strictly in the order of
// loadUnits, so every table's B-tree only grows at its right end. At most about 2 x loaders
// generated units wait in memory (a few MB each).

// memRows is a generated table of one unit held in memory: a driver.RowSource over a flat slice.
type memRows struct {
	ncol int
	vals []any
	pos  int
}

func (m *memRows) Next() bool {
	if m.pos+m.ncol > len(m.vals) {
		return false
	}
	m.pos += m.ncol
	return true
}
func (m *memRows) Values() ([]any, error) { return m.vals[m.pos-m.ncol : m.pos : m.pos], nil }
func (m *memRows) Err() error             { return nil }

// materialize runs a source to its end and keeps its rows. Values are immutable, so keeping them
// is safe even though the source reuses its slice.
func materialize(src driver.RowSource, ncol int) (*memRows, error) {
	m := &memRows{ncol: ncol}
	for src.Next() {
		v, err := src.Values()
		if err != nil {
			return nil, err
		}
		m.vals = append(m.vals, v...)
	}
	return m, src.Err()
}

// generated is one unit on its way from a generator to the writer.
type generated struct {
	u     unit
	steps []step
	err   error
	done  chan struct{}
}

func loadSingleWriter(parent context.Context, db driver.DB, g *genConfig, us iter.Seq[unit], loaders int, progress func(int64)) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	fe := newFirstError(cancel)

	c, err := db.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()

	work := make(chan *generated, loaders)
	order := make(chan *generated, loaders)
	// Dispatcher: hands units out in order, to the generators and, in the same order, to the writer.
	go func() {
		defer close(order)
		defer close(work)
		for u := range us {
			p := &generated{u: u, done: make(chan struct{})}
			select {
			case order <- p:
			case <-ctx.Done():
				return
			}
			select {
			case work <- p:
			case <-ctx.Done():
				close(p.done)
				return
			}
		}
	}()
	// Generators.
	var wg sync.WaitGroup
	for i := 0; i < loaders; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if ctx.Err() == nil {
					for _, s := range p.u.steps(g) {
						m, err := materialize(s.src, len(s.t.cols))
						if err != nil {
							p.err = err
							break
						}
						p.steps = append(p.steps, step{s.t, m})
					}
				}
				close(p.done)
			}
		}()
	}
	// Writer: this goroutine.
	for p := range order {
		select {
		case <-p.done:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if p.err == nil {
			p.err = loadUnit(ctx, c, p.steps, progress)
		}
		if p.err != nil {
			fe.set(unitError(p.u, p.err))
			break
		}
		p.steps = nil
	}
	cancel(nil) // stops the dispatcher and generators if the writer stopped early
	for range order {
	}
	wg.Wait()
	if err := fe.get(); err != nil {
		return err
	}
	return context.Cause(parent)
}

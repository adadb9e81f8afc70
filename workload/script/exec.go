package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/script/pgscript"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// debugOut receives debug()'s lines, on stderr as pgbench prints them.
var debugOut = os.Stderr

// Transaction statements. A script's transactions are the user's: its BEGIN (or START
// TRANSACTION), END or COMMIT, and ROLLBACK or ABORT, each alone (with WORK or TRANSACTION at
// most), go to the connection's own Begin, Commit and Rollback, so that every engine gets what it
// needs: PostgreSQL sends BEGIN with the next statement in one write, SQLite takes the write lock
// up front (BEGIN IMMEDIATE: a deferred BEGIN of two writers deadlocks on the lock upgrade), MySQL
// and MariaDB get COMMIT for pgbench's END (which they do not know), and --isolation applies.
// Any other statement (SAVEPOINT, BEGIN ISOLATION LEVEL ..., SET) is sent as written.
const (
	txNone = iota
	txBegin
	txCommit
	txRollback
)

// txKind classifies a statement's text.
func txKind(sql string) int {
	w := strings.Fields(strings.ToUpper(strings.TrimSpace(sql)))
	if len(w) == 0 {
		return txNone
	}
	rest := w[1:]
	kind := txNone
	switch w[0] {
	case "BEGIN":
		kind = txBegin
	case "START":
		if len(rest) == 0 || rest[0] != "TRANSACTION" {
			return txNone
		}
		kind, rest = txBegin, rest[1:]
	case "END", "COMMIT":
		kind = txCommit
	case "ROLLBACK", "ABORT":
		kind = txRollback
	default:
		return txNone
	}
	if len(rest) == 1 && (rest[0] == "WORK" || rest[0] == "TRANSACTION") {
		rest = nil
	}
	if len(rest) > 0 {
		return txNone
	}
	return kind
}

// stmt is one statement as this run sends it.
type stmt struct {
	sql  string // in the engine's placeholder style
	tx   int
	part int // its operation's index
}

// executor runs the clients' scripts on the workers' connections (schedule.Executor).
type executor struct {
	iso   driver.Isolation
	slots *sqlexec.Slots
	parts workload.PartTimer
	prog  *pgscript.Program
	names []string
	// stmts[script][command][statement]
	stmts [][][]stmt
	// last[script] is the index of the script's last command (a \sleep there is think time).
	last []int
	rate bool
	// maxTries is pgbench's --max-tries: the tries a script gets when it fails with a serialization
	// failure or a deadlock (1: no retry, pgbench's default; 0: no limit but the run's end).
	maxTries int
	envs     []*pgscript.Env // rate mode: each worker's client
	run      []runner        // each worker's runner
	// first is each script's first error, printed once (note) and kept for the result: the core
	// counts errors, only the script knows which of its lines failed and why.
	mu    sync.Mutex
	first []string
	note  func(string)
}

// failed keeps script's first error and prints it once.
func (e *executor) failed(script int, name string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first[script] != "" {
		return
	}
	e.first[script] = err.Error()
	if e.note != nil {
		e.note(fmt.Sprintf("%s failed: %v (the script's further errors are counted, not printed)", name, err))
	}
}

var _ schedule.Executor = (*executor)(nil)

func newExecutor(s *Script, fam string, iso driver.Isolation, slots *sqlexec.Slots, parts workload.PartTimer, rate bool) *executor {
	e := &executor{iso: iso, slots: slots, parts: parts, prog: s.prog, rate: rate, maxTries: s.o.MaxTries, names: s.names, first: make([]string, len(s.prog.Scripts))}
	for i, sc := range s.prog.Scripts {
		k := 0
		cmds := make([][]stmt, len(sc.Commands))
		for c := range sc.Commands {
			for _, st := range sc.Commands[c].Statements {
				cmds[c] = append(cmds[c], stmt{sql: st.SQLFor(fam), tx: txKind(st.SQL), part: s.parts[i][k].op})
				k++
			}
		}
		e.stmts = append(e.stmts, cmds)
		e.last = append(e.last, len(sc.Commands)-1)
	}
	e.run = make([]runner, slots.Len())
	for i := range e.run {
		e.run[i] = runner{e: e, slot: i}
	}
	return e
}

// Execute runs the terminal's chosen script once on worker slot i.
func (e *executor) Execute(ctx context.Context, i int, t schedule.Terminal, op int, measured bool) schedule.Outcome {
	term := t.(*terminal)
	env := term.env
	if e.rate {
		env = e.envs[i]
	}
	r := &e.run[i]
	// pgbench's retry (pgbench.c, CSTATE_RETRY): every try, a retry after a serialization failure
	// or a deadlock or a run again on a new connection after a lost one, starts from the random
	// state the script began with, so it draws the same values; variables stay as the failed try
	// left them (a \gset of it included), and after the last failed try the stream goes on from
	// where that try left it, as in pgbench.
	r.rand = *env.Rand
	tries := 0
	out := e.slots.Run(ctx, i, func(ctx context.Context, c driver.Conn) (int, error) {
		retries := 0
		for {
			if tries > 0 {
				*env.Rand = r.rand
			}
			tries++
			err := e.try(ctx, r, c, term, measured, env)
			if err == nil {
				return retries, nil
			}
			if e.slots.DB(i).Classify(err) == driver.ErrRetry && (e.maxTries == 0 || tries < e.maxTries) && ctx.Err() == nil {
				retries++
				driver.NoteRetry(ctx, e.slots.DB(i), err)
				continue
			}
			return retries, err
		}
	})
	r.c, r.env, r.term = nil, nil, nil
	if out.Err == nil {
		e.slots.Done(i)
	} else if ctx.Err() == nil {
		e.failed(term.script, e.names[term.script], out.Err)
	}
	return out
}

// try runs the terminal's script once on c.
func (e *executor) try(ctx context.Context, r *runner, c driver.Conn, term *terminal, measured bool, env *pgscript.Env) error {
	r.ctx, r.c, r.term, r.script, r.measured, r.env, r.inTx = ctx, c, term, term.script, measured, env, false
	err := env.Run(term.script, r)
	if r.inTx {
		rbErr := c.Rollback(ctx)
		r.inTx = false
		if err == nil {
			err = fmt.Errorf("%s ended inside a transaction (a BEGIN without END): it was rolled back; end the script's transaction", e.prog.Scripts[term.script].Name)
			if rbErr != nil {
				err = fmt.Errorf("%w (the rollback failed too: %v)", err, rbErr)
			}
		}
	}
	return err
}

// runner is one worker's pgscript.Runner: the script in progress and its connection.
type runner struct {
	e        *executor
	slot     int
	ctx      context.Context
	c        driver.Conn
	env      *pgscript.Env
	term     *terminal
	script   int
	measured bool
	inTx     bool
	rand     gen.Rand // the client's random state before the script's first try
	vals     []any
	ptrs     []any
}

// Exec sends one statement and reads its whole result, as pgbench does; a \gset or \aset
// statement's last row goes to the client's variables.
func (r *runner) Exec(cmd int, c *pgscript.Command, k int, st *pgscript.Statement, args []any) error {
	s := &r.e.stmts[r.script][cmd][k]
	start := time.Now()
	var err error
	switch s.tx {
	case txBegin:
		err = r.c.Begin(r.ctx, driver.TxOptions{Isolation: r.e.iso})
		r.inTx = err == nil || r.inTx
	case txCommit:
		if !r.inTx {
			return nil // pgbench's END outside a transaction: PostgreSQL warns and does nothing
		}
		r.inTx = false
		err = r.c.Commit(r.ctx)
	case txRollback:
		if !r.inTx {
			return nil
		}
		r.inTx = false
		err = r.c.Rollback(r.ctx)
	default:
		err = r.query(c, k, s.sql, args)
	}
	if err != nil {
		return r.fail(c, err)
	}
	r.e.parts.Done(r.slot, s.part, r.measured, start)
	return nil
}

// query runs a statement that is not a transaction's boundary.
func (r *runner) query(c *pgscript.Command, k int, sql string, args []any) error {
	rs, err := r.c.Query(r.ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	if c.Store == pgscript.StoreNone {
		for rs.Next() {
		}
		return rs.Err()
	}
	cols := columns(rs)
	if len(r.vals) < len(cols) {
		r.vals = make([]any, len(cols))
		r.ptrs = make([]any, len(cols))
		for i := range r.vals {
			r.ptrs[i] = &r.vals[i]
		}
	}
	n := 0
	var last []any
	for rs.Next() {
		if err := rs.Scan(r.ptrs[:len(cols)]...); err != nil {
			return err
		}
		n++
		last = r.vals[:len(cols)]
	}
	if err := rs.Err(); err != nil {
		return err
	}
	return r.env.StoreResult(c, k, cols, n, last)
}

// columns is a result's column names (pgx's field descriptions; database/sql's Columns).
func columns(rs driver.Rows) []string {
	switch x := rs.(type) {
	case interface {
		FieldDescriptions() []pgconn.FieldDescription
	}:
		var cols []string
		for _, f := range x.FieldDescriptions() {
			cols = append(cols, f.Name)
		}
		return cols
	case interface{ Columns() []string }:
		return x.Columns()
	}
	return nil
}

// fail ends the script after a statement's error: an open transaction is rolled back, and the
// error names the script's file, line and column.
func (r *runner) fail(c *pgscript.Command, err error) error {
	if r.inTx {
		_ = r.c.Rollback(r.ctx)
		r.inTx = false
	}
	var pe *pgscript.Error
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %w", c.Pos, err)
}

// Sleep honours \sleep: the script's last command becomes the client's think time in the closed
// loop (no worker held while it waits); any other \sleep holds the worker and its connection, as
// the script is mid-way (in rate mode a trailing \sleep is skipped: arrivals are the pacer's).
func (r *runner) Sleep(cmd int, _ *pgscript.Command, d time.Duration) error {
	if cmd == r.e.last[r.script] && !r.inTx {
		if !r.e.rate {
			r.term.think = d
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}

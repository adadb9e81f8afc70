package pgscript

import (
	"io"
	"strconv"
	"time"

	"github.com/candor-bench/candor/gen"
)

// Env is one client's state: its variables, its random stream, and where debug() writes. It is
// not safe for concurrent use; each client owns one.
type Env struct {
	prog *Program
	vars []variable
	// Rand is the client's random stream (random functions draw from it).
	Rand *gen.Rand
	// Debug receives debug()'s lines as pgbench prints them; nil discards them.
	Debug io.Writer

	args            []any // reused for a statement's parameters
	script, command int   // where evaluation is, for debug() and errors
}

// EnvOptions are a client's built-in variables, pgbench's :client_id, :scale, :random_seed and the
// seed hash() and permute() use by default (:default_seed); -D definitions override scale and
// default_seed as in pgbench.
type EnvOptions struct {
	ClientID    int64
	Scale       int64
	RandomSeed  int64
	DefaultSeed int64
	Rand        *gen.Rand
	Debug       io.Writer
}

// NewEnv returns a client's environment for the program (after Program.Check).
func (p *Program) NewEnv(o EnvOptions) *Env {
	e := &Env{prog: p, Rand: o.Rand, Debug: o.Debug}
	if e.Rand == nil {
		e.Rand = gen.New(uint64(o.RandomSeed) ^ uint64(o.ClientID))
	}
	e.vars = make([]variable, p.Syms.Len())
	for _, d := range p.defines {
		e.vars[d.slot] = variable{set: true, text: d.value, hasText: true}
	}
	set := func(name string, v int64, overridable bool) {
		if overridable && p.Defined(name) {
			return
		}
		if slot, ok := p.Syms.Lookup(name); ok {
			e.vars[slot] = variable{set: true, val: Int(v)}
		}
	}
	set("client_id", o.ClientID, false)
	set("scale", o.Scale, true)
	set("random_seed", o.RandomSeed, false)
	set("default_seed", o.DefaultSeed, true)
	return e
}

// Value returns a variable's value by name (parsing its text form if need be); ok is false when
// no script names it or it is not set.
func (e *Env) Value(name string) (Value, bool) {
	slot, ok := e.prog.Syms.Lookup(name)
	if !ok || !e.vars[slot].set {
		return Value{}, false
	}
	v, err := e.varValue(slot)
	return v, err == nil
}

func (e *Env) varValue(slot int) (Value, error) {
	v := &e.vars[slot]
	if !v.set {
		return Value{}, errorf("undefined variable %q", e.prog.Syms.Name(slot))
	}
	if v.val.kind == KindNone {
		x, err := parseText(e.prog.Syms.Name(slot), v.text)
		if err != nil {
			return Value{}, err
		}
		v.val = x
	}
	return v.val, nil
}

// param is a variable as a statement parameter: its text when it came as text (-D, \gset,
// \aset), else its value.
func (e *Env) param(slot int) (any, error) {
	v := &e.vars[slot]
	if !v.set {
		return nil, errorf("undefined variable %q", e.prog.Syms.Name(slot))
	}
	if v.hasText {
		return v.text, nil
	}
	return v.val.Any(), nil
}

// Runner executes what the interpreter hands on: statements and sleeps.
type Runner interface {
	// Exec runs statement st (number stmt) of SQL command c, command number cmd of the script,
	// with args bound to its parameters (the slice is reused: do not keep it). When c.Store is not
	// StoreNone, the runner passes the statement's result to Env.StoreResult.
	Exec(cmd int, c *Command, stmt int, st *Statement, args []any) error
	// Sleep waits for d (\sleep).
	Sleep(cmd int, c *Command, d time.Duration) error
}

// Run runs script number index of the program once (one transaction, in pgbench's words): meta
// commands here, SQL and sleeps through r. An evaluation error names the command's place.
func (e *Env) Run(index int, r Runner) error {
	s := e.prog.Scripts[index]
	e.script = index
	if n := e.prog.Syms.Len(); len(e.vars) < n { // a script added after NewEnv
		e.vars = append(e.vars, make([]variable, n-len(e.vars))...)
	}
	cmds := s.Commands
	jumped := false
	for pc := 0; pc < len(cmds); {
		c := &cmds[pc]
		e.command = pc
		wasJump := jumped
		jumped = false
		switch c.Kind {
		case SQL:
			for k := range c.Statements {
				st := &c.Statements[k]
				e.args = e.args[:0]
				for _, slot := range st.Params {
					a, err := e.param(slot)
					if err != nil {
						return e.fail(c, err)
					}
					e.args = append(e.args, a)
				}
				if err := r.Exec(pc, c, k, st, e.args); err != nil {
					return err
				}
			}
			pc++
		case Set:
			v, err := e.eval(c.Expr.root)
			if err != nil {
				return e.fail(c, err)
			}
			e.vars[c.Var] = variable{set: true, val: v}
			pc++
		case Sleep:
			us := c.SleepUS
			if c.SleepVar >= 0 {
				n, err := e.sleepValue(c)
				if err != nil {
					return e.fail(c, err)
				}
				us = n * c.SleepUnit
			}
			if us > 0 {
				if err := r.Sleep(pc, c, time.Duration(us)*time.Microsecond); err != nil {
					return err
				}
			}
			pc++
		case Sample:
			v := c.Samples[uniform(e.Rand, uint64(len(c.Samples)-1))]
			if v.Null {
				e.vars[c.Var] = variable{set: true, val: Null()}
			} else {
				e.vars[c.Var] = variable{set: true, text: v.Text, hasText: true}
			}
			pc++
		case If, Elif:
			if c.Kind == Elif && !wasJump {
				pc = c.End // the branch before ran
				continue
			}
			v, err := e.eval(c.Expr.root)
			if err != nil {
				return e.fail(c, err)
			}
			if truth(v) {
				pc++
				continue
			}
			pc = c.False
			jumped = pc < len(cmds) && cmds[pc].Kind == Elif
		case Else:
			pc = c.End
		case Endif:
			pc++
		}
	}
	return nil
}

// sleepValue reads \sleep :var as pgbench's evaluateSleep: the variable's text form through atoi,
// refused when it does not start with a digit and reads as 0.
func (e *Env) sleepValue(c *Command) (int64, error) {
	v := &e.vars[c.SleepVar]
	if !v.set {
		return 0, errorf("undefined variable %q", c.SleepName)
	}
	var buf [32]byte
	text := v.text
	if !v.hasText {
		text = string(v.val.AppendText(buf[:0]))
	}
	n, ok := atoi(text)
	if !ok {
		return 0, errorf("invalid sleep time %q for variable %q", text, c.SleepName)
	}
	return n, nil
}

func (e *Env) fail(c *Command, err error) error {
	what := "\\" + c.Kind.String()
	if c.Kind == Set {
		what += " " + c.VarName
	}
	if c.Kind == SQL {
		what = "SQL command"
	}
	return &Error{Pos: c.Pos, Msg: what + ": " + err.Error()}
}

// StoreResult stores a \gset or \aset result (pgbench's readCommandResponse): cols are the result's
// column names, rows its row count and last the values of its last row. Under \gset only the last
// statement's result is stored, and it must have exactly one row; under \aset every statement's last
// row is stored and an empty result stores nothing. Values are kept as text, as pgbench keeps them.
func (e *Env) StoreResult(c *Command, stmt int, cols []string, rows int, last []any) error {
	switch c.Store {
	case StoreNone:
		return nil
	case StoreGset:
		if stmt != len(c.Statements)-1 {
			return nil
		}
		if rows != 1 {
			return &Error{Pos: c.Pos, Msg: "\\gset: expected one row, got " + strconv.Itoa(rows)}
		}
	case StoreAset:
		if rows == 0 {
			return nil
		}
	}
	for i, col := range cols {
		name := col
		if c.Prefix != "" {
			name = c.Prefix + col
		}
		slot, ok := e.prog.Syms.Lookup(name)
		if !ok {
			continue // no script reads it
		}
		var x any
		if i < len(last) {
			x = last[i]
		}
		if x == nil {
			// pgbench stores NULL as an empty string, which no expression can read; candor keeps NULL
			e.vars[slot] = variable{set: true, val: Null()}
			continue
		}
		e.vars[slot] = variable{set: true, text: textOf(x), hasText: true}
	}
	return nil
}

// textOf is a result value's text form, as libpq's PQgetvalue gives it.
func textOf(x any) string {
	switch v := x.(type) {
	case nil:
		return ""
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int:
		return strconv.Itoa(v)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return string(appendG15(nil, v))
	case float32:
		return string(appendG15(nil, float64(v)))
	case bool:
		if v {
			return "t"
		}
		return "f"
	case time.Time:
		return v.Format("2006-01-02 15:04:05.999999-07")
	case interface{ String() string }:
		return v.String()
	}
	return ""
}

// Choose picks a script by weight (pgbench's chooseScript) with r.
func (p *Program) Choose(r *gen.Rand) int {
	if len(p.Scripts) == 1 {
		return 0
	}
	w := int64(uniform(r, uint64(p.TotalWeight()-1)))
	i := 0
	for {
		w -= int64(p.Scripts[i].Weight)
		i++
		if w < 0 {
			return i - 1
		}
	}
}

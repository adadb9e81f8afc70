package pgscript

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// CommandKind is what a command of a script does.
type CommandKind uint8

const (
	SQL CommandKind = iota
	Set
	Sleep
	If
	Elif
	Else
	Endif
	Sample
)

func (k CommandKind) String() string {
	return [...]string{"sql", "set", "sleep", "if", "elif", "else", "endif", "sample"}[k]
}

// StoreMode is what a SQL command does with its results: nothing, \gset (the one row of the last
// statement's result into variables) or \aset (the last row of every statement's result, none if
// empty).
type StoreMode uint8

const (
	StoreNone StoreMode = iota
	StoreGset
	StoreAset
)

// Statement is one statement of a SQL command (a command has several when written with "\;").
type Statement struct {
	// SQL has PostgreSQL's numbered parameters ($1, $2, ...), one per :name occurrence, in order;
	// SQLFor rewrites it for another engine.
	SQL string
	// Params are the variable slots bound to $1, $2, ...; ParamNames their names.
	Params     []int
	ParamNames []string
}

// SQLFor is the statement in the placeholder style of a SQL family (sqlexec.FamilyPostgres,
// FamilyMySQL, FamilySQLite): $1 for PostgreSQL, ? for MySQL, ?1 for SQLite.
func (s *Statement) SQLFor(family string) string { return sqlexec.Placeholders(family, s.SQL) }

// Command is one command of a compiled script.
type Command struct {
	Kind CommandKind
	Pos  Pos
	// Text is the command's first source line (pgbench's first_line), to name it in reports.
	Text string

	// SQL
	Statements []Statement
	Store      StoreMode
	Prefix     string // variable-name prefix of \gset and \aset

	// Set, Sample: the variable written; Set, If, Elif: the expression.
	Var     int
	VarName string
	Expr    *Expr

	// Sleep: a constant duration in microseconds, or a variable's (SleepVar >= 0) times SleepUnit.
	SleepUS   int64
	SleepVar  int
	SleepName string
	SleepUnit int64

	// If, Elif: where to go when the condition is false (the next \elif, or past the \else or
	// \endif). Elif, Else: where to go when reached from a branch that ran (past the \endif).
	False int
	End   int

	// Sample: the values of the file \sample reads (candor's extension), one drawn uniformly each
	// time the command runs.
	SampleFile string
	Samples    []SampleValue
}

// Script is one compiled script with its weight.
type Script struct {
	Name     string
	Weight   int
	Commands []Command
	literals []varRef
}

// SQLCount is the number of SQL commands, the statements a per-statement report names.
func (s *Script) SQLCount() int {
	n := 0
	for i := range s.Commands {
		if s.Commands[i].Kind == SQL {
			n++
		}
	}
	return n
}

// Program is the scripts of a run, their variables and the -D definitions.
type Program struct {
	Scripts []*Script
	Syms    *Symbols
	defines []define
}

type define struct {
	slot  int
	name  string
	value string
}

// NewProgram returns an empty program.
func NewProgram() *Program { return &Program{Syms: newSymbols()} }

// AddFile parses a script file, spec being "path" or "path@weight" as pgbench's -f.
func (p *Program) AddFile(spec string) (*Script, error) {
	path, weight, err := ParseWeight(spec)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, userr.Errorf("cannot read script %s: %v", path, err)
	}
	return p.Add(path, string(b), weight)
}

// AddBuiltin adds a built-in script, spec being "name" or "name@weight" as pgbench's -b; a name may
// be shortened to an unambiguous prefix.
func (p *Program) AddBuiltin(spec string) (*Script, error) {
	name, weight, err := ParseWeight(spec)
	if err != nil {
		return nil, err
	}
	b, err := FindBuiltin(name)
	if err != nil {
		return nil, err
	}
	return p.Add(b.Desc, b.Script, weight)
}

// ParseWeight splits "name@w" at its last "@" (pgbench's parseScriptWeight); without one the
// weight is 1. Weights are integers from 0 to 2147483647.
func ParseWeight(spec string) (string, int, error) {
	i := strings.LastIndexByte(spec, '@')
	if i < 0 {
		return spec, 1, nil
	}
	ws := spec[i+1:]
	w, err := strconv.ParseInt(ws, 10, 64)
	if err != nil && !isRangeErr(err) || ws == "" || strings.TrimSpace(ws) != ws || ws[0] == '+' {
		return "", 0, userr.Errorf("invalid weight specification: @%s (in %q): write a whole number after the @, as in a.sql@5", ws, spec)
	}
	if err != nil || w < 0 || w > math.MaxInt32 {
		return "", 0, userr.Errorf("weight specification out of range (0 .. %d): %s (in %q)", math.MaxInt32, ws, spec)
	}
	return spec[:i], int(w), nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// Add parses a script's text; name is the file name used in messages.
func (p *Program) Add(name, text string, weight int) (*Script, error) {
	s, err := compile(name, text, p.Syms)
	if err != nil {
		return nil, userr.Errorf("%w", err)
	}
	s.Weight = weight
	p.Scripts = append(p.Scripts, s)
	return s, nil
}

// Define sets a variable for every client, as pgbench's -D name=value: the value is text, read as
// a number or a boolean when an expression uses it and bound as given in SQL.
func (p *Program) Define(nameValue string) error {
	name, value, ok := strings.Cut(nameValue, "=")
	if !ok {
		return userr.Errorf("invalid variable definition: %q: write -D name=value", nameValue)
	}
	if !validVariableName(name) {
		return userr.Errorf("invalid variable name %q in -D %s: a name starts with a letter or _ and goes on with letters, digits or _", name, nameValue)
	}
	slot := p.Syms.slot(name)
	for i := range p.defines {
		if p.defines[i].slot == slot {
			p.defines[i].value = value
			return nil
		}
	}
	p.defines = append(p.defines, define{slot: slot, name: name, value: value})
	return nil
}

// Defined reports whether -D defined name.
func (p *Program) Defined(name string) bool {
	for _, d := range p.defines {
		if d.name == name {
			return true
		}
	}
	return false
}

// Builtin variables every client has (pgbench sets them at startup; -D may override scale and
// default_seed).
var builtinVariables = []string{"client_id", "scale", "random_seed", "default_seed"}

// Check validates the program as a whole once every script and definition is in: at least one
// script, a total weight above zero, and no variable the program sets written inside a string
// literal (pgbench would splice it there; candor only binds parameters).
func (p *Program) Check() error {
	if len(p.Scripts) == 0 {
		return userr.Errorf("no script to run: give one with -f FILE[@W] or -b NAME[@W]")
	}
	total := int64(0)
	for _, s := range p.Scripts {
		total += int64(s.Weight)
	}
	if total == 0 {
		return userr.Errorf("total script weight must not be zero: give a script a weight above 0")
	}
	if total > math.MaxInt32 {
		return userr.Errorf("total script weight %d is above %d: lower the weights", total, math.MaxInt32)
	}
	known := map[string]bool{}
	for _, n := range builtinVariables {
		known[n] = true
	}
	for _, d := range p.defines {
		known[d.name] = true
	}
	for _, s := range p.Scripts {
		for i := range s.Commands {
			if k := s.Commands[i].Kind; k == Set || k == Sample {
				known[s.Commands[i].VarName] = true
			}
		}
	}
	for _, s := range p.Scripts {
		for _, l := range s.literals {
			if known[l.name] {
				return userr.Errorf("%w", &Error{Pos: l.pos, Msg: fmt.Sprintf(
					"variable :%s inside a string literal: candor binds variables as parameters and never splices them into SQL text; move it out of the quotes (for example 'a-' || :%s)", l.name, l.name)})
			}
		}
	}
	return nil
}

// TotalWeight is the sum of the scripts' weights.
func (p *Program) TotalWeight() int {
	t := 0
	for _, s := range p.Scripts {
		t += s.Weight
	}
	return t
}

package pgscript

import (
	"math"
	"strings"
)

// The \set, \if and \elif expression grammar of exprparse.y. Operators become function calls as
// pgbench makes them (a > b is <(b, a), -x is 0 - x, ~x is -1 # x, NOT and IS are !not and !is).
// Precedence, lowest first, from PostgreSQL's SQL grammar:
//
//	OR (left) · AND (left) · NOT (right) · IS ISNULL NOTNULL · < > = <= >= <> != (non-associative)
//	· | # & << >> ~ (left) · + - (left) · * / % (left) · unary + - (right)

type fn uint8

const (
	fnAdd fn = iota
	fnSub
	fnMul
	fnDiv
	fnMod
	fnAbs
	fnLeast
	fnGreatest
	fnDebug
	fnPi
	fnSqrt
	fnLn
	fnExp
	fnInt
	fnDouble
	fnRandom
	fnRandomGaussian
	fnRandomExponential
	fnRandomZipfian
	fnPow
	fnAnd
	fnOr
	fnNot
	fnBitAnd
	fnBitOr
	fnBitXor
	fnLShift
	fnRShift
	fnEQ
	fnNE
	fnLE
	fnLT
	fnIs
	fnCase
	fnHashMurmur2
	fnHashFNV1a
	fnPermute
)

const (
	nargsVariable = -1 // least, greatest: at least one
	nargsCase     = -2 // odd and >= 3
	nargsHash     = -3 // one or two; the seed defaults to :default_seed
	nargsPermute  = -4 // two or three; the seed defaults to :default_seed
)

type funcDef struct {
	name  string
	nargs int
	fn    fn
}

// functions is PGBENCH_FUNCTIONS: the names a script may call (case-insensitive).
var functions = []funcDef{
	{"abs", 1, fnAbs}, {"least", nargsVariable, fnLeast}, {"greatest", nargsVariable, fnGreatest},
	{"debug", 1, fnDebug}, {"pi", 0, fnPi}, {"sqrt", 1, fnSqrt}, {"ln", 1, fnLn}, {"exp", 1, fnExp},
	{"int", 1, fnInt}, {"double", 1, fnDouble}, {"random", 2, fnRandom},
	{"random_gaussian", 3, fnRandomGaussian}, {"random_exponential", 3, fnRandomExponential},
	{"random_zipfian", 3, fnRandomZipfian}, {"pow", 2, fnPow}, {"power", 2, fnPow},
	{"hash", nargsHash, fnHashMurmur2}, {"hash_murmur2", nargsHash, fnHashMurmur2},
	{"hash_fnv1a", nargsHash, fnHashFNV1a}, {"permute", nargsPermute, fnPermute},
}

type nodeKind uint8

const (
	nConst nodeKind = iota
	nVar
	nCall
)

// node is a compiled expression: a constant, a variable (by slot) or a call.
type node struct {
	kind nodeKind
	fn   fn
	val  Value
	slot int
	name string
	args []*node
	pos  Pos
}

// Expr is a compiled expression.
type Expr struct {
	root *node
	src  string
}

// String is the expression's source text.
func (e *Expr) String() string { return e.src }

// parser is a precedence-climbing parser equivalent to exprparse.y's bison grammar.
type parser struct {
	lex  exprLexer
	tok  token
	syms *Symbols
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) syntaxError() error {
	if p.tok.kind == tEOF {
		return &Error{Pos: p.tok.pos, Msg: "syntax error: unexpected end of expression"}
	}
	return &Error{Pos: p.tok.pos, Msg: "syntax error at \"" + p.tok.text + "\""}
}

func binaryPrec(k tokKind) int {
	switch k {
	case tOr:
		return 1
	case tAnd:
		return 2
	case tIs, tIsNull, tNotNull:
		return 4
	case tLT, tGT, tEQ, tLE, tGE, tNE:
		return 5
	case tPipe, tHash, tAmp, tLShift, tRShift:
		return 6
	case tPlus, tMinus:
		return 7
	case tStar, tSlash, tPercent:
		return 8
	}
	return -1
}

const precUnary = 9

func call(f fn, pos Pos, args ...*node) *node { return &node{kind: nCall, fn: f, args: args, pos: pos} }
func constant(v Value, pos Pos) *node         { return &node{kind: nConst, val: v, pos: pos} }

// parseExpression compiles one expression covering the rest of the lexer's line.
func parseExpression(lex exprLexer, syms *Symbols) (*Expr, error) {
	p := &parser{lex: lex, syms: syms}
	start := lex.off
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, &Error{Pos: p.tok.pos, Msg: "missing expression"}
	}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.syntaxError()
	}
	src := strings.TrimSpace(strings.ReplaceAll(lex.src[start:lex.end], "\\\n", " "))
	return &Expr{root: n, src: src}, nil
}

func (p *parser) expr(minPrec int) (*node, error) {
	lhs, err := p.primary()
	if err != nil {
		return nil, err
	}
	lastComparison := false
	for {
		t := p.tok
		prec := binaryPrec(t.kind)
		if prec < 0 || prec < minPrec {
			return lhs, nil
		}
		if prec == 5 && lastComparison {
			return nil, p.syntaxError() // comparisons do not associate
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if prec == 4 { // postfix IS forms
			lhs, err = p.isForm(t, lhs)
			if err != nil {
				return nil, err
			}
			lastComparison = false
			continue
		}
		rhs, err := p.expr(prec + 1)
		if err != nil {
			return nil, err
		}
		lastComparison = prec == 5
		switch t.kind {
		case tOr:
			lhs = call(fnOr, t.pos, lhs, rhs)
		case tAnd:
			lhs = call(fnAnd, t.pos, lhs, rhs)
		case tLT:
			lhs = call(fnLT, t.pos, lhs, rhs)
		case tGT:
			lhs = call(fnLT, t.pos, rhs, lhs)
		case tLE:
			lhs = call(fnLE, t.pos, lhs, rhs)
		case tGE:
			lhs = call(fnLE, t.pos, rhs, lhs)
		case tEQ:
			lhs = call(fnEQ, t.pos, lhs, rhs)
		case tNE:
			lhs = call(fnNE, t.pos, lhs, rhs)
		case tPipe:
			lhs = call(fnBitOr, t.pos, lhs, rhs)
		case tHash:
			lhs = call(fnBitXor, t.pos, lhs, rhs)
		case tAmp:
			lhs = call(fnBitAnd, t.pos, lhs, rhs)
		case tLShift:
			lhs = call(fnLShift, t.pos, lhs, rhs)
		case tRShift:
			lhs = call(fnRShift, t.pos, lhs, rhs)
		case tPlus:
			lhs = call(fnAdd, t.pos, lhs, rhs)
		case tMinus:
			lhs = call(fnSub, t.pos, lhs, rhs)
		case tStar:
			lhs = call(fnMul, t.pos, lhs, rhs)
		case tSlash:
			lhs = call(fnDiv, t.pos, lhs, rhs)
		case tPercent:
			lhs = call(fnMod, t.pos, lhs, rhs)
		}
	}
}

// isForm parses what follows IS (NULL, NOT NULL, TRUE, FALSE, NOT TRUE, NOT FALSE), or ISNULL and
// NOTNULL, already consumed as op.
func (p *parser) isForm(op token, lhs *node) (*node, error) {
	null := constant(Null(), op.pos)
	switch op.kind {
	case tIsNull:
		return call(fnIs, op.pos, lhs, null), nil
	case tNotNull:
		return call(fnNot, op.pos, call(fnIs, op.pos, lhs, null)), nil
	}
	negate := false
	if p.tok.kind == tNot {
		negate = true
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	var rhs *node
	switch p.tok.kind {
	case tNull:
		rhs = null
	case tTrue:
		rhs = constant(Bool(true), p.tok.pos)
	case tFalse:
		rhs = constant(Bool(false), p.tok.pos)
	default:
		return nil, p.syntaxError()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	n := call(fnIs, op.pos, lhs, rhs)
	if negate {
		n = call(fnNot, op.pos, n)
	}
	return n, nil
}

func (p *parser) primary() (*node, error) {
	t := p.tok
	switch t.kind {
	case tLParen:
		if err := p.advance(); err != nil {
			return nil, err
		}
		n, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tRParen {
			return nil, p.syntaxError()
		}
		return n, p.advance()
	case tPlus:
		if err := p.advance(); err != nil {
			return nil, err
		}
		return p.expr(precUnary)
	case tMinus:
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind == tMaxIntPlusOne { // - 9223372036854775808 is the smallest bigint
			n := constant(Int(math.MinInt64), t.pos)
			return n, p.advance()
		}
		x, err := p.expr(precUnary)
		if err != nil {
			return nil, err
		}
		return call(fnSub, t.pos, constant(Int(0), t.pos), x), nil
	case tTilde:
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.expr(6 + 1)
		if err != nil {
			return nil, err
		}
		return call(fnBitXor, t.pos, constant(Int(-1), t.pos), x), nil
	case tNot:
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.expr(3 + 1)
		if err != nil {
			return nil, err
		}
		return call(fnNot, t.pos, x), nil
	case tNull:
		return constant(Null(), t.pos), p.advance()
	case tTrue:
		return constant(Bool(true), t.pos), p.advance()
	case tFalse:
		return constant(Bool(false), t.pos), p.advance()
	case tInt:
		return constant(Int(t.ival), t.pos), p.advance()
	case tDouble:
		return constant(Double(t.dval), t.pos), p.advance()
	case tVar:
		n := &node{kind: nVar, slot: p.syms.slot(t.text), name: t.text, pos: t.pos}
		return n, p.advance()
	case tFunc:
		return p.function()
	case tCase:
		return p.caseExpr()
	}
	return nil, p.syntaxError()
}

func (p *parser) function() (*node, error) {
	t := p.tok
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tLParen {
		return nil, p.syntaxError()
	}
	var def *funcDef
	for i := range functions {
		if strings.EqualFold(functions[i].name, t.text) {
			def = &functions[i]
			break
		}
	}
	if def == nil {
		return nil, &Error{Pos: t.pos, Msg: "unexpected function name (" + t.text + ")"}
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var args []*node
	if p.tok.kind != tRParen {
		for {
			a, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.tok.kind == tComma {
				if err := p.advance(); err != nil {
					return nil, err
				}
				continue
			}
			break
		}
	}
	if p.tok.kind != tRParen {
		return nil, p.syntaxError()
	}
	bad := func(msg string) error { return &Error{Pos: t.pos, Msg: msg + " (" + def.name + ")"} }
	defaultSeed := func() *node {
		return &node{kind: nVar, slot: p.syms.slot("default_seed"), name: "default_seed", pos: t.pos}
	}
	switch def.nargs {
	case nargsVariable:
		if len(args) == 0 {
			return nil, bad("at least one argument expected")
		}
	case nargsHash:
		if len(args) < 1 || len(args) > 2 {
			return nil, bad("unexpected number of arguments")
		}
		if len(args) == 1 {
			args = append(args, defaultSeed())
		}
	case nargsPermute:
		if len(args) < 2 || len(args) > 3 {
			return nil, bad("unexpected number of arguments")
		}
		if len(args) == 2 {
			args = append(args, defaultSeed())
		}
	default:
		if len(args) != def.nargs {
			return nil, bad("unexpected number of arguments")
		}
	}
	return call(def.fn, t.pos, args...), p.advance()
}

// caseExpr parses CASE WHEN c THEN v [WHEN ...] [ELSE e] END into !case_end(c1, v1, ..., e), the
// ELSE defaulting to NULL.
func (p *parser) caseExpr() (*node, error) {
	t := p.tok
	if err := p.advance(); err != nil {
		return nil, err
	}
	var args []*node
	for p.tok.kind == tWhen {
		if err := p.advance(); err != nil {
			return nil, err
		}
		c, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tThen {
			return nil, p.syntaxError()
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		v, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		args = append(args, c, v)
	}
	if len(args) == 0 {
		return nil, p.syntaxError()
	}
	elseNode := constant(Null(), t.pos)
	if p.tok.kind == tElse {
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		elseNode = e
	}
	if p.tok.kind != tEnd {
		return nil, p.syntaxError()
	}
	return call(fnCase, t.pos, append(args, elseNode)...), p.advance()
}

package pgscript

import "strings"

// The expression lexer of exprscan.l (state EXPR): operators, case-insensitive keywords, :variables,
// integer and double constants, function names. An expression ends at the end of its line; a
// backslash right before the newline continues it on the next line.

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808, only valid after a unary minus
	tDouble
	tVar
	tFunc
	tNull
	tTrue
	tFalse
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEnd
	tPlus
	tMinus
	tStar
	tSlash
	tPercent
	tLParen
	tRParen
	tComma
	tTilde
	tAmp
	tPipe
	tHash
	tLT
	tGT
	tEQ
	tNE
	tLE
	tGE
	tLShift
	tRShift
)

var keywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEnd,
	"null": tNull, "true": tTrue, "false": tFalse,
}

var singleTokens = map[byte]tokKind{'+': tPlus, '-': tMinus, '*': tStar, '/': tSlash, '%': tPercent, '(': tLParen,
	')': tRParen, ',': tComma, '~': tTilde, '&': tAmp, '|': tPipe, '#': tHash, '<': tLT, '>': tGT, '=': tEQ}

type token struct {
	kind tokKind
	text string // the source text (names without the colon for variables)
	ival int64
	dval float64
	pos  Pos
}

// exprLexer scans src[off:end] (one logical line of a meta-command).
type exprLexer struct {
	src       string
	off, end  int
	file      string
	line, col int // of src[off]
}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func (l *exprLexer) pos() Pos { return Pos{l.file, l.line, l.col} }

func (l *exprLexer) advance(n int) {
	for i := 0; i < n; i++ {
		if l.src[l.off] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.off++
	}
}

func (l *exprLexer) errAt(p Pos, msg string) error { return &Error{Pos: p, Msg: msg} }

func (l *exprLexer) next() (token, error) {
	// spaces and continuations
	for l.off < l.end {
		c := l.src[l.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			l.advance(1)
			continue
		}
		if c == '\\' && l.off+1 < l.end && l.src[l.off+1] == '\n' {
			l.advance(2)
			continue
		}
		break
	}
	p := l.pos()
	if l.off >= l.end {
		return token{kind: tEOF, pos: p}, nil
	}
	s := l.src[l.off:l.end]
	c := s[0]
	two := ""
	if len(s) >= 2 {
		two = s[:2]
	}
	switch two {
	case "<>", "!=":
		l.advance(2)
		return token{kind: tNE, text: two, pos: p}, nil
	case "<=":
		l.advance(2)
		return token{kind: tLE, text: two, pos: p}, nil
	case ">=":
		l.advance(2)
		return token{kind: tGE, text: two, pos: p}, nil
	case "<<":
		l.advance(2)
		return token{kind: tLShift, text: two, pos: p}, nil
	case ">>":
		l.advance(2)
		return token{kind: tRShift, text: two, pos: p}, nil
	}
	if k, ok := singleTokens[c]; ok {
		l.advance(1)
		return token{kind: k, text: s[:1], pos: p}, nil
	}
	switch {
	case c == ':':
		n := 1
		for n < len(s) && isAlnum(s[n]) {
			n++
		}
		if n == 1 {
			break
		}
		l.advance(n)
		return token{kind: tVar, text: s[1:n], pos: p}, nil
	case isDigit(c) || c == '.' && len(s) > 1 && isDigit(s[1]):
		return l.number(s, p)
	case isAlpha(c):
		n := 1
		for n < len(s) && isAlnum(s[n]) {
			n++
		}
		word := s[:n]
		l.advance(n)
		if k, ok := keywords[strings.ToLower(word)]; ok {
			return token{kind: k, text: word, pos: p}, nil
		}
		return token{kind: tFunc, text: word, pos: p}, nil
	}
	return token{}, l.errAt(p, "unexpected character \""+string(s[:utf8Len(s)])+"\"")
}

// utf8Len is the byte length of the first character of s, to quote it whole in a message.
func utf8Len(s string) int {
	n := 1
	for n < len(s) && n < 4 && s[n]&0xC0 == 0x80 {
		n++
	}
	return n
}

// number scans {digit}+, {digit}+(.{digit}*)?([eE][-+]?{digit}+)? and .{digit}+([eE][-+]?{digit}+)?,
// the longest that matches; a plain integer that overflows is an error.
func (l *exprLexer) number(s string, p Pos) (token, error) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	isDouble := false
	if n < len(s) && s[n] == '.' {
		isDouble = true
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
		}
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			for m < len(s) && isDigit(s[m]) {
				m++
			}
			n = m
			isDouble = true
		}
	}
	text := s[:n]
	l.advance(n)
	if !isDouble {
		if text == "9223372036854775808" {
			return token{kind: tMaxIntPlusOne, text: text, pos: p}, nil
		}
		i, err := strtoint64(text)
		if err != nil {
			return token{}, l.errAt(p, "bigint constant overflow ("+text+")")
		}
		return token{kind: tInt, text: text, ival: i, pos: p}, nil
	}
	f, ok := strtod(text)
	if !ok {
		return token{}, l.errAt(p, "double constant overflow ("+text+")")
	}
	return token{kind: tDouble, text: text, dval: f, pos: p}, nil
}

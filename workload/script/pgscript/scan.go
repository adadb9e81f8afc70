package pgscript

import (
	"strconv"
	"strings"
)

// The script splitter: what pgbench's ParseScript does with psqlscan.l (standard_conforming_strings
// on). SQL text runs until a ";" outside quotes, comments and parentheses, or until a backslash
// starts a meta-command (the text before it, if any, is a command of its own: "SELECT 1 \gset").
// Quotes are '...' (with '' inside), E'...' (with backslash escapes), "..." and $tag$...$tag$;
// comments are -- to the end of the line and nested /* */. "\;" puts a ";" into the command without
// ending it (a compound command, one statement per part here); "\:" puts a ":".
//
// Variables: :name outside quotes and comments becomes the next parameter ($1, $2, ... per
// statement, one per occurrence, as pgbench's parseQuery numbers them); "::" and longer runs of
// colons are left alone (casts). Inside a string literal, :name stays text; Program.Check refuses it
// when name is a variable the program sets, since pgbench would splice it there and candor never
// splices. psql's :'name' and :"name" are refused: pgbench leaves them as text, which no server takes.

type item struct {
	meta bool
	pos  Pos // first character of the command, or its backslash
	// SQL
	parts    []part
	first    string // first line of the command's text, for reports
	literals []varRef
	// meta-command: the source after the backslash up to its end of line (exclusive)
	start, end int
}

type part struct {
	sql    string // with $n parameters, without the ending ";"
	params []varRef
}

type varRef struct {
	name string
	pos  Pos
}

// maxParams is pgbench's MAX_ARGS - 1: parameters a statement may have.
const maxParams = 255

type scanner struct {
	src       string
	file      string
	off       int
	line, col int
	items     []item

	// the command being collected
	buf      strings.Builder
	params   []varRef
	parts    []part
	literals []varRef
	started  bool
	cmdPos   Pos
	cmdStart int
	depth    int
}

func (s *scanner) pos() Pos { return Pos{s.file, s.line, s.col} }

// step moves past n bytes, keeping the line and column.
func (s *scanner) step(n int) {
	for i := 0; i < n && s.off < len(s.src); i++ {
		if s.src[s.off] == '\n' {
			s.line++
			s.col = 1
		} else {
			s.col++
		}
		s.off++
	}
}

// emit copies n source bytes into the command.
func (s *scanner) emit(n int) {
	end := s.off + n
	if end > len(s.src) {
		end = len(s.src)
	}
	s.buf.WriteString(s.src[s.off:end])
	s.step(end - s.off)
}

func (s *scanner) begin() {
	if !s.started {
		s.started = true
		s.cmdPos = s.pos()
		s.cmdStart = s.off
	}
}

func (s *scanner) errAt(p Pos, msg string) error { return &Error{Pos: p, Msg: msg} }

// endPart closes the statement collected so far into a part of the command.
func (s *scanner) endPart() {
	sql := strings.TrimSpace(s.buf.String())
	sql = strings.TrimSpace(strings.TrimSuffix(sql, ";")) // the ending ";" (pgbench sends it; engines do without)
	if sqlIsEmpty(sql) {
		s.buf.Reset()
		s.params = nil
		return
	}
	s.parts = append(s.parts, part{sql: sql, params: s.params})
	s.buf.Reset()
	s.params = nil
}

// endCommand closes the command (at a ";", a backslash or the end of the script).
func (s *scanner) endCommand(end int) {
	s.endPart()
	if len(s.parts) > 0 {
		first := s.src[s.cmdStart:end]
		if i := strings.IndexAny(first, "\r\n"); i >= 0 {
			first = first[:i]
		}
		s.items = append(s.items, item{pos: s.cmdPos, parts: s.parts, first: strings.TrimSpace(first), literals: s.literals})
	}
	s.parts, s.literals, s.started, s.depth = nil, nil, false, 0
}

// sqlIsEmpty reports whether sql holds nothing but comments, spaces and semicolons.
func sqlIsEmpty(sql string) bool {
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case isSpace(c) || c == ';':
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return true
			}
			i += j
		case strings.HasPrefix(sql[i:], "/*"):
			depth := 0
			for ; i < len(sql); i++ {
				if strings.HasPrefix(sql[i:], "/*") {
					depth++
					i++
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth--
					i++
					if depth == 0 {
						break
					}
				}
			}
		default:
			return false
		}
	}
	return true
}

// split cuts a script into SQL commands and meta-command lines.
func split(file, src string) ([]item, error) {
	s := &scanner{src: src, file: file, line: 1, col: 1}
	for s.off < len(src) {
		c := src[s.off]
		rest := src[s.off:]
		switch {
		case isSpace(c):
			if s.started {
				s.emit(1)
			} else {
				s.step(1)
			}
		case strings.HasPrefix(rest, "--"):
			n := strings.IndexByte(rest, '\n')
			if n < 0 {
				n = len(rest)
			}
			if s.started {
				s.emit(n)
			} else {
				s.step(n)
			}
		case strings.HasPrefix(rest, "/*"):
			s.begin()
			if err := s.blockComment(); err != nil {
				return nil, err
			}
		case c == '\'':
			s.begin()
			if err := s.quoted('\'', s.isEscapeString()); err != nil {
				return nil, err
			}
		case c == '"':
			s.begin()
			if err := s.quoted('"', false); err != nil {
				return nil, err
			}
		case c == '$' && s.dollarTag(rest) > 0:
			s.begin()
			if err := s.dollarQuoted(s.dollarTag(rest)); err != nil {
				return nil, err
			}
		case c == '(':
			s.begin()
			s.depth++
			s.emit(1)
		case c == ')':
			s.begin()
			if s.depth > 0 {
				s.depth--
			}
			s.emit(1)
		case c == ';':
			s.begin()
			s.emit(1)
			if s.depth == 0 {
				s.endCommand(s.off)
			}
		case c == '\\' && len(rest) > 1 && (rest[1] == ';' || rest[1] == ':'):
			s.begin()
			if rest[1] == ';' {
				s.step(1)
				s.emit(1)
				s.endPart()
			} else {
				s.step(1)
				s.emit(1)
			}
		case c == '\\':
			s.endCommand(s.off)
			if err := s.metaLine(); err != nil {
				return nil, err
			}
		case c == ':':
			s.begin()
			if err := s.colon(); err != nil {
				return nil, err
			}
		default:
			s.begin()
			s.emit(1)
		}
	}
	s.endCommand(len(src))
	return s.items, nil
}

// isEscapeString reports whether the quote at s.off opens an E'...' string: an E or e right before
// it that does not end a longer word.
func (s *scanner) isEscapeString() bool {
	i := s.off
	if i == 0 || (s.src[i-1] != 'E' && s.src[i-1] != 'e') {
		return false
	}
	return i == 1 || !isIdentChar(s.src[i-2])
}

func isIdentChar(c byte) bool { return isAlnum(c) || c == '$' }

func (s *scanner) blockComment() error {
	p := s.pos()
	depth := 0
	for s.off < len(s.src) {
		rest := s.src[s.off:]
		switch {
		case strings.HasPrefix(rest, "/*"):
			depth++
			s.emit(2)
		case strings.HasPrefix(rest, "*/"):
			depth--
			s.emit(2)
			if depth == 0 {
				return nil
			}
		default:
			s.emit(1)
		}
	}
	return s.errAt(p, "unterminated /* comment: add the closing */")
}

// quoted copies a quoted literal or identifier, noting :name references inside string literals.
func (s *scanner) quoted(q byte, escapes bool) error {
	p := s.pos()
	s.emit(1)
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case escapes && c == '\\':
			s.emit(2)
		case c == q:
			if s.off+1 < len(s.src) && s.src[s.off+1] == q {
				s.emit(2)
				continue
			}
			s.emit(1)
			return nil
		case c == ':' && q == '\'':
			if name, n := variableAt(s.src[s.off:]); n > 0 {
				s.literals = append(s.literals, varRef{name: name, pos: s.pos()})
				s.emit(n)
				continue
			}
			s.emit(1)
		default:
			s.emit(1)
		}
	}
	what := "string literal"
	if q == '"' {
		what = "quoted identifier"
	}
	return s.errAt(p, "unterminated "+what+": add the closing "+string(q))
}

// dollarTag returns the length of the $tag$ opening at the start of rest (0 if none): a tag is
// empty or an identifier without "$", and the "$" must not continue an identifier or be a
// parameter ($1).
func (s *scanner) dollarTag(rest string) int {
	if s.off > 0 && isIdentChar(s.src[s.off-1]) {
		return 0
	}
	i := 1
	if i < len(rest) && isAlpha(rest[i]) {
		for i < len(rest) && isAlnum(rest[i]) {
			i++
		}
	}
	if i < len(rest) && rest[i] == '$' {
		return i + 1
	}
	return 0
}

func (s *scanner) dollarQuoted(n int) error {
	p := s.pos()
	tag := s.src[s.off : s.off+n]
	s.emit(n)
	end := strings.Index(s.src[s.off:], tag)
	if end < 0 {
		return s.errAt(p, "unterminated dollar-quoted string: add the closing "+tag)
	}
	s.emit(end + n)
	return nil
}

// variableAt returns the variable named at the start of rest (":name", a single colon) and the
// length it spans, or 0.
func variableAt(rest string) (string, int) {
	if len(rest) < 2 || rest[0] != ':' || !isAlpha(rest[1]) {
		return "", 0
	}
	n := 2
	for n < len(rest) && isAlnum(rest[n]) {
		n++
	}
	return rest[1:n], n
}

// quotedVariableAt returns the name of psql's :'name' or :"name" at the start of rest, and its length.
func quotedVariableAt(rest string) (string, int) {
	q := rest[1]
	n := 2
	if n >= len(rest) || !isAlpha(rest[n]) {
		return "", 0
	}
	for n < len(rest) && isAlnum(rest[n]) {
		n++
	}
	if n < len(rest) && rest[n] == q {
		return rest[2:n], n + 1
	}
	return "", 0
}

// colon handles a ":" in SQL text: a variable becomes the next parameter, a run of colons stays.
func (s *scanner) colon() error {
	rest := s.src[s.off:]
	if len(rest) > 1 && rest[1] == ':' {
		n := 0
		for n < len(rest) && rest[n] == ':' {
			n++
		}
		s.emit(n)
		return nil
	}
	if len(rest) > 2 && (rest[1] == '\'' || rest[1] == '"') {
		if name, n := quotedVariableAt(rest); n > 0 {
			return s.errAt(s.pos(), "psql's :"+string(rest[1])+name+string(rest[1])+" form is not a pgbench variable (pgbench leaves it as text, which no server accepts); write :"+name+", which candor binds as a parameter")
		}
	}
	name, n := variableAt(rest)
	if n == 0 {
		s.emit(1)
		return nil
	}
	if len(s.params) >= maxParams {
		return s.errAt(s.pos(), "statement has too many arguments (maximum is "+strconv.Itoa(maxParams)+")")
	}
	s.params = append(s.params, varRef{name: name, pos: s.pos()})
	s.buf.WriteByte('$')
	s.buf.WriteString(strconv.Itoa(len(s.params)))
	s.step(n)
	return nil
}

// metaLine records a meta-command: from the backslash to the end of its line, continuation lines
// (a backslash right before the newline) included; the newline is consumed.
func (s *scanner) metaLine() error {
	p := s.pos()
	s.step(1)
	start := s.off
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == '\\' && s.off+1 < len(s.src) && s.src[s.off+1] == '\n' {
			s.step(2)
			continue
		}
		if c == '\n' {
			break
		}
		s.step(1)
	}
	end := s.off
	s.items = append(s.items, item{meta: true, pos: p, start: start, end: end})
	s.step(1)
	return nil
}

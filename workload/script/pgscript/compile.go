package pgscript

import (
	"path/filepath"
	"strings"
)

// compile turns a script's text into commands (pgbench's ParseScript, process_backslash_command
// and CheckConditional), every error pointing at its place.
func compile(file, src string, syms *Symbols) (*Script, error) {
	items, err := split(file, src)
	if err != nil {
		return nil, err
	}
	s := &Script{Name: file}
	for _, it := range items {
		if !it.meta {
			c := Command{Kind: SQL, Pos: it.pos, Text: it.first}
			for _, pt := range it.parts {
				st := Statement{SQL: pt.sql}
				for _, r := range pt.params {
					st.Params = append(st.Params, syms.slot(r.name))
					st.ParamNames = append(st.ParamNames, r.name)
				}
				c.Statements = append(c.Statements, st)
			}
			s.Commands = append(s.Commands, c)
			s.literals = append(s.literals, it.literals...)
			continue
		}
		if err := compileMeta(s, src, it, syms); err != nil {
			return nil, err
		}
	}
	if len(s.Commands) == 0 {
		return nil, &Error{Pos: Pos{file, 1, 1}, Msg: "empty command list for script: it holds no SQL command and no meta-command"}
	}
	if err := resolveConditionals(s); err != nil {
		return nil, err
	}
	return s, nil
}

type word struct {
	text string
	pos  Pos
	off  int // offset just after the word
}

// metaWords is a meta-command line split as exprscan.l's INITIAL state splits it: runs of
// non-blank characters, a backslash before a newline continuing the line.
type metaLexer struct {
	src       string
	off, end  int
	file      string
	line, col int
}

func (m *metaLexer) step() {
	if m.src[m.off] == '\n' {
		m.line++
		m.col = 1
	} else {
		m.col++
	}
	m.off++
}

func (m *metaLexer) word() (word, bool) {
	for m.off < m.end {
		c := m.src[m.off]
		if c == '\\' && m.off+1 < m.end && m.src[m.off+1] == '\n' {
			m.step()
			m.step()
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			m.step()
			continue
		}
		break
	}
	if m.off >= m.end {
		return word{}, false
	}
	p := Pos{m.file, m.line, m.col}
	start := m.off
	for m.off < m.end {
		c := m.src[m.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\\' && m.off+1 < m.end && m.src[m.off+1] == '\n' {
			break
		}
		m.step()
	}
	return word{text: m.src[start:m.off], pos: p, off: m.off}, true
}

func (m *metaLexer) expr() exprLexer {
	return exprLexer{src: m.src, off: m.off, end: m.end, file: m.file, line: m.line, col: m.col}
}

func compileMeta(s *Script, src string, it item, syms *Symbols) error {
	m := &metaLexer{src: src, off: it.start, end: it.end, file: it.pos.File, line: it.pos.Line, col: it.pos.Col + 1}
	cmdWord, ok := m.word()
	if !ok {
		return nil // a lone backslash: pgbench ignores it
	}
	text := strings.TrimRight(src[it.start-1:it.end], "\r")
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = strings.TrimRight(text[:i], "\\\r")
	}
	name := strings.ToLower(cmdWord.text)
	c := Command{Pos: it.pos, Text: strings.TrimSpace(text), SleepVar: -1}
	fail := func(p Pos, msg string) error {
		return &Error{Pos: p, Msg: msg + " in command \"" + cmdWord.text + "\""}
	}
	var words []word
	rest := func() {
		for {
			w, ok := m.word()
			if !ok {
				return
			}
			words = append(words, w)
		}
	}
	switch name {
	case "set", "if", "elif":
		if name == "set" {
			w, ok := m.word()
			if !ok {
				return fail(it.pos, "missing argument")
			}
			if !validVariableName(w.text) {
				return fail(w.pos, "invalid variable name \""+w.text+"\"")
			}
			c.Kind, c.VarName, c.Var = Set, w.text, syms.slot(w.text)
		} else if name == "if" {
			c.Kind = If
		} else {
			c.Kind = Elif
		}
		e, err := parseExpression(m.expr(), syms)
		if err != nil {
			if pe, ok := err.(*Error); ok {
				pe.Msg += " in command \"" + cmdWord.text + "\""
			}
			return err
		}
		c.Expr = e
	case "sleep":
		c.Kind = Sleep
		rest()
		if len(words) < 1 {
			return fail(it.pos, "missing argument")
		}
		if len(words) > 2 {
			return fail(words[2].pos, "too many arguments")
		}
		arg := words[0].text
		unit := ""
		unitPos := Pos{}
		if len(words) == 2 {
			unit, unitPos = words[1].text, words[1].pos
		}
		if arg[0] == ':' {
			c.SleepName = arg[1:]
			c.SleepVar = syms.slot(arg[1:])
		} else {
			i := 0
			if arg[0] == '+' || arg[0] == '-' {
				i++
			}
			digits := i
			for i < len(arg) && isDigit(arg[i]) {
				i++
			}
			if i < len(arg) {
				if len(words) == 1 && i > digits {
					unit = arg[i:]
					unitPos = words[0].pos
					unitPos.Col += i
				} else {
					return fail(words[0].pos, "invalid sleep time, must be an integer ("+arg+")")
				}
			}
			c.SleepUS, _ = atoi(arg[:i])
		}
		switch strings.ToLower(unit) {
		case "us":
			c.SleepUnit = 1
		case "ms":
			c.SleepUnit = 1000
		case "s", "":
			c.SleepUnit = 1000000
		default:
			return fail(unitPos, "unrecognized time unit, must be us, ms or s ("+unit+")")
		}
		c.SleepUS *= c.SleepUnit
	case "else", "endif":
		rest()
		if len(words) > 0 {
			return fail(words[0].pos, "unexpected argument")
		}
		c.Kind = Else
		if name == "endif" {
			c.Kind = Endif
		}
	case "gset", "aset":
		rest()
		if len(words) > 1 {
			return fail(words[1].pos, "too many arguments")
		}
		n := len(s.Commands)
		if n == 0 || s.Commands[n-1].Kind != SQL || s.Commands[n-1].Store != StoreNone {
			return &Error{Pos: it.pos, Msg: "\\" + name + " must follow an SQL command (one without \\gset or \\aset already)"}
		}
		prev := &s.Commands[n-1]
		prev.Store = StoreGset
		if name == "aset" {
			prev.Store = StoreAset
		}
		if len(words) == 1 {
			prev.Prefix = words[0].text
		}
		return nil
	case "sample":
		// candor's extension: \sample VAR FILE draws one line of FILE (read once, here).
		rest()
		if len(words) < 2 {
			return fail(it.pos, "missing argument: write \\sample VAR FILE")
		}
		if len(words) > 2 {
			return fail(words[2].pos, "too many arguments")
		}
		if !validVariableName(words[0].text) {
			return fail(words[0].pos, "invalid variable name \""+words[0].text+"\"")
		}
		path := words[1].text
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(it.pos.File), path)
		}
		vals, err := ReadSampleFile(path)
		if err != nil {
			return fail(words[1].pos, err.Error())
		}
		c.Kind, c.VarName, c.Var = Sample, words[0].text, syms.slot(words[0].text)
		c.SampleFile, c.Samples = path, vals
	case "setshell", "shell":
		return &Error{Pos: it.pos, Msg: "\\" + name + " is not supported: candor runs no shell command from a benchmark script; compute the value with \\set, or pass it with -D name=value"}
	case "startpipeline", "syncpipeline", "endpipeline":
		return &Error{Pos: it.pos, Msg: "\\" + name + " is not supported: candor sends each statement and waits for its result; remove the pipeline commands and the statements run one after another"}
	default:
		return &Error{Pos: it.pos, Msg: "invalid command \"\\" + cmdWord.text + "\": the meta-commands are \\set, \\sleep, \\if, \\elif, \\else, \\endif, \\gset, \\aset and candor's \\sample"}
	}
	s.Commands = append(s.Commands, c)
	return nil
}

// resolveConditionals checks that \if, \elif, \else and \endif nest (pgbench's CheckConditional,
// with its messages) and computes each one's jumps.
func resolveConditionals(s *Script) error {
	type frame struct {
		at      int   // the \if
		pending int   // the \if or \elif whose False is not known yet, -1 after an \else
		ends    []int // \elif and \else commands that jump past the \endif
		sawElse bool
	}
	var stack []frame
	for i := range s.Commands {
		c := &s.Commands[i]
		bad := func(msg string) error { return &Error{Pos: c.Pos, Msg: msg} }
		switch c.Kind {
		case If:
			stack = append(stack, frame{at: i, pending: i})
		case Elif:
			if len(stack) == 0 {
				return bad("\\elif without matching \\if")
			}
			top := &stack[len(stack)-1]
			if top.sawElse {
				return bad("\\elif after \\else")
			}
			s.Commands[top.pending].False = i
			top.pending = i
			top.ends = append(top.ends, i)
		case Else:
			if len(stack) == 0 {
				return bad("\\else without matching \\if")
			}
			top := &stack[len(stack)-1]
			if top.sawElse {
				return bad("\\else after \\else")
			}
			s.Commands[top.pending].False = i + 1
			top.pending, top.sawElse = -1, true
			top.ends = append(top.ends, i)
		case Endif:
			if len(stack) == 0 {
				return bad("\\endif without matching \\if")
			}
			top := stack[len(stack)-1]
			if top.pending >= 0 {
				s.Commands[top.pending].False = i + 1
			}
			for _, j := range top.ends {
				s.Commands[j].End = i + 1
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return &Error{Pos: s.Commands[stack[len(stack)-1].at].Pos, Msg: "\\if without matching \\endif"}
	}
	return nil
}

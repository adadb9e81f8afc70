package pgscript

// Symbols numbers the variables a program's scripts name, so that evaluation reads and writes a
// slot instead of hashing a name. A variable a \gset or \aset creates from a column name no script
// mentions has no slot and is dropped: nothing could read it.
type Symbols struct {
	index map[string]int
	names []string
}

func newSymbols() *Symbols { return &Symbols{index: map[string]int{}} }

func (s *Symbols) slot(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	s.index[name] = len(s.names)
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// Lookup returns the slot of name, if a script names it.
func (s *Symbols) Lookup(name string) (int, bool) {
	i, ok := s.index[name]
	return i, ok
}

// Len is the number of slots.
func (s *Symbols) Len() int { return len(s.names) }

// Name is the name of slot i.
func (s *Symbols) Name(i int) string { return s.names[i] }

// variable is one slot of a client's variables, pgbench's Variable: a value, a text form (from -D,
// \gset or \aset) parsed on first use, or both.
type variable struct {
	set     bool
	val     Value // KindNone while only text is known
	text    string
	hasText bool
}

// validVariableName is pgbench's valid_variable_name: a letter, underscore or non-ASCII byte, then
// also digits.
func validVariableName(name string) bool {
	if name == "" || !isAlpha(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isAlnum(name[i]) {
			return false
		}
	}
	return true
}

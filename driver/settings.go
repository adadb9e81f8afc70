package driver

import (
	"context"
	"strings"
	"sync"
)

// Settings are session settings candor makes for speed (a load's synchronous_commit = off, an
// index build's maintenance_work_mem, a check's work_mem), each optional: a server that refuses
// one (Doltgres knows few of PostgreSQL's settings) runs without it, and the refusal is said once,
// "the server refused SET work_mem = '256MB' (ERROR: ...): ran without it", through Note and in
// Refused. A nil *Settings sets nothing.
type Settings struct {
	Stmts []string
	// Note, if set, is told each refusal once.
	Note func(string)

	mu      sync.Mutex
	refused []string
}

// NewSettings is Settings of stmts that tells note (may be nil) each refusal once.
func NewSettings(note func(string), stmts ...string) *Settings {
	return &Settings{Stmts: stmts, Note: note}
}

// Apply runs the settings on c, one statement at a time, outside a transaction. A statement the
// server answers with an error is left out (and said); a lost connection or the end of ctx is an
// error, and so is a failure to send the statement at all.
func (s *Settings) Apply(ctx context.Context, db DB, c Conn) error {
	if s == nil {
		return nil
	}
	for _, q := range s.Stmts {
		_, err := c.Exec(ctx, q)
		if err == nil {
			continue
		}
		if ctx.Err() != nil || db.Classify(err) == ErrConnLost {
			return err
		}
		s.refuse("the server refused " + q + " (" + strings.Join(strings.Fields(err.Error()), " ") + "): ran without it")
	}
	return nil
}

func (s *Settings) refuse(note string) {
	s.mu.Lock()
	for _, r := range s.refused {
		if r == note {
			s.mu.Unlock()
			return
		}
	}
	s.refused = append(s.refused, note)
	s.mu.Unlock()
	if s.Note != nil {
		s.Note(note)
	}
}

// Refused is what the server refused, each once, in the order refused.
func (s *Settings) Refused() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}

// NoteOnce is note told each distinct line once, from any goroutine (nil stays nil).
func NoteOnce(note func(string)) func(string) {
	if note == nil {
		return nil
	}
	var mu sync.Mutex
	said := map[string]bool{}
	return func(line string) {
		mu.Lock()
		first := !said[line]
		said[line] = true
		mu.Unlock()
		if first {
			note(line)
		}
	}
}

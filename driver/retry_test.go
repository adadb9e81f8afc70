package driver

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRetryPauseDoublesToACap(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 64, 64, 64}
	for i, w := range want {
		if got := retryPause(i + 1); got != w*time.Millisecond {
			t.Errorf("retryPause(%d) = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
}

// NoteRetry keeps the first retried error of an operation, with its class, in the note its context
// carries, and does nothing without one.
func TestNoteRetry(t *testing.T) {
	NoteRetry(context.Background(), nil, errors.New("no note: nothing happens"))
	var n RetryNote
	ctx := WithRetryNote(context.Background(), &n)
	first := &CheckError{Msg: "updated 4 rows, expected 10"}
	NoteRetry(ctx, nil, first)
	NoteRetry(ctx, nil, errors.New("a later retry"))
	if n.Err != first || n.Class != FailCheck {
		t.Fatalf("note = %+v, want the first error and its class", n)
	}
}

// txConn is a Conn whose transactions do nothing but count; the other methods are never called.
type txConn struct {
	Conn
	begins, commits, rollbacks int
}

func (c *txConn) Begin(context.Context, TxOptions) error { c.begins++; return nil }
func (c *txConn) Commit(context.Context) error           { c.commits++; return nil }
func (c *txConn) Rollback(context.Context) error         { c.rollbacks++; return nil }

// A workload's ConflictError is retried as a serialization failure is (rolled back, run again),
// whatever the engine's class of it; a CheckError is not.
func TestRetryConflict(t *testing.T) {
	c := &txConn{}
	attempts := 0
	retries, err := Retry(context.Background(), classDB{class: ErrFatal}, c, TxOptions{}, 5, func(context.Context, Conn) error {
		if attempts++; attempts < 3 {
			return Conflictf("a row read was gone (attempt %d)", attempts)
		}
		return nil
	})
	if err != nil || retries != 2 || c.begins != 3 || c.rollbacks != 2 || c.commits != 1 {
		t.Errorf("conflicts twice, then success: retries %d, err %v, %d begins, %d rollbacks, %d commits", retries, err, c.begins, c.rollbacks, c.commits)
	}
	c, attempts = &txConn{}, 0
	retries, err = Retry(context.Background(), classDB{class: ErrFatal}, c, TxOptions{}, 5, func(context.Context, Conn) error {
		attempts++
		return Checkf("wrong rows")
	})
	if err == nil || retries != 0 || attempts != 1 {
		t.Errorf("a check error: retries %d, attempts %d, err %v; want no retry", retries, attempts, err)
	}
}

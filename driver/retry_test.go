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

package sqlexec

import (
	"context"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/null"
)

// On the null engine an operation completes after the engine's service time without its
// statements: Slots.Run does not call fn. A cancelled context ends the wait with an error.
func TestSlotsOnTheNullEngine(t *testing.T) {
	ctx := context.Background()
	db, err := driver.Open(ctx, "null:?service=fixed:20ms")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, []driver.DB{db}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	called := false
	fn := func(context.Context, driver.Conn) (int, error) { called = true; return 0, nil }
	start := time.Now()
	out := s.Run(ctx, 1, fn)
	if el := time.Since(start); out.Err != nil || el < 20*time.Millisecond {
		t.Fatalf("Run: %v after %s, want success after the 20 ms service time", out.Err, el)
	}
	if called {
		t.Fatal("Run called the operation's statements on the null engine")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if out := s.Run(cctx, 0, fn); out.Err == nil || called {
		t.Fatalf("a cancelled Run: %v (statements called: %v)", out.Err, called)
	}
}

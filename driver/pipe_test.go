package driver_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
)

// seqConn records the statements run on it; Exec of "fail" fails.
type seqConn struct {
	driver.Conn
	ran []string
}

func (c *seqConn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	c.ran = append(c.ran, fmt.Sprint(q, args))
	if q == "fail" {
		return 0, errors.New("failed")
	}
	return int64(len(args)), nil
}

func (c *seqConn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	c.ran = append(c.ran, fmt.Sprint(q, args))
	return &oneRow{}, nil
}

type oneRow struct{ done, closed bool }

func (r *oneRow) Next() bool             { n := !r.done; r.done = true; return n }
func (r *oneRow) Scan(dest ...any) error { *dest[0].(*int64) = 7; return nil }
func (r *oneRow) Err() error             { return nil }
func (r *oneRow) Close()                 { r.closed = true }

// TestSeqPipe: on a connection without pipelines, PipeOf's pipeline runs each statement when its
// answer is read, with the arguments it was queued with (the caller's slice reused meanwhile), in
// order; the statements never read after a failure are not run; misuse is an error, not a wrong
// answer.
func TestSeqPipe(t *testing.T) {
	ctx := context.Background()
	c := &seqConn{}
	var seq driver.SeqPipe
	p := driver.PipeOf(c, &seq)
	if p != driver.Pipe(&seq) {
		t.Fatalf("PipeOf gave %T", p)
	}
	args := []any{1, 2}
	p.Exec("a", args...)
	args[0], args[1] = 3, 4 // reused by the caller, as TPC-C's argument list is
	p.Query("b", args...)
	p.Exec("fail")
	p.Exec("never")
	if _, err := p.Affected(); err == nil {
		t.Error("an answer read before Send")
	}
	if err := p.Send(ctx); err != nil {
		t.Fatal(err)
	}
	if len(c.ran) != 0 {
		t.Fatalf("ran before its answer was read: %v", c.ran)
	}
	if _, err := p.Rows(); err == nil || !strings.Contains(err.Error(), "another kind") {
		t.Errorf("Rows of an Exec: %v", err)
	}
	if n, err := p.Affected(); err != nil || n != 2 {
		t.Fatalf("Affected = %d, %v", n, err)
	}
	rows, err := p.Rows()
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	if !rows.Next() || rows.Scan(&v) != nil || v != 7 {
		t.Fatal("the query's row")
	}
	if _, err := p.Affected(); err == nil {
		t.Error("the failing statement succeeded")
	}
	if !rows.(*oneRow).closed {
		t.Error("the rows were not closed before the next answer")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.ran, " "); got != "a[1 2] b[3 4] fail[]" {
		t.Errorf("ran %q", got)
	}
	if _, err := p.Affected(); err == nil {
		t.Error("an answer read after Close")
	}
	// Reset empties it for the next pipeline.
	p = driver.PipeOf(c, &seq)
	p.Exec("c", 5)
	if err := p.Send(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := p.Affected(); err != nil || n != 1 || c.ran[len(c.ran)-1] != "c[5]" {
		t.Errorf("after Reset: %d, %v, %v", n, err, c.ran)
	}
}

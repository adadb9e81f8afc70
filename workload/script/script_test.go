package script

import (
	"slices"
	"testing"

	"github.com/candor-bench/candor/workload"
)

func TestTxKind(t *testing.T) {
	for sql, want := range map[string]int{
		"BEGIN": txBegin, "begin transaction": txBegin, "START TRANSACTION": txBegin, "begin work": txBegin,
		"END": txCommit, "commit": txCommit, "END TRANSACTION": txCommit,
		"ROLLBACK": txRollback, "abort": txRollback,
		"BEGIN ISOLATION LEVEL SERIALIZABLE": txNone, "ROLLBACK TO SAVEPOINT a": txNone, "START": txNone,
		"SELECT 1": txNone, "": txNone, "BEGINNING": txNone,
	} {
		if got := txKind(sql); got != want {
			t.Errorf("txKind(%q) = %d, want %d", sql, got, want)
		}
	}
}

// The operations: scripts first (files, then built-ins, a name given twice numbered), then each
// script's statements as its parts.
func TestOpsAndParts(t *testing.T) {
	s := New().(*Script)
	s.o.Builtins = []string{"select-only@2", "simple-update", "sel@1"}
	if p := s.Validate(workload.Validation{Cmd: workload.CmdRun}); len(p) > 0 {
		t.Fatal(p)
	}
	want := []string{"select-only", "simple-update", "select-only-2", "select-only:1",
		"simple-update:1", "simple-update:2", "simple-update:3", "simple-update:4", "simple-update:5", "select-only-2:1"}
	if got := s.Ops(); !slices.Equal(got, want) {
		t.Fatalf("Ops = %v, want %v", got, want)
	}
	in := s.Info()
	if in.Parts["simple-update:5"] != "simple-update" || in.IsPart("select-only") || len(in.ShortNames) != len(want) {
		t.Errorf("Info: parts %v, short names %v", in.Parts, in.ShortNames)
	}
	// Bad scripts: every problem before anything connects.
	s = New().(*Script)
	s.o.Builtins = []string{"nothing"}
	s.o.Clients = 3
	p := s.Validate(workload.Validation{Cmd: workload.CmdRun, Terminals: 2})
	if len(p) != 2 {
		t.Errorf("problems %q, want the unknown built-in and --clients against --terminals", p)
	}
}

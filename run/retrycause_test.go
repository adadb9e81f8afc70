package run

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
)

// TestRetryCauseMariaDB: a real deadlock on MariaDB makes a retried attempt, and what it failed
// with reaches result.json (the operation's retry_causes), the RETRY_RATE warning, the summary's
// text and report.html's table. Two workers start with transactions that lock the rows 1 and 2 in opposite
// orders, so one of them is the deadlock's victim and driver.Retry runs it again; every later
// operation is a plain SELECT.
func TestRetryCauseMariaDB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := dbtest.FreshMySQL(t, "candor_retry")
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 0), (2, 0)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	s := &deadlockSession{db: db}
	s.locked.Add(2)
	o, err := workload.Drive(ctx, "deadlock", []string{"op"}, s, workload.DriveOptions{Mode: workload.ModeThroughput,
		Measure: 500 * time.Millisecond, Grace: 10 * time.Second, Tick: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := RunPlan{Workload: deadlockWorkload{}, DB: "mariadb://", Mode: workload.ModeThroughput, Terminals: 2, Connections: 2, Duration: 500 * time.Millisecond}
	r := buildResult(&p, db, "MariaDB", driver.IsolationRepeatableRead, time.Now(), o)
	r.Warnings = append(r.Warnings, SharedWarnings(r, p.Mode, p.info())...)

	op := r.Operations["op"]
	if op.Retries != 1 || len(op.RetryCauses) != 1 {
		t.Fatalf("retries %d with causes %+v, want the deadlock's one retry and its cause", op.Retries, op.RetryCauses)
	}
	cause := op.RetryCauses[0]
	if cause.Class != "serialization" || cause.Count != 1 || !strings.Contains(cause.Message, "Deadlock found") {
		t.Fatalf("cause %+v, want the deadlock's message, class serialization, 1 retry", cause)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"retry_causes":[{"class":"serialization","message":"Error 1213 (40001)`)) {
		t.Errorf("result.json holds no retry cause: %s", js)
	}
	if rs := report.RetrySection(r); len(rs.Rows) != 1 || rs.Rows[0][0] != "op" || !strings.Contains(rs.Rows[0][3], "Deadlock found") {
		t.Errorf("report.html's retries by cause: %v", rs.Rows)
	}
	var text bytes.Buffer
	report.Summary(&text, r)
	for _, want := range []string{"retries in the measurement window, by operation and cause", "1 × serialization/deadlock: Error 1213 (40001): Deadlock found",
		"[RETRY_RATE] 1 retries for", `1 of them after "Error 1213 (40001): Deadlock found`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the summary does not say %q:\n%s", want, text.String())
		}
	}
}

// deadlockSession runs two workers; each one's first operation takes part in the deadlock.
type deadlockSession struct {
	db     driver.DB
	conns  [2]driver.Conn
	locked sync.WaitGroup // both first transactions hold their first row
	first  [2]atomic.Bool
}

type loopTerm struct{}

func (loopTerm) Next() (int, time.Duration) { return 0, 0 }
func (loopTerm) Think(int) time.Duration    { return 20 * time.Millisecond }

func (s *deadlockSession) Setup() workload.Setup { return workload.Setup{Terminals: 2, Connections: 2} }
func (s *deadlockSession) Start(ctx context.Context, env workload.Env) (*workload.Work, error) {
	for i := range s.conns {
		c, err := s.db.Connect(ctx)
		if err != nil {
			return nil, err
		}
		s.conns[i] = c
	}
	exec := func(ctx context.Context, slot int, _ schedule.Terminal, _ int, _ bool) schedule.Outcome {
		c := s.conns[slot]
		if !s.first[slot].CompareAndSwap(false, true) {
			_, err := c.Exec(ctx, "SELECT 1")
			return schedule.Outcome{Err: err}
		}
		own, other := slot+1, 2-slot
		attempt := 0
		retries, err := driver.Retry(ctx, s.db, c, driver.TxOptions{}, 3, func(ctx context.Context, c driver.Conn) error {
			attempt++
			if _, err := c.Exec(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", own); err != nil {
				return err
			}
			if attempt == 1 {
				s.locked.Done()
				s.locked.Wait()
				if slot == 1 {
					time.Sleep(100 * time.Millisecond) // worker 0 waits for row 2 first: worker 1 closes the cycle
				}
			}
			_, err := c.Exec(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", other)
			return err
		})
		return schedule.Outcome{Retries: retries, Err: err}
	}
	return &workload.Work{Exec: schedule.ExecutorFunc(exec), Workers: 2, Terminals: []schedule.Terminal{loopTerm{}, loopTerm{}}}, nil
}
func (s *deadlockSession) Finish(*workload.Finished) {}
func (s *deadlockSession) Close() error {
	for _, c := range s.conns {
		if c != nil {
			c.Close()
		}
	}
	return nil
}

// deadlockWorkload is the plan's workload for buildResult: its name and operation.
type deadlockWorkload struct{}

func (deadlockWorkload) Info() workload.Info                             { return workload.Info{Name: "deadlock"} }
func (deadlockWorkload) Ops() []string                                   { return []string{"op"} }
func (deadlockWorkload) Flags(*pflag.FlagSet, workload.Command)          {}
func (deadlockWorkload) Validate(workload.Validation) []string           { return nil }
func (deadlockWorkload) Loaded(context.Context, driver.DB) (bool, error) { return true, nil }
func (deadlockWorkload) Open(context.Context, driver.DB, workload.SessionConfig) (workload.Session, error) {
	return nil, nil
}
func (deadlockWorkload) Load(context.Context, driver.DB, workload.LoadOptions) (workload.LoadResult, error) {
	return workload.LoadResult{}, nil
}

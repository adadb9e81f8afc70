package schedule

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

// groupTerm is a terminal of a known group; the executor checks it runs on a worker of that group.
type groupTerm struct {
	term
	group int
}

// TestGroupsBindTerminalsToWorkers: terminals of group g run only on workers of group g (the
// endpoint of their warehouse), every group makes progress, and a group's backlog is its own: with
// one slow worker in group 0 and three fast ones in group 1, group 0's terminals wait (lag) while
// group 1's do not borrow from or lend to it.
func TestGroupsBindTerminalsToWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		workerGroup := []int{0, 1, 1, 1}
		var terms []Terminal
		var termGroup []int
		for i := 0; i < 6; i++ {
			g := i % 2
			terms = append(terms, &groupTerm{term: term{op: g}, group: g})
			termGroup = append(termGroup, g)
		}
		var mu sync.Mutex
		ran := map[int]int{}
		wrong := 0
		exec := ExecutorFunc(func(ctx context.Context, w int, st Terminal, op int, _ bool) Outcome {
			gt := st.(*groupTerm)
			mu.Lock()
			if workerGroup[w] != gt.group {
				wrong++
			}
			ran[gt.group]++
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			return Outcome{}
		})
		rec := measure.NewRecorder(ops, len(workerGroup))
		sum, tot, _ := runCfg(t, Config{Terminals: terms, Workers: len(workerGroup), Exec: exec, Rec: rec,
			Measure: time.Second, Grace: time.Second, TerminalGroup: termGroup, WorkerGroup: workerGroup})
		if wrong != 0 {
			t.Fatalf("%d operations ran on a worker of another group", wrong)
		}
		// Group 0: 3 terminals on 1 worker, 10 ms each: 100 per second. Group 1: 3 terminals on 3
		// workers: 300 per second (plus group 0's backlog of 2, due inside the window, run after it). Without the binding, 6 terminals on 4 workers would run about 400
		// in all, split evenly.
		c0, c1 := tot.Counts[0].Completed, tot.Counts[1].Completed
		if c0 < 95 || c0 > 103 || c1 < 295 || c1 > 303 || sum.Incomplete != 0 {
			t.Fatalf("completed %d in group 0 and %d in group 1 (incomplete %d); want about 100 and 300", c0, c1, sum.Incomplete)
		}
		// Group 0's terminals queue for their one worker (lag about 20 ms); group 1's never wait.
		if lag := tot.Hist[1][measure.Lag].Max(); lag != 0 {
			t.Errorf("group 1 lag max %d µs; want 0 (a worker of its own for each terminal)", lag)
		}
		if lag := tot.Hist[0][measure.Lag].Max(); lag < 19000 {
			t.Errorf("group 0 lag max %d µs; want about 20 ms (3 terminals on 1 worker)", lag)
		}
	})
}

func TestGroupWithoutWorkerIsAUserError(t *testing.T) {
	_, err := Run(context.Background(), Config{
		Terminals: []Terminal{&term{}, &term{}}, Workers: 2, Exec: constant(0), Rec: measure.NewRecorder(ops, 2),
		Measure: time.Second, Tick: time.Second, TerminalGroup: []int{0, 2}, WorkerGroup: []int{0, 1},
	})
	if err == nil || !userr.Is(err) {
		t.Fatalf("a group with terminals and no worker: error %v, want a user error", err)
	}
}

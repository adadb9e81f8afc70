package workload

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/schedule"
)

// fakeSession is a session whose executor sleeps a fixed service time (no database): enough to
// test what Drive owns (the mode's scheduler, the window, the drain, the final tick, the abort).
type fakeSession struct {
	service  time.Duration
	terms    int
	drained  atomic.Int64
	ticks    atomic.Int64
	failAt   int64 // abort the run at this execution (0: never)
	executed atomic.Int64
	abort    context.CancelCauseFunc
	// fail, when set, makes execution n fail with its error and class (nil: it succeeds).
	fail func(n int64) (error, driver.FailureClass)
	// outage: an outage is going on from the start to the end of the run.
	outage bool
}

type fakeTerm struct{}

func (fakeTerm) Next() (int, time.Duration) { return 0, 0 }
func (fakeTerm) Think(int) time.Duration    { return 0 }

type fakeSource struct{}

func (fakeSource) NewJob() schedule.Terminal                     { return fakeTerm{} }
func (fakeSource) Draw(int64, schedule.Terminal) (op, group int) { return 1, 0 }

func (s *fakeSession) Setup() Setup { return Setup{Terminals: s.terms, Connections: s.terms} }
func (s *fakeSession) Start(ctx context.Context, env Env) (*Work, error) {
	s.abort = env.Abort
	if s.outage {
		env.Outages.Failed("fake", time.Now())
	}
	terms := make([]schedule.Terminal, s.terms)
	for i := range terms {
		terms[i] = fakeTerm{}
	}
	return &Work{
		Exec: schedule.ExecutorFunc(func(ctx context.Context, slot int, t schedule.Terminal, op int, measured bool) schedule.Outcome {
			if n := s.executed.Add(1); n == s.failAt {
				s.abort(errors.New("lost the fake database"))
			}
			n := s.executed.Load()
			time.Sleep(s.service)
			if s.fail != nil {
				if err, class := s.fail(n); err != nil {
					return schedule.Outcome{Err: err, Class: class}
				}
			}
			return schedule.Outcome{}
		}),
		Workers: s.terms, Terminals: terms, Source: fakeSource{},
		OnTick: func(*measure.Interval) { s.ticks.Add(1) },
		Drain:  func(grace time.Duration) { s.drained.Add(1) },
	}, nil
}
func (s *fakeSession) Finish(*Finished) {}
func (s *fakeSession) Close() error     { return nil }

func TestDriveClosedLoop(t *testing.T) {
	s := &fakeSession{service: time.Millisecond, terms: 2}
	o, err := Drive(context.Background(), "fake", []string{"a", "b"}, s, DriveOptions{Mode: ModeThroughput,
		Warmup: 100 * time.Millisecond, Measure: 500 * time.Millisecond, Grace: time.Second, Tick: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a := o.Totals.Counts[0].Completed
	// 2 workers, 1 ms each: about 1,000 in the 500 ms window on an idle machine (171 on a saturated
	// one), of about 1,200 over the run. What the window counts is its share of the run's, whatever
	// the machine's speed: most of it (5/6 of the time), never all of it (the warm-up is left out).
	if a < 20 || 3*a < o.Completed || a >= o.Completed || o.Totals.Counts[1].Completed != 0 || o.Summary.Partial {
		t.Errorf("closed loop: %d of a in the window, %d over the run, %d of b, partial %v", a, o.Completed, o.Totals.Counts[1].Completed, o.Summary.Partial)
	}
	if s.drained.Load() != 1 || s.ticks.Load() < 5 {
		t.Errorf("drained %d times, %d ticks", s.drained.Load(), s.ticks.Load())
	}
}

func TestDriveOpenLoop(t *testing.T) {
	s := &fakeSession{service: time.Millisecond, terms: 2}
	o, err := Drive(context.Background(), "fake", []string{"a", "b"}, s, DriveOptions{Mode: ModeRate,
		Grace: time.Second, Tick: 100 * time.Millisecond, Seed: 3,
		Rate: RateOptions{Steps: []schedule.Step{{Rate: 200, Duration: time.Second}}, Process: schedule.Constant, MaxBacklog: 100}})
	if err != nil {
		t.Fatal(err)
	}
	// Constant arrivals at 200/s for 1 s: 200 of op b (the source's), none of a.
	if b := o.Totals.Counts[1].Completed; b < 190 || b > 201 || o.Rate == nil || o.Totals.Counts[0].Completed != 0 {
		t.Errorf("open loop: %d of b (want 200), rate summary %v", b, o.Rate != nil)
	}
	if s.drained.Load() != 1 {
		t.Errorf("drained %d times", s.drained.Load())
	}
}

func TestDriveAbort(t *testing.T) {
	s := &fakeSession{service: time.Millisecond, terms: 1, failAt: 50}
	o, err := Drive(context.Background(), "fake", []string{"a"}, s, DriveOptions{Mode: ModeThroughput,
		Measure: time.Minute, Grace: time.Second, Tick: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Summary.Partial || o.Aborted != "lost the fake database" {
		t.Errorf("an aborted run: partial %v, aborted %q", o.Summary.Partial, o.Aborted)
	}
}

// A workload registered twice, or without a name, is a programming error; the registry lists names.
func TestRegistry(t *testing.T) {
	Register(Registration{Name: "fake-for-test", New: func() Workload { return fakeWorkload{} }})
	if _, ok := Lookup("fake-for-test"); !ok {
		t.Fatal("registered workload not found")
	}
	found := false
	for _, n := range Names() {
		found = found || n == "fake-for-test"
	}
	if !found {
		t.Error("Names does not list the registered workload")
	}
	for _, r := range []Registration{{Name: "fake-for-test", New: func() Workload { return fakeWorkload{} }}, {Name: ""}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", r.Name)
				}
			}()
			Register(r)
		}()
	}
	if !(Info{Modes: []Mode{ModeRate}}).HasMode(ModeRate) || (Info{Modes: []Mode{ModeRate}}).HasMode(ModeSpec) {
		t.Error("HasMode")
	}
}

type fakeWorkload struct{}

func (fakeWorkload) Info() Info                                      { return Info{Name: "fake-for-test"} }
func (fakeWorkload) Ops() []string                                   { return []string{"a"} }
func (fakeWorkload) Flags(*pflag.FlagSet, Command)                   {}
func (fakeWorkload) Validate(Validation) []string                    { return nil }
func (fakeWorkload) Loaded(context.Context, driver.DB) (bool, error) { return false, nil }
func (fakeWorkload) Load(context.Context, driver.DB, LoadOptions) (LoadResult, error) {
	return LoadResult{}, nil
}
func (fakeWorkload) Open(context.Context, driver.DB, SessionConfig) (Session, error) {
	return nil, errors.New("fake")
}

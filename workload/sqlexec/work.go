package sqlexec

import (
	"runtime"

	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// DefaultConcurrency is the terminals of a run that says nothing else: twice the CPUs Go may use
// (CockroachDB's kv --concurrency), as the process started: held sockets (driver/blockconn) raise
// GOMAXPROCS for their connections, and a later run of the same process (a search's, a
// comparison's) must not size itself by an earlier run's connections.
func DefaultConcurrency() int { return 2 * startProcs }

// startProcs is GOMAXPROCS as the process started.
var startProcs = runtime.GOMAXPROCS(0)

// Sizing is what a run's terminals and connections are resolved from.
type Sizing struct {
	Mode workload.Mode
	// Terminals and Connections are as given (0: the default).
	Terminals, Connections int
	// DefaultTerminals is the closed loop's terminals when none are given, and RateConnections the
	// open loop's connections when none are given.
	DefaultTerminals, RateConnections int
	// Endpoints is the number of endpoints (--db) the connections are spread over.
	Endpoints int
	// MaxDefaultConnections caps the closed loop's default connections (0: none; a single-writer
	// engine's, MaxSingleWriterConnections).
	MaxDefaultConnections int
}

// Resolve is the run's terminals and connections. In the closed loop the terminals default to
// DefaultTerminals and the connections to one per terminal (at most MaxDefaultConnections); in rate mode the connections default
// to RateConnections and the terminals (the pool of random streams arrivals are drawn from,
// round-robin) to one per connection. Fewer connections than endpoints is a user error.
func (z Sizing) Resolve() (terms, conns int, err error) {
	terms, conns = z.Terminals, z.Connections
	if z.Mode == workload.ModeRate {
		if conns == 0 {
			conns = z.RateConnections
		}
		if terms == 0 {
			terms = conns
		}
	} else {
		if terms == 0 {
			terms = z.DefaultTerminals
		}
		if conns == 0 {
			conns = terms
			if z.MaxDefaultConnections > 0 {
				conns = min(conns, z.MaxDefaultConnections)
			}
		}
	}
	if n := z.Endpoints; conns < n {
		return 0, 0, userr.Errorf("%d connections cannot reach %d --db endpoints: give --connections %d or more, or fewer --db", conns, n, n)
	}
	return terms, conns, nil
}

// Drawer is a terminal that can also draw the open loop's arrivals: into a job record, a terminal
// without a random stream of its own.
type Drawer interface {
	schedule.Terminal
	// NewJob is a new job record.
	NewJob() schedule.Terminal
	// DrawInto draws the terminal's next operation into job's inputs and returns its type.
	DrawInto(job schedule.Terminal) int
}

// Source is the open loop's arrivals (schedule.Source): arrival i is drawn by terminal i mod N of
// Pool, round-robin, into a job record of its own, so each terminal's stream gives the same inputs
// whatever the database did (dropped arrivals are drawn too). With several endpoints (Groups), the
// terminal's endpoint group runs it.
type Source[T Drawer] struct {
	Pool   []T
	Groups int
}

var _ schedule.Source = (*Source[Drawer])(nil)

func (s *Source[T]) NewJob() schedule.Terminal { return s.Pool[0].NewJob() }

func (s *Source[T]) Draw(i int64, job schedule.Terminal) (op, group int) {
	k := int(i % int64(len(s.Pool)))
	op = s.Pool[k].DrawInto(job)
	if s.Groups > 1 {
		group = k % s.Groups
	}
	return op, group
}

// Work is a run's work on slots with the executor exec: in rate mode a Source drawing from terms,
// else terms as the closed loop's terminals; terminals and workers spread round-robin over the
// slots' endpoints.
func Work[T Drawer](mode workload.Mode, exec schedule.Executor, slots *Slots, terms []T) *workload.Work {
	w := &workload.Work{Exec: exec, Workers: slots.Len(), WorkerGroup: slots.Groups()}
	if mode == workload.ModeRate {
		w.Source = &Source[T]{Pool: terms, Groups: slots.Endpoints()}
		return w
	}
	w.Terminals = make([]schedule.Terminal, len(terms))
	for i, t := range terms {
		w.Terminals[i] = t
	}
	w.TerminalGroup = Spread(len(terms), slots.Endpoints())
	return w
}

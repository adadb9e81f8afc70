package workload

import (
	"context"
	"sync"
	"time"
)

// DefaultOutageWindow is how long a run waits for a database it cannot reach (--outage-window)
// before it ends as partial: a server restart (PostgreSQL's pg_ctl restart -m fast takes about a
// second, a crash recovery several) is ridden out and shows in the results.
const DefaultOutageWindow = 60 * time.Second

// Outage is one span during which no new connection to an endpoint could be opened.
type Outage struct {
	Endpoint string // redacted URL
	Start    time.Time
	End      time.Time // zero while it lasts (the run ended first)
	// Attempts is the connections tried and refused during it.
	Attempts int64
}

// Outages is a run's record of its outages and the window it tolerates; the executors that open
// connections (workload/sqlexec) find it in the run's context (OutagesOf) and report to it. Safe
// for concurrent use.
type Outages struct {
	// Window is how long one outage may last before the run is aborted.
	Window time.Duration

	mu   sync.Mutex
	list []Outage
	open map[string]int // endpoint -> index of its ongoing outage
}

// NewOutages makes the record of a run that tolerates outages up to window (DefaultOutageWindow
// when 0).
func NewOutages(window time.Duration) *Outages {
	if window <= 0 {
		window = DefaultOutageWindow
	}
	return &Outages{Window: window, open: map[string]int{}}
}

// Failed records a refused connection to endpoint at t and returns when its outage began.
func (o *Outages) Failed(endpoint string, t time.Time) (began time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, ok := o.open[endpoint]
	if !ok {
		i = len(o.list)
		o.list = append(o.list, Outage{Endpoint: endpoint, Start: t})
		o.open[endpoint] = i
	}
	o.list[i].Attempts++
	return o.list[i].Start
}

// Connected records a connection opened to endpoint at t, ending its outage if one was going on.
func (o *Outages) Connected(endpoint string, t time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if i, ok := o.open[endpoint]; ok {
		o.list[i].End = t
		delete(o.open, endpoint)
	}
}

// List is the outages so far, in the order they began.
func (o *Outages) List() []Outage {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Outage(nil), o.list...)
}

type outagesKey struct{}

// WithOutages is ctx carrying the run's outage record (Drive sets it for Session.Start).
func WithOutages(ctx context.Context, o *Outages) context.Context {
	return context.WithValue(ctx, outagesKey{}, o)
}

// OutagesOf is the outage record ctx carries, or a fresh one with the default window.
func OutagesOf(ctx context.Context) *Outages {
	if o, ok := ctx.Value(outagesKey{}).(*Outages); ok && o != nil {
		return o
	}
	return NewOutages(0)
}

// Ongoing says whether an outage is going on at some endpoint (no connection opened since it began).
func (o *Outages) Ongoing() bool {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.open) > 0
}

// Package capture is `candor capture`: a runnable candor script workload made from the database's
// own statement statistics (pg_stat_statements on PostgreSQL, performance_schema's statement
// digests on MySQL and MariaDB), snapshotted at the start and the end of a window. Each statement
// that made up the --cover share of the calls becomes a script of one statement whose weight is its
// calls in the window; each placeholder draws values from the column it is compared with or assigned
// to (infer.go), read once from the table (catalog.go). What cannot be captured is said, in the
// console and in capture.json: values, collapsed lists, transaction boundaries, utility statements
// and statements the statistics evicted.
package capture

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/candor-bench/candor/driver"
)

// Options are a capture's settings.
type Options struct {
	// Cover is the share of the calls (0 < Cover <= 1) the statements kept must make up, the most
	// called first.
	Cover float64
	// Sample is the most values read from a column for a parameter.
	Sample int
}

// DefaultCover and DefaultSample are the defaults of --cover and --sample.
const (
	DefaultCover  = 0.95
	DefaultSample = 1000
)

// Session is a capture under way: the start snapshot taken, on one connection.
type Session struct {
	db    driver.DB
	conn  driver.Conn
	src   source
	start Snapshot
	o     Options
}

// Begin checks that the statistics can be read (refusing with how to enable them when not) and takes
// the start snapshot.
func Begin(ctx context.Context, db driver.DB, o Options) (*Session, error) {
	if o.Cover <= 0 || o.Cover > 1 {
		o.Cover = DefaultCover
	}
	if o.Sample <= 0 {
		o.Sample = DefaultSample
	}
	src, err := sourceFor(db)
	if err != nil {
		return nil, err
	}
	conn, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := src.check(ctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	start, err := src.snapshot(ctx, conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &Session{db: db, conn: conn, src: src, start: start, o: o}, nil
}

// Source is the name of the statistics the session reads.
func (s *Session) Source() string { return s.src.name() }

// Started is when the start snapshot was taken.
func (s *Session) Started() time.Time { return s.start.At }

// Close releases the session's connection.
func (s *Session) Close() error { return s.conn.Close() }

// End takes the end snapshot and builds the capture: the deltas, the cover cut, each kept
// statement's parameters resolved against the catalog and their values sampled. interrupted says
// the window was ended early (Ctrl-C), which the result records.
func (s *Session) End(ctx context.Context, interrupted bool) (*Result, error) {
	end, err := s.src.snapshot(ctx, s.conn)
	if err != nil {
		return nil, err
	}
	r := build(s.src, s.start, end, s.o)
	r.Engine = s.db.Kind()
	r.Database = s.db.Redacted()
	if v, err := s.db.Version(ctx); err == nil {
		r.ServerVersion = v
	}
	r.Interrupted = interrupted
	if interrupted {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the capture was interrupted after %s: the statements are those of that window only", r.Duration()))
	}
	if err := resolve(ctx, s.conn, s.db.Dialect().SQLFamily(), r, s.o); err != nil {
		return r, err
	}
	return r, nil
}

// build computes the deltas between two snapshots and the cover cut; pure.
func build(src source, start, end Snapshot, o Options) *Result {
	r := &Result{Format: 1, Source: src.name(), Started: start.At, Ended: end.At, Cover: o.Cover, SampleRows: o.Sample}
	secs := r.Duration().Seconds()
	reset := false
	var kept []*Statement
	for id, e := range end.Stats {
		b := start.Stats[id]
		calls, total, rows := e.Calls-b.Calls, e.TotalMS-b.TotalMS, e.Rows-b.Rows
		if calls < 0 {
			reset = true
			calls, total, rows = e.Calls, e.TotalMS, e.Rows
		}
		if calls <= 0 {
			continue
		}
		if src.own(e.Text) {
			r.OwnCalls += calls
			continue
		}
		st := &Statement{ID: id, Text: e.Text, Calls: calls, TotalMS: total, Rows: rows}
		if calls > 0 {
			st.MeanMS = total / float64(calls)
		}
		if secs > 0 {
			st.RatePerSec = float64(calls) / secs
		}
		if e.Text == "" {
			st.Notes = append(st.Notes, "its text is hidden (another user's statement: grant pg_read_all_stats)")
			r.Skipped = append(r.Skipped, skipped(st, "text hidden"))
			continue
		}
		st.analysis = Analyze(e.Text, src.qmark())
		if st.analysis.Utility {
			r.UtilityCalls += st.Calls
			r.Skipped = append(r.Skipped, skipped(st, "utility statement ("+st.analysis.Verb+")"))
			continue
		}
		kept = append(kept, st)
	}
	if reset || !start.Reset.IsZero() && end.Reset.After(start.Reset) {
		r.Warnings = append(r.Warnings, "the statistics were reset during the capture: counts of statements seen before the reset are their counts since it")
	}
	if start.Evicted >= 0 && end.Evicted >= 0 {
		r.Evicted = end.Evicted - start.Evicted
		if r.Evicted > 0 {
			if src.qmark() {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%d statement digests were lost during the capture (Performance_schema_digest_lost): the digest table was full, so some statements are missing; raise performance_schema_digests_size", r.Evicted))
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%d statements were evicted from pg_stat_statements during the capture (pg_stat_statements_info.dealloc): pg_stat_statements.max was reached, so some statements and calls are missing; raise pg_stat_statements.max", r.Evicted))
			}
		}
	} else {
		r.Limitations = append(r.Limitations, "the server does not say whether statements were evicted from the statistics (pg_stat_statements_info needs PostgreSQL 14)")
	}
	if start.Executes >= 0 && end.Executes >= 0 {
		if n := end.Executes - start.Executes; n > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d executions of server-side prepared statements in the window (every schema) are not captured: MariaDB's digests do not hold statements sent through the binary protocol; an application's statements are captured when it sends them as text (client-side parameters, such as interpolateParams=true in Go's MySQL driver)", n))
		}
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].Calls != kept[j].Calls {
			return kept[i].Calls > kept[j].Calls
		}
		return kept[i].ID < kept[j].ID
	})
	for _, st := range kept {
		r.TotalCalls += st.Calls
	}
	if secs > 0 {
		r.RatePerSec = float64(r.TotalCalls) / secs
	}
	var cum int64
	for _, st := range kept {
		st.Share = float64(st.Calls) / float64(r.TotalCalls)
		if float64(cum) < o.Cover*float64(r.TotalCalls) {
			cum += st.Calls
			r.Statements = append(r.Statements, st)
			continue
		}
		r.Skipped = append(r.Skipped, skipped(st, fmt.Sprintf("below the cover cut (%.0f%% of the calls)", o.Cover*100)))
		r.LeftOutCalls += st.Calls
	}
	if r.TotalCalls > 0 {
		r.CoveredShare = float64(cum) / float64(r.TotalCalls)
	}
	sort.SliceStable(r.Skipped, func(i, j int) bool { return r.Skipped[i].Calls > r.Skipped[j].Calls })
	r.Limitations = append(r.Limitations, limitations(src)...)
	return r
}

func skipped(st *Statement, why string) Skipped {
	return Skipped{ID: st.ID, Text: st.Text, Calls: st.Calls, Share: st.Share, Reason: why}
}

// limitations are what no capture from these statistics can hold, said in every capture.
func limitations(src source) []string {
	l := []string{
		"values: " + src.name() + " keeps no parameter values; each is drawn from a sample of the column it is compared with or assigned to, uniformly over the sampled rows, not with the skew the original workload had",
		"transaction boundaries: statements are captured one by one; the replay runs each in its own autocommit transaction, so locks held across statements and commit costs differ from the original",
		"utility statements (BEGIN, COMMIT, SET, DDL ...) are skipped",
		"order and think time: the replay draws statements independently by weight, not in the order the application sent them",
	}
	if src.qmark() {
		l = append(l, "collapsed lists: a digest writes IN (...) and VALUES (...) for any list; the replay sends one value in an IN list and one row in a VALUES list")
	} else {
		l = append(l, "collapsed lists: PostgreSQL 18 writes IN ($1 /*, ... */) for any list; the replay sends one value")
	}
	return l
}

// Duration is the capture's window.
func (r *Result) Duration() time.Duration {
	return r.Ended.Sub(r.Started).Round(100 * time.Millisecond)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/script/capture"
)

// newCapture is `candor capture`: a runnable candor script workload from the database's own
// statement statistics (package workload/script/capture).
func newCapture(out run.Out) *cobra.Command {
	var (
		db      dbFlags
		dur     time.Duration
		dir     string
		cover   float64
		sample  int
		replace bool
		base    string
	)
	c := &cobra.Command{
		Use:   "capture",
		Short: "Make a runnable workload from the database's own statement statistics (pg_stat_statements, performance_schema)",
		Long: `Snapshots PostgreSQL's pg_stat_statements (or MySQL's and MariaDB's performance_schema statement
digests) of the database --db names, waits --for, snapshots again, and writes into --out a workload
that candor script run replays: one script per statement that together made up --cover of the calls,
each weighted by its calls in the window, with the observed rate and the server's mean and total time
(capture.json), and run.sh with the exact command line.

The statistics keep no parameter values: for each placeholder capture infers the column it is
compared with or assigned to (col = $1, col IN ($1), BETWEEN, SET col = $1, INSERT ... VALUES) and
draws values from that column's data: random(min, max) over an integer key, else a sample of at most
--sample rows read once into samples/ (the script reads it with \sample). A parameter it cannot infer is
said, and bound as NULL until you write its generator. Utility statements (BEGIN, SET ...) are
skipped; transaction boundaries, statement order, collapsed lists and evicted statements are said.
Ctrl-C ends the window early and still writes what was seen.

PostgreSQL needs shared_preload_libraries = 'pg_stat_statements' and CREATE EXTENSION
pg_stat_statements in the database; MySQL and MariaDB need performance_schema = ON.`,
		Example: `  candor capture --db postgres://app@db1/shop --for 10m --out shop-capture/
  DB=postgres://app@staging/shop shop-capture/run.sh --duration 5m
  # the replay as the server saw it, beside the original:
  candor capture --db postgres://app@staging/shop --for 4m --out replay-capture/ --baseline shop-capture/capture.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url, err := db.first(out, "capture")
			if err != nil {
				return err
			}
			return runCapture(c.Context(), out, url, dur, dir, replace, base, capture.Options{Cover: cover / 100, Sample: sample})
		},
	}
	db.add(c, "", false)
	c.Flags().DurationVar(&dur, "for", 10*time.Minute, "how long to watch the statistics (the window between the two snapshots)")
	c.Flags().StringVar(&dir, "out", "", "directory to write the workload into (scripts, samples/, capture.json, run.sh, README.txt)")
	c.Flags().Float64Var(&cover, "cover", capture.DefaultCover*100, "percent of the calls the kept statements make up, the most called first")
	c.Flags().IntVar(&sample, "sample", capture.DefaultSample, "the most values read from a column for a parameter")
	c.Flags().BoolVar(&replace, "replace", false, "write into a --out directory that is not empty")
	c.Flags().StringVar(&base, "baseline", "", "an earlier capture.json (the original, when this capture watches its replay): print each of its statements' share and server time then and now")
	return c
}

func runCapture(ctx context.Context, out run.Out, url string, dur time.Duration, dir string, replace bool, basePath string, o capture.Options) error {
	var bad []error
	var base *capture.Result
	if basePath != "" {
		var err error
		if base, err = capture.ReadResult(basePath); err != nil {
			bad = append(bad, err)
		}
	}
	if url == "" {
		bad = append(bad, userr.Errorf("no database given: pass --db URL"))
	}
	if dur <= 0 {
		bad = append(bad, userr.Errorf("--for %s: give a positive duration, as in --for 10m", dur))
	}
	if o.Cover <= 0 || o.Cover > 1 {
		bad = append(bad, userr.Errorf("--cover %g: give a percent above 0 and at most 100, as in --cover 95", o.Cover*100))
	}
	if o.Sample < 1 {
		bad = append(bad, userr.Errorf("--sample %d: give at least 1 row", o.Sample))
	}
	if err := capture.CheckOut(dir, replace); err != nil {
		bad = append(bad, err)
	}
	if len(bad) > 0 {
		return userr.Errorf("%w", errors.Join(bad...))
	}
	db, err := driver.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := capture.Begin(ctx, db, o)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(out.Stderr, "capturing %s of %s for %s (until %s; Ctrl-C ends early and writes what was seen)\n",
		s.Source(), db.Redacted(), dur, s.Started().Add(dur).Format("15:04:05"))
	interrupted := false
	t := time.NewTimer(dur)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		interrupted = true
	}
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	r, err := s.End(endCtx, interrupted)
	if err != nil {
		return err
	}
	if err := r.Write(dir); err != nil {
		return err
	}
	r.Summary(out.Stdout)
	fmt.Fprintf(out.Stdout, "wrote %s: replay with DB=URL %s/run.sh, which runs\n  %s\n", dir, dir, r.Command)
	if base != nil {
		capture.PrintCompare(out.Stdout, basePath, capture.Compare(base, r))
	}
	if interrupted {
		return fmt.Errorf("%w: the capture was interrupted after %s; it holds that window's statements", run.ErrPartial, r.Duration())
	}
	return nil
}

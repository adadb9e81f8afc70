package capture

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/script/pgscript"
)

// CheckOut refuses an output directory that exists and is not empty, unless replace; it is called
// before anything connects.
func CheckOut(dir string, replace bool) error {
	if dir == "" {
		return userr.Errorf("no output directory: pass --out DIR (it will hold the scripts, their sample files, capture.json and run.sh)")
	}
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return userr.Errorf("cannot use --out %s: %v", dir, err)
	}
	if len(ents) > 0 && !replace {
		return userr.Errorf("--out %s exists and is not empty: choose a new directory, or pass --replace to overwrite the capture in it", dir)
	}
	return nil
}

// Write writes the capture into dir: one script a statement (NN-verb-table.sql), the sample files
// they read (samples/), capture.json, run.sh (the replay's command line) and README.txt.
func (r *Result) Write(dir string) error {
	r.Seconds = r.Duration().Seconds()
	if err := os.MkdirAll(filepath.Join(dir, "samples"), 0o755); err != nil {
		return userr.Errorf("cannot create %s: %v", dir, err)
	}
	for i, st := range r.Statements {
		st.File = fmt.Sprintf("%02d-%s.sql", i+1, slug(st))
		st.Weight = st.Calls
	}
	scaleWeights(r.Statements)
	var specs []string
	for _, st := range r.Statements {
		specs = append(specs, fmt.Sprintf("-f %s@%d", st.File, st.Weight))
		if err := os.WriteFile(filepath.Join(dir, st.File), []byte(r.script(st)), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", st.File, err)
		}
	}
	for name, vals := range r.samples {
		var b []byte
		for _, v := range vals {
			b = pgscript.AppendSample(b, v)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	rate := ""
	if r.RatePerSec > 0 {
		rate = fmt.Sprintf(" --mode rate --rate %.4g --connections %d", r.RatePerSec*r.CoveredShare, r.connections())
	}
	r.Command = "candor script run --db \"$DB\" " + strings.Join(specs, " ") + rate + " --duration 1m"
	if len(r.Statements) == 0 {
		r.Command = ""
	}
	sh := "#!/bin/sh\n# Replays the capture in this directory (see README.txt): each statement a script with its calls\n" +
		"# as weight, at the rate the captured statements ran. DB is the database URL.\n" +
		"# Add candor script run's options after the command line's own, as in ./run.sh --duration 10m.\n" +
		"set -e\ncd \"$(dirname \"$0\")\"\n: \"${DB:?set DB to the database URL, as in DB=postgres://user@host/db ./run.sh}\"\n" +
		"exec " + r.Command + " \"$@\"\n"
	if r.Command == "" {
		sh = "#!/bin/sh\necho 'the capture holds no statement to replay' >&2\nexit 1\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(sh), 0o755); err != nil {
		return fmt.Errorf("writing run.sh: %w", err)
	}
	j, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "capture.json"), append(j, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing capture.json: %w", err)
	}
	var b strings.Builder
	r.Summary(&b)
	readme := "candor capture: a workload made from " + r.Source + "\n\n" + b.String() +
		"\nReplay it with ./run.sh (DB=URL ./run.sh), which runs:\n  " + r.Command + "\n" +
		"Each NN-*.sql is a candor script (pgbench's language) of one statement: edit it freely. \\sample VAR FILE\n" +
		"is candor's extension that draws one line of FILE (samples/) for VAR each time.\n"
	return os.WriteFile(filepath.Join(dir, "README.txt"), []byte(readme), 0o644)
}

// scaleWeights keeps weights within pgbench's total of 2147483647, proportionally.
func scaleWeights(sts []*Statement) {
	var total int64
	for _, st := range sts {
		total += st.Weight
	}
	const max = 2147483647
	if total <= max {
		return
	}
	for _, st := range sts {
		st.Weight = st.Weight * (max / 2) / total
		if st.Weight == 0 {
			st.Weight = 1
		}
	}
}

var slugUnsafe = strings.NewReplacer(".", "_", "/", "_", " ", "_")

func slug(st *Statement) string {
	s := st.analysis.Verb
	if len(st.analysis.Tables) > 0 {
		s += "-" + st.analysis.Tables[0].Name
	}
	s = unsafeName.ReplaceAllString(slugUnsafe.Replace(s), "_")
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}

// script is a statement's candor script.
func (r *Result) script(st *Statement) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- candor capture from %s, %s to %s (%s)\n", r.Source, r.Started.UTC().Format("2006-01-02 15:04:05"), r.Ended.UTC().Format("15:04:05 MST"), r.Duration())
	fmt.Fprintf(&b, "-- id %s: %d calls (%.4g per second), %.1f%% of the captured calls; server time mean %.3f ms, total %.0f ms\n",
		st.ID, st.Calls, st.RatePerSec, st.Share*100, st.MeanMS, st.TotalMS)
	for _, n := range st.Notes {
		fmt.Fprintf(&b, "-- note: %s\n", n)
	}
	for _, p := range st.Params {
		what := p.Method
		if p.Column != "" {
			what = p.Table + "." + p.Column + " (" + p.How + "): " + p.Method
		}
		if p.Note != "" {
			what += "; " + p.Note
		}
		fmt.Fprintf(&b, "-- $%d: %s\n", p.N, what)
	}
	for _, p := range st.Params {
		switch {
		case p.SampleFile != "":
			fmt.Fprintf(&b, "\\sample %s %s\n", p.Var, p.SampleFile)
		case strings.HasPrefix(p.Method, "random("):
			fmt.Fprintf(&b, "\\set %s %s\n", p.Var, p.Method)
		case strings.HasPrefix(p.Method, "constant "):
			fmt.Fprintf(&b, "\\set %s %s\n", p.Var, strings.TrimPrefix(p.Method, "constant "))
		default:
			fmt.Fprintf(&b, "-- TODO: write a generator for $%d, for example \\set %s random(1, 1000)\n\\set %s NULL\n", p.N, p.Var, p.Var)
		}
	}
	b.WriteString(rewriteParams(st.sql, st.analysis.qmark, func(n int) string { return fmt.Sprintf(":p%d", n) }))
	b.WriteString("\n;\n")
	return b.String()
}

// Summary prints the capture for the console.
func (r *Result) Summary(w io.Writer) {
	fmt.Fprintf(w, "captured %s of %s for %s: %d calls of %d statements (%.4g per second)",
		r.Source, r.Database, r.Duration(), r.TotalCalls, len(r.Statements)+countNonUtility(r.Skipped), r.RatePerSec)
	if r.UtilityCalls > 0 {
		fmt.Fprintf(w, "; %d calls of utility statements skipped", r.UtilityCalls)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "kept %d statements, %.1f%% of the calls (--cover %.0f%%):\n", len(r.Statements), r.CoveredShare*100, r.Cover*100)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  file\tshare\tcalls\tper s\tmean ms\tparameters\tSQL")
	for _, st := range r.Statements {
		var ps []string
		for _, p := range st.Params {
			m := p.Method
			if p.SampleFile != "" {
				m = fmt.Sprintf("sample(%d)", p.Values)
			}
			if p.Column != "" {
				m = p.Column + ":" + m
			}
			ps = append(ps, fmt.Sprintf("$%d %s", p.N, m))
		}
		text := strings.Join(strings.Fields(st.sql), " ")
		if len(text) > 70 {
			text = text[:67] + "..."
		}
		fmt.Fprintf(tw, "  %s\t%.1f%%\t%d\t%.4g\t%.3f\t%s\t%s\n", st.File, st.Share*100, st.Calls, st.RatePerSec, st.MeanMS, strings.Join(ps, ", "), text)
	}
	tw.Flush()
	for _, st := range r.Statements {
		for _, n := range st.Notes {
			fmt.Fprintf(w, "  %s: %s\n", st.File, n)
		}
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "left out %d statements (%d calls below the cover cut, %d utility calls); see capture.json's skipped\n",
			len(r.Skipped), r.LeftOutCalls, r.UtilityCalls)
	}
	for _, x := range r.Warnings {
		fmt.Fprintln(w, "WARNING: "+x)
	}
	fmt.Fprintln(w, "what a capture cannot hold:")
	for _, l := range r.Limitations {
		fmt.Fprintln(w, "  - "+l)
	}
}

func countNonUtility(sk []Skipped) int {
	n := 0
	for _, s := range sk {
		if !strings.HasPrefix(s.Reason, "utility") {
			n++
		}
	}
	return n
}

// connections is the replay's --connections: by Little's law, the captured rate times each call's
// time (the server's mean plus a millisecond for the round trip), doubled for bursts, 4 to 64.
func (r *Result) connections() int {
	busy := 0.0 // connections busy on average
	for _, st := range r.Statements {
		busy += st.RatePerSec * (st.MeanMS + 1) / 1000
	}
	return max(4, min(64, int(math.Ceil(2*busy))))
}

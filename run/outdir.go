package run

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/userr"
)

// A run's --out directory.
//
// Nothing is created in it until the run's every input is checked and its connections are open:
// checkOut runs before anything connects, and the directory is made (and, with --replace, the
// earlier run's files removed) only when the first file is created, after the session has started.
// A run that fails before that leaves the directory as it was. A directory that holds a run is
// refused unless --replace says to replace it.
//
// Every file a run writes goes through an outFile, which keeps its first write error and says so
// at once on stderr, so that a full disk is noticed when it happens and each incomplete file is
// named at the end, while the run itself goes on and its summary is printed regardless.

// runFiles are the files a run writes into its directory (and the temporary one of result.json).
var runFiles = []string{report.ResultFile, report.LogFile, report.DeliveriesFile, report.ResourcesFile, htmlreport.File,
	report.ResultFile + ".tmp", htmlreport.File + ".tmp"}

// heldRun names what in dir shows that it holds a saved run (a run's files, a search's, a
// one-shot's, or with nested a subdirectory holding a run: a search or a one-shot writes its runs
// into subdirectories), or "" when it holds none.
func heldRun(dir string, nested bool) string {
	for _, n := range []string{report.ResultFile, report.LogFile, report.SearchFile, htmlreport.LoadsFile} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return n
		}
	}
	if !nested {
		return ""
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		for _, n := range []string{report.ResultFile, report.LogFile} {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), n)); err == nil {
				return filepath.Join(e.Name(), n)
			}
		}
	}
	return ""
}

// checkOut is --out's check before anything connects: the directory must not hold a run (unless
// replace; nested: in its subdirectories either, for a search or a one-shot), must be a directory
// when it exists, and must be under a directory when it does not. It creates nothing.
func checkOut(dir string, replace, nested bool) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return userr.Errorf("--out %s is a file, not a directory: choose another --out", dir)
	case err == nil:
		if held := heldRun(dir, nested); held != "" && !replace {
			return userr.Errorf("--out %s holds a saved run already (%s): choose another --out, or add --replace to replace it", dir, held)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return userr.Errorf("cannot use --out %s: %v: choose another --out", dir, err)
	}
	// It will be created: its nearest existing ancestor must be a directory.
	parent := filepath.Dir(filepath.Clean(dir))
	for {
		st, err := os.Stat(parent)
		if err == nil {
			if !st.IsDir() {
				return userr.Errorf("cannot create --out %s: %s is a file: choose another --out", dir, parent)
			}
			return nil
		}
		if next := filepath.Dir(parent); next != parent {
			parent = next
			continue
		}
		return userr.Errorf("cannot create --out %s: %v: choose another --out", dir, err)
	}
}

// outDir is a run's results directory, made on the first file's creation.
type outDir struct {
	path    string
	replace bool
	warn    io.Writer // where a failed write is said at once

	once  sync.Once
	err   error
	mu    sync.Mutex
	files []*outFile
}

// newOutDir is the results directory of a run, or nil without one (path "").
func newOutDir(path string, replace bool, warn io.Writer) *outDir {
	if path == "" {
		return nil
	}
	return &outDir{path: path, replace: replace, warn: warn}
}

// prepare makes the directory and, when replacing, removes the earlier run's files (only those),
// once.
func (o *outDir) prepare() error {
	o.once.Do(func() {
		if err := os.MkdirAll(o.path, 0o755); err != nil {
			o.err = userr.Errorf("cannot create the results directory %s: %v: choose another --out", o.path, err)
			return
		}
		if o.replace {
			for _, n := range runFiles {
				if err := os.Remove(filepath.Join(o.path, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
					o.err = userr.Errorf("cannot replace the run in %s: %v: choose another --out", o.path, err)
					return
				}
			}
		}
	})
	return o.err
}

// create makes the file name in the directory (preparing it first); nil o creates nothing.
func (o *outDir) create(name string) (*outFile, error) {
	if o == nil {
		return nil, nil
	}
	if err := o.prepare(); err != nil {
		return nil, err
	}
	path := filepath.Join(o.path, name)
	if dir := filepath.Dir(path); dir != o.path {
		// a workload's file in a subdirectory of its own (TPC-H's plans/qN.txt)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, userr.Errorf("cannot create %s: %v: choose another --out", dir, err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, userr.Errorf("cannot write %s: %v: choose another --out", path, err)
	}
	of := &outFile{f: f, name: name, warn: o.warn}
	o.mu.Lock()
	o.files = append(o.files, of)
	o.mu.Unlock()
	return of, nil
}

// createWriter is create for the session's files (workload.SessionConfig.Create).
func (o *outDir) createWriter(name string) (io.WriteCloser, error) {
	f, err := o.create(name)
	if f == nil || err != nil {
		return nil, err
	}
	return f, nil
}

// failed names the files whose writing failed, each with its first error.
func (o *outDir) failed() []string {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, f := range o.files {
		if err := f.Err(); err != nil {
			out = append(out, fmt.Sprintf("%s (%v)", f.name, unwrapPath(err)))
		}
	}
	return out
}

// outFile is one file of the results directory: it keeps its first write error, says it on warn
// at once, and writes nothing after it.
type outFile struct {
	f    *os.File
	name string
	warn io.Writer

	mu  sync.Mutex
	err error
}

func (f *outFile) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.f.Write(b)
	if err != nil {
		f.failLocked(err)
	}
	return n, err
}

// Close closes the file; a failed close (a delayed write error) counts as a failed write.
func (f *outFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return f.err
	}
	err := f.f.Close()
	f.f = nil
	if err != nil && f.err == nil {
		f.failLocked(err)
	}
	return f.err
}

// Err is the first write error.
func (f *outFile) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *outFile) failLocked(err error) {
	f.err = err
	if f.warn != nil {
		fmt.Fprintf(f.warn, "warning: writing %s failed (%v): the run goes on, and this file will be incomplete\n", f.name, unwrapPath(err))
	}
}

// unwrapPath drops the path from an *fs.PathError (the file is named beside it).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// saveResults writes result.json and report.html into od after the run, and returns every file of
// the run that is incomplete, named with its error: the files written during the run whose writes
// failed, and these two. A file that failed is said in result.json's warnings (when result.json
// itself can be written), and its temporary file removed.
func saveResults(od *outDir, res *report.Result) []string {
	if od == nil {
		return nil
	}
	incomplete := od.failed()
	if len(incomplete) > 0 {
		res.Warnings = append(res.Warnings, report.Warning{Code: "RESULTS_INCOMPLETE",
			Message: "these files of the run could not be written completely: " + strings.Join(incomplete, ", ")})
	}
	if err := od.prepare(); err != nil {
		return append(incomplete, fmt.Sprintf("%s (%v)", report.ResultFile, err))
	}
	if err := report.Write(od.path, res); err != nil {
		os.Remove(filepath.Join(od.path, report.ResultFile+".tmp"))
		// report.html is rendered from result.json: without it there is none either.
		return append(incomplete, fmt.Sprintf("%s (%v)", report.ResultFile, unwrapPath(err)),
			fmt.Sprintf("%s (not written: it is rendered from %s)", htmlreport.File, report.ResultFile))
	}
	if err := htmlreport.Write(od.path); err != nil {
		os.Remove(filepath.Join(od.path, htmlreport.File+".tmp"))
		incomplete = append(incomplete, fmt.Sprintf("%s (%v; candor report %s --html FILE retries)", htmlreport.File, unwrapPath(err), od.path))
	}
	return incomplete
}

// printSaved says where the results are: every file written whole, then each incomplete one. It
// never names a file as saved that could not be written.
func printSaved(out Out, dir string, incomplete []string) {
	bad := map[string]bool{}
	for _, f := range incomplete {
		name, _, _ := strings.Cut(f, " ")
		bad[name] = true
	}
	var saved []string
	for _, n := range []string{report.ResultFile, report.LogFile, report.DeliveriesFile, report.ResourcesFile, htmlreport.File} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil && !bad[n] {
			saved = append(saved, n)
		}
	}
	if len(incomplete) == 0 {
		fmt.Fprintf(out.Stderr, "results saved in %s (%s)\n", dir, strings.Join(saved, ", "))
		return
	}
	whole := "none"
	if len(saved) > 0 {
		whole = strings.Join(saved, ", ")
	}
	fmt.Fprintf(out.Stderr, "results only partly saved in %s: complete: %s; incomplete: %s\n", dir, whole, strings.Join(incomplete, ", "))
}

// DefaultOut is the results directory of a run not given --out: results/NAME-TIMESTAMP, or with
// -2, -3, ... when that name is taken already (a run started in the same second, for example by a
// script running short runs one after another), so that a run never finds its default directory
// holding another's results. It creates nothing.
func DefaultOut(name string, now time.Time) string {
	base := filepath.Join("results", name+"-"+now.Format("20060102-150405"))
	dir := base
	for k := 2; k < 10000; k++ {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		dir = fmt.Sprintf("%s-%d", base, k)
	}
	return dir
}

// removeStaleProbes removes, after a search with --replace saved its search.json into dir, the
// probe directories an earlier search left there (probe-NN-RATE[-confirm]) that this one's probes do
// not name, so that the directory holds one search only. A directory is removed only when it holds
// nothing but a run's files (runFiles, and a workload's plans/); any other is left, and said.
func removeStaleProbes(dir string, res *report.SearchResult, warn io.Writer) {
	keep := map[string]bool{}
	for _, p := range res.Probes {
		keep[p.Dir] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	own := map[string]bool{"plans": true}
	for _, n := range runFiles {
		own[n] = true
	}
	for _, e := range entries {
		if !e.IsDir() || keep[e.Name()] || !strings.HasPrefix(e.Name(), "probe-") {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		ours := true
		for _, f := range files {
			ours = ours && own[f.Name()]
		}
		if !ours {
			fmt.Fprintf(warn, "%s is an earlier search's probe holding files candor did not write: left as it is\n", sub)
			continue
		}
		if err := os.RemoveAll(sub); err != nil {
			fmt.Fprintf(warn, "cannot remove the earlier search's probe %s: %v\n", sub, err)
		}
	}
}

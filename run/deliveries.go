package run

import (
	"io"
	"os"
	"path/filepath"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/tpcc"
)

// deliveriesFile is a run's Delivery result file (clause 2.7.4.2), DIR/deliveries.csv, which the
// deferred-Delivery workers write through tpcc.RunOptions.Deliveries.
type deliveriesFile struct{ f *os.File }

// createDeliveries creates the file in the results directory dir; with no directory there is none.
// Call close on every path.
func createDeliveries(dir string) (*deliveriesFile, error) {
	if dir == "" {
		return &deliveriesFile{}, nil
	}
	path := filepath.Join(dir, report.DeliveriesFile)
	f, err := os.Create(path)
	if err != nil {
		return nil, userr.Errorf("cannot write %s: %v: choose another --out", path, err)
	}
	return &deliveriesFile{f: f}, nil
}

// writer is what the run writes the lines to: nil (an untyped nil, so none) without a file.
func (d *deliveriesFile) writer() io.Writer {
	if d.f == nil {
		return nil
	}
	return d.f
}

// finish closes the file (tpcc.Run has flushed it) and names it in the result, with its line count;
// a line lost to a write error is a warning, DELIVERIES_WRITE_FAILED.
func (d *deliveriesFile) finish(o *tpcc.RunOutput, r *report.Result) {
	if d.f == nil {
		return
	}
	err := o.DeliveryLogErr
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	d.f = nil
	if r.DeliveryDeferred != nil {
		r.DeliveryDeferred.File, r.DeliveryDeferred.Lines = report.DeliveriesFile, o.DeliveryLines
	}
	if err != nil {
		r.Warnings = append(r.Warnings, report.Warning{Code: "DELIVERIES_WRITE_FAILED",
			Message: "the Delivery result file " + report.DeliveriesFile + " could not be written completely: " + err.Error()})
	}
}

// close closes the file if finish has not (a run that failed).
func (d *deliveriesFile) close() {
	if d.f != nil {
		d.f.Close()
		d.f = nil
	}
}

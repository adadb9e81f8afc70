package capture

import (
	"time"

	"github.com/candor-bench/candor/workload/script/pgscript"
)

// Result is a capture, written as capture.json.
type Result struct {
	Format        int       `json:"format"`
	Source        string    `json:"source"`
	Engine        string    `json:"engine"`
	ServerVersion string    `json:"server_version,omitempty"`
	Database      string    `json:"database"` // redacted
	Started       time.Time `json:"started"`
	Ended         time.Time `json:"ended"`
	Seconds       float64   `json:"seconds"`
	Interrupted   bool      `json:"interrupted"`
	Cover         float64   `json:"cover"`
	SampleRows    int       `json:"sample_rows"`
	// TotalCalls are the calls of every query and DML statement in the window (utility statements
	// and capture's own reads left out); RatePerSec is their rate.
	TotalCalls   int64   `json:"total_calls"`
	RatePerSec   float64 `json:"rate_per_sec"`
	CoveredShare float64 `json:"covered_share"`
	LeftOutCalls int64   `json:"left_out_calls"`
	UtilityCalls int64   `json:"utility_calls"`
	OwnCalls     int64   `json:"own_calls"`
	Evicted      int64   `json:"evicted"`

	Statements  []*Statement `json:"statements"`
	Skipped     []Skipped    `json:"skipped"`
	Limitations []string     `json:"limitations"`
	Warnings    []string     `json:"warnings"`
	// Command is the command line that replays the capture (run.sh's).
	Command string `json:"command"`

	samples map[string][]pgscript.SampleValue // sample files by name, written by Write
}

// Statement is one captured statement: its counters over the window and its script.
type Statement struct {
	File       string  `json:"file"`
	ID         string  `json:"id"`
	Text       string  `json:"text"`
	Calls      int64   `json:"calls"`
	Weight     int64   `json:"weight"`
	Share      float64 `json:"share"`
	RatePerSec float64 `json:"rate_per_sec"`
	MeanMS     float64 `json:"server_mean_ms"`
	TotalMS    float64 `json:"server_total_ms"`
	Rows       int64   `json:"rows"`
	// Params are its placeholders, what was inferred and how the script draws each.
	Params []ParamOut `json:"params"`
	Notes  []string   `json:"notes,omitempty"`

	analysis Analysis
	sql      string // the text the script sends (collapsed lists rebuilt)
}

// ParamOut is one parameter of a captured statement as written.
type ParamOut struct {
	N        int    `json:"n"`
	Var      string `json:"var"`
	Inferred bool   `json:"inferred"`
	Table    string `json:"table,omitempty"`
	Column   string `json:"column,omitempty"`
	How      string `json:"how,omitempty"`
	// Method is how the script draws it: "random(MIN, MAX)" over an integer key, "sample FILE"
	// (Values values read from the column), "constant V", or "not inferred".
	Method     string `json:"method"`
	SampleFile string `json:"sample_file,omitempty"`
	Values     int    `json:"values,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Skipped is a statement seen but not written.
type Skipped struct {
	ID     string  `json:"id"`
	Text   string  `json:"text"`
	Calls  int64   `json:"calls"`
	Share  float64 `json:"share,omitempty"`
	Reason string  `json:"reason"`
}

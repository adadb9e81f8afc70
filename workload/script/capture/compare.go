package capture

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/candor-bench/candor/userr"
)

// ReadResult reads a capture.json.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, userr.Errorf("cannot read the baseline capture %s: %v", path, err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil || r.Format != 1 {
		return nil, userr.Errorf("%s is not a capture.json that candor capture wrote (format 1): %v", path, err)
	}
	return &r, nil
}

// Row is one statement of a comparison: its share of the calls and the server's mean time in the
// baseline and now (a statement of the baseline not seen now has zeros).
type Row struct {
	File                 string
	Text                 string
	BaseShare, Share     float64
	BaseMeanMS, MeanMS   float64
	BaseCalls, Calls     int64
	BaseRate, RatePerSec float64
}

// Compare matches the baseline's kept statements with now's statements, by id, else by text (a
// statement sent with its values in the text has another queryid than the same with parameters),
// shares taken over the baseline's statements in both.
func Compare(base, now *Result) []Row {
	byID, byText := map[string]*Statement{}, map[string][]*Statement{}
	for _, st := range now.Statements {
		byID[st.ID] = st
		byText[st.Text] = append(byText[st.Text], st)
	}
	for _, sk := range now.Skipped { // below now's cover cut, still counted
		st := &Statement{ID: sk.ID, Text: sk.Text, Calls: sk.Calls}
		if _, ok := byID[sk.ID]; !ok {
			byID[sk.ID] = st
			byText[sk.Text] = append(byText[sk.Text], st)
		}
	}
	var rows []Row
	var baseTotal, nowTotal int64
	for _, b := range base.Statements {
		row := Row{File: b.File, Text: b.Text, BaseCalls: b.Calls, BaseMeanMS: b.MeanMS, BaseRate: b.RatePerSec}
		var ms float64
		if st, ok := byID[b.ID]; ok {
			row.Calls, ms, row.RatePerSec = st.Calls, st.TotalMS, st.RatePerSec
		} else {
			for _, st := range byText[b.Text] {
				row.Calls += st.Calls
				ms += st.TotalMS
				row.RatePerSec += st.RatePerSec
			}
		}
		if row.Calls > 0 {
			row.MeanMS = ms / float64(row.Calls)
		}
		baseTotal += row.BaseCalls
		nowTotal += row.Calls
		rows = append(rows, row)
	}
	for i := range rows {
		if baseTotal > 0 {
			rows[i].BaseShare = float64(rows[i].BaseCalls) / float64(baseTotal)
		}
		if nowTotal > 0 {
			rows[i].Share = float64(rows[i].Calls) / float64(nowTotal)
		}
	}
	return rows
}

// PrintCompare writes the comparison for the console.
func PrintCompare(w io.Writer, basePath string, rows []Row) {
	fmt.Fprintf(w, "against the baseline %s (shares over its statements; server time as the statistics measure it):\n", basePath)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  file\tshare then\tnow\tper s then\tnow\tmean ms then\tnow\tSQL")
	for _, r := range rows {
		text := strings.Join(strings.Fields(r.Text), " ")
		if len(text) > 60 {
			text = text[:57] + "..."
		}
		now := "-"
		if r.Calls > 0 {
			now = fmt.Sprintf("%.3f", r.MeanMS)
		}
		fmt.Fprintf(tw, "  %s\t%.1f%%\t%.1f%%\t%.4g\t%.4g\t%.3f\t%s\t%s\n", r.File, r.BaseShare*100, r.Share*100, r.BaseRate, r.RatePerSec, r.BaseMeanMS, now, text)
	}
	tw.Flush()
}

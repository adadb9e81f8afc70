package queries

import (
	"embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The reference answers scripts/tpch-answers writes: DuckDB running the standard's queries over
// tpchgen-cli's data, validation parameters substituted; one CSV per query and scale factor, with
// a header line (the column names).
//
//go:embed testdata/answers/sf0.01/q*.csv testdata/answers/sf0.1/q*.csv
var answerFiles embed.FS

type answer struct {
	header []string
	rows   [][]string
}

var (
	loadOnce sync.Once
	loaded   map[string]answer // "sf0.01/q1"
	loadErr  error
)

func loadAnswers() {
	loaded = map[string]answer{}
	for _, sf := range []string{"0.01", "0.1"} {
		for q := 1; q <= Count; q++ {
			name := fmt.Sprintf("testdata/answers/sf%s/q%d.csv", sf, q)
			b, err := answerFiles.ReadFile(name)
			if err != nil {
				loadErr = err
				return
			}
			recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
			if err != nil || len(recs) == 0 {
				loadErr = fmt.Errorf("tpch: reference answer %s: %v", name, err)
				return
			}
			loaded[fmt.Sprintf("sf%s/q%d", sf, q)] = answer{header: recs[0], rows: recs[1:]}
		}
	}
}

func answerFor(q int, sf float64) (answer, bool) {
	loadOnce.Do(loadAnswers)
	if loadErr != nil {
		panic(loadErr) // the embedded files are part of the binary: a broken one is a build defect
	}
	a, ok := loaded[fmt.Sprintf("sf%s/q%d", strconv.FormatFloat(sf, 'f', -1, 64), q)]
	return a, ok
}

func answers(q int, sf float64) ([][]string, bool) {
	a, ok := answerFor(q, sf)
	if !ok {
		return nil, false
	}
	out := make([][]string, len(a.rows))
	for i, r := range a.rows {
		out[i] = append([]string(nil), r...)
	}
	return out, true
}

// Columns returns query q's column names, in SELECT-list order, as the reference answers name
// them (Q18's sixth column is "sum(l_quantity)").
func Columns(q int) []string {
	checkQ(q)
	a, _ := answerFor(q, 0.01)
	return append([]string(nil), a.header...)
}

package dbgen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The generator's equality test: every table at SF 0.01 (and 0.1) against tpchgen-cli, an
// independent dbgen-compatible generator (Rust; scripts/test installs it in the pinned venv and
// exports CANDOR_TPCHGEN), compared by SHA-256 of the .tbl text, with the first differing row
// (table, line, column) reported on a mismatch.

// tpchgen runs tpchgen-cli at sf into a temporary directory and returns it; the test fails (never
// skips) when CANDOR_TPCHGEN is not set or does not run.
func tpchgen(t *testing.T, sf float64) string {
	t.Helper()
	bin := os.Getenv("CANDOR_TPCHGEN")
	if bin == "" {
		t.Fatal("CANDOR_TPCHGEN is not set: run the test through scripts/test, which installs tpchgen-cli in its venv and exports it")
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "tbl", "-s", strconv.FormatFloat(sf, 'f', -1, 64), "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return dir
}

// tbl is table t at sf in .tbl text, generated in parts parts.
func tbl(t *testing.T, tab Table, sf float64, parts int) []byte {
	t.Helper()
	var b []byte
	for p := 1; p <= parts; p++ {
		err := Generate(tab, sf, p, parts, func(row []any) error {
			b = AppendTbl(b, row)
			b = append(b, '\n')
			return nil
		})
		if err != nil {
			t.Fatalf("Generate(%s, %v, %d, %d): %v", tab, sf, p, parts, err)
		}
	}
	return b
}

// firstDiff describes the first row where got and want differ: line and column.
func firstDiff(tab Table, got, want []byte) string {
	gs := bufio.NewScanner(bytes.NewReader(got))
	ws := bufio.NewScanner(bytes.NewReader(want))
	gs.Buffer(nil, 1<<20)
	ws.Buffer(nil, 1<<20)
	for line := 1; ; line++ {
		g, w := gs.Scan(), ws.Scan()
		switch {
		case !g && !w:
			return "same rows (different line endings?)"
		case !g:
			return fmt.Sprintf("%s: candor's rows end at line %d; tpchgen's go on: %q", tab, line, ws.Text())
		case !w:
			return fmt.Sprintf("%s: tpchgen's rows end at line %d; candor's go on: %q", tab, line, gs.Text())
		}
		if gs.Text() == ws.Text() {
			continue
		}
		gf, wf := strings.Split(gs.Text(), "|"), strings.Split(ws.Text(), "|")
		for c := range max(len(gf), len(wf)) {
			var gv, wv string
			if c < len(gf) {
				gv = gf[c]
			}
			if c < len(wf) {
				wv = wf[c]
			}
			if gv != wv {
				name := fmt.Sprintf("field %d", c+1)
				if c < len(columns[tab]) {
					name = columns[tab][c].Name
				}
				return fmt.Sprintf("%s line %d, column %s: candor %q, tpchgen %q\ncandor:  %s\ntpchgen: %s", tab, line, name, gv, wv, gs.Text(), ws.Text())
			}
		}
	}
}

func checkEqual(t *testing.T, sf float64) {
	dir := tpchgen(t, sf)
	for _, tab := range Tables() {
		want, err := os.ReadFile(filepath.Join(dir, tab.Name()+".tbl"))
		if err != nil {
			t.Fatal(err)
		}
		got := tbl(t, tab, sf, 1)
		gs, ws := sha256.Sum256(got), sha256.Sum256(want)
		if gs != ws {
			t.Errorf("SF %v %s: SHA-256 %x, tpchgen's %x\n%s", sf, tab, gs[:8], ws[:8], firstDiff(tab, got, want))
			continue
		}
		rows := bytes.Count(got, []byte{'\n'})
		if rows == 0 {
			t.Errorf("SF %v %s: no rows", sf, tab)
		}
		if tab == Lineitem && int64(rows) != LineitemRows(sf) {
			t.Errorf("SF %v lineitem: %d rows, LineitemRows says %d", sf, rows, LineitemRows(sf))
		}
		if tab != Lineitem && int64(rows) != Rows(tab, sf) {
			t.Errorf("SF %v %s: %d rows, Rows says %d", sf, tab, rows, Rows(tab, sf))
		}
		t.Logf("SF %v %s: %d rows equal (SHA-256 %x)", sf, tab, rows, gs[:8])
	}
}

func TestEqualTpchgenSF001(t *testing.T) { checkEqual(t, 0.01) }

// SF 0.1: about 10 s on this machine.
func TestEqualTpchgenSF01(t *testing.T) { checkEqual(t, 0.1) }

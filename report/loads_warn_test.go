package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoadWarningsOncePerCode: a warning the one-shot's three runs each give, with their own
// figures, is printed once with the three runs listed; a run's second warning of one code stays a
// warning of its own.
func TestLoadWarningsOncePerCode(t *testing.T) {
	peak, half, most := kvResult(), kvResult(), kvResult()
	fits := func(mib string) Warning {
		return Warning{Code: "FITS_IN_MEMORY", Message: "the database (" + mib + " MiB) is smaller than the memory"}
	}
	peak.Warnings = []Warning{{Code: "CLOSED_LOOP", Message: "closed"}, fits("2.0"), {Code: "SHORT_RUN", Message: "3 s"}}
	half.Warnings = []Warning{fits("2.1"), {Code: "SHORT_RUN", Message: "3 s"}}
	most.Warnings = []Warning{fits("2.2"), {Code: "SHORT_RUN", Message: "3 s"}, {Code: "SHORT_RUN", Message: "another"}}
	runs := []LoadRun{{Label: PeakLabel, R: peak}, {Label: RateLabel(50), R: half}, {Label: RateLabel(80), R: most}}
	var b bytes.Buffer
	PrintLoads(&b, runs)
	out := b.String()
	if n := strings.Count(out, "[FITS_IN_MEMORY]"); n != 1 {
		t.Errorf("FITS_IN_MEMORY printed %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{
		"[FITS_IN_MEMORY] (peak, 50% of peak, 80% of peak; figures of peak, each run's own in its summary) the database (2.0 MiB)",
		"[SHORT_RUN] (peak, 50% of peak, 80% of peak) 3 s",
		"[SHORT_RUN] (80% of peak) another",
		"[CLOSED_LOOP] (peak) closed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("side-by-side lacks %q:\n%s", want, out)
		}
	}
}

// TestSweepLine: the side-by-side says which concurrency gave the peak and how it was found.
func TestSweepLine(t *testing.T) {
	peak, half := kvResult(), kvResult()
	sw := &Sweep{Terminals: 4, GainPct: 5, Stopped: "8 terminals gained 1.2%",
		Steps: []SweepStep{{Terminals: 1, Rate: 100}, {Terminals: 2, Rate: 190}, {Terminals: 4, Rate: 300}, {Terminals: 8, Rate: 303.6}}}
	var b bytes.Buffer
	PrintLoads(&b, []LoadRun{{Label: PeakLabel, R: peak, Sweep: sw}, {Label: RateLabel(50), R: half}})
	want := "peak concurrency     4 terminals, the most that still raised the throughput by more than 5%: 1 → 100.0/s, 2 → 190.0/s, 4 → 300.0/s, 8 → 303.6/s (8 terminals gained 1.2%)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("side-by-side lacks %q:\n%s", want, b.String())
	}
	given := (&Sweep{Terminals: 1, Given: true}).Line()
	if given != "1 terminal, as given by --terminals (no sweep)" {
		t.Errorf("given: %q", given)
	}
	dir := t.TempDir()
	if s, err := ReadSweep(dir); s != nil || err != nil {
		t.Fatalf("no sweep.json: %v, %v", s, err)
	}
	if err := WriteSweep(dir, sw); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSweep(dir)
	if err != nil || back.Terminals != 4 || len(back.Steps) != 4 || back.Steps[3].Rate != 303.6 {
		t.Errorf("sweep.json read back: %+v, %v", back, err)
	}
}

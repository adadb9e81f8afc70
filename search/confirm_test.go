package search

import (
	"errors"
	"reflect"
	"testing"
)

// TestConfirm: the answer is re-run Repeats times; a failure steps the rate down by StepDown (three
// significant digits) until every repeat at one rate passes, the rounds run out, or MinRate.
func TestConfirm(t *testing.T) {
	cfg := ConfirmConfig{Repeats: 2, StepDown: 0.1, MaxRounds: 6, MinRate: 1}
	// A database whose long probes hold up to 1,350/s, whatever a short search said.
	capacity := func(c float64) func(float64, int) (bool, error) {
		return func(r float64, _ int) (bool, error) { return r <= c, nil }
	}

	c, err := Confirm(cfg, 1200, capacity(1350))
	if err != nil || !c.Confirmed() || c.Rate != 1200 || len(c.Rounds) != 1 || !reflect.DeepEqual(c.Rounds[0].Passes, []bool{true, true}) {
		t.Errorf("a rate that holds: %+v, %v; want confirmed at 1200 by two passes", c, err)
	}

	c, err = Confirm(cfg, 2000, capacity(1350))
	var rates []float64
	for _, r := range c.Rounds {
		rates = append(rates, r.Rate)
	}
	if err != nil || c.Rate != 1310 || !reflect.DeepEqual(rates, []float64{2000, 1800, 1620, 1460, 1310}) || c.FailRate() != 1460 {
		t.Errorf("an answer too high: rate %v, rounds %v, fail rate %v, %v; want 2000 → 1310 in 10%% steps, confirmed at 1310, failing at 1460", c.Rate, rates, c.FailRate(), err)
	}
	for _, r := range c.Rounds[:len(c.Rounds)-1] {
		if !reflect.DeepEqual(r.Passes, []bool{false}) {
			t.Errorf("round at %v ran %v: a failure must end the round at once", r.Rate, r.Passes)
		}
	}

	// A flaky rate: the second repeat fails, so the rate is not confirmed there.
	calls := 0
	c, _ = Confirm(cfg, 1000, func(r float64, k int) (bool, error) {
		calls++
		return r < 1000 || k == 1, nil
	})
	if c.Rate != 900 || calls != 4 || !reflect.DeepEqual(c.Rounds[0].Passes, []bool{true, false}) {
		t.Errorf("flaky: rate %v after %d probes, rounds %+v; want 900 after 4 probes", c.Rate, calls, c.Rounds)
	}

	// The rounds run out: not confirmed, every rate tried failed.
	c, _ = Confirm(ConfirmConfig{Repeats: 1, StepDown: 0.5, MaxRounds: 3, MinRate: 1}, 100, capacity(10))
	if c.Confirmed() || len(c.Rounds) != 3 || c.FailRate() != 25 {
		t.Errorf("rounds out: %+v; want 3 failed rounds (100, 50, 25), none confirmed", c)
	}
	// MinRate stops stepping down.
	c, _ = Confirm(ConfirmConfig{Repeats: 1, StepDown: 0.5, MaxRounds: 10, MinRate: 30}, 100, capacity(10))
	if c.Confirmed() || len(c.Rounds) != 2 {
		t.Errorf("min rate: %+v; want 100 and 50 tried, 25 below the minimum", c)
	}

	// No repeats or no answer: nothing runs.
	for _, tc := range []struct {
		rep  int
		rate float64
	}{{0, 100}, {2, 0}} {
		if c, _ := Confirm(ConfirmConfig{Repeats: tc.rep, MaxRounds: 3}, tc.rate, func(float64, int) (bool, error) {
			t.Fatal("probed")
			return false, nil
		}); len(c.Rounds) != 0 || c.Confirmed() {
			t.Errorf("repeats %d rate %v: %+v", tc.rep, tc.rate, c)
		}
	}

	// An error ends it with what was found.
	boom := errors.New("interrupted")
	c, err = Confirm(cfg, 100, func(r float64, k int) (bool, error) {
		if k == 2 {
			return false, boom
		}
		return true, nil
	})
	if !errors.Is(err, boom) || c.Confirmed() || !reflect.DeepEqual(c.Rounds[0].Passes, []bool{true}) {
		t.Errorf("error: %+v, %v", c, err)
	}
}

func TestSpread(t *testing.T) {
	var s Spread
	if s.Relative() != 0 {
		t.Error("empty spread")
	}
	for _, v := range []float64{12, 10, 15} {
		s.Add(v)
	}
	if s.Min != 10 || s.Max != 15 || s.N != 3 || s.Relative() != 0.5 {
		t.Errorf("spread %+v relative %v; want 10..15 over 3, 0.5", s, s.Relative())
	}
}

package ycsb

import (
	"math"
	"testing"
)

func mustCore(t *testing.T, layers ...Properties) *Core {
	t.Helper()
	cfg, _, err := FromProperties(Merge(layers...))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewCore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func builtin(t *testing.T, name string) Properties {
	t.Helper()
	p, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCoreZipfianNextKeynum: workload E (1,000 records, 1,000 operations, 5% inserts) scatters its
// zipfian over insertstart .. insertstart+insertcount+ExpectedNewKeys = 0..1100 (YCSB's inclusive
// bound: 1,101 keys) and nextKeynum draws again while the key is beyond the last acknowledged record
// (999). So the keys read follow the scrambled zipfian over 1,101 keys conditioned on key <= 999:
// p(k) / sum_{j<=999} p(j) (chi-square over the 1,000 keys, df 999, critical 1142.848).
func TestCoreZipfianNextKeynum(t *testing.T) {
	w := mustCore(t, builtin(t, "e"))
	s, ok := w.keyChooser.(*ScrambledZipfian)
	if !ok || s.min != 0 || s.itemcount != 1101 {
		t.Fatalf("key chooser %T %+v, want a scrambled zipfian over 0..1100", w.keyChooser, w.keyChooser)
	}
	p := scrambledKeyProbs(1101)
	inRange := 0.0
	for _, v := range p[:1000] {
		inRange += v
	}
	cond := make([]float64, 1000)
	for i := range cond {
		cond[i] = p[i] / inRange
	}
	r := newRand(19)
	counts := make([]int64, 1000)
	for i := 0; i < 1_000_000; i++ {
		k := w.NextKeynum(r)
		if k < 0 || k > 999 {
			t.Fatalf("NextKeynum = %d beyond the last record 999", k)
		}
		counts[k]++
	}
	assertChiSquare(t, "workload E keys, conditioned on <= 999", counts, cond)

	// Inserted and acknowledged records become readable; pending ones do not.
	var pending []int64
	for i := 0; i < 60; i++ {
		k, key := w.NextInsertKey()
		if k != int64(1000+i) || key != BuildKeyName(k, 1, false) {
			t.Fatalf("insert %d: %d %q", i, k, key)
		}
		pending = append(pending, k)
	}
	for _, k := range pending[:50] {
		if err := w.AcknowledgeInsert(k); err != nil {
			t.Fatal(err)
		}
	}
	if w.LastInsertedKeynum() != 1049 {
		t.Fatalf("last inserted %d, want 1049", w.LastInsertedKeynum())
	}
	newKeys := 0
	for i := 0; i < 200_000; i++ {
		k := w.NextKeynum(r)
		if k > 1049 {
			t.Fatalf("NextKeynum = %d, a record whose insert is pending", k)
		}
		if k >= 1000 {
			newKeys++
		}
	}
	if newKeys == 0 {
		t.Error("no read reached the 50 new records")
	}
}

// TestCoreLatestNextKeynum: workload D reads skew toward the newest acknowledged record: before any
// insert record 999 gets 1/zeta(999) of the reads; after 100 acknowledged inserts record 1099 is
// the most read, with 1/zeta(1099) (each within 5 binomial standard deviations).
func TestCoreLatestNextKeynum(t *testing.T) {
	w := mustCore(t, builtin(t, "d"))
	r := newRand(20)
	share := func(key int64, n int) float64 {
		hits := 0
		for i := 0; i < n; i++ {
			k := w.NextKeynum(r)
			if k < 1 || k > w.LastInsertedKeynum() {
				t.Fatalf("latest read %d outside [1, %d]", k, w.LastInsertedKeynum())
			}
			if k == key {
				hits++
			}
		}
		return float64(hits) / float64(n)
	}
	check := func(key int64, p float64) {
		const n = 200_000
		if got, tol := share(key, n), 5*math.Sqrt(p*(1-p)/n); math.Abs(got-p) > tol {
			t.Errorf("record %d read %.5f of the time, want %.5f +- %.5f", key, got, p, tol)
		}
	}
	check(999, 1/Zeta(999, ZipfianConstant))
	for i := 0; i < 100; i++ {
		k := w.NextInsertKeynum()
		if err := w.AcknowledgeInsert(k); err != nil {
			t.Fatal(err)
		}
	}
	check(1099, 1/Zeta(1099, ZipfianConstant))
}

// TestCoreExponentialNextKeynum: keynum = last - draw, drawn again while negative. With 1,000
// records the draw's 95th percentile is 857.14 (1000 * exponential.frac), so P(draw <= 999) = 1 -
// 0.05^(999.x/857.14); the share of reads among the newest 857 records, conditioned on the draw
// being <= 999, is about 0.95 / 0.9695 = 0.98 (computed exactly below from the exponential's CDF).
func TestCoreExponentialNextKeynum(t *testing.T) {
	w := mustCore(t, Properties{"recordcount": "1000", "requestdistribution": "exponential"})
	gamma := -math.Log(0.05) / (1000 * DefaultExponentialFrac)
	cdf := func(x float64) float64 { return 1 - math.Exp(-gamma*x) }
	// keynum = 999 - floor(draw) >= 0  <=>  draw < 1000; keynum >= 999-856  <=>  draw < 857.
	p := cdf(857) / cdf(1000)
	r := newRand(21)
	const n = 500_000
	hits := 0
	for i := 0; i < n; i++ {
		k := w.NextKeynum(r)
		if k < 0 || k > 999 {
			t.Fatalf("exponential read %d outside [0, 999]", k)
		}
		if k >= 999-856 {
			hits++
		}
	}
	if got, tol := float64(hits)/n, 5*math.Sqrt(p*(1-p)/n); math.Abs(got-p) > tol {
		t.Errorf("newest 857 records read %.5f of the time, want %.5f +- %.5f", got, p, tol)
	}
}

// TestCoreRanges: uniform, hotspot and sequential choose within [insertstart,
// insertstart+insertcount-1]; sequential cycles through it in order.
func TestCoreRanges(t *testing.T) {
	base := Properties{"recordcount": "1000", "insertstart": "200", "insertcount": "300"}
	for _, d := range []string{"uniform", "hotspot", "sequential"} {
		w := mustCore(t, base, Properties{"requestdistribution": d})
		r := newRand(22)
		seen := map[int64]bool{}
		for i := 0; i < 30_000; i++ {
			k := w.NextKeynum(r)
			if k < 200 || k > 499 {
				t.Fatalf("%s: key %d outside [200, 499]", d, k)
			}
			if d == "sequential" && k != 200+int64(i%300) {
				t.Fatalf("sequential: draw %d is %d", i, k)
			}
			seen[k] = true
		}
		if len(seen) != 300 {
			t.Errorf("%s: %d distinct keys of 300", d, len(seen))
		}
	}
}

// TestCoreLoadAndFields: the load's records count from insertstart; field names are drawn uniformly
// (chi-square over the 10 fields, df 9, critical 27.877); lengths follow the field and scan length
// settings.
func TestCoreLoadAndFields(t *testing.T) {
	w := mustCore(t, Properties{"recordcount": "100", "insertstart": "40", "zeropadding": "5", "insertorder": "ordered"})
	if k := w.LoadKeynum(0); k != 40 || w.KeyName(k) != "user00040" {
		t.Errorf("first load record %d %q", k, w.KeyName(k))
	}
	if w.Config().InsertCount != 60 {
		t.Errorf("insertcount %d, want 60", w.Config().InsertCount)
	}
	r := newRand(23)
	index := map[string]int{}
	for i, f := range w.FieldNames() {
		index[f] = i
	}
	counts := make([]int64, 10)
	for i := 0; i < 100_000; i++ {
		counts[index[w.NextFieldName(r)]]++
		if l := w.NextFieldLength(r); l != 100 {
			t.Fatalf("field length %d, want 100", l)
		}
		if l := w.NextScanLength(r); l < 1 || l > 1000 {
			t.Fatalf("scan length %d outside [1, 1000]", l)
		}
	}
	p := make([]float64, 10)
	for i := range p {
		p[i] = 0.1
	}
	assertChiSquare(t, "field chooser", counts, p)
}

// TestCoreReproducible: the same seed gives the same operations, keys, fields and lengths; the
// per-terminal streams do not depend on each other.
func TestCoreReproducible(t *testing.T) {
	run := func(seed uint64) []int64 {
		w := mustCore(t, builtin(t, "a"), Properties{"fieldlengthdistribution": "zipfian", "readallfields": "false"})
		r := newRand(seed)
		var out []int64
		for i := 0; i < 2000; i++ {
			out = append(out, int64(w.NextOperation(r)), w.NextKeynum(r), int64(len(w.NextFieldName(r))), w.NextFieldLength(r))
		}
		return out
	}
	a, b, c := run(24), run(24), run(25)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different draw %d", i)
		}
	}
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same == len(a) {
		t.Error("different seeds gave the same stream")
	}
}

func TestNewCoreRefusesInvalid(t *testing.T) {
	c := DefaultConfig()
	c.RecordCount = 10
	c.DeriveDefaults()
	c.RequestDistribution = "zipf"
	if _, err := NewCore(c); err == nil {
		t.Error("NewCore accepted an unknown distribution")
	}
}

// TestCoreConcurrent: terminals share one Core (run with -race): reads never pass the acknowledged
// records while others insert, for latest (whose zipfian grows) and zipfian.
func TestCoreConcurrent(t *testing.T) {
	for _, name := range []string{"d", "e"} {
		w := mustCore(t, builtin(t, name))
		done := make(chan struct{})
		for g := 0; g < 8; g++ {
			go func(g int) {
				defer func() { done <- struct{}{} }()
				r := newRand(uint64(30 + g))
				for i := 0; i < 5000; i++ {
					if w.NextOperation(r) == OpInsert {
						k := w.NextInsertKeynum()
						if err := w.AcknowledgeInsert(k); err != nil {
							t.Error(err)
							return
						}
						continue
					}
					if k := w.NextKeynum(r); k < 0 || k > w.LastInsertedKeynum() {
						t.Errorf("workload %s: key %d beyond the acknowledged records", name, k)
						return
					}
				}
			}(g)
		}
		for g := 0; g < 8; g++ {
			<-done
		}
		if last := w.LastInsertedKeynum(); last < 1000 {
			t.Errorf("workload %s: no insert acknowledged (last %d)", name, last)
		}
	}
}

package ycsb

import (
	"fmt"
)

// Core is CoreWorkload after init: the generators a core workload run draws from, built from a
// Config and shared by every terminal (each passes its own Source). Safe for concurrent use.
//
// Keys: the load writes records InsertStart .. InsertStart+InsertCount-1 (LoadKeynum); the run's
// inserts take record numbers from RecordCount on (NextInsertKeynum) and acknowledge them when done
// (AcknowledgeInsert); reads, updates, scans and read-modify-writes choose among the records
// acknowledged so far (NextKeynum).
type Core struct {
	cfg          Config
	fieldNames   []string
	ops          *OperationChooser
	keyChooser   NumberGenerator      // keychooser
	inserts      *AcknowledgedCounter // transactioninsertkeysequence
	fieldChooser *UniformLong
	fieldLength  NumberGenerator
	scanLength   NumberGenerator
}

// NewCore validates c (resolved by FromProperties or DeriveDefaults) and builds its generators as
// CoreWorkload.init does:
//
//	uniform      UniformLong(insertstart, insertstart+insertcount-1)
//	zipfian      ScrambledZipfian(insertstart, insertstart+insertcount+ExpectedNewKeys())
//	             (YCSB's bound: inclusive, so one key beyond the expected inserts)
//	latest       SkewedLatest over the insert counter (a zipfian over recordcount-1 items: its
//	             zeta is summed here, about a second per 10^8 records)
//	hotspot      Hotspot(insertstart, insertstart+insertcount-1, hotspotdatafraction, hotspotopnfraction)
//	sequential   Sequential(insertstart, insertstart+insertcount-1)
//	exponential  Exponential(exponential.percentile, recordcount*exponential.frac)
func NewCore(c Config) (*Core, error) { return NewCoreAt(c, c.RecordCount) }

// NewCoreAt is NewCore with the run's inserts numbered from nextInsert (at least RecordCount)
// instead of RecordCount: the counter's Last starts at nextInsert-1, as if the table had been loaded
// with nextInsert records. candor passes the number after the records earlier runs on the same
// data inserted, so a second run never inserts a key that exists (YCSB starts from recordcount on
// every run, which is the same for the first run on freshly loaded data). With
// requestdistribution=latest the zipfian is then built over nextInsert-1 items.
func NewCoreAt(c Config, nextInsert int64) (*Core, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if nextInsert < c.RecordCount {
		return nil, fmt.Errorf("ycsb: the first insert key %d is below recordcount %d", nextInsert, c.RecordCount)
	}
	w := &Core{cfg: c, fieldNames: c.FieldNames(), inserts: NewAcknowledgedCounter(nextInsert)}
	var err error
	if w.ops, err = NewOperationChooser(c.Proportions); err != nil {
		return nil, err
	}
	first, last := c.InsertStart, c.InsertStart+c.InsertCount-1
	switch c.RequestDistribution {
	case DistUniform:
		w.keyChooser, err = NewUniformLong(first, last)
	case DistZipfian:
		w.keyChooser, err = NewScrambledZipfian(first, c.InsertStart+c.InsertCount+c.ExpectedNewKeys())
	case DistLatest:
		w.keyChooser, err = NewSkewedLatest(w.inserts)
	case DistHotspot:
		w.keyChooser, err = NewHotspot(first, last, c.HotspotDataFraction, c.HotspotOpnFraction)
	case DistSequential:
		w.keyChooser, err = NewSequential(first, last)
	case DistExponential:
		w.keyChooser, err = NewExponential(c.ExponentialPercentile, float64(c.RecordCount)*c.ExponentialFrac)
	default:
		err = fmt.Errorf("ycsb: unknown request distribution %q", c.RequestDistribution)
	}
	if err != nil {
		return nil, err
	}
	if w.fieldChooser, err = NewUniformLong(0, c.FieldCount-1); err != nil {
		return nil, err
	}
	if w.fieldLength, err = NewFieldLengthGenerator(c.FieldLengthDistribution, c.MinFieldLength, c.FieldLength); err != nil {
		return nil, err
	}
	if w.scanLength, err = NewScanLengthGenerator(c.ScanLengthDistribution, c.MinScanLength, c.MaxScanLength); err != nil {
		return nil, err
	}
	return w, nil
}

// Config returns the configuration the core was built from.
func (w *Core) Config() Config { return w.cfg }

// FieldNames returns the field names (do not modify).
func (w *Core) FieldNames() []string { return w.fieldNames }

// NextOperation draws the next operation (operationchooser).
func (w *Core) NextOperation(r Source) Operation { return w.ops.Next(r) }

// NextKeynum is CoreWorkload.nextKeynum, the record a read, update, scan or read-modify-write
// touches: for exponential, last - draw, drawn again while negative; for the others, a draw of the
// request distribution, drawn again while beyond last, where last is the highest acknowledged insert
// (RecordCount-1 until the run's first insert completes). So records whose insert is pending are
// never read, and for zipfian the keys reserved for future inserts are skipped until they exist.
func (w *Core) NextKeynum(r Source) int64 {
	if e, ok := w.keyChooser.(*Exponential); ok {
		for {
			if k := w.inserts.Last() - e.Next(r); k >= 0 {
				return k
			}
		}
	}
	for {
		// Read last after the draw, as YCSB's do-while does: a draw for latest may return a
		// record acknowledged in between, which is fine either way.
		k := w.keyChooser.Next(r)
		if k <= w.inserts.Last() {
			return k
		}
	}
}

// NextKey returns the key of NextKeynum.
func (w *Core) NextKey(r Source) string { return w.KeyName(w.NextKeynum(r)) }

// NextInsertKeynum hands out the record number of the run's next insert
// (transactioninsertkeysequence.nextValue): RecordCount, RecordCount+1, ... Acknowledge it with
// AcknowledgeInsert once the insert has ended, whether it succeeded or not (YCSB acknowledges in a
// finally block), or reads will never reach past it.
func (w *Core) NextInsertKeynum() int64 { return w.inserts.Next(nil) }

// NextInsertKey returns NextInsertKeynum and its key.
func (w *Core) NextInsertKey() (keynum int64, key string) {
	keynum = w.NextInsertKeynum()
	return keynum, w.KeyName(keynum)
}

// AcknowledgeInsert marks the insert of keynum as ended.
func (w *Core) AcknowledgeInsert(keynum int64) error { return w.inserts.Acknowledge(keynum) }

// LastInsertedKeynum returns the highest record number up to which every record exists (loaded, or
// inserted and acknowledged).
func (w *Core) LastInsertedKeynum() int64 { return w.inserts.Last() }

// LoadKeynum returns the record number of the load's i-th record (0 <= i < InsertCount), as
// CoreWorkload's keysequence counts from insertstart.
func (w *Core) LoadKeynum(i int64) int64 { return w.cfg.InsertStart + i }

// KeyName returns the key of record keynum (BuildKeyName).
func (w *Core) KeyName(keynum int64) string { return w.cfg.KeyName(keynum) }

// NextFieldName draws one field name uniformly (fieldchooser), for reads of one field and writes of
// one field.
func (w *Core) NextFieldName(r Source) string { return w.fieldNames[w.fieldChooser.Next(r)] }

// NextFieldIndex draws one field uniformly (fieldchooser), as NextFieldName, and returns its index.
func (w *Core) NextFieldIndex(r Source) int { return int(w.fieldChooser.Next(r)) }

// PeekInsertKeynum returns the record number the next insert would take, without taking it: after a
// run, the first record number no insert of the run has taken.
func (w *Core) PeekInsertKeynum() int64 { return w.inserts.next.Load() }

// NextFieldLength draws the length of one field's value (fieldlengthgenerator).
func (w *Core) NextFieldLength(r Source) int64 { return w.fieldLength.Next(r) }

// NextScanLength draws a scan's record count (scanlength).
func (w *Core) NextScanLength(r Source) int64 { return w.scanLength.Next(r) }

package ycsb

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
)

// CoreWorkloadClass is YCSB's class name of the core workload, the workload property's value in
// YCSB's workload files.
const CoreWorkloadClass = "site.ycsb.workloads.CoreWorkload"

// coreWorkloadNames are the workload values taken to mean the core workload: today's class, its name
// before YCSB 0.17.0 moved its packages to site.ycsb, and go-ycsb's "core".
var coreWorkloadNames = []string{CoreWorkloadClass, "com.yahoo.ycsb.workloads.CoreWorkload", "core"}

// InsertCountRest is DefaultConfig's InsertCount: "every record from insertstart on"
// (recordcount - insertstart), resolved by FromProperties.
const InsertCountRest = -1

// MeasurementTypes are the measurementtype values YCSB's Measurements accepts.
var MeasurementTypes = []string{"histogram", "hdrhistogram", "hdrhistogram+histogram", "hdrhistogram+raw", "timeseries", "raw"}

// Config is the typed, validated form of a core workload's properties: CoreWorkload's and the
// Client's a run needs. Its JSON names are the property names, so a result can store it as the
// resolved plan. Build it with FromProperties; DefaultConfig holds YCSB's defaults.
//
// Values are trimmed of surrounding whitespace before they are read. Java's Properties keeps
// trailing whitespace, so YCSB fails on "recordcount=1000 " and reads "insertorder=hashed " as
// ordered; here both mean what they look like.
type Config struct {
	// Workload is the workload class (site.ycsb.Client's "workload"); only the core workload is
	// accepted (CoreWorkloadClass, com.yahoo.ycsb.workloads.CoreWorkload, or "core").
	Workload string `json:"workload"`
	// RecordCount is the number of records loaded, and the key space of the run. Required: YCSB's
	// template says so, and YCSB would take a missing one as 0 and then as 2^31-1 records.
	RecordCount int64 `json:"recordcount"`
	// OperationCount is the run's number of operations; 0 means no limit (YCSB then runs until
	// maxexecutiontime). With requestdistribution=zipfian it also sizes the key space for inserts
	// (ExpectedNewKeys).
	OperationCount int64 `json:"operationcount"`
	// InsertStart and InsertCount are the records this instance loads, [InsertStart,
	// InsertStart+InsertCount), and the range reads choose from; InsertCount defaults to
	// RecordCount - InsertStart. (YCSB's Client loads recordcount records when insertcount is
	// absent, even with insertstart > 0; CoreWorkload's range is the one used here.)
	InsertStart int64 `json:"insertstart"`
	InsertCount int64 `json:"insertcount"`
	// ThreadCount is YCSB's client threads (-threads).
	ThreadCount int `json:"threadcount"`
	// TargetOpsPerSec is the target throughput (-target); 0 means unthrottled. A target asks for an
	// open-loop (rate mode) run. YCSB reads an integer; a fraction is accepted here.
	TargetOpsPerSec float64 `json:"target"`
	// MaxExecutionTimeSec ends the run after this many seconds; 0 means no limit.
	MaxExecutionTimeSec int64 `json:"maxexecutiontime"`
	// MeasurementType is one of MeasurementTypes (YCSB's default hdrhistogram). Recorded; candor
	// always measures with HdrHistograms.
	MeasurementType string `json:"measurementtype"`

	// Table is the table name.
	Table string `json:"table"`
	// FieldCount fields per record, named FieldNamePrefix + 0..FieldCount-1.
	FieldCount      int64  `json:"fieldcount"`
	FieldNamePrefix string `json:"fieldnameprefix"`
	// FieldLength is a field's length in bytes (constant), or the maximum (uniform, zipfian) with
	// MinFieldLength the minimum.
	FieldLength             int64        `json:"fieldlength"`
	MinFieldLength          int64        `json:"minfieldlength"`
	FieldLengthDistribution Distribution `json:"fieldlengthdistribution"`
	// ReadAllFields: reads (and scans, read-modify-writes) fetch every field, else one random field.
	// ReadAllFieldsByName: name every field rather than ask for all (YCSB passes null).
	ReadAllFields       bool `json:"readallfields"`
	ReadAllFieldsByName bool `json:"readallfieldsbyname"`
	// WriteAllFields: updates and read-modify-writes write every field, else one random field.
	WriteAllFields bool `json:"writeallfields"`
	// DataIntegrity: values are derived from key and field name and reads verify them (needs
	// fieldlengthdistribution=constant).
	DataIntegrity bool `json:"dataintegrity"`
	// Proportions is the operation mix (readproportion, updateproportion, insertproportion,
	// scanproportion, readmodifywriteproportion).
	Proportions
	// RequestDistribution chooses the records operations touch: uniform, zipfian (scrambled),
	// latest, hotspot, sequential or exponential.
	RequestDistribution Distribution `json:"requestdistribution"`
	// ZeroPadding is the digit count record numbers are padded to with zeros (BuildKeyName).
	ZeroPadding int `json:"zeropadding"`
	// InsertOrder is hashed (keys scattered by FNVHash64) or ordered.
	InsertOrder InsertOrder `json:"insertorder"`
	// Scans read between MinScanLength and MaxScanLength records, uniform or zipfian.
	MinScanLength          int64        `json:"minscanlength"`
	MaxScanLength          int64        `json:"maxscanlength"`
	ScanLengthDistribution Distribution `json:"scanlengthdistribution"`
	// HotspotDataFraction of the records get HotspotOpnFraction of the operations (hotspot).
	HotspotDataFraction float64 `json:"hotspotdatafraction"`
	HotspotOpnFraction  float64 `json:"hotspotopnfraction"`
	// ExponentialPercentile percent of the operations touch the newest ExponentialFrac of the
	// records (exponential).
	ExponentialPercentile float64 `json:"exponential.percentile"`
	ExponentialFrac       float64 `json:"exponential.frac"`
	// Load-phase insert retries: how many, about how far apart, and whether a failed insert ends
	// the load.
	InsertionRetryLimit       int  `json:"core_workload_insertion_retry_limit"`
	InsertionRetryIntervalSec int  `json:"core_workload_insertion_retry_interval"`
	InsertionKeepGoingOnError bool `json:"core_workload_insertion_keep_going_on_error"`
}

// DefaultConfig returns YCSB's defaults (CoreWorkload's *_DEFAULT constants, Client's and
// Measurements' defaults). RecordCount is 0, which FromProperties refuses: it must be set.
func DefaultConfig() Config {
	return Config{
		Workload:                  CoreWorkloadClass,
		InsertCount:               InsertCountRest,
		ThreadCount:               1,
		MeasurementType:           "hdrhistogram",
		Table:                     "usertable",
		FieldCount:                10,
		FieldNamePrefix:           "field",
		FieldLength:               100,
		MinFieldLength:            1,
		FieldLengthDistribution:   DistConstant,
		ReadAllFields:             true,
		Proportions:               Proportions{Read: 0.95, Update: 0.05},
		RequestDistribution:       DistUniform,
		ZeroPadding:               1,
		InsertOrder:               InsertHashed,
		MinScanLength:             1,
		MaxScanLength:             1000,
		ScanLengthDistribution:    DistUniform,
		HotspotDataFraction:       0.2,
		HotspotOpnFraction:        0.8,
		ExponentialPercentile:     DefaultExponentialPercentile,
		ExponentialFrac:           DefaultExponentialFrac,
		InsertionRetryIntervalSec: 3,
	}
}

// FromProperties reads p into a Config: YCSB's defaults, then every property p sets, then the
// derived defaults (DeriveDefaults), then Validate. It returns every problem at once, as Problems,
// and reports the properties it does not apply (Report) rather than dropping them silently.
func FromProperties(p Properties) (Config, Report, error) {
	c := DefaultConfig()
	var rep Report
	var probs Problems
	for _, name := range p.Names() {
		value := p[name]
		if spec, ok := propertyByName[name]; ok {
			if problem := spec.set(&c, trimValue(value)); problem != "" {
				probs = append(probs, &PropertyError{Name: name, Value: value, Problem: problem})
			}
			continue
		}
		if reason, ok := ignoredReason(name); ok {
			rep.Ignored = append(rep.Ignored, IgnoredProperty{Name: name, Value: RedactValue(name, value), Reason: reason})
			continue
		}
		rep.Unknown = append(rep.Unknown, UnknownProperty{Name: name, Value: RedactValue(name, value), Suggestion: suggest(name)})
	}
	c.DeriveDefaults()
	if err := c.Validate(); err != nil {
		// A property whose value could not be read is reported once, for that.
		unread := map[string]bool{}
		for _, pe := range probs {
			unread[pe.Name] = true
		}
		for _, pe := range err.(Problems) {
			if !unread[pe.Name] {
				probs = append(probs, pe)
			}
		}
	}
	if len(probs) > 0 {
		return c, rep, probs
	}
	return c, rep, nil
}

// DeriveDefaults fills the defaults that depend on other properties: insertcount is recordcount -
// insertstart unless set (CoreWorkload.init). FromProperties calls it; a Config built in Go from
// DefaultConfig calls it before Validate.
func (c *Config) DeriveDefaults() {
	if c.InsertCount == InsertCountRest {
		c.InsertCount = c.RecordCount - c.InsertStart
	}
}

// Validate checks a resolved Config and returns every problem as Problems, or nil.
func (c Config) Validate() error {
	var probs Problems
	bad := func(name string, value any, format string, args ...any) {
		probs = append(probs, &PropertyError{Name: name, Value: fmt.Sprint(value), Problem: fmt.Sprintf(format, args...)})
	}
	if !oneOf(c.Workload, coreWorkloadNames) {
		bad("workload", c.Workload, "candor runs YCSB's core workload only: %s", joinNames(coreWorkloadNames))
	}
	if c.RecordCount < 1 {
		bad("recordcount", c.RecordCount, "must be set to the number of records, at least 1 (YCSB would take 0 as 2^31-1 records)")
	}
	if c.OperationCount < 0 {
		bad("operationcount", c.OperationCount, "must be >= 0 (0: no limit)")
	}
	if c.InsertStart < 0 {
		bad("insertstart", c.InsertStart, "must be >= 0")
	}
	if c.InsertCount < 1 {
		bad("insertcount", c.InsertCount, "must be >= 1 (default: recordcount - insertstart)")
	} else if c.InsertStart >= 0 && c.RecordCount >= 1 && c.InsertStart+c.InsertCount > c.RecordCount {
		bad("insertcount", c.InsertCount, "insertstart (%d) + insertcount must not exceed recordcount (%d)", c.InsertStart, c.RecordCount)
	}
	if c.ThreadCount < 1 {
		bad("threadcount", c.ThreadCount, "must be >= 1")
	}
	if !(c.TargetOpsPerSec >= 0) || math.IsInf(c.TargetOpsPerSec, 0) {
		bad("target", c.TargetOpsPerSec, "must be a number of operations per second >= 0 (0: unthrottled)")
	}
	if c.MaxExecutionTimeSec < 0 {
		bad("maxexecutiontime", c.MaxExecutionTimeSec, "must be a number of seconds >= 0 (0: no limit)")
	}
	if !oneOf(c.MeasurementType, MeasurementTypes) {
		bad("measurementtype", c.MeasurementType, "must be one of %s", joinNames(MeasurementTypes))
	}
	if c.Table == "" {
		bad("table", c.Table, "must not be empty")
	}
	if c.FieldCount < 1 {
		bad("fieldcount", c.FieldCount, "must be >= 1")
	}
	switch c.FieldLengthDistribution {
	case DistConstant:
		if c.FieldLength < 0 {
			bad("fieldlength", c.FieldLength, "must be >= 0")
		}
	case DistUniform, DistZipfian:
		if c.MinFieldLength < 0 {
			bad("minfieldlength", c.MinFieldLength, "must be >= 0")
		} else if c.FieldLength < c.MinFieldLength {
			bad("fieldlength", c.FieldLength, "must be >= minfieldlength (%d) with fieldlengthdistribution=%s", c.MinFieldLength, c.FieldLengthDistribution)
		}
	case DistHistogram:
		bad("fieldlengthdistribution", c.FieldLengthDistribution, "histogram is not supported yet; use one of %s", joinNames(fieldLengthDistributions))
	default:
		bad("fieldlengthdistribution", c.FieldLengthDistribution, "must be one of %s", joinNames(fieldLengthDistributions))
	}
	if c.DataIntegrity && c.FieldLengthDistribution != DistConstant {
		bad("dataintegrity", c.DataIntegrity, "needs fieldlengthdistribution=constant (YCSB exits otherwise)")
	}
	if err := c.Proportions.Validate(); err != nil {
		negative := false
		for _, op := range Operations() {
			if w := c.Proportions.Of(op); !(w >= 0) || math.IsInf(w, 0) {
				bad(proportionProperty[op], w, "must be a finite number >= 0")
				negative = true
			}
		}
		if !negative {
			bad("readproportion", c.Proportions.Read, "the five proportions (read, update, insert, scan, readmodifywrite) are all 0: nothing to do")
		}
	}
	if !oneOf(c.RequestDistribution, requestDistributions) {
		bad("requestdistribution", c.RequestDistribution, "must be one of %s", joinNames(requestDistributions))
	}
	if !(c.HotspotDataFraction >= 0 && c.HotspotDataFraction <= 1) {
		bad("hotspotdatafraction", c.HotspotDataFraction, "must lie in [0, 1]")
	}
	if !(c.HotspotOpnFraction >= 0 && c.HotspotOpnFraction <= 1) {
		bad("hotspotopnfraction", c.HotspotOpnFraction, "must lie in [0, 1]")
	}
	if !(c.ExponentialPercentile > 0 && c.ExponentialPercentile < 100) {
		bad("exponential.percentile", c.ExponentialPercentile, "must lie in (0, 100)")
	}
	if !(c.ExponentialFrac > 0) || math.IsInf(c.ExponentialFrac, 0) {
		bad("exponential.frac", c.ExponentialFrac, "must be > 0")
	}
	if c.ZeroPadding < 0 {
		bad("zeropadding", c.ZeroPadding, "must be >= 0")
	}
	if c.InsertOrder != InsertHashed && c.InsertOrder != InsertOrdered {
		bad("insertorder", c.InsertOrder, "must be hashed or ordered")
	}
	if c.MinScanLength < 1 {
		bad("minscanlength", c.MinScanLength, "must be >= 1")
	} else if c.MaxScanLength < c.MinScanLength {
		bad("maxscanlength", c.MaxScanLength, "must be >= minscanlength (%d)", c.MinScanLength)
	}
	if !oneOf(c.ScanLengthDistribution, scanLengthDistributions) {
		bad("scanlengthdistribution", c.ScanLengthDistribution, "must be one of %s", joinNames(scanLengthDistributions))
	}
	if c.InsertionRetryLimit < 0 {
		bad("core_workload_insertion_retry_limit", c.InsertionRetryLimit, "must be >= 0")
	}
	if c.InsertionRetryIntervalSec < 0 {
		bad("core_workload_insertion_retry_interval", c.InsertionRetryIntervalSec, "must be a number of seconds >= 0")
	}
	// Checks across properties, once each one is valid on its own.
	if len(probs) == 0 {
		switch c.RequestDistribution {
		case DistLatest:
			if c.RecordCount < 2 {
				bad("recordcount", c.RecordCount, "must be >= 2 with requestdistribution=latest (record 0 is never chosen; YCSB's zipfian over 0 items is undefined)")
			}
		case DistHotspot:
			if _, err := NewHotspot(c.InsertStart, c.InsertStart+c.InsertCount-1, c.HotspotDataFraction, c.HotspotOpnFraction); err != nil {
				bad("hotspotdatafraction", c.HotspotDataFraction, "with %d records and hotspotopnfraction=%v: %v", c.InsertCount, c.HotspotOpnFraction, err)
			}
		}
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}

var proportionProperty = map[Operation]string{
	OpRead: "readproportion", OpUpdate: "updateproportion", OpInsert: "insertproportion",
	OpScan: "scanproportion", OpReadModifyWrite: "readmodifywriteproportion",
}

func oneOf[T ~string](v T, allowed []T) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// Ordered reports whether keys are built in insert order (insertorder=ordered).
func (c Config) Ordered() bool { return c.InsertOrder == InsertOrdered }

// KeyName returns the key of record keynum (BuildKeyName with zeropadding and insertorder).
func (c Config) KeyName(keynum int64) string {
	return BuildKeyName(keynum, c.ZeroPadding, c.Ordered())
}

// FieldNames returns the field names, FieldNamePrefix + 0 .. FieldCount-1.
func (c Config) FieldNames() []string {
	names := make([]string, c.FieldCount)
	for i := range names {
		names[i] = c.FieldNamePrefix + strconv.Itoa(i)
	}
	return names
}

// ExpectedNewKeys is CoreWorkload's allowance for inserts in the zipfian key space:
// (int)(operationcount * insertproportion * 2.0), "2 is fudge factor", with the insert proportion as
// given (not divided by the sum of the proportions). It is 0 when operationcount is 0, so a run
// bounded by time only never reads records its own inserts add under zipfian.
func (c Config) ExpectedNewKeys() int64 {
	return int64(float64(c.OperationCount) * c.Insert * 2.0)
}

// MaxExecutionTime returns maxexecutiontime as a duration (0: no limit).
func (c Config) MaxExecutionTime() time.Duration {
	return time.Duration(c.MaxExecutionTimeSec) * time.Second
}

// InsertionRetryInterval returns core_workload_insertion_retry_interval as a duration. YCSB sleeps a
// random 0.8 to 1.2 times it between retries.
func (c Config) InsertionRetryInterval() time.Duration {
	return time.Duration(c.InsertionRetryIntervalSec) * time.Second
}

// RateMode reports whether a target throughput asks for an open-loop run.
func (c Config) RateMode() bool { return c.TargetOpsPerSec > 0 }

// secretName matches the names of properties that hold secrets in YCSB's bindings (db.passwd,
// jdbc.password, ...), whose values candor never prints nor stores.
var secretName = regexp.MustCompile(`(?i)(passw|secret|token|credential|apikey|api\.key|auth)`)

// RedactValue is a property's value as candor may print and store it: hidden for a secret's name,
// a URL with its password removed (db.url=jdbc:postgresql://user:pw@host/db), as it is otherwise.
func RedactValue(name, value string) string {
	if secretName.MatchString(name) {
		return "xxxxx"
	}
	if i := strings.Index(value, "://"); i >= 0 {
		prefix := ""
		if j := strings.LastIndex(value[:i], ":"); j >= 0 && strings.HasPrefix(value, "jdbc:") {
			prefix, value = value[:j+1], value[j+1:] // jdbc:postgresql://... -> postgresql://...
		}
		return prefix + driver.Redact(value)
	}
	return value
}

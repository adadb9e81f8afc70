package ycsb

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// PropertyError is one problem with one property.
type PropertyError struct {
	Name, Value string
	// Problem says what is wrong and what is allowed.
	Problem string
}

func (e *PropertyError) Error() string {
	return fmt.Sprintf("ycsb property %s=%q: %s", e.Name, e.Value, e.Problem)
}

// Problems are every problem FromProperties or Validate found, in property order.
type Problems []*PropertyError

func (p Problems) Error() string {
	lines := make([]string, len(p))
	for i, e := range p {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Strings returns one sentence per problem (for workload.Workload.Validate).
func (p Problems) Strings() []string {
	out := make([]string, len(p))
	for i, e := range p {
		out[i] = e.Error()
	}
	return out
}

// Report lists the properties FromProperties did not apply, for the caller to print: none is
// dropped silently.
type Report struct {
	// Unknown properties are neither core workload nor Client properties: a database binding's
	// (jdbc.url, mongodb.url), or a typo.
	Unknown []UnknownProperty `json:"unknown,omitempty"`
	// Ignored properties are YCSB's, but candor has its own way for what they do.
	Ignored []IgnoredProperty `json:"ignored,omitempty"`
}

// UnknownProperty is a property name YCSB's core does not know.
type UnknownProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Suggestion is the known name closest to Name (at most two edits away), or "".
	Suggestion string `json:"suggestion,omitempty"`
}

// IgnoredProperty is a YCSB property candor does not apply, and why.
type IgnoredProperty struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// Lines returns one sentence per reported property.
func (r Report) Lines() []string {
	var out []string
	for _, u := range r.Unknown {
		s := fmt.Sprintf("unknown property %s=%q (not a YCSB core workload or client property; a database binding's?)", u.Name, u.Value)
		if u.Suggestion != "" {
			s = fmt.Sprintf("unknown property %s=%q: did you mean %s?", u.Name, u.Value, u.Suggestion)
		}
		out = append(out, s)
	}
	for _, g := range r.Ignored {
		out = append(out, fmt.Sprintf("ignored property %s=%q: %s", g.Name, g.Value, g.Reason))
	}
	return out
}

// propertySpec reads one property into a Config; set returns "" or the problem with the value.
type propertySpec struct {
	name string
	set  func(c *Config, v string) string
}

// properties are the properties FromProperties applies, with the field each one sets.
var properties = []propertySpec{
	{"workload", func(c *Config, v string) string { c.Workload = v; return "" }},
	{"recordcount", setInt(func(c *Config) *int64 { return &c.RecordCount })},
	{"operationcount", setInt(func(c *Config) *int64 { return &c.OperationCount })},
	{"insertstart", setInt(func(c *Config) *int64 { return &c.InsertStart })},
	{"insertcount", func(c *Config, v string) string {
		// Checked here: a negative value would read as InsertCountRest.
		if problem := setInt(func(c *Config) *int64 { return &c.InsertCount })(c, v); problem != "" {
			return problem
		}
		if c.InsertCount < 0 {
			return "must be >= 1"
		}
		return ""
	}},
	{"threadcount", setSmallInt(func(c *Config) *int { return &c.ThreadCount })},
	{"target", setFloat(func(c *Config) *float64 { return &c.TargetOpsPerSec })},
	{"maxexecutiontime", setInt(func(c *Config) *int64 { return &c.MaxExecutionTimeSec })},
	{"measurementtype", func(c *Config, v string) string { c.MeasurementType = v; return "" }},
	{"table", func(c *Config, v string) string { c.Table = v; return "" }},
	{"fieldcount", setInt(func(c *Config) *int64 { return &c.FieldCount })},
	{"fieldnameprefix", func(c *Config, v string) string { c.FieldNamePrefix = v; return "" }},
	{"fieldlength", setInt(func(c *Config) *int64 { return &c.FieldLength })},
	{"minfieldlength", setInt(func(c *Config) *int64 { return &c.MinFieldLength })},
	{"fieldlengthdistribution", func(c *Config, v string) string { c.FieldLengthDistribution = Distribution(v); return "" }},
	{"readallfields", setBool(func(c *Config) *bool { return &c.ReadAllFields })},
	{"readallfieldsbyname", setBool(func(c *Config) *bool { return &c.ReadAllFieldsByName })},
	{"writeallfields", setBool(func(c *Config) *bool { return &c.WriteAllFields })},
	{"dataintegrity", setBool(func(c *Config) *bool { return &c.DataIntegrity })},
	{"readproportion", setFloat(func(c *Config) *float64 { return &c.Read })},
	{"updateproportion", setFloat(func(c *Config) *float64 { return &c.Update })},
	{"insertproportion", setFloat(func(c *Config) *float64 { return &c.Insert })},
	{"scanproportion", setFloat(func(c *Config) *float64 { return &c.Scan })},
	{"readmodifywriteproportion", setFloat(func(c *Config) *float64 { return &c.ReadModifyWrite })},
	{"requestdistribution", func(c *Config, v string) string { c.RequestDistribution = Distribution(v); return "" }},
	{"zeropadding", setSmallInt(func(c *Config) *int { return &c.ZeroPadding })},
	{"insertorder", func(c *Config, v string) string {
		// YCSB reads anything but "hashed" as ordered; a misspelling is an error here.
		c.InsertOrder = InsertOrder(v)
		return ""
	}},
	{"minscanlength", setInt(func(c *Config) *int64 { return &c.MinScanLength })},
	{"maxscanlength", setInt(func(c *Config) *int64 { return &c.MaxScanLength })},
	{"scanlengthdistribution", func(c *Config, v string) string { c.ScanLengthDistribution = Distribution(v); return "" }},
	{"hotspotdatafraction", setFloat(func(c *Config) *float64 { return &c.HotspotDataFraction })},
	{"hotspotopnfraction", setFloat(func(c *Config) *float64 { return &c.HotspotOpnFraction })},
	{"exponential.percentile", setFloat(func(c *Config) *float64 { return &c.ExponentialPercentile })},
	{"exponential.frac", setFloat(func(c *Config) *float64 { return &c.ExponentialFrac })},
	{"core_workload_insertion_retry_limit", setSmallInt(func(c *Config) *int { return &c.InsertionRetryLimit })},
	{"core_workload_insertion_retry_interval", setSmallInt(func(c *Config) *int { return &c.InsertionRetryIntervalSec })},
	{"core_workload_insertion_keep_going_on_error", setBool(func(c *Config) *bool { return &c.InsertionKeepGoingOnError })},
}

var propertyByName = func() map[string]propertySpec {
	m := make(map[string]propertySpec, len(properties))
	for _, p := range properties {
		m[p.name] = p
	}
	return m
}()

// PropertyNames returns the names of the properties Config holds, in Config's order.
func PropertyNames() []string {
	out := make([]string, len(properties))
	for i, p := range properties {
		out[i] = p.name
	}
	return out
}

// ignoredProperties are YCSB's own properties (site.ycsb.Client, ClientThread, DBWrapper,
// measurements, CoreWorkload's histogram file, the template's binding notes) that candor does not
// apply, with the reason.
var ignoredProperties = map[string]string{
	"db":                            "candor chooses the database with --db",
	"dotransactions":                "candor chooses the load or the run by command",
	"exporter":                      "candor writes its own result files",
	"exportfile":                    "candor writes its own result files",
	"status":                        "candor always prints progress",
	"status.interval":               "candor prints progress every interval",
	"label":                         "candor names runs by their results directory",
	"measurement.interval":          "candor always records response time from the intended start, service time and lag",
	"measurement.trackjvm":          "candor monitors the driver itself (there is no JVM)",
	"measurement.histogram.verbose": "candor always records HdrHistograms and writes their interval logs",
	"measurement.raw.output_file":   "candor records HdrHistograms, not raw samples",
	"measurement.raw.no_summary":    "candor records HdrHistograms, not raw samples",
	"histogram.buckets":             "candor's HdrHistograms cover every latency",
	"timeseries.granularity":        "candor reports every interval",
	"hdrhistogram.percentiles":      "candor reports p50 to p99.99 and max",
	"hdrhistogram.fileoutput":       "candor always writes HdrHistogram interval logs",
	"hdrhistogram.output.path":      "candor writes HdrHistogram logs into the results directory",
	"reportlatencyforeacherror":     "candor reports errors by class",
	"latencytrackederrors":          "candor reports errors by class",
	"spin.sleep":                    "candor's scheduler does its own waiting",
	"fieldlengthhistogram":          "used only with fieldlengthdistribution=histogram, which candor does not support",
	"maxscanrate":                   "a Cloud Bigtable binding property",
	"scanoptimelimit":               "a Cloud Bigtable binding property",
	"discardscannedrecord":          "a Cloud Bigtable binding property",
	"columnfamily":                  "a binding property (HBase, Cassandra ...), not used by SQL databases",
}

// ignoredPrefixes are families of YCSB properties candor does not apply.
var ignoredPrefixes = map[string]string{
	"htrace.":  "candor does not trace with HTrace",
	"basicdb.": "a property of YCSB's BasicDB (the stub database)",
}

func ignoredReason(name string) (string, bool) {
	if r, ok := ignoredProperties[name]; ok {
		return r, true
	}
	for prefix, r := range ignoredPrefixes {
		if strings.HasPrefix(name, prefix) {
			return r, true
		}
	}
	return "", false
}

// trimValue removes the whitespace Java's Properties leaves at the end of a value (and any at the
// start of a -p value).
func trimValue(v string) string { return strings.Trim(v, " \t\f\r\n") }

// setInt reads a decimal integer (Java's Long.parseLong: optional sign, digits only). Properties
// that YCSB reads as a 32-bit int (operationcount, fieldlength, minscanlength, maxscanlength) take
// 64-bit values here.
func setInt(field func(*Config) *int64) func(*Config, string) string {
	return func(c *Config, v string) string {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "must be a whole number"
		}
		*field(c) = n
		return ""
	}
}

func setSmallInt(field func(*Config) *int) func(*Config, string) string {
	return func(c *Config, v string) string {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return "must be a whole number (at most 2147483647)"
		}
		*field(c) = int(n)
		return ""
	}
}

// setFloat reads a number as Java's Double.parseDouble does for ordinary input; NaN and infinities
// are refused, as are Java's rarely used suffixes (0.5d).
func setFloat(field func(*Config) *float64) func(*Config, string) string {
	return func(c *Config, v string) string {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "must be a number"
		}
		*field(c) = f
		return ""
	}
}

// setBool reads true or false in any case. YCSB's Boolean.parseBoolean reads anything but "true"
// as false, so "yes" or "1" would silently mean false; here they are errors.
func setBool(field func(*Config) *bool) func(*Config, string) string {
	return func(c *Config, v string) string {
		switch strings.ToLower(v) {
		case "true":
			*field(c) = true
		case "false":
			*field(c) = false
		default:
			return "must be true or false"
		}
		return ""
	}
}

// suggest returns the known property name closest to name when at most two edits away.
func suggest(name string) string {
	best, bestD := "", 3
	var known []string
	for _, p := range properties {
		known = append(known, p.name)
	}
	for n := range ignoredProperties {
		known = append(known, n)
	}
	sort.Strings(known)
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

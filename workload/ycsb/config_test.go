package ycsb

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestDefaultConfigMatchesYCSB: the defaults are CoreWorkload's *_PROPERTY_DEFAULT constants (YCSB
// master, core/src/main/java/site/ycsb/workloads/CoreWorkload.java), Client's (threadcount 1, target
// 0, maxexecutiontime 0, operationcount 0) and Measurements' (measurementtype hdrhistogram), with
// insertcount derived as recordcount - insertstart.
func TestDefaultConfigMatchesYCSB(t *testing.T) {
	c, rep, err := FromProperties(Properties{"recordcount": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unknown)+len(rep.Ignored) != 0 {
		t.Errorf("report %+v, want empty", rep)
	}
	want := map[string]any{
		"workload":                               "site.ycsb.workloads.CoreWorkload",
		"recordcount":                            1000,
		"operationcount":                         0,
		"insertstart":                            0,
		"insertcount":                            1000, // recordcount - insertstart
		"threadcount":                            1,
		"target":                                 0,
		"maxexecutiontime":                       0,
		"measurementtype":                        "hdrhistogram",
		"table":                                  "usertable",
		"fieldcount":                             10,
		"fieldnameprefix":                        "field",
		"fieldlength":                            100,
		"minfieldlength":                         1,
		"fieldlengthdistribution":                "constant",
		"readallfields":                          true,
		"readallfieldsbyname":                    false,
		"writeallfields":                         false,
		"dataintegrity":                          false,
		"readproportion":                         0.95,
		"updateproportion":                       0.05,
		"insertproportion":                       0,
		"scanproportion":                         0,
		"readmodifywriteproportion":              0,
		"requestdistribution":                    "uniform",
		"zeropadding":                            1,
		"insertorder":                            "hashed",
		"minscanlength":                          1,
		"maxscanlength":                          1000, // CoreWorkload's MAX_SCAN_LENGTH_PROPERTY_DEFAULT; workload E sets 100
		"scanlengthdistribution":                 "uniform",
		"hotspotdatafraction":                    0.2,
		"hotspotopnfraction":                     0.8,
		"exponential.percentile":                 95,
		"exponential.frac":                       0.8571428571,
		"core_workload_insertion_retry_limit":    0,
		"core_workload_insertion_retry_interval": 3,
		"core_workload_insertion_keep_going_on_error": false,
	}
	got := asJSONMap(t, c)
	for name, w := range want {
		if g, ok := got[name]; !ok || !reflect.DeepEqual(g, normalise(w)) {
			t.Errorf("%s = %v, want %v", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("Config has %s, which this test does not check", name)
		}
	}
}

// asJSONMap marshals v and reads it back as a map (numbers as float64).
func asJSONMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func normalise(v any) any {
	if i, ok := v.(int); ok {
		return float64(i)
	}
	return v
}

// TestConfigJSONNamesAreProperties: every property FromProperties applies is a JSON name of Config
// and the other way round, so a stored Config reads as YCSB properties.
func TestConfigJSONNamesAreProperties(t *testing.T) {
	m := asJSONMap(t, DefaultConfig())
	var jsonNames []string
	for k := range m {
		jsonNames = append(jsonNames, k)
	}
	props := PropertyNames()
	sort.Strings(jsonNames)
	sort.Strings(props)
	if !reflect.DeepEqual(jsonNames, props) {
		t.Errorf("JSON names %v\nproperties %v", jsonNames, props)
	}
}

// TestFromPropertiesBuiltins: each built-in workload with YCSB's values (workloads/workload[a-f]).
func TestFromPropertiesBuiltins(t *testing.T) {
	cases := []struct {
		name   string
		p      Proportions
		dist   Distribution
		maxLen int64
	}{
		{"a", Proportions{Read: 0.5, Update: 0.5}, DistZipfian, 1000},
		{"b", Proportions{Read: 0.95, Update: 0.05}, DistZipfian, 1000},
		{"c", Proportions{Read: 1}, DistZipfian, 1000},
		{"d", Proportions{Read: 0.95, Insert: 0.05}, DistLatest, 1000},
		{"e", Proportions{Scan: 0.95, Insert: 0.05}, DistZipfian, 100},
		{"f", Proportions{Read: 0.5, ReadModifyWrite: 0.5}, DistZipfian, 1000},
	}
	for _, c := range cases {
		p, err := Builtin(c.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, rep, err := FromProperties(p)
		if err != nil {
			t.Errorf("workload %s: %v", c.name, err)
			continue
		}
		if len(rep.Unknown)+len(rep.Ignored) != 0 {
			t.Errorf("workload %s: report %+v", c.name, rep)
		}
		if cfg.Proportions != c.p || cfg.RequestDistribution != c.dist || cfg.MaxScanLength != c.maxLen ||
			cfg.ScanLengthDistribution != DistUniform || cfg.RecordCount != 1000 || cfg.OperationCount != 1000 ||
			!cfg.ReadAllFields || cfg.Workload != CoreWorkloadClass {
			t.Errorf("workload %s: %+v", c.name, cfg)
		}
		if _, err := NewCore(cfg); err != nil {
			t.Errorf("workload %s: NewCore: %v", c.name, err)
		}
	}
}

// TestFromPropertiesReport: binding properties and typos are reported as unknown (a typo with the
// name it is close to), YCSB's client and measurement properties as ignored with a reason.
func TestFromPropertiesReport(t *testing.T) {
	_, rep, err := FromProperties(Properties{
		"recordcount":       "10",
		"db.url":            "jdbc:postgresql://x",
		"readproportions":   "0.5",
		"RecordCount":       "7",
		"exporter":          "site.ycsb.measurements.exporter.JSONMeasurementsExporter",
		"htrace.sampler":    "AlwaysSampler",
		"histogram.buckets": "1000",
	})
	if err != nil {
		t.Fatal(err)
	}
	wantUnknown := []UnknownProperty{
		{Name: "RecordCount", Value: "7", Suggestion: "recordcount"},
		{Name: "db.url", Value: "jdbc:postgresql://x"},
		{Name: "readproportions", Value: "0.5", Suggestion: "readproportion"},
	}
	if !reflect.DeepEqual(rep.Unknown, wantUnknown) {
		t.Errorf("unknown %+v\nwant %+v", rep.Unknown, wantUnknown)
	}
	var ignored []string
	for _, g := range rep.Ignored {
		if g.Reason == "" {
			t.Errorf("%s ignored without a reason", g.Name)
		}
		ignored = append(ignored, g.Name)
	}
	if want := []string{"exporter", "histogram.buckets", "htrace.sampler"}; !reflect.DeepEqual(ignored, want) {
		t.Errorf("ignored %v, want %v", ignored, want)
	}
	lines := rep.Lines()
	if len(lines) != 6 || !strings.Contains(lines[2], "did you mean readproportion?") {
		t.Errorf("lines %q", lines)
	}
}

// TestFromPropertiesErrors: every bad value is reported at once, each naming the property and what
// it allows.
func TestFromPropertiesErrors(t *testing.T) {
	_, _, err := FromProperties(Properties{
		"recordcount":             "1e6",
		"requestdistribution":     "zipf",
		"fieldlengthdistribution": "histogram",
		"readallfields":           "yes",
		"insertorder":             "random",
		"readproportion":          "-1",
		"maxscanlength":           "0",
		"measurementtype":         "csv",
		"workload":                "site.ycsb.workloads.TimeSeriesWorkload",
		"threadcount":             "0",
		"target":                  "fast",
	})
	var probs Problems
	if !errors.As(err, &probs) {
		t.Fatalf("error %v is not Problems", err)
	}
	want := map[string]string{
		"recordcount":             "whole number",
		"requestdistribution":     "uniform, zipfian, latest, hotspot, sequential, exponential",
		"fieldlengthdistribution": "not supported",
		"readallfields":           "true or false",
		"insertorder":             "hashed or ordered",
		"readproportion":          ">= 0",
		"maxscanlength":           "minscanlength",
		"measurementtype":         "hdrhistogram",
		"workload":                "core workload only",
		"threadcount":             ">= 1",
		"target":                  "must be a number",
	}
	seen := map[string]bool{}
	for _, p := range probs {
		seen[p.Name] = true
		if w, ok := want[p.Name]; ok && !strings.Contains(p.Problem, w) {
			t.Errorf("%s: %q does not say %q", p.Name, p.Problem, w)
		}
		if !strings.Contains(p.Error(), p.Name) {
			t.Errorf("%q does not name %s", p.Error(), p.Name)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("no problem reported for %s (got %v)", name, err)
		}
	}
	if len(probs.Strings()) != len(probs) {
		t.Error("Strings length")
	}
}

// TestFromPropertiesCrossChecks: problems that involve several properties.
func TestFromPropertiesCrossChecks(t *testing.T) {
	for _, c := range []struct {
		p        Properties
		property string
		says     string
	}{
		{Properties{}, "recordcount", "must be set"},
		{Properties{"recordcount": "100", "insertstart": "50", "insertcount": "60"}, "insertcount", "must not exceed recordcount"},
		{Properties{"recordcount": "100", "insertcount": "0"}, "insertcount", ">= 1"},
		{Properties{"recordcount": "100", "insertcount": "-5"}, "insertcount", ">= 1"},
		{Properties{"recordcount": "1", "requestdistribution": "latest"}, "recordcount", ">= 2"},
		{Properties{"recordcount": "4", "requestdistribution": "hotspot"}, "hotspotdatafraction", "empty"},
		{Properties{"recordcount": "10", "dataintegrity": "true", "fieldlengthdistribution": "uniform"}, "dataintegrity", "constant"},
		{Properties{"recordcount": "10", "fieldlengthdistribution": "uniform", "minfieldlength": "150"}, "fieldlength", "minfieldlength"},
		{Properties{"recordcount": "10", "readproportion": "0", "updateproportion": "0"}, "readproportion", "all 0"},
		{Properties{"recordcount": "10", "hotspotopnfraction": "1.5"}, "hotspotopnfraction", "[0, 1]"},
		{Properties{"recordcount": "10", "exponential.percentile": "100"}, "exponential.percentile", "(0, 100)"},
	} {
		_, _, err := FromProperties(c.p)
		var probs Problems
		if !errors.As(err, &probs) {
			t.Errorf("%v: error %v", c.p, err)
			continue
		}
		found := false
		for _, p := range probs {
			if p.Name == c.property && strings.Contains(p.Problem, c.says) {
				found = true
			}
		}
		if !found {
			t.Errorf("%v: %v; want %s: ...%s...", c.p, err, c.property, c.says)
		}
	}
}

// TestFromPropertiesValues: parsing details (trimmed values, any-case booleans, insertcount derived
// from insertstart, proportions kept as given).
func TestFromPropertiesValues(t *testing.T) {
	c, _, err := FromProperties(Properties{
		"recordcount":      "1000 ", // Java keeps the trailing space and YCSB fails; trimmed here
		"insertstart":      "250",
		"insertorder":      "ordered\t",
		"zeropadding":      "12",
		"writeallfields":   "TRUE",
		"readproportion":   "2",
		"updateproportion": "6",
		"target":           "1500.5",
		"operationcount":   "+40",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.RecordCount != 1000 || c.InsertStart != 250 || c.InsertCount != 750 || !c.Ordered() || c.ZeroPadding != 12 ||
		!c.WriteAllFields || c.Read != 2 || c.Update != 6 || c.TargetOpsPerSec != 1500.5 || !c.RateMode() || c.OperationCount != 40 {
		t.Errorf("%+v", c)
	}
	if got := c.KeyName(7); got != "user000000000007" {
		t.Errorf("KeyName(7) = %q", got)
	}
	if got := c.FieldNames(); len(got) != 10 || got[0] != "field0" || got[9] != "field9" {
		t.Errorf("FieldNames = %v", got)
	}
}

// TestExpectedNewKeys: (int)(operationcount * insertproportion * 2.0). Workload E: 1000 * 0.05 * 2 =
// 100; workload D's latest does not use it; no operationcount, no allowance.
func TestExpectedNewKeys(t *testing.T) {
	p, _ := Builtin("e")
	c, _, err := FromProperties(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ExpectedNewKeys(); got != 100 {
		t.Errorf("workload E: %d, want 100", got)
	}
	c.OperationCount = 0
	if got := c.ExpectedNewKeys(); got != 0 {
		t.Errorf("no operationcount: %d, want 0", got)
	}
	c.OperationCount, c.Insert, c.Scan = 1000, 2, 6 // unnormalised weights are used as given
	if got := c.ExpectedNewKeys(); got != 4000 {
		t.Errorf("insert weight 2: %d, want 4000", got)
	}
}

func TestConfigBuiltInGo(t *testing.T) {
	c := DefaultConfig()
	c.RecordCount = 500
	if err := c.Validate(); err == nil {
		t.Error("Validate before DeriveDefaults accepted insertcount -1")
	}
	c.DeriveDefaults()
	if err := c.Validate(); err != nil || c.InsertCount != 500 {
		t.Errorf("after DeriveDefaults: %v, insertcount %d", err, c.InsertCount)
	}
	if c.MaxExecutionTime() != 0 || c.InsertionRetryInterval().Seconds() != 3 {
		t.Errorf("durations %v %v", c.MaxExecutionTime(), c.InsertionRetryInterval())
	}
}

// TestRedactValue: a binding's secrets never reach the console or result.json.
func TestRedactValue(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"db.passwd", "s3cret", "xxxxx"},
		{"jdbc.password", "s3cret", "xxxxx"},
		{"db.url", "jdbc:postgresql://bob:s3cret@127.0.0.1:5432/ycsb", "jdbc:postgresql://bob:xxxxx@127.0.0.1:5432/ycsb"},
		{"db.user", "bob", "bob"},
		{"jdbc.fetchsize", "10", "10"},
	} {
		if got := RedactValue(c.name, c.value); strings.Contains(got, "s3cret") || (c.want != "" && got != c.want && !strings.Contains(got, "xxxxx")) {
			t.Errorf("RedactValue(%s, %s) = %q, want %q", c.name, c.value, got, c.want)
		}
	}
	_, rep, err := FromProperties(Properties{"recordcount": "10", "db.passwd": "s3cret", "db.url": "jdbc:mysql://u:s3cret@h/db"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range rep.Lines() {
		if strings.Contains(l, "s3cret") {
			t.Errorf("the report prints a password: %s", l)
		}
	}
}

// TestTableNames: a reserved word or another workload's table as `table` is refused before anything
// connects (an unquoted CREATE TABLE order fails; a load --drop of table=kv would drop kv's table).
func TestTableNames(t *testing.T) {
	for _, name := range []string{"order", "select", "kv", "warehouse"} {
		c := DefaultConfig()
		c.Table = name
		if p := sqlProblems(c, func(string) string { return "-p" }); len(p) != 1 || !strings.Contains(p[0], "table="+name) {
			t.Errorf("table=%s: problems %v, want one naming it", name, p)
		}
	}
	if p := sqlProblems(DefaultConfig(), func(string) string { return "-p" }); len(p) != 0 {
		t.Errorf("usertable: %v", p)
	}
}

package ycsb

import (
	"reflect"
	"testing"
)

// TestBuiltinExactValues: the embedded files hold exactly the properties of YCSB's workloads/
// workload[a-f] (YCSB master; the files' comments differ, their properties do not).
func TestBuiltinExactValues(t *testing.T) {
	common := func(extra Properties) Properties {
		p := Properties{
			"recordcount":    "1000",
			"operationcount": "1000",
			"workload":       "site.ycsb.workloads.CoreWorkload",
			"readallfields":  "true",
		}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	want := map[string]Properties{
		"a": common(Properties{"readproportion": "0.5", "updateproportion": "0.5", "scanproportion": "0", "insertproportion": "0", "requestdistribution": "zipfian"}),
		"b": common(Properties{"readproportion": "0.95", "updateproportion": "0.05", "scanproportion": "0", "insertproportion": "0", "requestdistribution": "zipfian"}),
		"c": common(Properties{"readproportion": "1", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0", "requestdistribution": "zipfian"}),
		"d": common(Properties{"readproportion": "0.95", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0.05", "requestdistribution": "latest"}),
		"e": common(Properties{"readproportion": "0", "updateproportion": "0", "scanproportion": "0.95", "insertproportion": "0.05", "requestdistribution": "zipfian",
			"maxscanlength": "100", "scanlengthdistribution": "uniform"}),
		"f": common(Properties{"readproportion": "0.5", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0",
			"readmodifywriteproportion": "0.5", "requestdistribution": "zipfian"}),
	}
	for _, name := range BuiltinNames {
		got, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[name]) {
			t.Errorf("workload %s:\n got %v\nwant %v", name, got, want[name])
		}
	}
}

func TestBuiltinNames(t *testing.T) {
	for _, ok := range []string{"a", "f", "workloada", "WorkloadD", "E"} {
		if !IsBuiltin(ok) {
			t.Errorf("%q not accepted", ok)
		}
	}
	for _, bad := range []string{"", "g", "workload", "workloadg", "workloads/workloada", "aa"} {
		if _, err := Builtin(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

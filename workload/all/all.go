// Package all is the list of candor's workloads: importing it registers each one. Adding a
// workload is one line here.
package all

import (
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/kv"
	"github.com/candor-bench/candor/workload/script"
	"github.com/candor-bench/candor/workload/sysbench"
	"github.com/candor-bench/candor/workload/tpcc"
	"github.com/candor-bench/candor/workload/tpch"
	"github.com/candor-bench/candor/workload/ycsb"
)

func init() {
	workload.Register(workload.Registration{Name: "tpcc", New: tpcc.New})
	workload.Register(workload.Registration{Name: "kv", New: kv.New})
	workload.Register(workload.Registration{Name: "ycsb", New: ycsb.New})
	workload.Register(workload.Registration{Name: "sysbench", New: sysbench.New})
	workload.Register(workload.Registration{Name: "script", New: script.New})
	workload.Register(workload.Registration{Name: "tpch", New: tpch.New})
}

package sqlexec

import (
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/textfmt"
)

// availableMemory is the memory the host has available (MemAvailable), 0 when unknown.
var availableMemory = func() int64 {
	vm, err := mem.VirtualMemory()
	if err != nil || vm.Available > 1<<62 {
		return 0
	}
	return int64(vm.Available)
}

// CheckRunMemory refuses a run whose terms terminals and conns connections would hold more values
// at once than the host has memory available: each terminal keeps its drawn values (perTerminal
// bytes at most), and each connection the statement it sends with them. what says what the
// values are ("kv's writes of --batch 8 values of up to 67,108,864 bytes"), fix what to give
// instead. A run calls it when it opens, before it connects.
func CheckRunMemory(terms, conns int, perTerminal int64, what, fix string) error {
	need := int64(terms+conns) * perTerminal
	if need < 64<<20 {
		return nil
	}
	avail := availableMemory()
	if avail == 0 || need <= avail {
		return nil
	}
	return userr.Errorf("%s: %s terminals and %s connections would hold up to %s of them at once, more than the %s of memory this host has available: %s",
		what, textfmt.Thousands(int64(terms)), textfmt.Thousands(int64(conns)), report.BytesIEC(float64(need)), report.BytesIEC(float64(avail)), fix)
}

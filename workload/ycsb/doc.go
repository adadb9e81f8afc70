// Package ycsb is the pure core of YCSB's core workloads A-F, as YCSB's Java sources define them
// (site.ycsb.workloads.CoreWorkload and site.ycsb.generator.*): key naming, the request, field-length
// and scan-length generators, the operation chooser, Java .properties parsing and the CoreWorkload
// property set with YCSB's defaults, and the six built-in workload files. There is no database code
// here; the workload contract (loading, SQL, the run) sits on top.
//
// Randomness: every generator draws from the caller's Source (a *rand.Rand of math/rand/v2 or a
// *gen.Rand), never from a global or thread-local stream as YCSB's ThreadLocalRandom does, so each
// terminal's inputs are reproducible from its own seed (the habit of go-ycsb). Generators hold only
// what YCSB's hold (bounds, zeta constants, counters) and are safe for concurrent use, so one Core
// is shared by all terminals exactly as YCSB shares one CoreWorkload among its client threads.
//
// Where YCSB's code does something surprising we reproduce it and say so beside the code (for
// instance: ScrambledZipfianGenerator draws from 10^10+1 items whatever the key count, the "latest"
// distribution never returns key 0, the zipfian's eta keeps the original item count when the count
// grows). Where YCSB would crash or silently misread a property we report an error instead, and the
// doc comment of the check says what YCSB does.
package ycsb

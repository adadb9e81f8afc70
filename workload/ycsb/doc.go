// Package ycsb is YCSB's core workloads A-F as candor runs them (`candor ycsb`), in two layers.
//
// The pure core, as YCSB's Java sources define it (site.ycsb.workloads.CoreWorkload and
// site.ycsb.generator.*): key naming (keys.go), the request, field-length and scan-length generators,
// the operation chooser, Java .properties parsing and the CoreWorkload property set with YCSB's
// defaults (config.go, config_props.go), the six built-in workload files (workloads.go), the field
// values of RandomByteIterator and dataintegrity (values.go), and Core, the generators of one run
// (core.go). No database code.
//
// The workload contract on top (package workload), after YCSB's JDBC binding: ycsb.go (flags: the
// built-in workload, -P files and -p overrides, read as YCSB reads them; validation), sql.go (the
// usertable and the statements per SQL family), load.go (the bulk load and its record in
// candor_workloads), session.go (a run: terminals, connections, the insert counter, the result),
// terminal.go (inputs drawn at dispatch, in CoreWorkload's order), exec.go (the operations),
// check.go (the consistency checks).
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
// doc comment of the check says what YCSB does. Where candor departs from YCSB on purpose (reads
// naming the fields they read, inserts numbered on from earlier runs' on the same data, runs bounded
// by --duration rather than operationcount), the code that does it says why.
package ycsb

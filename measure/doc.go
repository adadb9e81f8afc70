// Package measure records operation latencies into HdrHistograms and turns them into intervals,
// run totals, percentile summaries and HdrHistogram interval logs. It knows nothing about any
// workload: operations are integer indexes whose names the workload gives.
//
// Rules it keeps (design.md, "Measurement details that are easy to get wrong"):
//
//   - One geometry for every histogram of every run and shard (NewHistogram: LowestMicros ..
//     HighestMicros at SignificantDigits), so merging intervals, stripes, shards and processes is
//     exact, bucket by bucket. Percentiles are never averaged.
//   - Values are whole microseconds, rounded up (Micros): a duration in (0, 1 µs] is recorded as 1 µs,
//     exactly 0 as 0. Rounding up never flatters a latency.
//   - A value above HighestMicros is counted in Counts.Overflow and recorded at HighestMicros, so
//     percentiles at the top read "at least an hour" and the overflow count says how many; it is never
//     clamped silently.
//   - Quantiles are our own type in 0..1 (Quantile); the conversion to the percents HdrHistogram
//     takes happens in exactly one place (Quantile.Percent).
//   - Memory is bounded regardless of run length: histograms and counters, no per-event storage.
//
// Errors and business rollbacks: an operation that failed (Event.Err) is counted in Counts.Errors and
// its response time goes into the separate ErrorResponse histogram, never into Response or Service.
// Mixing them would let fast failures pull the success percentiles down (flattering the result) and
// slow timeouts push them up; keeping them apart shows both. Its Lag is recorded with everyone
// else's, because lag describes the driver (how late it dispatched), not the outcome. A business
// rollback (Event.RolledBack, e.g. TPC-C's 1% New-Order rollbacks, clause 2.4.2.3) is a completed
// operation: it counts in Completed and Rollbacks and its latencies go into Response and Service.
package measure

package report

import (
	"fmt"
	"io"
)

// Endpoint is one endpoint of the database (a node of a cluster) a run spread its terminals over,
// with what ran through it in the measurement interval.
type Endpoint struct {
	URL         string `json:"url"` // redacted: never holds a password
	Terminals   int    `json:"terminals"`
	Connections int    `json:"connections"`
	// Transactions are the operations completed (business rollbacks included), Errors after
	// retries, and Retries of whole operations, over the operations the terminals ran: they add up
	// to the per-operation figures (format 1's name: TPC-C's five types).
	Transactions int64 `json:"transactions"`
	Errors       int64 `json:"errors"`
	Retries      int64 `json:"retries"`
	// The work handed on and run on connections to the endpoint (TPC-C: the deferred Deliveries of
	// the endpoint's warehouses); zero for a workload without.
	DeferredDeliveries int64 `json:"deferred_deliveries"`
	DeferredErrors     int64 `json:"deferred_errors"`
	DeferredRetries    int64 `json:"deferred_retries"`
}

// printEngineNotes prints, under the summary's conditions, the isolation level the engine reported
// when it differs from the one asked for, and the endpoints when there were several.
func printEngineNotes(w io.Writer, r *Result) {
	if r.IsolationEffective != "" && r.IsolationEffective != r.Isolation {
		fmt.Fprintf(w, "isolation asked %s, the engine runs %s\n", r.Isolation, r.IsolationEffective)
	}
	if len(r.Endpoints) < 2 {
		return
	}
	fmt.Fprintf(w, "%d endpoints, the terminals spread over them:\n", len(r.Endpoints))
	for i, e := range r.Endpoints {
		deferred := ""
		if e.DeferredDeliveries > 0 || e.DeferredErrors > 0 {
			deferred = fmt.Sprintf(" · deferred work %d (%s)", e.DeferredDeliveries, countS(e.DeferredErrors, "error"))
		}
		fmt.Fprintf(w, "  %d %s · %s · %s · %s · %s · %s%s\n",
			i+1, e.URL, countS(int64(e.Terminals), "terminal"), countS(int64(e.Connections), "connection"),
			countS(e.Transactions, "operation"), countS(e.Errors, "error"), Count(e.Retries, "retry", "retries"), deferred)
	}
}

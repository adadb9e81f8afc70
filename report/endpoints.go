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
	// Transactions completed (business rollbacks included), Errors after retries, and Retries of
	// whole transactions, over the terminals' five types: they add up to the per-type figures.
	Transactions int64 `json:"transactions"`
	Errors       int64 `json:"errors"`
	Retries      int64 `json:"retries"`
	// The deferred Deliveries of the endpoint's warehouses, run on connections to it.
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
	if r.StockLevelIsolation != "" && r.StockLevelIsolation != r.Isolation {
		fmt.Fprintf(w, "stock_level runs at %s (clause 2.8.2.1 allows a weaker level)\n", r.StockLevelIsolation)
	}
	if len(r.Endpoints) < 2 {
		return
	}
	fmt.Fprintf(w, "%d endpoints, terminals spread by warehouse (warehouse w on endpoint (w-1) mod %d):\n", len(r.Endpoints), len(r.Endpoints))
	for i, e := range r.Endpoints {
		fmt.Fprintf(w, "  %d %s · %d terminals · %d connections · %d transactions · %d errors · %d retries · deferred deliveries %d (%d errors)\n",
			i+1, e.URL, e.Terminals, e.Connections, e.Transactions, e.Errors, e.Retries, e.DeferredDeliveries, e.DeferredErrors)
	}
}

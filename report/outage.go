package report

// Outage is one span during which the database refused new connections (a restart, a crash): the
// run waited for it, reconnecting with backoff, and the operations that waited hold the wait in
// their response times.
type Outage struct {
	Endpoint string `json:"endpoint"` // redacted URL
	// StartSeconds is when the first connection was refused, from the run's start (warm-up
	// included); Seconds how long until a connection was opened again.
	StartSeconds float64 `json:"start_seconds"`
	Seconds      float64 `json:"seconds"`
	// Ongoing: the run ended (or gave up, past the outage window) before the database was back.
	Ongoing bool `json:"ongoing,omitempty"`
	// Attempts is the connections tried and refused during it.
	Attempts int64 `json:"attempts"`
}

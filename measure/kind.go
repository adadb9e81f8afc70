package measure

// Kind names what a histogram measures.
type Kind int

const (
	// Response is completion minus intended start (for a TPC-C terminal, the end of keying; in a
	// rate run, the scheduled arrival). It includes any wait for a free connection.
	Response Kind = iota
	// Service is completion minus actual dispatch: the time the operation held a worker.
	Service
	// Lag is dispatch minus intended start: how late the driver started the operation.
	Lag
	// ErrorResponse is the response time of operations that failed (Event.Err); they are kept out of
	// Response and Service (see the package comment).
	ErrorResponse
	// NumKinds is the number of kinds.
	NumKinds
)

var kindNames = [NumKinds]string{"response", "service", "lag", "error_response"}

// String returns the name used in log tags ("<op>.<kind>") and results: response, service, lag,
// error_response.
func (k Kind) String() string {
	if k < 0 || k >= NumKinds {
		return "unknown"
	}
	return kindNames[k]
}

// ParseKind returns the Kind named s (as String gives it).
func ParseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), true
		}
	}
	return -1, false
}

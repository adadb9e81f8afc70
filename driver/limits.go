package driver

// Limits are the most an engine takes in one value (a field) and in one statement or row (sent in one
// message, or read back in one), each with the name of the engine's own limit for messages: a load
// or a run whose values cannot fit is refused before it writes anything, naming it.
type Limits struct {
	// Value is the largest value in bytes, 0 when the engine states none; ValueName names the limit
	// ("PostgreSQL's 1 GB limit on a field").
	Value     int64
	ValueName string
	// Row is the largest statement or row in bytes (its values and the statement's text), 0 when the
	// engine states none; RowName names the limit ("the server's max_allowed_packet").
	Row     int64
	RowName string
}

// Limiter is an engine that knows its Limits (read from the server when it has a setting).
type Limiter interface {
	Limits() Limits
}

// LimitsOf is db's Limits, the zero Limits (no limit known) for an engine without them.
func LimitsOf(db DB) Limits {
	if l, ok := db.(Limiter); ok {
		return l.Limits()
	}
	return Limits{}
}

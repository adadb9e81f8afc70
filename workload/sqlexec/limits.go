package sqlexec

import (
	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/textfmt"
)

// statementOverhead is room left in an engine's statement or row limit for what is not values: the
// statement's text, the protocol's headers, escapes.
const statementOverhead = 1 << 10

// ownRowLimit is candor's own bound on one statement's or row's values, held in memory at once, on
// an engine that states none (the null engine, CockroachDB, YugabyteDB): 1 GiB, the largest of
// MySQL's max_allowed_packet and PostgreSQL's message limit.
const ownRowLimit = 1 << 30

// SizeLimits is, for a load or a run on db whose values are at most value bytes and whose rows or
// statements carry at most row bytes of values, the user error naming the engine's own limit
// (driver.Limits: MySQL's max_allowed_packet read from the server, PostgreSQL's 1 GB, SQLite's
// SQLITE_MAX_LENGTH) they do not fit in, or nil. what says what they are ("kv's values
// (--max-block-bytes 67,108,864)"), fix what to give instead ("give smaller values"). A load calls it
// before it drops or writes anything, a run before it connects its terminals.
func SizeLimits(db driver.DB, value, row int64, what, fix string) error {
	l := driver.LimitsOf(db)
	if l.Row == 0 {
		l.Row, l.RowName = ownRowLimit, "candor's bound on the values of one statement or row, held in memory at once,"
	}
	if l.Value > 0 && value > l.Value {
		return userr.Errorf("%s: a value of %s bytes is more than %s (%s bytes) at %s takes: %s", what,
			textfmt.Thousands(value), l.ValueName, textfmt.Thousands(l.Value), db.Redacted(), fix)
	}
	if row+statementOverhead > l.Row {
		return userr.Errorf("%s: %s bytes in one statement or row, more than %s (%s bytes) at %s takes: %s", what,
			textfmt.Thousands(row), l.RowName, textfmt.Thousands(l.Row), db.Redacted(), fix)
	}
	return nil
}

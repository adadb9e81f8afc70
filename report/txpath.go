package report

// TxPath names how the transactions reached the database: one call of a stored procedure each
// (--procedures), or interactive statements.
func TxPath(procedures bool) string {
	if procedures {
		return "stored procedures"
	}
	return "interactive"
}

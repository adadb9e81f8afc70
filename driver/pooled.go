package driver

// SessionSettings reports whether settings made with SET last for a connection's session on db.
// They do not behind a connection pooler in transaction pooling (PgBouncer's pool_mode=transaction,
// which driver/postgres detects when it opens the database): a SET there stays on the server
// connection the pooler lent for that one statement, and changes the transactions of whoever it
// serves next (a load's synchronous_commit=off would make a later run's commits not durable).
// candor's own session settings (a load's, a check's) are then left out.
func SessionSettings(db DB) bool {
	p, ok := db.(interface{ TransactionPooled() bool })
	return !ok || !p.TransactionPooled()
}

package tpcc

// Doltgres (Dolt's PostgreSQL-compatible server) runs PostgreSQL's schema and check, and differs
// where Doltgres 1.2.0 lacks what PostgreSQL's forms use. Chosen by Dialect.Name "doltgres" (the
// doltgres:// scheme, or a postgres:// server found to be Doltgres), never by a guess of candor's.
// The load takes the distributed engines' path (ownKeys, distsql.go): tables created with their
// keys, each statement on its own (Doltgres has no ADD CONSTRAINT ... USING INDEX, and Dolt's merge
// of two loaders' transactions into keyless tables fails at commit), the secondary indexes after
// the rows, ANALYZE rather than VACUUM; --drop drops the tables one by one (no CASCADE). The
// transactions are sql_doltgres.go's, and the check's queries go through doltgresCheckSQL and the
// MySQL family's condition 5 (check_sql.go).
const dialectDoltgres = "doltgres"

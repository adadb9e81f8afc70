package tpcc

// Doltgres (Dolt's PostgreSQL-compatible server) runs PostgreSQL's schema and check, and differs
// where Doltgres 1.2.0 lacks what PostgreSQL's forms use. Chosen by Dialect.Name "doltgres" (the
// doltgres:// scheme, or a postgres:// server found to be Doltgres).
const dialectDoltgres = "doltgres"

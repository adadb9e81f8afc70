// Package pgscript is pgbench's custom-script language as a library: the script splitter (SQL
// commands ending at ";", meta-commands starting with a backslash), the \set expression grammar
// with every pgbench function, the built-in scripts, and an interpreter that runs one transaction of
// a compiled script over a per-client variable map, handing SQL and sleeps to the caller.
//
// The reference is pgbench of PostgreSQL 15-17 (src/bin/pgbench: exprscan.l, exprparse.y,
// pgbench.c; src/fe_utils/psqlscan.l for where a command ends; src/common/pg_prng.c for permute).
// Where candor differs it says so beside the code:
//
//   - variables are always bound as parameters (pgbench's -M prepared), never spliced into SQL text;
//     a :name inside a string literal is refused, and one inside a comment or a dollar-quoted body
//     is left as text;
//   - \setshell and \shell are refused (no shell from a benchmark script), and so are the pipeline
//     commands (candor sends a statement and waits for its result);
//   - random_zipfian accepts an exponent in (0, 1) as YCSB's zipfian (Gray et al.), which pgbench
//     dropped in PostgreSQL 13;
//   - a NULL value is bound as SQL NULL (pgbench sends the text "NULL"), and a NULL a \gset or \aset
//     reads stays NULL (pgbench stores an empty string no expression can read);
//   - abs() of a boolean is an error (pgbench returns whatever double its value union holds);
//   - \sample VAR FILE (candor's, in sample.go) sets VAR to a line of FILE drawn uniformly: values
//     candor capture read from a column, which pgbench's expressions (numbers only) cannot hold;
//   - a statement's ending ";" is not sent, an empty statement (";;") is dropped, and a command ends
//     at ";" also inside CREATE FUNCTION ... BEGIN ATOMIC (pgbench 15+ waits for its END).
//
// Errors point at the file, line and column (a.sql:3:14: ...). Random functions draw from the
// client's gen.Rand, so a run is reproducible from candor's seed; hash functions and permute give
// pgbench's numbers for the same arguments.
package pgscript

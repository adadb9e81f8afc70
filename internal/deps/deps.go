// Package deps pins the module's dependencies while the packages that use them are written.
// TODO: delete once every dependency is imported by real code.
package deps

import (
	_ "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/pgconn"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/spf13/cobra"
)

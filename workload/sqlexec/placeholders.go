package sqlexec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
)

// Placeholders rewrites a statement written with PostgreSQL's numbered parameters ($1, $2, ...)
// for the SQL family (driver.Dialect.SQLFamily) that runs it:
//
//   - postgres: unchanged;
//   - sqlite: ?NNN (?1, ?2, ...), which keeps the numbering, so a parameter may appear several
//     times and in any order;
//   - mysql: plain ?, which cannot be numbered: the parameters must appear in order, each once
//     ($1, $2, ... $n); anything else panics, a programming error found by the first test.
//
// A $ inside a quoted string literal or identifier is left alone. Statements are rewritten once,
// when a workload builds them, not per execution.
func Placeholders(family, sql string) string {
	switch family {
	case FamilySQLite:
		return rewrite(sql, func(n int, b *strings.Builder) { b.WriteByte('?'); b.WriteString(strconv.Itoa(n)) })
	case driver.FamilyMySQL:
		next := 1
		return rewrite(sql, func(n int, b *strings.Builder) {
			if n != next {
				panic(fmt.Sprintf("sqlexec: MySQL statement with parameter $%d where $%d was due (MySQL's ? cannot be numbered): %s", n, next, sql))
			}
			next++
			b.WriteByte('?')
		})
	}
	return sql
}

// rewrite copies sql, calling param for every $n outside quotes.
func rewrite(sql string, param func(n int, b *strings.Builder)) string {
	var b strings.Builder
	b.Grow(len(sql) + len(sql)/8)
	var quote byte // the quote character of the literal or identifier we are in, 0 outside
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0 // a doubled quote closes and reopens: the same result
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '$' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(sql[i+1 : j])
			param(n, &b)
			i = j - 1
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// Params appends "$from, $from+1, ..., $from+n-1" to b: the parameters of an IN list or a VALUES
// row, to be rewritten by Placeholders.
func Params(b *strings.Builder, from, n int) {
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(from + i))
	}
}

package pgscript_test

import (
	"fmt"
	"os"
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/workload/script/pgscript"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// printRunner prints what an executor would send: each statement in MySQL's placeholder style with
// its arguments.
type printRunner struct{}

func (printRunner) Exec(cmd int, c *pgscript.Command, stmt int, st *pgscript.Statement, args []any) error {
	fmt.Printf("%s  %v\n", st.SQLFor(sqlexec.FamilyMySQL), args)
	return nil
}

func (printRunner) Sleep(cmd int, c *pgscript.Command, d time.Duration) error {
	fmt.Println("sleep", d)
	return nil
}

func Example() {
	script := `\set aid random_zipfian(1, 100000 * :scale, 0.99)
\set bal debug(abs(hash(:aid)) % 1000)
\if :bal > 0
UPDATE accounts SET balance = balance + :bal WHERE id = :aid;
\else
SELECT balance FROM accounts WHERE id = :aid;
\endif
\sleep 5 ms
`
	p := pgscript.NewProgram()
	if _, err := p.Add("mine.sql", script, 1); err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Check(); err != nil {
		fmt.Println(err)
		return
	}
	env := p.NewEnv(pgscript.EnvOptions{ClientID: 0, Scale: 10, DefaultSeed: 42, Rand: gen.New(7), Debug: os.Stdout})
	if err := env.Run(0, printRunner{}); err != nil {
		fmt.Println(err)
	}

	_, err := p.Add("bad.sql", "\\set x random(1, 10) +\nSELECT 1;\n", 1)
	fmt.Println(err)
	// Output:
	// debug(script=0,command=2): int 583
	// UPDATE accounts SET balance = balance + ? WHERE id = ?  [583 27]
	// sleep 5ms
	// bad.sql:1:23: syntax error: unexpected end of expression in command "set"
}

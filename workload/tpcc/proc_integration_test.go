package tpcc

import (
	"context"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
)

// Integration tests of the stored-procedure mode: the interactive mode's tests (tx_integration_test.go)
// run again with procedure-mode clients, each transaction one call, against the same assertions;
// then what only this mode has (installation, version check, the rollback's output) and a
// transaction-by-transaction comparison with the interactive mode on the same database.

func procClient(t testing.TB) func(driver.DB) *Client {
	return func(db driver.DB) *Client {
		cl, err := NewProcClient(db)
		if err != nil {
			t.Fatalf("NewProcClient: %v", err)
		}
		return cl
	}
}

func TestProceduresPostgres(t *testing.T) {
	parallel(t)
	db, info := pgLoadedTestDB(t)
	txExerciseLoaded(t, db, info, procClient(t))
}

func TestProceduresMySQL(t *testing.T) {
	parallel(t)
	txExerciseWith(t, mysqlTestDB(t), procClient(t))
}

// SQLite has no procedure mode: a user error naming the reason.
func TestProceduresSQLiteRefused(t *testing.T) {
	db := sqliteTestDB(t)
	for _, err := range []error{
		ProceduresSupported(db),
		func() error { _, err := NewProcClient(db); return err }(),
		func() error { _, err := CreateProcedures(context.Background(), db); return err }(),
		CheckProcedures(context.Background(), db),
	} {
		if !userr.Is(err) {
			t.Errorf("procedures on SQLite: %v, want a user error", err)
		}
	}
}

// Installation and its record: refused on an empty database, refused before and accepted after on
// a loaded one, refused again when the recorded version is not this candor's; recreating is
// idempotent. On MySQL the same loaded database then serves procMatch (one load of MariaDB's
// instead of two: the package's longest part).
// Last, `candor tpcc drop` (Workload.Drop) removes the procedures with the tables.
func TestProceduresInstallPostgres(t *testing.T) {
	parallel(t)
	db, _ := pgLoadedTestDB(t)
	procInstall(t, pgTestDB(t), db)
	procDrop(t, db)
}

func TestProceduresInstallMySQL(t *testing.T) {
	parallel(t)
	db := mysqlTestDB(t)
	info := txLoad(t, db)
	procInstall(t, mysqlTestDB(t), db)
	t.Run("MatchInteractive", func(t *testing.T) { procMatch(t, db, info) })
	procDrop(t, db)
}

// procDrop drops db's TPC-C load, which has procedures (on PostgreSQL one more of another
// signature, as an older candor's), and asserts that no routine named candor_% is left.
func procDrop(t *testing.T, db driver.DB) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	family := db.Dialect().SQLFamily()
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q := "SELECT count(*) FROM information_schema.routines WHERE routine_schema = DATABASE() AND routine_name LIKE 'candor\\_%'"
	if family == dialectPostgres {
		if _, err := c.Exec(ctx, "CREATE FUNCTION candor_payment(p int) RETURNS int LANGUAGE sql AS 'SELECT 1'"); err != nil {
			t.Fatal(err)
		}
		q = "SELECT count(*) FROM pg_proc WHERE pronamespace = current_schema()::regnamespace AND proname LIKE 'candor\\_%'"
	}
	routines := func() int64 {
		var n int64
		if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := routines(); n < 5 {
		t.Fatalf("%d candor routines before the drop, want at least the five transactions'", n)
	}
	if had, err := (&Workload{}).Drop(ctx, db); err != nil || !had {
		t.Fatalf("Drop: %v, %v; want the load dropped", had, err)
	}
	if n := routines(); n != 0 {
		t.Errorf("%d candor routines left after the drop, want none", n)
	}
}

// procInstall is the test with empty an empty database and db one holding txLoad's load, without
// procedures.
func procInstall(t *testing.T, empty, db driver.DB) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	family := db.Dialect().SQLFamily()
	if _, err := CreateProcedures(ctx, empty); !userr.Is(err) {
		t.Errorf("CreateProcedures on an empty database: %v, want a user error (load first)", err)
	}
	if err := CheckProcedures(ctx, db); !userr.Is(err) {
		t.Errorf("CheckProcedures before creating them: %v, want a user error", err)
	}
	if family == dialectPostgres {
		// An older candor's candor_delivery returned two columns: creating the procedures replaces it,
		// which CREATE OR REPLACE alone cannot do.
		c, err := db.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Exec(ctx, `CREATE FUNCTION candor_delivery(p_w int, p_carrier int, p_now timestamp,
	OUT r_delivered int, OUT r_skipped int) LANGUAGE sql AS 'SELECT 0, 10'`)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 2; i++ {
		v, err := CreateProcedures(ctx, db)
		if err != nil {
			t.Fatalf("CreateProcedures (%d): %v", i+1, err)
		}
		if v != ProceduresVersion(family) {
			t.Errorf("recorded version %q, want %q", v, ProceduresVersion(family))
		}
		if err := CheckProcedures(ctx, db); err != nil {
			t.Errorf("CheckProcedures after creating them: %v", err)
		}
	}
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(ctx, "UPDATE candor_load SET procedures = '"+family+"-0000'"); err != nil {
		t.Fatal(err)
	}
	if err := CheckProcedures(ctx, db); !userr.Is(err) {
		t.Errorf("CheckProcedures with another version recorded: %v, want a user error", err)
	}
}

// The same New-Orders, Payments, Order-Statuses and Stock-Levels through both modes on one
// database: the procedure returns what the interactive statements return (the stock quantities
// differ only by the first order's own effect, so they are not compared), and a rolled-back
// New-Order reports the o_id it used, the customer's last name and credit.
// On MySQL, TestProceduresInstallMySQL runs it on its loaded database.
func TestProceduresMatchInteractivePostgres(t *testing.T) {
	parallel(t)
	db, info := pgLoadedTestDB(t)
	procMatch(t, db, info)
}

// procMatch is the test on db, which holds txLoad's load (info its LoadInfo).
func procMatch(t *testing.T, db driver.DB, info LoadInfo) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := CreateProcedures(ctx, db); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	inter, proc := NewClient(db), procClient(t)(db)
	c := RunConstants(txTestSeed, info.C)
	r := gen.New(gen.Derive(txTestSeed, "proc-match"))
	iso := db.DefaultIsolation()
	rollbacks := 0
	for i := 0; i < 200; i++ {
		var no NewOrderInput
		GenNewOrder(r, c, 1, 1, &no)
		if i%40 == 3 {
			no.Rollback = true
			no.Lines[no.OLCnt-1].ItemID = UnusedItemID
		}
		no2 := no
		oi := inter.NewOrder(ctx, conn, &no, iso)
		op := proc.NewOrder(ctx, conn, &no2, iso)
		if oi.Err != nil || op.Err != nil || oi.RolledBack != op.RolledBack || op.RolledBack != no.Rollback {
			t.Fatalf("new-order %d: interactive %+v, procedure %+v (rollback %v)", i, oi, op, no.Rollback)
		}
		a, b := &inter.no, &proc.no
		if op.RolledBack {
			rollbacks++
			if b.oID != a.oID+1 && b.oID != a.oID {
				t.Errorf("rolled-back new-order %d: o_id %d, the interactive one used %d", i, b.oID, a.oID)
			}
			if b.cLast != a.cLast || b.cCredit != a.cCredit || b.missing != no.OLCnt-1 {
				t.Errorf("rolled-back new-order %d: c_last %q c_credit %q missing %d, want %q %q %d", i, b.cLast, b.cCredit, b.missing, a.cLast, a.cCredit, no.OLCnt-1)
			}
			continue
		}
		if b.oID != a.oID+1 {
			t.Errorf("new-order %d: procedure o_id %d after interactive %d", i, b.oID, a.oID)
		}
		if b.total != a.total || b.wTax != a.wTax || b.dTax != a.dTax || b.cDiscount != a.cDiscount || b.cLast != a.cLast || b.cCredit != a.cCredit {
			t.Errorf("new-order %d header: procedure %d %d %d %d %q %q, interactive %d %d %d %d %q %q", i,
				b.total, b.wTax, b.dTax, b.cDiscount, b.cLast, b.cCredit, a.total, a.wTax, a.dTax, a.cDiscount, a.cLast, a.cCredit)
		}
		for l := 0; l < no.OLCnt; l++ {
			ra, rb := &a.rows[a.lineRow[l]], &b.rows[b.lineRow[l]]
			if a.amount[l] != b.amount[l] || a.brand[l] != b.brand[l] || ra.name != rb.name || ra.price != rb.price || !rb.found {
				t.Errorf("new-order %d line %d: procedure %d %c %q %d, interactive %d %c %q %d", i, l+1,
					b.amount[l], b.brand[l], rb.name, rb.price, a.amount[l], a.brand[l], ra.name, ra.price)
			}
		}
	}
	if rollbacks < 4 {
		t.Errorf("%d rollbacks compared", rollbacks)
	}

	for i := 0; i < 200; i++ {
		var pay PaymentInput
		GenPayment(r, c, 1, 1, &pay)
		pay2 := pay
		if oi, op := inter.Payment(ctx, conn, &pay, iso), proc.Payment(ctx, conn, &pay2, iso); oi.Err != nil || op.Err != nil {
			t.Fatalf("payment %d: %+v %+v", i, oi, op)
		}
		a, b := inter.pay, proc.pay
		// the second payment of the same amount: the balance moved once more
		if a.c.balance-pay.AmountCents != b.c.balance {
			t.Errorf("payment %d: balance %d after %d, want %d", i, b.c.balance, a.c.balance, a.c.balance-pay.AmountCents)
		}
		a.c.balance, a.c.data, b.c.data = 0, "", ""
		b.c.balance = 0
		a.in, b.in, a.dest, b.dest, a.ids, b.ids = nil, nil, nil, nil, nil, nil
		if a.wName != b.wName || a.dName != b.dName || a.wAddr != b.wAddr || a.dAddr != b.dAddr || !a.c.since.Equal(b.c.since) {
			t.Errorf("payment %d: procedure %+v, interactive %+v", i, b, a)
		}
		a.c.since, b.c.since = time.Time{}, time.Time{}
		if a.c != b.c {
			t.Errorf("payment %d customer: procedure %+v, interactive %+v", i, b.c, a.c)
		}
	}

	for i := 0; i < 200; i++ {
		var os OrderStatusInput
		GenOrderStatus(r, c, 1, 1, &os)
		if oi, op := inter.OrderStatus(ctx, conn, &os, iso), proc.OrderStatus(ctx, conn, &os, iso); oi.Err != nil || op.Err != nil {
			t.Fatalf("order-status %d: %+v %+v", i, oi, op)
		}
		a, b := &inter.os, &proc.os
		if a.cID != b.cID || a.first != b.first || a.middle != b.middle || a.last != b.last || a.balance != b.balance ||
			a.oID != b.oID || !a.entryD.Equal(b.entryD) || a.carrierID != b.carrierID || a.nLines != b.nLines {
			t.Fatalf("order-status %d: procedure %+v, interactive %+v", i, b, a)
		}
		for l := 0; l < a.nLines; l++ {
			la, lb := a.lines[l], b.lines[l]
			if la.itemID != lb.itemID || la.supplyWID != lb.supplyWID || la.quantity != lb.quantity || la.amount != lb.amount ||
				la.delivered != lb.delivered || !la.deliveryD.Equal(lb.deliveryD) {
				t.Fatalf("order-status %d line %d: procedure %+v, interactive %+v", i, l+1, lb, la)
			}
		}
	}

	for i := 0; i < 100; i++ {
		var sl StockLevelInput
		GenStockLevel(r, c, 1, 1, &sl)
		d := 1 + i%DistrictsPerWarehouse
		oi, ni := inter.StockLevel(ctx, conn, 1, d, &sl, iso)
		op, np := proc.StockLevel(ctx, conn, 1, d, &sl, iso)
		if oi.Err != nil || op.Err != nil || ni != np {
			t.Fatalf("stock-level %d: interactive %+v %d, procedure %+v %d", i, oi, ni, op, np)
		}
	}
}

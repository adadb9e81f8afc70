package loadstate

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/userr"
)

// What the workloads' load, run and check share about their record: reading it with its options
// decoded, and the user errors for data that is missing, half-loaded or not the same on every
// endpoint.

// ReadRecord reads workload's row (Read) and decodes its options into a value of R. When nothing
// is recorded it returns Status NotFound and R's zero value; unreadable options are a user error.
func ReadRecord[R any](ctx context.Context, db driver.DB, workload string) (State, R, error) {
	var rec R
	st, err := Read(ctx, db, workload)
	if err != nil || st.Status == NotFound {
		return st, rec, err
	}
	if err := st.Decode(&rec); err != nil {
		var zero R
		return st, zero, userr.Errorf("%v", err)
	}
	return st, rec, nil
}

// NotLoadedError is the user error for a database with no load of workload: its data is needed
// for what (" to check"; "" for a run).
func NotLoadedError(db driver.DB, workload, what string) error {
	u := db.Redacted()
	return userr.Errorf("the database at %s has no candor %s data%s: run `candor %s load --db %s` first", u, workload, what, workload, u)
}

// HalfLoadedError is the user error for a load (st) that never completed.
// A sharded load says which shards' parts are not complete yet.
func HalfLoadedError(db driver.DB, st State) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if note := (Parts{Name: st.Workload}).Note(ctx, db); note != "" {
		return userr.Errorf("the %s load of %s is not complete (started %s UTC)%s: a run waits for every part",
			st.Workload, db.Redacted(), st.StartedAt.Format(time.DateTime), note)
	}
	return MarkHalfLoaded(userr.Errorf("the %s load of %s never completed (started %s UTC): it is half-loaded and must not be used; reload with candor %s load --drop --db %s",
		st.Workload, db.Redacted(), st.StartedAt.Format(time.DateTime), st.Workload, db.Redacted()))
}

// halfLoadedError marks the error of a load that never completed (MarkHalfLoaded).
type halfLoadedError struct{ error }

func (e halfLoadedError) Unwrap() error { return e.error }

// MarkHalfLoaded marks err as saying that the database holds a load that started and never
// completed (it failed or was interrupted), which IsHalfLoaded then recognises: the one-shot
// loads its own default SQLite file again rather than refuse it.
func MarkHalfLoaded(err error) error { return halfLoadedError{err} }

// IsHalfLoaded reports whether err says the database holds a load that never completed.
func IsHalfLoaded(err error) bool {
	var h halfLoadedError
	return errors.As(err, &h)
}

// ForRun reads the load a run uses with read (the workload's reading of its record, whose errors
// are returned as they are) and refuses one that is not complete: nothing loaded, or a half-loaded
// database, is a user error.
func ForRun[R any](ctx context.Context, db driver.DB, read func(context.Context, driver.DB) (State, R, error)) (State, R, error) {
	st, rec, err := read(ctx, db)
	if err != nil {
		return st, rec, err
	}
	switch st.Status {
	case NotFound:
		return st, rec, NotLoadedError(db, st.Workload, "")
	case HalfLoaded:
		return st, rec, HalfLoadedError(db, st)
	}
	return st, rec, nil
}

// ForCheck reads the load a check examines with read, as ForRun does; nothing loaded is a user
// error, a half-loaded database is returned for the check to report.
func ForCheck[R any](ctx context.Context, db driver.DB, read func(context.Context, driver.DB) (State, R, error)) (State, R, error) {
	st, rec, err := read(ctx, db)
	if err == nil && st.Status == NotFound {
		err = NotLoadedError(db, st.Workload, " to check")
	}
	return st, rec, err
}

// SameLoad checks that every endpoint holds db's load st: --db names nodes of one database. read is
// the workload's reading of its record (its errors are returned as they are), and same, when not
// nil, compares what it decoded with db's record. Another load, or none, is a user error.
func SameLoad[R any](ctx context.Context, db driver.DB, st State, endpoints []driver.DB, read func(context.Context, driver.DB) (State, R, error), same func(R) bool) error {
	for _, e := range endpoints {
		est, erec, err := read(ctx, e)
		if err != nil {
			return err
		}
		if est.Status != Completed || est.Seed != st.Seed || !est.StartedAt.Equal(st.StartedAt) || same != nil && !same(erec) {
			return userr.Errorf("the endpoint %s does not hold the %s load of %s (loaded %s UTC): every --db must name a node of the same database", e.Redacted(), st.Workload, db.Redacted(), st.StartedAt.Format(time.DateTime))
		}
	}
	return nil
}

// ForRunOrGiven is ForRun, except on the null engine (driver/null), which holds no data and needs no
// load: there it is a completed load of workload with the options the run was given, which given
// builds from the run's flags as the workload's load would have recorded them (its error is the
// run's), and seed (workload.SessionConfig.GivenLoadSeed).
func ForRunOrGiven[R any](ctx context.Context, db driver.DB, workload string, read func(context.Context, driver.DB) (State, R, error), given func() (R, error), seed uint64) (State, R, error) {
	if !IsNull(db) {
		return ForRun(ctx, db, read)
	}
	rec, err := given()
	if err != nil {
		return State{}, rec, err
	}
	opts, _ := json.Marshal(rec)
	return State{Status: Completed, Workload: workload, Options: opts, Seed: seed}, rec, nil
}

// IsNull reports whether db is the null engine, whose runs take their options as given (ForRunOrGiven).
func IsNull(db driver.DB) bool { return null.Is(db) }

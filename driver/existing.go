package driver

import "context"

type existingKey struct{}

// ExistingOnly marks ctx so that Open refuses a database that does not exist yet instead of
// creating it (an embedded engine's file: SQLite's): a run, a check or a drop works on a loaded
// database, and a mistyped path must not leave an empty file behind. A load opens without it.
// workload names what would load it, for the refusal's advice.
func ExistingOnly(ctx context.Context, workload string) context.Context {
	return context.WithValue(ctx, existingKey{}, workload)
}

// MustExist reports whether ctx was marked by ExistingOnly, and the workload it named.
func MustExist(ctx context.Context) (workload string, ok bool) {
	workload, ok = ctx.Value(existingKey{}).(string)
	return workload, ok
}

package loadstate

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/candor-bench/candor/driver"
)

// Claim is a workload's claim on the tables its load makes, so that another workload's load can
// tell whose a table is before it creates or drops one of that name (TPC-C and TPC-H both make
// customer and orders): a table belongs to a workload that claims its name and whose load the
// database records.
type Claim struct {
	// Workload is the workload's name, as recorded and as in `candor NAME`.
	Workload string
	// Owns reports whether a table named name (lower case) is one a load of the workload makes.
	Owns func(name string) bool
	// Recorded reports whether db records a load of the workload, complete or not; nil: its row
	// in candor_workloads (Read).
	Recorded func(ctx context.Context, db driver.DB) (bool, error)
}

var (
	claimsMu sync.Mutex
	claims   []Claim
)

// Register records a workload's claim (from its package's init).
func Register(c Claim) {
	claimsMu.Lock()
	defer claimsMu.Unlock()
	claims = append(claims, c)
}

// Names is an Owns for a fixed list of table names.
func Names(names ...string) func(string) bool {
	return func(n string) bool { return slices.Contains(names, n) }
}

// Owners is the workloads other than except that claim a table named table and whose load db
// records, sorted.
func Owners(ctx context.Context, db driver.DB, table, except string) ([]string, error) {
	claimsMu.Lock()
	cs := slices.Clone(claims)
	claimsMu.Unlock()
	name := strings.ToLower(table)
	var out []string
	for _, c := range cs {
		if c.Workload == except || !c.Owns(name) || slices.Contains(out, c.Workload) {
			continue
		}
		recorded := c.Recorded
		if recorded == nil {
			recorded = func(ctx context.Context, db driver.DB) (bool, error) {
				st, err := Read(ctx, db, c.Workload)
				return st.Status != NotFound, err
			}
		}
		ok, err := recorded(ctx, db)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, c.Workload)
		}
	}
	slices.Sort(out)
	return out, nil
}

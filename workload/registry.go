package workload

import (
	"fmt"
	"sort"
)

// Registration is one workload in the list: its name and how to make a fresh value.
type Registration struct {
	Name string
	New  func() Workload
}

var registry = map[string]Registration{}

// Register adds a workload to the list; workload/all calls it once per workload. It panics on a
// duplicate or empty name (a programming error).
func Register(r Registration) {
	if r.Name == "" || r.New == nil {
		panic("workload: Register needs a name and a constructor")
	}
	if _, dup := registry[r.Name]; dup {
		panic(fmt.Sprintf("workload: %q registered twice", r.Name))
	}
	registry[r.Name] = r
}

// Lookup returns the registration of name.
func Lookup(name string) (Registration, bool) {
	r, ok := registry[name]
	return r, ok
}

// Names lists the registered workloads, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// HasMode reports whether the workload runs in mode m.
func (i Info) HasMode(m Mode) bool {
	for _, x := range i.Modes {
		if x == m {
			return true
		}
	}
	return false
}

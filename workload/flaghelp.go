package workload

import "github.com/spf13/pflag"

// The groups of a command's help (cmd/candor's help.go), in the order they are shown, after the key
// flags of every group (KeyFlags: the few most runs set). A flag names its group in the annotation
// FlagGroupKey; a workload's own flags without one are shown under GroupWorkload.
const (
	FlagGroupKey = "candor_group"
	FlagKeyKey   = "candor_key"

	GroupDatabase = "database" // --db, --dialect
	GroupWorkload = "workload" // what to run (or load): the workload's own key options
	GroupLoading  = "loading"  // the load's own: loaders, its seed, --drop
	GroupShape    = "shape"    // mode and load shape: --mode, --terminals, --rate, --connections
	GroupMeasure  = "measure"  // --duration, --warmup, the check, the failure bound
	GroupOutput   = "output"   // --out, --quiet, live metrics
	GroupScale    = "scale"    // --shard and its kin: several driver processes
)

// KeyFlags marks the named flags of fs (those it holds) as the ones a user sets first: they are
// shown first, before the groups.
func KeyFlags(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if fs.Lookup(n) != nil {
			_ = fs.SetAnnotation(n, FlagKeyKey, []string{"true"})
		}
	}
}

// FlagGroup puts the named flags of fs (those it holds) in group, one of the Group constants.
func FlagGroup(fs *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		if fs.Lookup(n) != nil {
			_ = fs.SetAnnotation(n, FlagGroupKey, []string{group})
		}
	}
}

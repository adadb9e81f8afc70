package merge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// ShardID is a shard's place in its sharded run and Clock where its window lay on its host's wall
// clock, as its result.json says them (report.Shard, report.Clock).
type (
	ShardID = report.Shard
	Clock   = report.Clock
)

// Shard is one shard's saved run, read from its --out directory.
type Shard struct {
	Dir    string
	Result *report.Result
	ID     *ShardID
	Clock  *Clock
	// Plan is the result's plan decoded generically (for the comparison of the shards' plans).
	Plan map[string]any
	// Details are result.json's "details" as written (a workload's Merger decodes them into its
	// own types: large integers intact).
	Details json.RawMessage
	// Merged: the directory holds a merged run (its plan's shard lists the shards merged), not a
	// shard.
	Merged bool
}

// shardMeta are the parts of result.json the merge reads besides report.Result.
type shardMeta struct {
	Shard   *ShardID        `json:"shard"`
	Clock   *Clock          `json:"clock"`
	Plan    map[string]any  `json:"plan"`
	Details json.RawMessage `json:"details"`
}

// ReadShard reads the run saved in dir (its result.json; the interval log is read by Merge).
func ReadShard(dir string) (*Shard, error) {
	path := filepath.Join(dir, report.ResultFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, userr.Errorf("%s has no %s: pass the --out directory of each shard's run", dir, report.ResultFile)
		}
		return nil, userr.Errorf("cannot read %s: %v", path, err)
	}
	r, err := report.Parse(b, path)
	if err != nil {
		return nil, err
	}
	var m shardMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, userr.Errorf("%s is not a candor result (%v)", path, err)
	}
	s := &Shard{Dir: dir, Result: r, ID: m.Shard, Clock: m.Clock, Plan: m.Plan, Details: m.Details, Merged: len(r.Shards) > 0}
	if s.Merged {
		s.ID = nil
	}
	if s.ID == nil && !s.Merged && m.Plan != nil { // the plan's copy, when the envelope lacks it
		if raw, ok := m.Plan["shard"]; ok {
			if b, err := json.Marshal(raw); err == nil {
				var id ShardID
				if json.Unmarshal(b, &id) == nil && id.Count > 0 {
					s.ID = &id
				}
			}
		}
	}
	return s, nil
}

// ignoredPlanKeys are the plan's keys that may differ between the shards of one run: where each
// wrote, its own share of terminals and connections, its derived seed, its shard, and the options
// compared apart (comparable).
var ignoredPlanKeys = map[string]bool{
	"out": true, "seed": true, "seed_given": true, "terminals": true, "connections": true,
	"metrics_addr": true, "shard": true, "options": true, "check": true, "check_full": true,
	"endpoints": true,
}

// shardOptionKey says whether a workload option is a shard's own part (its range of the data, its
// share of workers), which differs between the shards of one run by design.
func shardOptionKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "shard") || strings.Contains(k, "range") || k == "delivery_workers" ||
		k == "terminals" || k == "connections"
}

// Check says whether shards belong to one sharded run and may be merged: the same workload, mode,
// database, plan (the workload's options apart from each shard's range), root seed and shard
// count, each index once, finished runs, and operations in the same order. It returns the indexes
// of missing shards (allowed only with partial) or a user error listing every reason to refuse.
func Check(shards []*Shard, partial bool) (missing []int, err error) {
	var why []string
	add := func(format string, a ...any) { why = append(why, fmt.Sprintf(format, a...)) }
	if len(shards) == 0 {
		return nil, userr.Errorf("no shard given: pass the --out directory of each shard's run")
	}
	for _, s := range shards {
		if s.Merged {
			add("%s is a merged run already (of %d shards), not a shard: merge the shards' own directories", s.Dir, len(s.Result.Shards))
			continue
		}
		if s.ID == nil || s.ID.Count < 1 {
			add("%s is not a shard's result (its result.json has no \"shard\"): merge the runs of one `--shard i/N` (or --shards N) run", s.Dir)
		}
	}
	if len(why) > 0 {
		return nil, refuse(why)
	}
	first := shards[0]
	r0 := first.Result
	byIndex := map[int]string{}
	for _, s := range shards {
		r := s.Result
		if r.Workload != r0.Workload {
			add("%s ran workload %s, %s ran %s", s.Dir, r.Workload, first.Dir, r0.Workload)
		}
		if r.Mode != r0.Mode {
			add("%s ran in mode %s, %s in mode %s", s.Dir, r.Mode, first.Dir, r0.Mode)
		}
		if s.ID.Count != first.ID.Count {
			add("%s is a shard of %d, %s of %d: they are not the same sharded run", s.Dir, s.ID.Count, first.Dir, first.ID.Count)
		}
		if s.ID.RootSeed != first.ID.RootSeed {
			add("%s has root seed %d, %s %d: they are not the same sharded run (give every shard the same --seed)", s.Dir, s.ID.RootSeed, first.Dir, first.ID.RootSeed)
		}
		if s.ID.Index < 0 || s.ID.Index >= s.ID.Count {
			add("%s says it is shard %d of %d, which does not exist", s.Dir, s.ID.Index, s.ID.Count)
		}
		if d, ok := byIndex[s.ID.Index]; ok {
			add("%s and %s are both shard %d: shards overlap (merge each shard once)", d, s.Dir, s.ID.Index)
		}
		byIndex[s.ID.Index] = s.Dir
		if r.Database.Kind != r0.Database.Kind || r.Database.URL != r0.Database.URL {
			add("%s ran on %s (%s), %s on %s (%s): not the same database", s.Dir, r.Database.URL, r.Database.Kind, first.Dir, r0.Database.URL, r0.Database.Kind)
		}
		if !slices.Equal(r.OpOrder, r0.OpOrder) {
			add("%s has operations %v, %s has %v", s.Dir, r.OpOrder, first.Dir, r0.OpOrder)
		}
		if r.Partial && !partial {
			add("%s is a partial result (%s): re-run that shard, or pass --partial to merge it and mark the merged result partial", s.Dir, r.PartialReason)
		}
		if s != first {
			for _, d := range planDiffs(first.Plan, s.Plan) {
				add("%s and %s differ in %s: the shards of one run are given the same flags (apart from --shard and --out)", first.Dir, s.Dir, d)
			}
		}
	}
	if len(why) > 0 {
		return nil, refuse(why)
	}
	for i := 0; i < first.ID.Count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 && !partial {
		return missing, userr.Errorf("shard%s %s of %d missing: pass every shard's directory, or --partial to merge those given (the merged result is then partial and its totals cover only them)",
			plural(len(missing)), joinInts(missing), first.ID.Count)
	}
	return missing, nil
}

// planDiffs lists the plan's keys (options.KEY for the workload's) whose values differ between a
// and b, apart from what differs between shards by design.
func planDiffs(a, b map[string]any) []string {
	var out []string
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		if ignoredPlanKeys[k] {
			continue
		}
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, fmt.Sprintf("%s (%v against %v)", k, show(a[k]), show(b[k])))
		}
	}
	oa, _ := a["options"].(map[string]any)
	ob, _ := b["options"].(map[string]any)
	okeys := map[string]bool{}
	for k := range oa {
		okeys[k] = true
	}
	for k := range ob {
		okeys[k] = true
	}
	for k := range okeys {
		if shardOptionKey(k) {
			continue
		}
		if !reflect.DeepEqual(oa[k], ob[k]) {
			out = append(out, fmt.Sprintf("options.%s (%v against %v)", k, show(oa[k]), show(ob[k])))
		}
	}
	sort.Strings(out)
	return out
}

func show(v any) string {
	if v == nil {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func refuse(why []string) error {
	if len(why) == 1 {
		return userr.Errorf("cannot merge: %s", why[0])
	}
	return userr.Errorf("cannot merge, %d reasons:\n  - %s", len(why), strings.Join(why, "\n  - "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

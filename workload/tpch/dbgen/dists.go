package dbgen

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// distsDSS is dbgen's distributions file, dists.dss, as the TPC ships it with dbgen (the value
// sets and weights of clause 4.2.2.13 and the text grammar of clause 4.2.2.14).
//
//go:embed dists.dss
var distsDSS string

// dist is one distribution of dists.dss: its values with their weights (cumulative, as dbgen keeps
// them), and the table that picks a value by one draw in [0, total weight).
type dist struct {
	values  []string
	weights []int32 // cumulative
	pick    []string
	max     int32
}

func newDist(values []string, weights []int32) *dist {
	d := &dist{values: values, weights: make([]int32, len(weights)), max: -1}
	valid := true
	var run int32
	for i, w := range weights {
		run += w
		d.weights[i] = run
		valid = valid && w > 0
	}
	if valid && len(weights) > 0 {
		d.max = run
		d.pick = make([]string, 0, run)
		for i, w := range weights {
			for range w {
				d.pick = append(d.pick, values[i])
			}
		}
	}
	return d
}

// random draws a value as dbgen's pick_str does: one draw in [0, total weight - 1].
func (d *dist) random(r *rowRand) string {
	return d.pick[r.nextInt(0, d.max-1)]
}

// dists are the distributions the generator uses.
type dists struct {
	articles, adjectives, adverbs, auxiliaries, grammar, segments, nations, np, nouns, priorities,
	colors, containers, types, prepositions, regions, returnFlags, instructions, modes, terminators,
	vp, verbs *dist
}

var (
	distsOnce sync.Once
	theDists  *dists
)

// loadDists parses dists.dss once.
func loadDists() *dists {
	distsOnce.Do(func() {
		all, err := parseDists(distsDSS)
		if err != nil {
			panic(err) // the embedded file is fixed: a parse error is a bug, caught by every test
		}
		get := func(name string) *dist {
			d, ok := all[name]
			if !ok {
				panic("dbgen: dists.dss has no distribution " + name)
			}
			return d
		}
		theDists = &dists{
			articles: get("articles"), adjectives: get("adjectives"), adverbs: get("adverbs"),
			auxiliaries: get("auxillaries"), grammar: get("grammar"), segments: get("msegmnt"),
			nations: get("nations"), np: get("np"), nouns: get("nouns"), priorities: get("o_oprio"),
			colors: get("colors"), containers: get("p_cntr"), types: get("p_types"),
			prepositions: get("prepositions"), regions: get("regions"), returnFlags: get("rflag"),
			instructions: get("instruct"), modes: get("smode"), terminators: get("terminators"),
			vp: get("vp"), verbs: get("verbs"),
		}
	})
	return theDists
}

// parseDists reads dists.dss: "BEGIN name", lines "value|weight" (the "count" line skipped), "END";
// lines starting with '#' are comments.
func parseDists(text string) (map[string]*dist, error) {
	out := map[string]*dist{}
	var (
		name    string
		in      bool
		values  []string
		weights []int32
	)
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !in {
			f := strings.Fields(line)
			if len(f) == 2 && strings.EqualFold(f[0], "BEGIN") {
				name, in, values, weights = f[1], true, nil, nil
			}
			continue
		}
		if f := strings.Fields(line); len(f) > 0 && strings.EqualFold(f[0], "END") {
			out[name] = newDist(values, weights)
			in = false
			continue
		}
		v, w, ok := strings.Cut(line, "|")
		if !ok {
			return nil, fmt.Errorf("dists.dss line %d: %q is not value|weight", n+1, line)
		}
		wt, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil {
			return nil, fmt.Errorf("dists.dss line %d: weight %q: %w", n+1, w, err)
		}
		if strings.EqualFold(v, "count") {
			continue
		}
		values, weights = append(values, v), append(weights, int32(wt))
	}
	if in {
		return nil, fmt.Errorf("dists.dss: distribution %s has no END", name)
	}
	return out, nil
}

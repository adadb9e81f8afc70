package tpcc

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// Several endpoints of one database (the nodes of a CockroachDB or YugabyteDB cluster, given as
// --db URL --db URL ...): the terminals are spread over them by home warehouse, warehouse w on
// endpoint (w-1) mod E, so every node serves whole warehouses and a multi-node cluster is driven
// evenly. Each endpoint has its own connections, in proportion to its terminals (at least one),
// and the scheduler runs an endpoint's terminals only on its own connections (schedule.Config's
// groups), so waiting for a connection stays a per-endpoint queue measured as response time. The
// deferred Deliveries of a warehouse run on a connection to the warehouse's endpoint too.

// EndpointOf is the endpoint (0-based) of warehouse w among e endpoints.
func EndpointOf(w, e int) int { return (w - 1) % e }

// EndpointCounts are one endpoint's figures over the measurement interval: the terminals'
// transactions (the five types) and the deferred Deliveries run on its connections.
type EndpointCounts struct {
	Terminals, Connections int
	// Transactions completed (business rollbacks included), Errors after retries, Retries of whole
	// transactions, as in the per-type totals.
	Transactions, Errors, Retries int64
	// Deferred Deliveries completed, failed and retried on the endpoint's delivery connections.
	DeferredDeliveries, DeferredErrors, DeferredRetries int64
}

// endpointSpread says which endpoint each terminal and each connection uses.
type endpointSpread struct {
	dbs       []driver.DB // index 0 is the run's db
	termGroup []int       // terminal -> endpoint
	slotGroup []int       // connection (worker slot) -> endpoint
	terminals []int       // terminals per endpoint
	conns     []int       // connections per endpoint
}

// spreadEndpoints spreads terms over db and more: terminals by home warehouse, then the
// connections in proportion to the terminals (largest remainder, at least one each). A single
// endpoint gives nil groups, which the scheduler reads as one group.
func spreadEndpoints(db driver.DB, more []driver.DB, terms []*terminal, connections int) (*endpointSpread, error) {
	s := &endpointSpread{dbs: append([]driver.DB{db}, more...)}
	e := len(s.dbs)
	s.terminals = make([]int, e)
	s.conns = make([]int, e)
	if e == 1 {
		s.terminals[0], s.conns[0] = len(terms), connections
		return s, nil
	}
	s.termGroup = make([]int, len(terms))
	for i, t := range terms {
		g := EndpointOf(int(t.w), e)
		s.termGroup[i] = g
		s.terminals[g]++
	}
	for g, n := range s.terminals {
		if n == 0 {
			return nil, userr.Errorf("endpoint %d of %d (%s) gets no terminal: terminals are spread by warehouse, so give at least as many warehouses and terminals as --db endpoints", g+1, e, s.dbs[g].Redacted())
		}
	}
	if connections < e {
		return nil, userr.Errorf("%d connections cannot serve %d endpoints: give --connections %d or more", connections, e, e)
	}
	s.conns = proportional(connections, s.terminals)
	for g, n := range s.conns {
		for range n {
			s.slotGroup = append(s.slotGroup, g)
		}
	}
	return s, nil
}

// proportional splits total over weights (all positive) in proportion, by largest remainder,
// giving each at least 1 (total >= len(weights)).
func proportional(total int, weights []int) []int {
	sum := 0
	for _, w := range weights {
		sum += w
	}
	out := make([]int, len(weights))
	rem := make([]int, len(weights))
	given := 0
	for i, w := range weights {
		out[i] = max(1, total*w/sum)
		rem[i] = total * w % sum
		given += out[i]
	}
	for given < total { // hand out the rest by largest remainder
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
		given++
	}
	for given > total { // the minimum of 1 overshot: take from the largest
		big := 0
		for i := range out {
			if out[i] > out[big] {
				big = i
			}
		}
		out[big]--
		given--
	}
	return out
}

// deliveryWorkers rounds n deferred-delivery workers up to a multiple of the endpoints, so that
// worker (w-1) mod n serves only warehouses of endpoint ((w-1) mod n) mod E = (w-1) mod E.
func (s *endpointSpread) deliveryWorkers(n int) int {
	e := len(s.dbs)
	return (n + e - 1) / e * e
}

// deliveryDB is the endpoint deferred-delivery worker i uses.
func (s *endpointSpread) deliveryDB(i int) driver.DB { return s.dbs[i%len(s.dbs)] }

// endpointTally counts one connection's measured outcomes; each is written by one goroutine at a
// time (its worker) and read after the run.
type endpointTally struct {
	done, errs, retries atomic.Int64
}

func (t *endpointTally) add(measured bool, err error, retries int) {
	if !measured {
		return
	}
	if err != nil {
		t.errs.Add(1)
	} else {
		t.done.Add(1)
	}
	t.retries.Add(int64(retries))
}

// counts sums the tallies of the terminals' connections and of the delivery workers by endpoint.
func (s *endpointSpread) counts(slots []slot, dq *deferredQueue) []EndpointCounts {
	out := make([]EndpointCounts, len(s.dbs))
	for g := range out {
		out[g].Terminals, out[g].Connections = s.terminals[g], s.conns[g]
	}
	for i := range slots {
		g := 0
		if s.slotGroup != nil {
			g = s.slotGroup[i]
		}
		t := &slots[i].tally
		out[g].Transactions += t.done.Load()
		out[g].Errors += t.errs.Load()
		out[g].Retries += t.retries.Load()
	}
	if dq != nil {
		for i := range dq.tallies {
			g := i % len(s.dbs)
			t := &dq.tallies[i]
			out[g].DeferredDeliveries += t.done.Load()
			out[g].DeferredErrors += t.errs.Load()
			out[g].DeferredRetries += t.retries.Load()
		}
	}
	return out
}

// StockLevelIsolation is the level Stock-Level runs at in a run at iso: read committed when iso is
// stronger, as clause 2.8.2.1 allows (runner.go's stockLevelIsolation).
func StockLevelIsolation(iso driver.Isolation) driver.Isolation { return stockLevelIsolation(iso) }

// checkEndpoints checks that the run's further endpoints (o.Endpoints) can be spread over and hold
// the same load as the first: the same seed, warehouses and start in candor_load. It finishes
// resolving o: at least one connection per endpoint.
func checkEndpoints(ctx context.Context, o *RunOptions, info LoadInfo, c workload.SessionConfig) error {
	if len(o.Endpoints) == 0 {
		return nil
	}
	e := 1 + len(o.Endpoints)
	if o.Warehouses < e {
		return userr.Errorf("%d warehouses cannot be spread over %d endpoints: terminals are spread by warehouse, so give at most %d --db endpoints", o.Warehouses, e, o.Warehouses)
	}
	if o.Mode == ModeThroughput && o.Terminals < e {
		return userr.Errorf("%d terminals cannot be spread over %d endpoints: give --terminals %d or more", o.Terminals, e, e)
	}
	o.Connections = max(o.Connections, e)
	for i, ep := range o.Endpoints {
		li, err := ReadLoadInfo(ctx, ep)
		if err != nil {
			return err
		}
		if li.Seed != info.Seed || li.Warehouses != info.Warehouses || !li.StartedAt.Equal(info.StartedAt) {
			return userr.Errorf("endpoint %d (%s) holds another TPC-C load (%d warehouses, seed %d, loaded %s) than the first --db (%d warehouses, seed %d, loaded %s): every --db must reach the same database",
				i+2, ep.Redacted(), li.Warehouses, li.Seed, li.StartedAt.Format(time.RFC3339), info.Warehouses, info.Seed, info.StartedAt.Format(time.RFC3339))
		}
	}
	if c.Note != nil {
		c.Note(fmt.Sprintf("spreading the terminals over %d endpoints by warehouse (warehouse w on endpoint (w-1) mod %d): %s", e, e, strings.Join(c.EndpointURLs, ", ")))
	}
	return nil
}

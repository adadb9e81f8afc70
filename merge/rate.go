package merge

import (
	"fmt"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
)

// mergeRate is the open-loop part of a merged run (mode rate): each shard drove rate/N, so the
// target, offered and achieved rates, the arrivals, drops and unfinished ones add up, over the whole
// window and step by step (the shards' steps are the same steps of a common --start-at); the lag of
// every arrival is the merged operations' lag histograms added, and each step's response, service
// and lag percentiles come from the merged intervals inside the step, added bucket by bucket
// (lm.steps). The backlog bounds add up (each shard has its own), and the deepest backlogs too: the
// merged figure is an upper bound of the shards' backlogs at any one moment. Sustained: every shard
// sustained it. The lag's split into timer lateness and connection wait over the window is the
// shards' histograms of it (kept in their results) added; per step the shards keep only its
// percentiles, so each step's split is left empty and marked PerShard; notes give each shard's own.
func mergeRate(shards []*Shard, tot *measure.Totals, res *report.Result, lm *logMerge) (*report.RateResult, []string) {
	r0 := shards[0].Result.Rate
	if r0 == nil {
		return nil, nil
	}
	rr := &report.RateResult{Arrivals: r0.Arrivals, Sustained: true, PerShard: true, Backlog: []report.BacklogSample{}}
	lag := measure.NewHistogram()
	for op, name := range tot.Ops {
		if t := res.Operations[name]; t != nil && t.PartOf == "" {
			measure.Merge(lag, tot.Hist[op][measure.Lag])
		}
	}
	rr.LagMs = measure.Summarize(lag)
	var notes []string
	// The lag's split over the window: the shards' histograms added, when every shard kept them.
	late, wait, split := measure.NewHistogram(), measure.NewHistogram(), true
	for _, s := range shards {
		x := s.Result.Rate
		if x == nil {
			continue
		}
		hl, err1 := measure.DecodeHist(x.TimerLatenessHist)
		hw, err2 := measure.DecodeHist(x.ConnectionWaitHist)
		if x.TimerLatenessHist == "" || x.ConnectionWaitHist == "" || err1 != nil || err2 != nil ||
			measure.Merge(late, hl) != nil || measure.Merge(wait, hw) != nil {
			split = false
		}
	}
	if split {
		rr.TimerLatenessMs, rr.ConnectionWaitMs = measure.Summarize(late), measure.Summarize(wait)
		rr.TimerLatenessHist, rr.ConnectionWaitHist = measure.EncodeHist(late), measure.EncodeHist(wait)
	}
	for _, s := range shards {
		x := s.Result.Rate
		if x == nil {
			continue
		}
		rr.TargetRate += x.TargetRate
		rr.OfferedRate += x.OfferedRate
		rr.AchievedRate += x.AchievedRate
		rr.Arrived += x.Arrived
		rr.Dropped += x.Dropped
		rr.Incomplete += x.Incomplete
		rr.MaxBacklog += x.MaxBacklog
		rr.MaxBacklogSeen += x.MaxBacklogSeen
		rr.WarmupArrived += x.WarmupArrived
		rr.WarmupDropped += x.WarmupDropped
		rr.Sustained = rr.Sustained && x.Sustained
		notes = append(notes, fmt.Sprintf("shard %d's open loop: target %.1f/s, achieved %.1f/s, %d dropped; timer lateness p99 %.3f ms, connection wait p99 %.3f ms",
			s.ID.Index, x.TargetRate, x.AchievedRate, x.Dropped, x.TimerLatenessMs.P99, x.ConnectionWaitMs.P99))
		for k, st := range x.Steps {
			if k >= len(rr.Steps) {
				rr.Steps = append(rr.Steps, report.RateStep{Step: st.Step, StartSeconds: st.StartSeconds, Seconds: st.Seconds,
					Sustained: true, Transactions: map[string]*report.StepTx{}})
			}
			m := &rr.Steps[k]
			m.TargetRate += st.TargetRate
			m.OfferedRate += st.OfferedRate
			m.AchievedRate += st.AchievedRate
			m.Arrived += st.Arrived
			m.Dropped += st.Dropped
			m.Completed += st.Completed
			m.Errors += st.Errors
			m.Incomplete += st.Incomplete
			m.MaxBacklog += st.MaxBacklog
			m.Sustained = m.Sustained && st.Sustained
			for name, t := range st.Transactions {
				if mt := m.Transactions[name]; mt != nil {
					mt.Count += t.Count
					mt.Errors += t.Errors
					mt.PerSecond += t.PerSecond
				} else {
					m.Transactions[name] = &report.StepTx{Count: t.Count, Errors: t.Errors, PerSecond: t.PerSecond}
				}
			}
		}
	}
	// Each step's percentiles, from its intervals' histograms summed (a step the logs do not
	// cover, as in a log of another interval, keeps none).
	for k := range rr.Steps {
		if k >= len(lm.steps) {
			break
		}
		acc, st := &lm.steps[k], &rr.Steps[k]
		lag := measure.NewHistogram()
		for op, name := range tot.Ops {
			t := st.Transactions[name]
			h := acc.hist[op]
			if t == nil || h[measure.Response].TotalCount() == 0 {
				continue
			}
			t.ResponseMs, t.ServiceMs = measure.Summarize(h[measure.Response]), measure.Summarize(h[measure.Service])
			if r := res.Operations[name]; r != nil && r.PartOf == "" {
				measure.Merge(lag, h[measure.Lag])
			}
		}
		st.LagMs = measure.Summarize(lag)
	}
	return rr, notes
}

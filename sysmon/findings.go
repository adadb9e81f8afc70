package sysmon

import (
	"fmt"
	"github.com/candor-bench/candor/report"
	"math"
	"sort"
	"strings"
)

// Thresholds of the findings: conditions a sample of the window shows, which the run reports as
// warnings with the samples' figures (each only when a sample of the window has its evidence).
const (
	// CPUSaturatedPct, CPUInterruptShare and CPUInterruptTimePct: a core busy past
	// CPUSaturatedPct% in a sample while it handled more than CPUInterruptShare of the host's
	// device interrupts and spent at least CPUInterruptTimePct% of its time in interrupts and
	// softirqs, and another core was not saturated (IRQ_CPU_SATURATED): the interrupts of a device
	// (a NIC, a disk) land on one core, which then limits the host. The cores' own interrupts (local timer, IPIs) follow where work
	// runs and do not count.
	CPUSaturatedPct     = 90.0
	CPUInterruptShare   = 0.8
	CPUInterruptTimePct = 5.0
	// DeviceUtilPct and DeviceQueue: a device with I/O in flight past DeviceUtilPct% of a sample's
	// interval and more than DeviceQueue requests in flight on average (DEVICE_SATURATED):
	// requests queue for it. Utilisation alone does not say it (a device serving one request at a
	// time is 100% utilised and not queueing; a deep one serves many at once).
	DeviceUtilPct = 90.0
	DeviceQueue   = 2.0
)

// Finding is a condition the window's samples showed, and the evidence: Code is the run's warning
// code, Message its sentence with the figures.
type Finding struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// watch keeps the evidence of the findings over the window's samples, one sample at a time (the
// samples themselves are not kept).
type watch struct {
	samples int
	swap    struct {
		n             int
		first         float64
		maxIn, maxOut float64
		sumIn, sumOut float64
	}
	irqCPU  map[string]*irqEvidence
	devices map[string]*devEvidence
}

type irqEvidence struct {
	n                          int
	first                      float64
	maxBusy, maxShare, maxIRQs float64
	maxTime                    float64
	other                      string  // the idlest other core in those samples
	room                       float64 // its busy share then
}

type devEvidence struct {
	n                         int
	first                     float64
	maxUtil, maxQueue, maxAwt float64
}

func newWatch() *watch {
	return &watch{irqCPU: map[string]*irqEvidence{}, devices: map[string]*devEvidence{}}
}

// add looks at one sample of the window (t: its time since the start).
func (w *watch) add(t float64, v map[string]float64) {
	w.samples++
	in, out := v["host.swap.in_bytes_per_s"], v["host.swap.out_bytes_per_s"]
	if in > 0 || out > 0 {
		s := &w.swap
		if s.n == 0 {
			s.first = t
		}
		s.n++
		s.maxIn, s.maxOut = max(s.maxIn, in), max(s.maxOut, out)
		s.sumIn, s.sumOut = s.sumIn+in, s.sumOut+out
	}
	cpus := 0
	for k := range v {
		if strings.HasPrefix(k, "host.cpu") && strings.HasSuffix(k, ".busy_pct") && k != "host.cpu.busy_pct" {
			cpus++
		}
	}
	// idlest is the least busy core other than cpu: the room the host had elsewhere.
	idlest := func(cpu string) (string, float64) {
		name, least := "", math.Inf(1)
		for k, b := range v {
			if c, ok := strings.CutSuffix(k, ".busy_pct"); ok && strings.HasPrefix(c, "host.cpu") && c != "host.cpu" && c != cpu && b < least {
				name, least = strings.TrimPrefix(c, "host."), b
			}
		}
		return name, least
	}
	if total := v["host.device_irqs_per_s"]; total > 0 && cpus >= 2 {
		for k, irqs := range v {
			cpu, ok := strings.CutSuffix(k, ".device_irqs_per_s")
			if !ok || !strings.HasPrefix(cpu, "host.cpu") {
				continue
			}
			busy, ok := v[cpu+".busy_pct"]
			share := irqs / total
			if !ok || busy <= CPUSaturatedPct || share <= CPUInterruptShare {
				continue
			}
			irqTime, ok := v[cpu+".irq_pct"]
			if !ok || irqTime < CPUInterruptTimePct {
				continue
			}
			other, room := idlest(cpu)
			if room >= CPUSaturatedPct { // every core was busy: the interrupts' core is not the limit
				continue
			}
			name := strings.TrimPrefix(cpu, "host.")
			e := w.irqCPU[name]
			if e == nil {
				e = &irqEvidence{first: t}
				w.irqCPU[name] = e
			}
			e.n++
			e.maxBusy, e.maxShare, e.maxIRQs = max(e.maxBusy, busy), max(e.maxShare, share), max(e.maxIRQs, irqs)
			e.maxTime = max(e.maxTime, irqTime)
			if e.other == "" || room < e.room {
				e.other, e.room = other, room
			}
		}
	}
	for k, util := range v {
		dev, ok := strings.CutSuffix(k, ".util_pct")
		if !ok || !strings.HasPrefix(dev, "disk.") {
			continue
		}
		q := v[dev+".queue"]
		if util <= DeviceUtilPct || q <= DeviceQueue {
			continue
		}
		name := strings.TrimPrefix(dev, "disk.")
		e := w.devices[name]
		if e == nil {
			e = &devEvidence{first: t}
			w.devices[name] = e
		}
		e.n++
		e.maxUtil, e.maxQueue, e.maxAwt = max(e.maxUtil, util), max(e.maxQueue, q), max(e.maxAwt, v[dev+".await_ms"])
	}
}

// findings are SWAP_ACTIVE, IRQ_CPU_SATURATED and DEVICE_SATURATED, each with its evidence.
func (w *watch) findings() []Finding {
	var out []Finding
	of := func(n int) string { return fmt.Sprintf("%d of the window's %d samples", n, w.samples) }
	if s := w.swap; s.n > 0 {
		out = append(out, Finding{Code: "SWAP_ACTIVE", Message: fmt.Sprintf(
			"the host swapped during the window (%s, the first at %.0f s): up to %s/s swapped in and %s/s out (%s in and %s out per second on average over those samples); memory was short, so latencies include page-ins from swap",
			of(s.n), s.first, report.BytesIEC(s.maxIn), report.BytesIEC(s.maxOut), report.BytesIEC(s.sumIn/float64(s.n)), report.BytesIEC(s.sumOut/float64(s.n)))})
	}
	for _, name := range sortedKeys(w.irqCPU) {
		e := w.irqCPU[name]
		out = append(out, Finding{Code: "IRQ_CPU_SATURATED", Message: fmt.Sprintf(
			"%s was more than %.0f%% busy while it handled more than %.0f%% of the host's device interrupts in %s (the first at %.0f s): up to %.0f%% busy, %.0f%% of the device interrupts (%.0f/s), %.0f%% of its time in interrupts and softirqs, while %s was as little as %.0f%% busy; the interrupts of a device land on one core, which limits the host before its other cores are busy (spread them: irqbalance, RSS, the device's smp_affinity)",
			name, CPUSaturatedPct, 100*CPUInterruptShare, of(e.n), e.first, e.maxBusy, 100*e.maxShare, e.maxIRQs, e.maxTime, e.other, e.room)})
	}
	for _, name := range sortedKeys(w.devices) {
		e := w.devices[name]
		out = append(out, Finding{Code: "DEVICE_SATURATED", Message: fmt.Sprintf(
			"disk %s was saturated in %s (the first at %.0f s): more than %.0f%% utilised with more than %.0f requests in flight on average, up to %.0f%% utilised, %.1f in flight and %.1f ms await; requests queued for the device, so latencies include its queue",
			name, of(e.n), e.first, DeviceUtilPct, DeviceQueue, e.maxUtil, e.maxQueue, e.maxAwt)})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

"""sysbench-compare.py DIR PAIRS "TESTS" [PREFIX ["CANDOR TOOLS"]]: the figures of scripts/bench's section 7 from the
files its runs left in DIR (PREFIX-TOOL-TEST-N.{out,cpu,calls} and candor's results directory
PREFIX-candor-TEST-N): per run tx/s, latency, statements per transaction as the server counted them
(.calls), the driver's CPU per transaction and the host's load average at the run's end (.cpu); per
test each candor tool's tx/s over sysbench's (the tools: "candor" and scripts/bench's
candor-KIND of PG_SOCKETS).

Each run also shows the steal of its busiest-stolen CPU (.cpu.steal, from scripts/childcpu.py): the
share of that CPU's time the hypervisor gave another guest. The ratio is of the medians over the
quiet runs, those whose every CPU had at most SB_MAX_STEAL percent (default 5, as candor's
CPU_STOLEN), when each tool has one; the verdict line says how many runs that left, and falls back to
every run (saying so) when a tool has none."""
import json
import os
import re
import statistics
import sys

max_steal = float(os.environ.get("SB_MAX_STEAL", "5"))


def steal_of(base):
    """The highest per-CPU steal percentage of the run, or None when it was not recorded."""
    try:
        f = open(base + ".cpu.steal").read().split()
    except OSError:
        return None
    vals = [float(x) for x in f[1::2]]
    return max(vals) if vals else None


tmp, pairs, tests = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
prefix = sys.argv[4] if len(sys.argv) > 4 else "sb"
candors = sys.argv[5].split() if len(sys.argv) > 5 else ["candor"]
for t in tests:
    tps = {t: [] for t in ["sysbench"] + candors}
    quiet = {t: [] for t in ["sysbench"] + candors}
    for i in range(1, pairs + 1):
        for tool in ["sysbench"] + candors:
            b = "%s/%s-%s-%s-%d" % (tmp, prefix, tool, t, i)
            cpu, load = (float(x) for x in open(b + ".cpu").read().split())
            calls = int(open(b + ".calls").read().strip() or 0)
            if tool == "sysbench":
                out = open(b + ".out").read()
                done = int(re.search(r"transactions:\s+(\d+)", out).group(1))
                rate = done / float(re.search(r"total time:\s+([\d.]+)s", out).group(1))
                errs = int(re.search(r"ignored errors:\s+(\d+)", out).group(1))
                lat = "p95 %7.2f ms from the call          " % float(re.search(r"95th percentile:\s+([\d.]+)", out).group(1))
            else:
                r = json.load(open(b + "/result.json"))
                tx = r["operations"]["transaction"]
                rate, errs = tx["count"] / r["measure_seconds"], tx["errors"] + tx["retries"]
                lat = "p95 %7.2f ms from the intended start" % tx["response_ms"]["p95"]
                # every transaction the server saw: the window's, and the few still running at its end
                done = tx["count"] + tx["errors"] + tx["incomplete"]
            tps[tool].append(rate)
            st = steal_of(b)
            if st is None or st <= max_steal:
                quiet[tool].append(rate)
            print("%-18s %-15s run %d: %8.1f tx/s  %s  statements/tx %5.2f  driver CPU %5.0f µs/tx  errors+retries %d  load average %.1f  steal %s" % (
                t, tool, i, rate, lat, calls / done if done else 0, cpu * 1e6 / done if done else 0, errs, load,
                "?" if st is None else "%.1f%%%s" % (st, "" if st <= max_steal else " (left out)")))
    for tool in candors:
        if quiet["sysbench"] and quiet[tool]:
            a, b = statistics.median(quiet[tool]), statistics.median(quiet["sysbench"])
            over = "quiet runs: %d of %d and %d of %d, steal at most %g%%" % (
                len(quiet[tool]), len(tps[tool]), len(quiet["sysbench"]), len(tps["sysbench"]), max_steal)
        else:
            a, b = statistics.median(tps[tool]), statistics.median(tps["sysbench"])
            over = "every run: a tool had no run with steal at most %g%%, so this compares disturbed runs" % max_steal
        print("%-18s %s / sysbench tx/s: %.2fx (medians %.1f / %.1f over %s; target: >= 0.9x)" % (t, tool, a / b, a, b, over))

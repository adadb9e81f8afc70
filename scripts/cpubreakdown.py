#!/usr/bin/env python3
"""scripts/cpubreakdown.py: where a Go CPU profile's time goes, by part of the driver.

    go tool pprof -traces BINARY PROFILE | scripts/cpubreakdown.py [--per N --unit WORD]

Reads the stacks `go tool pprof -traces` prints and puts each sample in the first part (in the order
of PARTS below) any frame of its stack belongs to, so a sample of pgx's encoder that allocates
counts as pgx encoding, and a write(2) of a statement as the socket's write. Prints each part's
share of the profile's samples and, with --per N (the operations or statements the profiled run
completed), its sampled CPU per operation in µs, or with --total-us X (the run's driver CPU per
operation from getrusage, which the 100 Hz samples undercount) that share of X. The profile samples the process at 100 Hz: parts below a
few dozen samples are rough. Standard library only.
"""
import argparse
import re
import sys

# (part, patterns): a sample belongs to the first part one of whose patterns a frame contains.
PARTS = [
    ("measure: histogram merges per tick", [r"hdrhistogram-go\.\(\*Histogram\)\.Merge", r"candor/measure\.\(\*Recorder\)\.(Tick|absorb)"]),
    ("measure: recording, interval log, summaries", [r"hdrhistogram-go", r"candor/measure\."]),
    ("context watch (pgx's per statement, candor's)", [r"ctxwatch\.", r"context\.AfterFunc", r"context\.\(\*afterFuncCtx\)", r"postgres\.\(\*Conn\)\.(enter|leave|fire)"]),
    ("resource sampler (sysmon)", [r"candor/sysmon\."]),
    ("socket write(2)", [r"internal/poll\.\(\*FD\)\.(Write|RawWrite)", r"blockconn\.\(\*Conn\)\.Write", r"rawsock\.\(\*Conn\)\.[Ww]rite"]),
    ("socket read(2)", [r"internal/poll\.\(\*FD\)\.(Read|RawRead)", r"blockconn\.\(\*Conn\)\.Read", r"rawsock\.\(\*Conn\)\.[Rr]ead"]),
    ("candor's direct path: encoding parameters", [r"postgres\.\(\*params\)\.encode", r"postgres\.appendParam"]),
    ("candor's direct path: decoding results", [r"postgres\.decodeValue", r"postgres\.\(\*Conn\)\.decodeRow"]),
    ("candor's direct path: protocol messages (wire.go)", [r"postgres\.\(\*wire\)\.", r"postgres\.rowsAffected", r"postgres\.pgError"]),
    ("pgx: statement cache", [r"stmtcache\.", r"deallocateInvalidatedCachedStatements", r"pgx/v5\.\(\*Conn\)\.Prepare", r"postgres\.\(\*Conn\)\.directStmt"]),
    ("pgx: encoding parameters", [r"ExtendedQueryBuilder", r"pgtype\.\(\*Map\)\.(Encode|PlanEncode)", r"pgproto3\.\(\*(Bind|Parse|Execute|Describe|Sync)\)\.Encode"]),
    ("pgx: reading and decoding results", [r"pgproto3\.", r"\.Scan$", r"\.Scan ", r"pgtype\.", r"ResultReader", r"peekMessage|receiveMessage"]),
    ("pgx: other", [r"jackc/pgx"]),
    ("go scheduler: park, wake, netpoll, idle", [r"runtime\.(findRunnable|schedule|park_m|mcall|netpoll|gopark|goready|ready|wakep|startm|stopm|notewakeup|notesleep|futexwakeup|futexsleep|exitsyscall|entersyscall|reentersyscall|handoffp|sysmon|mstart)"]),
    ("garbage collector", [r"runtime\.(gcBgMarkWorker|gcAssist|gcDrain|bgsweep|bgscavenge|markroot|scanobject|gcStart|gcMarkDone)"]),
]

# The rest goes by the leaf-most frame of candor's own: its package's part.
CANDOR = [
    ("candor: scheduler (schedule)", re.compile(r"candor/schedule\.")),
    ("candor: workload, executor, driver wrapper", re.compile(r"candor/(workload|driver)")),
    ("candor: run, progress, results", re.compile(r"candor/")),
]

COMPILED = [(name, [re.compile(p) for p in pats]) for name, pats in PARTS]
OTHER = "other (runtime, allocation outside the parts above)"


def parse(stream):
    """Yields (seconds, frames) per stack of `pprof -traces` output."""
    dur, frames = None, []
    for line in stream:
        if line.startswith("-----------+"):
            if dur is not None:
                yield dur, frames
            dur, frames = None, []
            continue
        m = re.match(r"^\s+([0-9.]+)(ns|us|µs|ms|s)\s+(\S.*)$", line)
        if m:
            v = float(m.group(1)) * {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]
            dur, frames = v, [m.group(3).strip()]
        elif dur is not None and line.strip():
            frames.append(line.strip())
    if dur is not None:
        yield dur, frames


def part_of(frames):
    for name, pats in COMPILED:
        for f in frames:
            if any(p.search(f) for p in pats):
                return name
    for f in frames:
        if "candor-bench/candor/" in f:
            for name, pat in CANDOR:
                if pat.search(f):
                    return name
    return OTHER


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per", type=float, default=0, help="operations the run completed: print µs per operation")
    ap.add_argument("--total-us", type=float, default=0,
                    help="the run's measured driver CPU per operation (getrusage): print each part's share of it")
    ap.add_argument("--unit", default="op", help="the operation's name in the header (transaction, statement)")
    ap.add_argument("--indent", default="  ")
    args = ap.parse_args()
    totals = {}
    for dur, frames in parse(sys.stdin):
        name = part_of(frames)
        totals[name] = totals.get(name, 0.0) + dur
    whole = sum(totals.values())
    if whole == 0:
        sys.exit("cpubreakdown: no samples in the profile")
    per = f"   µs/{args.unit}" if args.per or args.total_us else ""
    print(f"{args.indent}{'part of the driver':<52} {'share':>6}{per}")
    for name, secs in sorted(totals.items(), key=lambda kv: -kv[1]):
        line = f"{args.indent}{name:<52} {100 * secs / whole:5.1f}%"
        if args.total_us:
            line += f" {secs / whole * args.total_us:8.1f}"
        elif args.per:
            line += f" {secs / args.per * 1e6:8.1f}"
        print(line)
    tail = f"{args.indent}{'profiled in all':<52} {100:5.1f}%"
    if args.total_us:
        tail += f" {args.total_us:8.1f}"
    elif args.per:
        tail += f" {whole / args.per * 1e6:8.1f}"
    print(tail + f"   ({whole:.2f} s of samples)")


if __name__ == "__main__":
    main()

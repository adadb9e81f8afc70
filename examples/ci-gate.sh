#!/usr/bin/env bash
# A regression gate for CI with candor (docs/compare.md, "A gate in CI"): load once, run the
# baseline and the candidate at the same offered load, and fail when `candor compare` finds a
# change that is significant and beyond a rule. Exit 0: no regression past the rules; 1: a rule
# breached (the FAIL lines say which); 2: a bad input (a flag, a rule, a database URL).
#
#   DB=postgres://bench@127.0.0.1:5432/bench examples/ci-gate.sh
#
# In a real job, deploy the candidate (a new server version, a setting, your commit) between the
# two runs; CANDIDATE_FLAGS gives the candidate's run flags of its own (a candor setting under test).
set -euo pipefail
DB=${DB:-sqlite:ci-gate.db}
OUT=${OUT:-ci-gate-results}
RATE=${RATE:-200}         # operations per second, the same for both runs: a fixed offered load
DURATION=${DURATION:-2m}  # each run's measurement
WARMUP=${WARMUP:-20s}
INTERVAL=${INTERVAL:-1s}  # more, shorter intervals make the noise estimate sharper
BASELINE_FLAGS=${BASELINE_FLAGS:-}
CANDIDATE_FLAGS=${CANDIDATE_FLAGS:-}

# 1. Load once: both runs read the same data.
candor kv load --db "$DB" --drop --insert-count 10000

run() {
	local name=$1
	shift
	candor kv run --db "$DB" --mode rate --rate "$RATE" --duration "$DURATION" --warmup "$WARMUP" \
		--interval "$INTERVAL" --seed 1 --no-check -q --replace --out "$OUT/$name" "$@"
}

# 2. A run that is not compared: a database fresh from its load (its write-ahead log, its caches)
#    is not in the state the candidate will find it in; the baseline should not be either.
run settle --duration "$WARMUP"

# 3. The baseline.
# shellcheck disable=SC2086 # the flags are words
run baseline $BASELINE_FLAGS

# 4. The candidate.
# shellcheck disable=SC2086
run candidate $CANDIDATE_FLAGS

# 5. The gate: exit 1 when throughput fell or read's p99 rose significantly past the rule.
candor compare --fail-on 'throughput<-5%' --fail-on 'read.p99>+10%' "$OUT/baseline" "$OUT/candidate"

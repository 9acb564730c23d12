#!/usr/bin/env bash
# Runs a named benchmark suite (defined in corpora/bench.suites) through `slidesolve batch` and
# keeps the results: results/SUITE/<date>-<host>[-TAG].csv, its .json metadata (commit, rustc,
# command, threads, CPU, cores, RAM, OS, start/end) and a .summary.json.
#
#   scripts/bench.sh SUITE [extra batch options]     e.g. scripts/bench.sh rush --threads 1
#   TAG=1t scripts/bench.sh rush --threads 1          keeps runs with different settings apart
set -euo pipefail
cd "$(dirname "$0")/.."
suites=corpora/bench.suites
if [[ $# -lt 1 ]]; then
    echo "usage: scripts/bench.sh SUITE [batch options]; suites:" >&2
    grep -E '^[a-z0-9_-]+:' "$suites" | sed 's/^/  /' >&2
    exit 2
fi
suite=$1
shift
line=$(grep -E "^${suite}:" "$suites") || { echo "unknown suite '$suite' (see $suites)" >&2; exit 2; }
read -r -a args <<< "${line#*:}"
# SLIDESOLVE_BIN runs a binary built earlier (and leaves the tree free to change meanwhile).
bin=${SLIDESOLVE_BIN:-target/release/slidesolve}
[[ -n "${SLIDESOLVE_BIN:-}" ]] || cargo build --release --quiet
dir=results/$suite
mkdir -p "$dir"
out=$dir/$(date -u +%F)-$(hostname)${TAG:+-$TAG}.csv
status=0
"$bin" batch "${args[@]}" --out "$out" --force --summary-json "${out%.csv}.summary.json" "$@" || status=$?
echo "results: $out (+ .json metadata, .summary.json); exit status $status (1 = mismatches with published optima)"
exit "$status"

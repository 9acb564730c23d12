#!/usr/bin/env bash
# Visited-set backends side by side (sharded vs dashmap), 1 and 2 threads, interleaved to spread
# machine noise. Writes results/engine/backends-<date>-<host>.md.
# Usage: scripts/bench_backends.sh [REPEATS]   (default 3; SLIDESOLVE_BIN=path: a binary built earlier)
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${1:-3}
[[ -n "${SLIDESOLVE_BIN:-}" ]] || cargo build --release --quiet
bin=${SLIDESOLVE_BIN:-target/release/slidesolve}
out="results/engine/backends-$(date -u +%Y-%m-%d)-$(hostname -s 2>/dev/null || echo host).md"
{
  echo "# Visited backends — $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "- commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)'); $(rustc --version)"
  [[ -z "${SLIDESOLVE_BIN:-}" ]] || echo "- binary: $bin (SLIDESOLVE_BIN)"
  echo "- cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
  echo "- command: scripts/bench_backends.sh $repeats (median of $repeats runs)"
  echo
  echo "| workload | backend | threads | median seconds |"
  echo "|---|---|---|---|"
} > "$out"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for workload in "2x5 full" "3x4 to level 30"; do
  for threads in 1 2; do
    for backend in sharded dashmap; do : > "/tmp/bb_${backend}_${threads}"; done
    for _ in $(seq "$repeats"); do
      for backend in sharded dashmap; do
        if [ "$workload" = "2x5 full" ]; then
          t=$("$bin" enumerate --tiles 2x5 --engine frontier --farthest 0 --json --visited "$backend" --threads "$threads" | python3 -c 'import json,sys; print(json.load(sys.stdin)["wall_s"])')
        else
          # The run is cut off once level 30 is printed (awk exits, the pipe closes).
          t=$( ("$bin" enumerate --tiles 3x4 --engine frontier --farthest 0 --trace --visited "$backend" --threads "$threads" 2>&1 >/dev/null || true) | awk '/^level +30:/ {print $(NF-1); exit}')
        fi
        echo "$t" >> "/tmp/bb_${backend}_${threads}"
      done
    done
    for backend in sharded dashmap; do
      echo "| $workload | $backend | $threads | $(median < "/tmp/bb_${backend}_${threads}") |" >> "$out"
    done
  done
done
cat "$out"

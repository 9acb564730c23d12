#!/usr/bin/env bash
# Korf's 100 random 15-puzzles with IDA*: builds the pattern databases into a fresh cache (timed,
# sized), then runs the korf100 suite from that cache on 2 and 1 threads, with and without
# reflected lookups, and optionally IDA* + Manhattan for the comparison with Korf (1985).
# Writes results/korf/<date>-<host>.md next to the suites' CSVs in results/korf100*/.
#
#   scripts/bench_korf.sh                       # 6-6-3 PDB runs (about a minute on a 2-core machine)
#   PARTITION=7-8 scripts/bench_korf.sh         # the 7-8 partition (the build needs ~9 GB and minutes)
#   scripts/bench_korf.sh --manhattan           # plus IDA* + Manhattan on all 100 (many minutes)
#   PDB_CACHE=DIR ...                           # reuse tables already built in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
# SLIDESOLVE_BIN runs a binary built earlier (and leaves the tree free to change meanwhile).
if [[ -z "${SLIDESOLVE_BIN:-}" ]]; then
    cargo build --release --quiet
    export SLIDESOLVE_BIN=target/release/slidesolve
fi
bin=$SLIDESOLVE_BIN
host=$(hostname)
day=$(date -u +%F)
# PDB_CACHE=DIR reuses tables built earlier (the "built in" line then times a load).
if [[ -n "${PDB_CACHE:-}" ]]; then
    cache=$PDB_CACHE
else
    cache=$(mktemp -d)
    trap 'rm -rf "$cache"' EXIT
fi
partition=${PARTITION:-6-6-3}
report=results/korf/$day-$host-$partition.md
mkdir -p results/korf

one=$(mktemp)
printf 'goal: blank-first\n%s\n' "$(grep -v -e '^;' -e '^goal' corpora/tiles/korf100.txt | head -1 | cut -d' ' -f1-16)" > "$one"
start=$(date +%s%N)
"$bin" solve "$one" --algo idastar --heuristic pdb --pdb-partition "$partition" --pdb-cache "$cache" > /dev/null 2> /dev/null
build_ms=$(( ($(date +%s%N) - start) / 1000000 ))
pdb_bytes=$(du -cb "$cache"/*.bin | tail -1 | cut -f1)
rm -f "$one"

run() { # TAG, extra options
    local tag=$1
    shift
    TAG=$partition-$tag scripts/bench.sh "$@" --pdb-cache "$cache" --pdb-partition "$partition" --quiet | grep -E '^(this run|[0-9]+ puzzles|known optima|MISMATCH)' || true
    awk -F, 'NR > 1 { e += $13; g += $14; s += $17 } END { printf "totals: %.0f nodes expanded, %.0f generated, %.2f s summed over puzzles\n", e, g, s }' \
        "results/$1/$day-$host-$partition-$tag.csv"
}
{
    echo "# Korf's 100 — IDA* on $day, $host"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, commit $(git rev-parse --short=12 HEAD)"
    echo "- pattern databases ($partition, blank-first goal): built (or loaded, with PDB_CACHE) in ${build_ms} ms (solve of instance 1 included), $pdb_bytes bytes of tables in the cache"
    echo "- command: \`scripts/bench_korf.sh $*\`; per-instance rows (moves, nodes, seconds) in results/korf100*/$day-$host-$partition-*.csv"
    echo
    for spec in "2t:--threads 2" "1t:--threads 1" "noreflect-2t:--threads 2 --no-reflect"; do
        tag=${spec%%:*}
        read -r -a opts <<< "${spec#*:}"
        echo "## korf100, $tag"
        echo '```text'
        run "$tag" korf100 "${opts[@]}"
        echo '```'
    done
    if [[ "${1:-}" == "--manhattan" ]]; then
        echo "## korf100-manhattan, 2 threads"
        echo '```text'
        run 2t korf100-manhattan --threads 2
        echo '```'
    fi
} | tee "$report"
echo "written: $report"

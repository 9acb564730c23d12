#!/usr/bin/env bash
# mimalloc's transparent huge pages on and off (MIMALLOC_ALLOW_THP=1, the default, against 0),
# the same release binary, interleaved: CPU seconds (user + system) and wall seconds of 30
# processes for the ms-sized rows, of one process for the larger ones.
# Usage: scripts/bench_thp.sh [ROUNDS]   (default 2; SLIDESOLVE_BIN=path: a binary built earlier)
# Prints one line per row, setting and round: ROUND|COMMAND|thp=0/1|n=RUNS|cpu S|wall S
# Record of its first use: results/blockspeed/2026-11-24-stop26-process-and-thp.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SLIDESOLVE_BIN:-}" ]; then
    cargo build --release --quiet --bin slidesolve
fi
bin=${SLIDESOLVE_BIN:-target/release/slidesolve}
batch_csv=${TMPDIR:-/tmp}/bench_thp_batch.csv
rows=(
    "enumerate corpora/rush/hardest51.rush --threads 1 --farthest 0 --json"
    "solve corpora/rush/hardest51.rush --threads 1 --json"
    "enumerate corpora/klotski/classic.grid --threads 1 --farthest 0 --json --metric free"
    "solve corpora/blocks/dlaa.grid --threads 1 --json"
    "enumerate corpora/bench/klotski-4x6.grid --threads 1 --farthest 0 --json"
    "batch corpora/rush --threads 1 --out $batch_csv --force --quiet"
    "enumerate corpora/bench/rush-7x7.rush --threads 1 --farthest 0 --json"
)
times=$(mktemp)
trap 'rm -f "$times" "$batch_csv" "$batch_csv.json"' EXIT
for round in $(seq "${1:-2}"); do
    for row in "${rows[@]}"; do
        case $row in batch* | *4x6* | *7x7*) runs=1 ;; *) runs=30 ;; esac
        for thp in 1 0; do
            start=$(date +%s.%N)
            # shellcheck disable=SC2086 # the row is a command line
            /usr/bin/time -f "%U %S" -o "$times" bash -c \
                "for i in \$(seq $runs); do MIMALLOC_ALLOW_THP=$thp $bin $row >/dev/null || [ \$? = 1 ]; done"
            wall=$(echo "$(date +%s.%N) - $start" | bc)
            echo "$round|$row|thp=$thp|n=$runs|cpu $(awk '{print $1 + $2}' "$times")|wall $wall"
        done
    done
done

#!/usr/bin/env bash
# Runs the input paths not covered by the stop-50 sweep (batch with and without a shared pattern
# database, enumerate --components, family) under every address-space limit (`ulimit -v`) from
# FROM to TO MiB in steps of STEP, on 1 and 2 threads, with `--max-memory 1000T` (lowered to all
# the address space the process has), and counts the runs that abort (a signal: exit >= 128) or
# panic. Exit 0 (ok), 1 (a limit) and 2 (a size refused before allocating) are the expected
# outcomes. With several binaries (an old and a new build), they are interleaved at each size.
#
#   scripts/address_space_sweep.sh [FROM TO STEP] [BIN...]   # defaults: 64 512 64 target/release/slidesolve
#
# Prints one line per bad run and a summary per binary; exits 1 if any run was bad.
set -uo pipefail
cd "$(dirname "$0")/.."
FROM=${1:-64} TO=${2:-512} STEP=${3:-64}
shift $(($# < 3 ? $# : 3))
BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
    cargo build --release -q || exit 1
    BINS=("$PWD/target/release/slidesolve")
fi
C=$PWD/corpora
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
COMMANDS=(
    "batch $C/bench --out OUT/bench.csv --force --quiet"
    "batch $C/tiles/15puzzle_articles.tiles --out OUT/pdb.csv --force --quiet --algo idastar --heuristic pdb --pdb-cache OUT/pdb"
    "batch $C/tiles/8puzzles_10000.tiles --out OUT/astar.csv --force --quiet --algo astar"
    "enumerate $C/bench/klotski-4x6.grid --components"
    "enumerate $C/bench/rush-7x7.rush --components"
    "family $C/families/klotski.family --out OUT/family"
)
declare -A RUNS BAD
for ((mib = FROM; mib <= TO; mib += STEP)); do
    for threads in 1 2; do
        for cmd in "${COMMANDS[@]}"; do
            for bin in "${BINS[@]}"; do
                out=$(mktemp -d -p "$WORK")
                args=${cmd//OUT/$out}
                # shellcheck disable=SC2086 # the command is split into its words on purpose
                (ulimit -v $((mib * 1024)) && exec timeout 120 "$bin" $args --threads $threads --max-memory 1000T) \
                    >"$out/stdout" 2>"$out/stderr"
                rc=$?
                RUNS[$bin]=$((${RUNS[$bin]:-0} + 1))
                if [ $rc -ge 128 ] || grep -q panicked "$out/stderr"; then
                    BAD[$bin]=$((${BAD[$bin]:-0} + 1))
                    echo "BAD $bin ${mib}MiB t=$threads rc=$rc: $cmd :: $(grep -m1 -E 'panicked|memory allocation|error' "$out/stderr")"
                fi
                rm -rf "$out"
            done
        done
    done
done
status=0
for bin in "${BINS[@]}"; do
    echo "$bin: ${RUNS[$bin]} runs, ${BAD[$bin]:-0} aborted or panicked"
    [ "${BAD[$bin]:-0}" -eq 0 ] || status=1
done
exit $status

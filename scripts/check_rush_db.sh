#!/usr/bin/env bash
# Checks a Rush Hour database written by `family SPEC --db` (lines `<moves> <layout> <size>`) with
# the solver, which shares no code with the family's analysis beyond the puzzle model: `batch`
# solves every line and compares its optimum with the line's move count (the summary's `known
# optima: N checked, M mismatches`), and `enumerate` counts the states reachable from every
# STEP-th line (STEP 1: every line), which must equal the line's cluster size. Prints both results
# and exits 1 on any difference. THREADS: the batch's threads (default: all cores);
# SLIDESOLVE_BIN=path (or BIN=path, its older name): a binary built earlier instead of building
# this checkout.
#
#   scripts/check_rush_db.sh [DB[.gz]] [STEP]   # defaults: results/families/rush6x6-db.txt.gz 100
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-results/families/rush6x6-db.txt.gz}
step=${2:-100}
threads=${THREADS:-0}
bin=${SLIDESOLVE_BIN:-${BIN:-}}
if [[ -z "$bin" ]]; then
    cargo build --release -q
    bin=target/release/slidesolve
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $db in
*.gz) zcat "$db" >"$work/db.txt" ;;
*) cp "$db" "$work/db.txt" ;;
esac
lines=$(wc -l <"$work/db.txt")
echo "database: $db, $lines lines"

# Every line's move count against the solver's optimum (verified by replay).
start=$(date +%s.%N)
"$bin" batch "$work/db.txt" --out "$work/rows.csv" --threads "$threads" --quiet >"$work/summary.txt" || true
end=$(date +%s.%N)
cat "$work/summary.txt"
awk -v a="$start" -v b="$end" 'BEGIN { printf "batch wall: %.1f s\n", b - a }'
checked=$(sed -n 's/^known optima: \([0-9]*\) checked, \([0-9]*\) mismatches$/\1 \2/p' "$work/summary.txt")
status=0
if [[ "$checked" != "$lines 0" ]]; then
    echo "FAIL: expected '$lines 0' (checked, mismatches), got '$checked'"
    status=1
fi

# Every STEP-th line's cluster size against the states reachable from it, one process a line,
# as many at once as there are cores.
check() { # MOVES LAYOUT SIZE
    local card="$work/$2.rush" states
    echo "$1 $2" >"$card"
    states=$("$bin" enumerate "$card" --threads 1 --farthest 0 --json | sed -n 's/.*"states":\([0-9]*\).*/\1/p')
    rm -f "$card"
    if [[ "$states" == "$3" ]]; then echo ok; else echo "FAIL: $1 $2 $3: $states states reachable"; fi
}
export -f check
export bin work
start=$(date +%s.%N)
awk -v s="$step" '(NR - 1) % s == 0' "$work/db.txt" | xargs -r -P "$(nproc)" -L 1 bash -c 'check "$@"' _ >"$work/sizes.txt"
end=$(date +%s.%N)
sampled=$(wc -l <"$work/sizes.txt")
wrong=$(grep -c FAIL "$work/sizes.txt" || true)
grep FAIL "$work/sizes.txt" || true
echo "cluster sizes: $sampled lines checked (lines 1, 1 + $step, 1 + 2 × $step, ...), $wrong wrong"
awk -v a="$start" -v b="$end" 'BEGIN { printf "enumerate wall: %.1f s\n", b - a }'
[[ $wrong -eq 0 ]] || status=1
exit $status

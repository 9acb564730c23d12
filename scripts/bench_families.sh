#!/usr/bin/env bash
# The whole Klotski family (corpora/families/klotski.family: 4x5, exactly one 2x2, any numbers of
# vertical dominoes, horizontal dominoes and 1x1 squares, at least two cells empty, free metric,
# goal: the 2x2 at row 3, column 1), timed with /usr/bin/time -v, beside the published figures.
# Writes results/families/klotski.md (summary and per-class table); the CSVs go to a temp dir.
#
#   scripts/bench_families.sh            THREADS=1 scripts/bench_families.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SLIDESOLVE_BIN:-}" ]]; then
    cargo build --release --quiet
    SLIDESOLVE_BIN=target/release/slidesolve
fi
threads=${THREADS:-0}
dir=results/families
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/time -v "$SLIDESOLVE_BIN" family corpora/families/klotski.family --threads "$threads" --json \
    --out "$work/out" >"$work/summary.json" 2>"$work/time.txt"
field() { grep -o "\"$1\":[^,}]*" "$work/summary.json" | cut -d: -f2- | tr -d '"'; }
timed() { grep "$1" "$work/time.txt" | sed 's/.*): //; s/^[^:]*: //' | xargs; }
rss_kb=$(timed "Maximum resident set size")
{
    echo "# The Klotski family, $(date -u +%F), $(hostname)"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores" \
         "(load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)), commit $(git rev-parse --short=12 HEAD)"
    echo "- command: \`slidesolve family corpora/families/klotski.family --threads $threads --json --out DIR\`"
    echo "- wall: $(timed 'Elapsed (wall clock)') (program's own wall_s $(field wall_s)), user $(timed 'User time') s," \
         "system $(timed 'System time') s, CPU $(timed 'Percent of CPU')"
    echo "- peak RSS (/usr/bin/time -v): $((rss_kb / 1024)) MiB; the tables' own peak estimate: $(( $(field peak_bytes) / 1048576 )) MiB"
    echo
    echo "| figure | measured | published |"
    echo "|---|---:|---:|"
    echo "| layouts | $(field layouts) | 29334498 |"
    echo "| piece-count classes (with a layout) | $(field classes) | 203 |"
    echo "| classes whose pieces never fit | $(field empty_classes) | |"
    echo "| components | $(field components) | 25422 |"
    echo "| largest component | $(field largest_component) | 964656 |"
    echo "| class of the largest | $(field largest_class) | one vertical and one horizontal domino, six 1x1, six empty |"
    echo "| solvable components | $(field solvable_components) | |"
    echo "| hardest (moves to the goal) | $(field hardest_moves) ($(field hardest_class)) | |"
    echo
    echo "## Per class"
    echo
    echo "| class | layouts | components | largest | solvable | hardest moves |"
    echo "|---|---:|---:|---:|---:|---:|"
    tail -n +2 "$work/out/classes.csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
} >"$dir/klotski.md"
echo "wrote $dir/klotski.md"

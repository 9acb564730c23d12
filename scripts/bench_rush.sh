#!/usr/bin/env bash
# Rush Hour 6x6 without walls (corpora/families/rush6x6.family) with Fogleman's database rule,
# run for at most BUDGET seconds (default 1800), timed with /usr/bin/time -v. When the budget ends
# first, the classes finished so far are reported and the whole family is projected from their
# layouts per second, with every class's layout count from scripts/rush_layout_counts.py.
# SPEC=corpora/families/rush6x6-walls2.family runs the wall variant the same way (no projection:
# the counting script knows no walls). Writes REPORT (default results/families/NAME.md, NAME the
# spec's file name without .family). WORK=DIR keeps the run's files in DIR (DIR/out, DIR/db.txt)
# and, when DIR/out/classes.csv exists, resumes that run (`--resume`), so a long run can go on
# across sittings; the report then covers every class in DIR and this sitting's time.
# COMPONENTS=0 passes --no-components (no DIR/out/components.csv: 4.3 GB for rush6x6, far more
# with walls); a run resumes only with the same choice.
#
#   scripts/bench_rush.sh            BUDGET=600 THREADS=2 scripts/bench_rush.sh
#   WORK=/var/tmp/rush6x6 BUDGET=36000 scripts/bench_rush.sh    (again after a kill: resumes)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SLIDESOLVE_BIN:-}" ]]; then
    cargo build --release --quiet
    SLIDESOLVE_BIN=target/release/slidesolve
fi
spec=${SPEC:-corpora/families/rush6x6.family}
name=$(basename "$spec" .family)
threads=${THREADS:-0}
budget=${BUDGET:-1800}
max_memory=${MAX_MEMORY:-16G}
dir=results/families
mkdir -p "$dir"
report=${REPORT:-$dir/$name.md}
run_flags=()
[[ ${COMPONENTS:-1} == 0 ]] && run_flags=(--no-components)
if [[ -n "${WORK:-}" ]]; then
    work=$WORK
    mkdir -p "$work"
    [[ -f "$work/out/classes.csv" ]] && run_flags+=(--resume)
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
status=0
/usr/bin/time -v timeout "$budget" "$SLIDESOLVE_BIN" family "$spec" --threads "$threads" --json \
    --max-memory "$max_memory" --db "$work/db.txt" --out "$work/out" "${run_flags[@]}" >"$work/summary.json" \
    2>"$work/time.txt" || status=$?
timed() { grep "$1" "$work/time.txt" | sed 's/.*): //; s/^[^:]*: //' | xargs; }
field() { grep -o "\"$1\":[^,}]*" "$work/summary.json" | cut -d: -f2- | tr -d '"'; }
rss_kb=$(timed "Maximum resident set size")
done_classes=$(($(wc -l <"$work/out/classes.csv") - 1))
done_layouts=$(tail -n +2 "$work/out/classes.csv" | awk -F, '{ s += $2 } END { print s + 0 }')
lines=$(wc -l <"$work/db.txt")
wall=$(timed 'Elapsed (wall clock)')
{
    echo "# $name, $(date -u +%F), $(hostname)"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores" \
         "(load average before the end: $(cut -d' ' -f1-3 /proc/loadavg); the host is shared), commit $(git rev-parse --short=12 HEAD)"
    echo "- command: \`timeout $budget slidesolve family $spec --threads $threads --json --max-memory $max_memory --db DB --out DIR ${run_flags[*]}\`"
    echo "- exit status $status$( [[ $status == 124 ]] && echo ' (the budget ended the run)')," \
         "wall $wall, user $(timed 'User time') s, system $(timed 'System time') s, peak RSS $((rss_kb / 1024)) MiB"
    echo "- finished: $done_classes classes, $done_layouts layouts, $lines database lines"
    if [[ -s "$work/summary.json" ]]; then
        echo "- summary: layouts $(field layouts), components $(field components), solvable $(field solvable_components)," \
             "largest $(field largest_component) ($(field largest_class)), hardest $(field hardest_moves) ($(field hardest_class))"
    fi
    if [[ "$name" == rush6x6 ]]; then
        scripts/rush_layout_counts.py --db >"$work/counts.tsv"
        total=$(awk -F'\t' '{ s += $2 } END { printf "%.0f", s }' "$work/counts.tsv")
        largest=$(sort -t$'\t' -k2,2n "$work/counts.tsv" | tail -1)
        cpu=$(awk -v u="$(timed 'User time')" -v s="$(timed 'System time')" 'BEGIN { print u + s }')
        echo "- the family under --db (scripts/rush_layout_counts.py --db): $(wc -l <"$work/counts.tsv") classes with layouts," \
             "$total layouts, the largest class ${largest%%$'\t'*} with ${largest##*$'\t'} layouts"
        # CPU time, not wall: the host is shared, so a run gets an unknown part of the cores. A run
        # that finished every class needs no projection.
        [[ $status != 0 ]] && awk -v d="$done_layouts" -v t="$total" -v c="$cpu" 'BEGIN {
            if (d > 0) printf "- projection at this run'"'"'s rate per CPU second (%.0f layouts/s, finished classes only, which are the small ones): the whole family in %.1f CPU hours, %.1f hours on 2 fully used cores\n", d / c, t / (d / c) / 3600, t / (d / c) / 7200 }'
    fi
    echo
    echo "| figure | measured | published (Fogleman 2018) |"
    echo "|---|---:|---:|"
    if [[ "$name" == rush6x6 ]]; then published="51 moves, cluster of 4,780 (no walls)"; else published="60 moves (up to two walls)"; fi
    echo "| hardest line so far | $(sort -n "$work/db.txt" | tail -1) | $published |"
    echo "| database lines | $lines | 2,577,412 (with up to two walls) |"
    echo "| positions his enumerator tries (least layout of each cluster candidates, no walls) | | 243,502,785 |"
    echo "| states in the database's clusters (with walls) | | 9,698,093,879 |"
    echo
    echo "## Per class (finished classes)"
    echo
    echo "| class | layouts | components | largest | solvable | hardest moves | database lines |"
    echo "|---|---:|---:|---:|---:|---:|"
    tail -n +2 "$work/out/classes.csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }'
} >"$report"
echo "wrote $report"

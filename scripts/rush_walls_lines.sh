#!/usr/bin/env bash
# The wall family against the public database (issue 13): every line of
# corpora/rush/tuler_levels200.txt that has walls is a line of Fogleman's database with up to two
# walls. For each such line whose piece-count class has at most MAX layouts (counted by
# scripts/rush_layout_counts.py --db --walls, no listing), runs that class alone
# (`slidesolve family CLASS.family --db DB`, the counts of corpora/families/rush6x6-walls2.family
# pinned) and checks that the line is in its database, byte for byte. Also reports each class's
# rate (counted layouts per CPU second) and what the whole family would take at the pooled rate.
#
# Usage: MAX=600000000 THREADS=2 scripts/rush_walls_lines.sh      (defaults shown)
# Env:   LINES="N ..."         instead of MAX: the classes of these level-list lines, whatever
#                              their size (LINES=200: the published hardest with walls, 60 moves)
#        MAX_MEMORY=SIZE       passed to --max-memory (default: slidesolve's own)
#        SLIDESOLVE_BIN=PATH   a built binary instead of building this checkout
#        REPORT=PATH           default results/families/rush6x6-walls2-lines.md
# Exit status 1 when a line is missing. Needs cargo, python3, GNU time, bc.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/rush_class.sh
source scripts/rush_class.sh
max=${MAX:-600000000}
threads=${THREADS:-2}
spec=corpora/families/rush6x6-walls2.family
report=${REPORT:-results/families/rush6x6-walls2-lines.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/rush_layout_counts.py --db --walls >"$work/counts.tsv"
# One row per class to run: class, its counted layouts, the level-list line numbers in it.
python3 - "$work/counts.tsv" "$max" "${LINES:-}" >"$work/picks.tsv" <<'EOF'
import sys
chosen = {int(n) for n in sys.argv[3].split()}
counts = {c: int(n) for c, n in (l.rstrip("\n").split("\t") for l in open(sys.argv[1]))}
classes = {}
for number, line in enumerate(open("corpora/rush/tuler_levels200.txt"), 1):
    board = line.split()[1]
    if "x" not in board or (chosen and number not in chosen):
        continue
    kinds = dict.fromkeys("HVTUW", 0)
    for letter in set(board) - set("oA"):
        cells = [i for i, ch in enumerate(board) if ch == letter]
        if letter == "x":
            kinds["W"] += len(cells)
            continue
        lying = len({i // 6 for i in cells}) == 1
        kinds[("H" if lying else "V") if len(cells) == 2 else ("T" if lying else "U")] += 1
    empty = board.count("o")
    name = " ".join(["A=1"] + [f"{k}={n}" for k, n in kinds.items() if n] + [f"empty={empty}"])
    classes.setdefault(name, []).append(number)
for name, numbers in sorted(classes.items(), key=lambda kv: counts[kv[0]]):
    if chosen or counts[name] <= int(sys.argv[2]):
        print(f"{name}\t{counts[name]}\t{' '.join(map(str, numbers))}")
EOF
lines_with_walls=$(grep -c x corpora/rush/tuler_levels200.txt)
if [[ -n "${LINES:-}" ]]; then
    chosen="the classes of lines $LINES" command="LINES=\"$LINES\""
else
    chosen="those of at most $max layouts" command="MAX=$max"
fi
{
    echo "# rush6x6-walls2 against the public database, $(date -u +%F), $(hostname)"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores" \
         "(load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)), commit $(git rev-parse --short=12 HEAD)"
    echo "- command: \`$command THREADS=$threads ${MAX_MEMORY:+MAX_MEMORY=$MAX_MEMORY }scripts/rush_walls_lines.sh\`: per class," \
         "\`slidesolve family CLASS.family --db DB --threads $threads ${MAX_MEMORY:+--max-memory $MAX_MEMORY }--json\` (the wall family's counts pinned), timed with /usr/bin/time; CPU = user + system"
    echo "- lines: the $lines_with_walls lines with walls of \`corpora/rush/tuler_levels200.txt\` (lines of the public database);" \
         "$(wc -l <"$work/picks.tsv") of their classes were run ($chosen)"
    echo
    echo "| class | layouts counted | layouts analysed | components | db lines | hardest | CPU s | wall s | peak_bytes MiB | peak RSS MiB | counted layouts per CPU s | level-list lines | found |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
} >"$work/report.md"
missing=0
while IFS=$'\t' read -r class n numbers; do
    run_class "$spec" "$class" "$work" "$threads"
    found=""
    for number in $numbers; do
        if grep -qxF "$(sed -n "${number}p" corpora/rush/tuler_levels200.txt)" "$work/db.txt"; then
            found+="yes "
        else
            found+="NO "
            missing=$((missing + 1))
        fi
    done
    echo "$n $cpu" >>"$work/rates.txt"
    echo "| $class | $n | $(field layouts) | $(field components) | $(wc -l <"$work/db.txt") | $(field hardest_moves)" \
         "| $cpu | $wall | $(($(field peak_bytes) >> 20)) | $((rss / 1024)) | $(echo "$n / $cpu" | bc) | $numbers | ${found% } |" >>"$work/report.md"
done <"$work/picks.tsv"
python3 - "$work/counts.tsv" "$work/rates.txt" "$threads" "$missing" >>"$work/report.md" <<'EOF'
import sys
total = sum(int(l.split("\t")[1]) for l in open(sys.argv[1]))
runs = [tuple(map(float, l.split())) for l in open(sys.argv[2])]
layouts, cpu = sum(r[0] for r in runs), sum(r[1] for r in runs)
threads, missing = int(sys.argv[3]), int(sys.argv[4])
print()
print(f"Lines missing: {missing}.")
print()
print(f"Pooled rate of the classes run: {layouts:,.0f} counted layouts in {cpu:,.0f} CPU s = {layouts / cpu:,.0f} a CPU second. "
      f"The whole family counts {total:,} layouts: {total / (layouts / cpu) / 3600:,.0f} CPU hours at that rate, "
      f"{total / (layouts / cpu) / 3600 / threads:,.0f} hours on {threads} fully used cores (a rate of the classes run only).")
EOF
mkdir -p "$(dirname "$report")"
cp "$work/report.md" "$report"
cat "$report"
[[ $missing == 0 ]]

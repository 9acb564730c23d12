#!/usr/bin/env bash
# Projects a whole Rush Hour family run (`family SPEC --db`) from a stratified sample of its
# classes, for families too large to run here. The classes (layout counts from
# scripts/rush_layout_counts.py, no listing) are sorted by size and cut into K strata of equal
# layout mass; the class at the middle of each stratum is run alone (its counts pinned in a copy of
# the spec) and its CPU seconds per counted layout stand for its stratum. The projection is the sum
# over strata; the spread of the per-stratum rates is printed too. Writes REPORT (default
# results/families/NAME-sample.md). WALLS=1 samples rush6x6-walls2.family.
#
#   scripts/rush_sample.sh          K=20 THREADS=2 scripts/rush_sample.sh          WALLS=1 scripts/rush_sample.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/rush_class.sh
source scripts/rush_class.sh
k=${K:-10}
threads=${THREADS:-2}
if [[ "${WALLS:-0}" == 1 ]]; then
    spec=corpora/families/rush6x6-walls2.family
    count_args=(--db --walls)
else
    spec=corpora/families/rush6x6.family
    count_args=(--db)
fi
name=$(basename "$spec" .family)
report=${REPORT:-results/families/$name-sample.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/rush_layout_counts.py "${count_args[@]}" >"$work/counts.tsv"
# One line per stratum: stratum, its layouts, the class at its middle, that class's layouts.
python3 - "$work/counts.tsv" "$k" >"$work/picks.tsv" <<'EOF'
import sys
rows = [(c, int(n)) for c, n in (l.rstrip("\n").split("\t") for l in open(sys.argv[1])) if int(n) > 0]
rows.sort(key=lambda r: (r[1], r[0]))
k, total = int(sys.argv[2]), sum(n for _, n in rows)
acc, picks = 0, {}
for c, n in rows:
    lo, acc = acc, acc + n
    for j in range(k):
        if lo <= (j + 0.5) * total / k < acc:
            picks[j] = (c, n)
for j in range(k):
    c, n = picks[j]
    print(f"{j}\t{total / k:.0f}\t{c}\t{n}")
EOF
{
    echo "# $name, a stratified sample of $k classes, $(date -u +%F), $(hostname)"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores" \
         "(load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)), commit $(git rev-parse --short=12 HEAD)"
    echo "- per class: \`slidesolve family CLASS.family --db DB --threads $threads --json\` (the spec with the" \
         "class's counts pinned), timed with /usr/bin/time; the CPU time is user + system"
    echo "- layouts: as counted by \`scripts/rush_layout_counts.py ${count_args[*]}\` (before the filled-line rule and solvability)"
    echo
    echo "| stratum | class | layouts counted | layouts analysed | components | db lines | hardest | CPU s | wall s | peak RSS MiB | counted layouts per CPU s |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$work/report.md"
while IFS=$'\t' read -r j mass class n; do
    run_class "$spec" "$class" "$work" "$threads"
    rate=$(echo "$n / $cpu" | bc)
    echo "$j $mass $cpu" >>"$work/rates.txt"
    echo "| $j | $class | $n | $(field layouts) | $(field components) | $(wc -l <"$work/db.txt") | $(field hardest_moves) | $cpu | $wall | $((rss / 1024)) | $rate |" >>"$work/report.md"
done <"$work/picks.tsv"
python3 - "$work/picks.tsv" "$work/rates.txt" "$threads" >>"$work/report.md" <<'EOF'
import sys
picks = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
cpu = {int(j): float(c) for j, _, c in (l.split() for l in open(sys.argv[2]))}
threads = int(sys.argv[3])
per = [float(mass) * cpu[int(j)] / int(n) for j, mass, _, n in picks]
total = sum(per)
print()
print(f"Projection: the whole family in {total:,.0f} CPU s = {total / 3600:.2f} CPU hours, "
      f"{total / 3600 / threads:.2f} hours on {threads} fully used cores "
      f"(strata from {min(per) / 3600:.3f} to {max(per) / 3600:.3f} CPU hours).")
EOF
mkdir -p "$(dirname "$report")"
cp "$work/report.md" "$report"
cat "$report"

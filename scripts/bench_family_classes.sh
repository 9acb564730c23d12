#!/usr/bin/env bash
# Family speed (issue 13): single Rush Hour 6x6 classes under `family --db` on one thread, the
# binary of commit $OLD against this checkout's, interleaved round by round in one run, with the
# database lines of both compared byte for byte (md5).
#
# Usage: scripts/bench_family_classes.sh [ROUNDS]     (default 3)
# Env:   OLD=COMMIT     the baseline (default HEAD~1; built with `git worktree add` in a temp dir)
#        OLD_BIN=PATH   a baseline binary built earlier instead (name its commit in OLD)
#        SLIDESOLVE_BIN=PATH  a binary for this side instead of building this checkout
#                       (NEW_BIN=PATH, its older name, still works)
#        CLASSES="H V T U;..."  the classes, as counts of the kinds H, V, T, U beside the one A
#                       (default: "1 4 1 1;4 5 1 2;3 3 2 1", 27 M, 79 M and 161 M layouts listed,
#                       the second being the class of the published 51-move puzzle)
#        TAG=WORD       append -WORD to the record's file name
# Writes results/families/<date>-<host>-classes[-TAG].md and prints it. Needs git, cargo, GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${1:-3}
old=${OLD:-HEAD~1}
host=$(hostname -s 2>/dev/null || echo host)
out="results/families/$(date -u +%Y-%m-%d)-$host-classes${TAG:+-$TAG}.md"
classes=${CLASSES:-"1 4 1 1;4 5 1 2;3 3 2 1"}
old_name=$(git rev-parse --short "$old" 2>/dev/null || echo "$old")
# shellcheck source=scripts/old_binary.sh
source scripts/old_binary.sh "$old"
new_bin=${SLIDESOLVE_BIN:-${NEW_BIN:-}}
if [[ -z "$new_bin" ]]; then
    cargo build --release --quiet --bin slidesolve
    new_bin=target/release/slidesolve
fi
new_name="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes')"

# One spec per class: the family's spec with every kind's count pinned.
IFS=';' read -ra picks <<<"$classes"
names=()
for pick in "${picks[@]}"; do
    read -r h v t u <<<"$pick"
    name="A=1 H=$h V=$v T=$t U=$u" # a label (zero counts included), not a class description
    sed -e "s/^kind: H 1x2 h 0../kind: H 1x2 h $h/; s/^kind: V 2x1 v 0../kind: V 2x1 v $v/" \
        -e "s/^kind: T 1x3 h 0../kind: T 1x3 h $t/; s/^kind: U 3x1 v 0../kind: U 3x1 v $u/" \
        corpora/families/rush6x6.family >"$tmp/${#names[@]}.family"
    names+=("$name")
done

# One run: prints its user+system CPU seconds; keeps the database's md5, its line count and the
# summary in $tmp/{md5,lines,summary}-SIDE-CLASS.
run() { # side binary class
    rm -f "$tmp/db" # family refuses to overwrite the last run's database
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$2" family "$tmp/$3.family" --threads 1 --json \
        --db "$tmp/db" >"$tmp/summary-$1-$3"
    md5sum <"$tmp/db" | cut -c1-32 >"$tmp/md5-$1-$3"
    wc -l <"$tmp/db" >"$tmp/lines-$1-$3"
    awk '{ printf "%.2f", $1 + $2 }' "$tmp/time"
}
declare -A cpu
for ((r = 1; r <= rounds; r++)); do
    for c in "${!names[@]}"; do
        cpu[old,$c]+="$(run old "$old_bin" "$c") "
        cpu[new,$c]+="$(run new "$new_bin" "$c") "
        echo "round $r, ${names[$c]}: old ${cpu[old,$c]}| new ${cpu[new,$c]}" >&2
    done
done
{
    echo "# Rush Hour 6x6 classes under \`family --db\`, $(date -u +%F), $host"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); the host is shared)"
    echo "- old: $old_name ($old_bin); new: $new_name ($new_bin)"
    echo "- command: \`slidesolve family CLASS.family --threads 1 --json --db DB\` (CLASS.family: corpora/families/rush6x6.family with the counts pinned), $rounds rounds, old and new interleaved"
    echo "- figures: CPU seconds (user + system) of each run, in round order; ratio = old median / new median"
    echo
    echo "| class | layouts (solvable components) | database lines | old CPU s | new CPU s | ratio | same database |"
    echo "|---|---:|---:|---|---|---:|---|"
    for c in "${!names[@]}"; do
        layouts=$(grep -o '"layouts":[0-9]*' "$tmp/summary-new-$c" | cut -d: -f2)
        lines=$(cat "$tmp/lines-new-$c")
        same=$([[ $(cat "$tmp/md5-old-$c") == $(cat "$tmp/md5-new-$c") ]] && echo "yes ($(cut -c1-8 "$tmp/md5-new-$c"))" || echo NO)
        median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
        mo=$(median <<<"${cpu[old,$c]}")
        mn=$(median <<<"${cpu[new,$c]}")
        ratio=$(awk -v o="$mo" -v n="$mn" 'BEGIN { if (n > 0) printf "%.2fx", o / n; else print "-" }')
        echo "| ${names[$c]} | $layouts | $lines | ${cpu[old,$c]}| ${cpu[new,$c]}| $ratio | $same |"
    done
} >"$out"
cat "$out"

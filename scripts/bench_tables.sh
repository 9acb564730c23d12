#!/usr/bin/env bash
# Full layer tables of the 3x4 and 2x6 puzzles (239,500,800 states each) with the perfect-hash
# enumerator on 2 and 1 threads, compared row by row with the published tables in corpora/tables/
# (OEIS A090166 complete; A090167 depths 0-38) and with the total (N!/2) and published diameter.
# Writes results/tables/<date>-<host>.md and the computed tables as CSV beside it.
#
#   scripts/bench_tables.sh [SIZE:SEQUENCE:DIAMETER ...]   default: 3x4:A090166:53 2x6:A090167:80
#   THREADS="2" scripts/bench_tables.sh 2x7:A346736:108     the 2x7 stretch (12.5 GB, about an hour)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SLIDESOLVE_BIN:-}" ]]; then
    cargo build --release --quiet
    SLIDESOLVE_BIN=target/release/slidesolve
fi
specs=("$@")
[[ ${#specs[@]} -gt 0 ]] || specs=(3x4:A090166:53 2x6:A090167:80)
day=$(date -u +%F)
host=$(hostname)
dir=results/tables
mkdir -p "$dir"
report=$dir/$day-$host.md
timer=()
[[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "%e %M")
{
    echo "# Full tile tables, $day, $host"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, commit $(git rev-parse --short=12 HEAD)"
    echo "- command per row: \`slidesolve enumerate --tiles SIZE --threads T --farthest 0 --json --out $dir/SIZE-layers.csv\`"
    echo
    echo "| size | threads | states | diameter | seconds | peak RSS (MiB) | engine bytes | rows compared | rows different |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for spec in "${specs[@]}"; do
        IFS=: read -r size name diameter <<< "$spec"
        rows=${size%x*} cols=${size#*x} total=1
        for ((i = 3; i <= rows * cols; i++)); do total=$((total * i)); done
        for threads in ${THREADS:-2 1}; do
            csv=$dir/$size-layers.csv
            json=$(mktemp)
            measure=$( { "${timer[@]}" "$SLIDESOLVE_BIN" enumerate --tiles "$size" --threads "$threads" --farthest 0 --json --out "$csv" > "$json"; } 2>&1 | tail -1)
            states=$(grep -o '"states":[0-9]*' "$json" | cut -d: -f2)
            depth=$(grep -o '"max_depth":[0-9]*' "$json" | cut -d: -f2)
            wall=$(grep -o '"wall_s":[0-9.e-]*' "$json" | cut -d: -f2)
            bytes=$(grep -o '"peak_bytes":[0-9]*' "$json" | cut -d: -f2)
            rss=$(awk -v m="${measure#* }" 'BEGIN { printf "%.0f", m / 1024 }')
            # Rows present in both tables, and how many of those differ.
            read -r compared different < <(awk -F, 'NR == FNR { if (FNR > 2) pub[$1] = $2; next }
                FNR > 1 && ($1 in pub) { n++; if (pub[$1] != $2) { d++; print "row " $1 ": published " pub[$1] ", ours " $2 > "/dev/stderr" } }
                END { print n + 0, d + 0 }' "corpora/tables/$name.csv" "$csv")
            ok=$([[ "$depth" == "$diameter" && "$states" == "$total" ]] && echo "" || echo " (expected $total states, diameter $diameter)")
            printf '| %s | %s | %s | %s%s | %.2f | %s | %s | %s (%s) | %s |\n' "$size" "$threads" "$states" "$depth" "$ok" "$wall" "$rss" "$bytes" "$compared" "$name" "$different"
            rm -f "$json"
        done
    done
} | tee "$report"
echo "written: $report"

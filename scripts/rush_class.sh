# Sourced by scripts/rush_sample.sh and scripts/rush_walls_lines.sh from the repository root:
# builds this checkout unless SLIDESOLVE_BIN names a binary, and defines how one piece-count class
# of a Rush Hour family runs alone under `family --db`.
#
#   run_class SPEC "A=1 H=2 V=3 ... empty=N" WORK THREADS
#
# pins the class's counts in a copy of SPEC (`kind: X ... 0..` becomes `kind: X ... N`), runs
# `$SLIDESOLVE_BIN family WORK/class.family --db WORK/db.txt --threads THREADS --json` (with
# `--max-memory $MAX_MEMORY` when that is set; summary in
# WORK/summary.json) under GNU time, and sets `wall` (s), `rss` (KiB) and `cpu` (user + system
# seconds, at least 0.01 so that a class of a few milliseconds still has a rate);
# `field NAME` then prints a field of that summary.
if [[ -z "${SLIDESOLVE_BIN:-}" ]]; then
    cargo build --release --quiet
    SLIDESOLVE_BIN=target/release/slidesolve
fi

run_class() {
    local spec=$1 class=$2 work=$3 threads=$4 kv kind count user sys
    local sed_args=()
    for kv in $class; do
        kind=${kv%%=*} count=${kv#*=}
        [[ $kind == empty || $kind == A ]] && continue
        sed_args+=(-e "s/^kind: $kind \([^ ]*\) \([hvbn]\) 0\.\.[0-9]*/kind: $kind \1 \2 $count/")
    done
    # A class names only the kinds it has pieces of: the others are pinned to 0.
    sed_args+=(-e 's/^kind: \([^ ]*\) \([^ ]*\) \([hvbn]\) 0\.\.[0-9]*/kind: \1 \2 \3 0/')
    sed "${sed_args[@]}" "$spec" >"$work/class.family"
    /usr/bin/time -f '%U %S %e %M' -o "$work/time.txt" "$SLIDESOLVE_BIN" family "$work/class.family" \
        --db "$work/db.txt" --threads "$threads" ${MAX_MEMORY:+--max-memory "$MAX_MEMORY"} --json >"$work/summary.json"
    read -r user sys wall rss <"$work/time.txt"
    class_summary=$work/summary.json
    cpu=$(echo "x = $user + $sys; if (x < 0.01) x = 0.01; x" | bc -l)
}

field() { grep -o "\"$1\":[^,}]*" "$class_summary" | cut -d: -f2- | tr -d '"'; }

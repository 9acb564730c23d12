#!/usr/bin/env bash
# Scale-out measurements over MPI ranks on one machine: every case in one process and under
# `mpirun -np 1, 2, 4 --oversubscribe`, with each rank's wall time and peak RSS (GNU time), the
# output compared byte for byte with the one-process run, and the words exchanged per layer of the
# tile tables (--trace). Needs a binary built with `--features mpi`, Open MPI and GNU time.
#
#   cargo build --release --features mpi && scripts/scaleout.sh [RANKS...]
#
# Writes results/scaleout/<date>-<host>.md (and the per-layer exchange tables beside it).
# CASES=REGEX runs only the cases whose names match (grep -E), REPORT=FILE writes the table there
# instead, EXCHANGE_SIZES="" skips the exchange tables.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SLIDESOLVE_BIN:-target/release/slidesolve}
RANKS=${*:-1 2 4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out_dir=results/scaleout
mkdir -p "$out_dir"
stamp="$(date -u +%Y-%m-%d)-$(hostname -s)"
report=${REPORT:-$out_dir/$stamp.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cases=(
  "3x3 tiles|enumerate --tiles 3x3"
  "2x5 tiles|enumerate --tiles 2x5"
  "3x4 tiles|enumerate --tiles 3x4"
  "Klotski (free metric)|enumerate corpora/klotski/classic.grid"
  "dlaa.me blocks|enumerate corpora/blocks/dlaa.grid"
  "Rush Hour hardest51|enumerate corpora/rush/hardest51.rush"
  "batch corpora/mixed (61 puzzles)|batch corpora/mixed --quiet --force"
  "Klotski family, 1 thread per rank|family corpora/families/klotski.family --threads 1"
)

# Runs "$@" under $1 ranks (0: no launcher), each rank timed into $work/time.<rank>.
run() {
  local ranks=$1
  shift
  rm -f "$work"/time.*
  if [ "$ranks" = 0 ]; then
    /usr/bin/time -f "%e %M" -o "$work/time.0" "$BIN" "$@"
  else
    mpirun -np "$ranks" --oversubscribe sh -c \
      '/usr/bin/time -f "%e %M" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"' "$work/time" "$BIN" "$@"
  fi
}

# The per-rank "seconds / MiB" cells of the last run.
per_rank() {
  local cells=()
  for f in $(ls "$work"/time.* | sort -t. -k2 -n); do
    cells+=("$(awk 'END { printf "%.2f s / %.0f MiB", $1, $2 / 1024 }' "$f")")
  done
  local IFS=';'
  echo "${cells[*]}" | sed 's/;/, /g'
}

{
  echo "# Scale-out over MPI ranks: $(date -u +%Y-%m-%d), $(hostname -s)"
  echo
  echo "- binary: \`$BIN\` ($("$BIN" --version)), commit $(git rev-parse --short HEAD)"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(mpirun --version | head -1)"
  echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (the host is shared with other sessions: times are noisy)"
  echo "- command per rank: \`mpirun -np N --oversubscribe sh -c '/usr/bin/time ... slidesolve ARGS'\`; N = 0 is the plain process without mpirun"
  echo
  echo "| case | ranks | wall (rank 0) | per rank: time / peak RSS | output equal to one process |"
  echo "|---|---|---|---|---|"
} > "$report"

for entry in "${cases[@]}"; do
  name=${entry%%|*}
  [[ $name =~ ${CASES:-.} ]] || continue
  read -r -a args <<< "${entry#*|}"
  # A family writes a directory (components.csv, classes.csv), the others one CSV.
  out_flag=(--out "$work/out.csv")
  rm -rf "$work/out.csv" "$work/one.csv"
  run 0 "${args[@]}" "${out_flag[@]}" > "$work/one.txt"
  cp -r "$work/out.csv" "$work/one.csv"
  echo "| $name | 1 process | $(awk '{print $1}' "$work/time.0") s | $(per_rank) | (reference) |" >> "$report"
  for n in $RANKS; do
    rm -rf "$work/out.csv"
    run "$n" "${args[@]}" "${out_flag[@]}" > "$work/n.txt"
    if [ "${args[0]}" = batch ]; then
      same=$(python3 - "$work/one.csv" "$work/out.csv" <<'EOF'
import csv, sys
def rows(p):
    return {r['id']: {k: v for k, v in r.items() if k not in ('wall_s', 'peak_bytes', 'threads')} for r in csv.DictReader(open(p))}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
print('yes' if a == b and len(a) == 61 else 'NO')
EOF
)
    else
      same=$(diff -r -q "$work/one.csv" "$work/out.csv" > /dev/null && echo yes || echo NO)
    fi
    wall=$(awk '{print $1}' "$work/time.0")
    echo "| $name | $n | $wall s | $(per_rank) | $same |" >> "$report"
  done
done

# Words exchanged per layer (all ranks together) on the 3x4 and 2x6 tables (EXCHANGE_SIZES).
for size in ${EXCHANGE_SIZES-3x4 2x6}; do
  for n in $RANKS; do
    [ "$n" -gt 1 ] || continue
    mpirun -np "$n" --oversubscribe "$BIN" enumerate --tiles "$size" --trace > /dev/null 2> "$work/trace.txt"
    {
      echo "# $size tiles over $n ranks: words (8 bytes) sent between ranks per layer"
      echo "depth,states,words"
      python3 - "$work/trace.txt" <<'EOF'
import re, sys
states, words = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'depth\s+(\d+):\s+(\d+) states', line)
    if m: states[int(m[1])] = int(m[2])
    m = re.match(r'depth\s+(\d+):\s+(\d+) words', line)
    if m: words[int(m[1])] = int(m[2])
for d in sorted(states):
    print(f"{d},{states[d]},{words.get(d, 0)}")
EOF
    } > "$out_dir/exchange-$size-$n-ranks.csv"
  done
done
echo "wrote $report"

#!/usr/bin/env bash
# Runs every reproducer of the hardening issue under `ulimit -v 4194304` (4 GiB of address space)
# and a 5-second limit (60 s for the search-limit cases), and writes a table of exit code, wall
# time, peak RSS and the first line of the message to results/hardening/reproducers.md.
#
#   scripts/hardening.sh            # builds the release binary first
#
# Exit codes: 0 ok, 1 other (limit/timeout), 2 bad input, 3 unsolvable; 124 would mean the 5 s
# limit was hit and 134/139 a crash: the script fails if any case ends like that.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release -q
BIN=$PWD/target/release/slidesolve
OUT=results/hardening/reproducers.md
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# The inputs.
printf '2 2\n2 1 1 9223372036854775807 h\n' >overflow.data
printf '9223372036854775807 4\n1 1 1 1 b\n' >capacity.data
printf '255 2147483648\n1 1 1 1 b\n' >huge.data
printf '40000 40000\n1 1 1 1 h\n' >big.data
printf '4294967299 18446744069414584323\n1 2 3\n4 5 6\n7 8 0\n' >wrap.tiles
cp "$OLDPWD/results/hardening/limits_huge_level.data" wide.data
printf '4 4\n15 14 13 12\n11 10 9 8\n7 6 5 4\n3 1 2 0\n' >hard15.tiles
printf '2 5\n1 2 3 4 5\n6 7 0 8 9\ngoal: 1 2 3 4 5 6 7 8 9 0\n' >goal25.tiles
mkdir -p corpus && cp overflow.data capacity.data huge.data big.data wrap.tiles corpus/
"$BIN" gen tiles 2x5 --count 0 >corpus/empty.tiles
python3 -c 'print("6:" + "R1000000" * 3000)' >sol24k.txt
python3 -c 'print("6:" + "R1000000" * 9000)' >sol72k.txt
python3 - <<'EOF'
n = 1000
with open("t1000.tiles", "w") as f:
    f.write(f"{n} {n}\n")
    for r in range(n):
        f.write(" ".join(str((r * n + c + 1) % (n * n)) for c in range(n)) + "\n")
with open("checker.grid", "w") as f:
    f.write("goal: A at 0,1\nboard:\n")
    for r in range(n):
        f.write("".join("AB"[(r + c) % 2] for c in range(n)) + ".\n")
EOF
printf 'id,source,family,rows,cols,pieces,metric,algo,threads,status,moves,expected,nodes_expanded,nodes_generated,states_stored,peak_bytes,wall_s,solution,message\na,a,tiles,3,3,8,unit,bfs,1,solved,1,,1,1,1,1,0.1,1:U,\nb,b,tiles,3,3,8,unit,bfs,1,solved,1,,1,1,1,1,0.1,1:U,' >nonl.csv
mkdir -p existing_dir
K=$OLDPWD/corpora/klotski/classic.grid
T=$OLDPWD/corpora/tiles/8puzzle_123.tiles

CASES=(
  "1 CS 351 overflow::$BIN solve overflow.data"
  "2 CS 351 capacity overflow::$BIN solve capacity.data"
  "3 CS 351 25-byte 24 GB board::$BIN solve huge.data"
  "3 CS 351 40000x40000, --max-memory 2G::$BIN solve big.data --max-memory 2G"
  "4 batch over a directory of bad files::$BIN batch corpus --out b4.csv --quiet >/dev/null && echo rows: \$(tail -n +2 b4.csv | wc -l), errors: \$(grep -c ,error, b4.csv)"
  "5 tiles header that wraps::$BIN solve wrap.tiles"
  "5 enumerate --tiles that wraps::$BIN enumerate --tiles 4294967299x18446744069414584323"
  "5 gen tiles that wraps::$BIN gen tiles 4294967299x18446744069414584323"
  "6 --timeout inf::$BIN solve $K --timeout inf"
  "6 --timeout 1e30::$BIN solve $K --timeout 1e30"
  "6 --timeout NaN::$BIN solve $K --timeout NaN"
  "7 verify a 24 KB run::$BIN verify $T sol24k.txt"
  "7 verify a 72 KB run::$BIN verify $T sol72k.txt"
  "8 --max-states 2000000 --max-memory 2G on 4x256::LIMIT $BIN solve wide.data --max-states 2000000 --max-memory 2G"
  "8 no limit given: the default budget (half of ulimit -v)::LIMIT $BIN solve wide.data"
  "8 --max-states 2000000 on a 15-puzzle::LIMIT $BIN solve hard15.tiles --max-states 2000000 --json"
  "9 batch on a size-only tiles file::$BIN batch corpus/empty.tiles --out b9.csv --quiet >/dev/null && tail -1 b9.csv"
  "10 plot a missing CSV::$BIN plot /nonexistent.csv --out plotdir"
  "11 merge a last row without newline::$BIN merge nonl.csv --out merged.csv"
  "12 batch --out EXISTING_DIR --force::$BIN batch $T --out existing_dir --force --quiet; ls existing_dir.json 2>&1"
  "13 gen tiles | head -1::$BIN gen tiles 3x3 --count 100000 | head -1"
  "13 solve > /dev/full::$BIN solve $K >/dev/full"
  "14 --goal off the board::$BIN solve $K --goal 'A at 9,9'"
  "15 --goal on a 2x5 file::$BIN solve goal25.tiles --goal '1 2 3 4 5 6 7 8 0 9'"
  "16 1000x1000 tiles parse::$BIN solve t1000.tiles --algo constructive --json | cut -c1-80"
  "16 1000x1000 checkerboard compile::$BIN solve checker.grid"
  "17 --threads 5000::$BIN solve $K --threads 5000"
  "17 --threads 100000::$BIN solve $K --threads 100000"
  "18 PDB build honours --timeout::$BIN solve hard15.tiles --algo astar --heuristic pdb --pdb-partition 6-6-3 --pdb-cache pdbcache --timeout 1 2>/dev/null"
  "19 gen tiles 100x100::$BIN gen tiles 100x100 --count 1 >g100.tiles && $BIN solve g100.tiles --algo constructive | head -1 | cut -c1-80"
  "20 --pdb-partition 0-8::$BIN solve $T --algo astar --heuristic pdb --pdb-partition 0-8"
  "20 verify P missing.txt::$BIN verify $T missing.txt"
  "20 batch /dev/stdin::echo '1 2 3 4 5 6 7 8 0' | $BIN batch /dev/stdin --out b20.csv --quiet >/dev/null && tail -1 b20.csv"
  "20 iddfs timeout count::$BIN solve hard15.tiles --algo iddfs --timeout 1"
)

{
  echo "# Hardening reproducers"
  echo
  echo "\`scripts/hardening.sh\` on $(date -u +%F), commit $(git -C "$OLDPWD" rev-parse --short HEAD), $(nproc) cores;"
  echo "every case under \`ulimit -v 4194304\`, 5 s (60 s for the search-limit cases)."
  echo
  echo "| # | case | exit | wall s | max RSS MiB | first line of the message |"
  echo "|---|---|---|---|---|---|"
} >"$OLDPWD/$OUT"
failed=0
for entry in "${CASES[@]}"; do
  name=${entry%%::*}
  cmd=${entry#*::}
  limit=5
  if [[ $cmd == LIMIT* ]]; then limit=60; cmd=${cmd#LIMIT }; fi
  set +e
  printf '%s\n' "$cmd" >case.sh
  /usr/bin/time -f '%e %M' -o time.txt bash -c "ulimit -v 4194304; timeout $limit bash -o pipefail case.sh" >out.txt 2>&1
  code=$?
  set -e
  read -r wall rss < <(tail -1 time.txt) || true
  msg=$(grep -v '^Command exited' out.txt | head -1 | cut -c1-150 | sed 's/|/\\|/g; s/`//g')
  title=$(sed 's/|/\\|/g' <<<"${name#* }")
  printf '| %s | %s | %s | %s | %s | %s |\n' "${name%% *}" "$title" "$code" "$wall" "$((rss / 1024))" "$msg" >>"$OLDPWD/$OUT"
  if ((code == 124 || code >= 128)); then failed=1; echo "FAILED: $name (exit $code)"; fi
done
cat "$OLDPWD/$OUT"
exit $failed

#!/usr/bin/env bash
# Engine benchmarks, side by side with the `pathfinding` crate, plus the large 3x4 runs.
# Writes results/engine/<date>-<host>.md (tables + the exact commands and machine).
# Usage: scripts/bench_engine.sh [--quick]   (--quick skips the 239.5M-state 3x4 runs)
# Needs: the Rust toolchain, python3 (to read criterion's JSON), GNU time (/usr/bin/time).
# SLIDESOLVE_BIN=path runs the 3x4 searches with a binary built earlier (no release build); the
# criterion part benchmarks the library of this checkout, which `cargo bench` builds.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${1:-}
host=$(hostname -s 2>/dev/null || echo host)
out="results/engine/$(date -u +%Y-%m-%d)-$host.md"
mkdir -p results/engine
[[ -n "${SLIDESOLVE_BIN:-}" ]] || cargo build --release --quiet
bin=${SLIDESOLVE_BIN:-target/release/slidesolve}

{
  echo "# Engine benchmark — $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty)')"
  echo "- rustc: $(rustc --version)"
  echo "- cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; RAM $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "- command: ${SLIDESOLVE_BIN:+SLIDESOLVE_BIN=$SLIDESOLVE_BIN }scripts/bench_engine.sh $quick"
  echo
  echo "## Side by side (criterion, \`cargo bench --bench engine\`)"
  echo
} > "$out"

cargo bench --bench engine -- --noplot 2>&1 | grep -E "time:|thrpt:|^[a-z_0-9]+/" > /tmp/bench_engine.log || true
python3 - "$out" <<'PY'
import json, glob, os, sys
rows = {}
for path in glob.glob("target/criterion/*/*/*/new/estimates.json"):
    parts = path.split(os.sep)
    group, fn, param = parts[2], parts[3], parts[4]
    est = json.load(open(path))
    bench = json.load(open(path.replace("estimates.json", "benchmark.json")))
    thr = bench.get("throughput") or {}
    n = thr.get("Elements")
    rows.setdefault(group, []).append((f"{fn}/{param}", est["median"]["point_estimate"] / 1e9, n))
with open(sys.argv[1], "a") as f:
    f.write("| benchmark | contender | median time | states | states/s | vs pathfinding |\n|---|---|---|---|---|---|\n")
    for group in sorted(rows):
        base = next((t for name, t, _ in rows[group] if name.startswith("pathfinding")), None)
        for name, t, n in sorted(rows[group]):
            rate = f"{n / t:,.0f}" if n else "-"
            ratio = f"{base / t:.1f}x" if base else "-"
            f.write(f"| {group} | {name} | {t*1000:.2f} ms | {n or '-'} | {rate} | {ratio} |\n")
PY

if [ "$quick" != "--quick" ]; then
  {
    echo
    echo "## Large searches (239,500,800 states)"
    echo
  } >> "$out"
  for threads in 1 2; do
    /usr/bin/time -v "$bin" enumerate --tiles 3x4 --engine frontier --farthest 1 --threads "$threads" --json > /tmp/e34.json 2> /tmp/e34.time
    python3 - "$out" "$threads" <<'PY'
import json, re, sys
j = json.load(open("/tmp/e34.json")); t = open("/tmp/e34.time").read()
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) * 1024
with open(sys.argv[1], "a") as f:
    f.write(f"- `slidesolve enumerate --tiles 3x4 --engine frontier --threads {sys.argv[2]}`: {j['states']:,} states, depth {j['max_depth']}, "
            f"{j['wall_s']:.1f} s ({j['states']/j['wall_s']:,.0f} states/s), peak RSS {rss/2**30:.2f} GiB "
            f"({rss/j['states']:.1f} bytes/state), engine peak {j['peak_bytes']/2**30:.2f} GiB\n")
PY
  done
  # Search (with path data) from the 3x4 goal to one of its farthest states.
  far=$(python3 -c "import json; print(json.load(open('/tmp/e34.json'))['farthest'][0].replace('.', '0').replace('\n', '/').strip('/'))")
  printf 'goal: %s\n1 2 3 4\n5 6 7 8\n9 10 11 0\n' "$far" > /tmp/far34.tiles
  /usr/bin/time -v "$bin" solve /tmp/far34.tiles --json > /tmp/s34.json 2> /tmp/s34.time
  python3 - "$out" "$far" <<'PY'
import json, re, sys
j = json.load(open("/tmp/s34.json")); t = open("/tmp/s34.time").read()
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) * 1024
with open(sys.argv[1], "a") as f:
    f.write(f"- `slidesolve solve` 3x4 goal -> farthest `{sys.argv[2]}`: {j['moves']} moves, {j['states_stored']:,} states stored, "
            f"{j['wall_s']:.1f} s, peak RSS {rss/2**30:.2f} GiB ({rss/j['states_stored']:.1f} bytes/state incl. path data), "
            f"engine peak {j['peak_bytes']/2**30:.2f} GiB ({j['peak_bytes']/j['states_stored']:.1f} bytes/state)\n")
PY
fi
echo "wrote $out"
cat "$out"

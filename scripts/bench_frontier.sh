#!/usr/bin/env bash
# The frontier engine, today's (BASE, default f5ab2ca) against HEAD, in one run.
#
# Builds BASE (a temporary `git worktree`) and HEAD with the same release profile, then runs them
# interleaved, REPEATS times (default 3):
# - the 3x4 tile puzzle at depth 32 (corpora/bench/tiles3x4-d32.tiles, `solve`, 1 thread):
#   stored states per second, bytes per stored state (peak_bytes / stored) and peak RSS;
# - every puzzle of corpora/bench/ (`enumerate`, 1 and 2 threads): states per second and the
#   1 -> 2 thread ratio.
# Writes results/blockspeed/frontier-<date>-<host>.md. Needs python3 and GNU time.
# BENCH_PUZZLES="a.grid b.rush" limits the block puzzles; WORK=DIR keeps the BASE build there
# (reused when it is already built at that commit); SLIDESOLVE_BIN=path runs a binary built
# earlier in place of HEAD's (HEAD is then not built).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
BASE=${BASE:-f5ab2ca}
REPEATS=${REPEATS:-3}
WORK=${WORK:-${TMPDIR:-/tmp}/slidesolve-bench-frontier}
base_commit=$(git rev-parse "$BASE")
head_commit="$(git rev-parse --short=7 HEAD)${SLIDESOLVE_BIN:+ (binary $SLIDESOLVE_BIN)}"
mkdir -p "$WORK"
if [ ! -x "$WORK/target/release/slidesolve" ] || [ "$(cat "$WORK/commit" 2>/dev/null)" != "$base_commit" ]; then
    rm -rf "$WORK/src" "$WORK/commit"
    git worktree prune
    git worktree add --detach "$WORK/src" "$base_commit" >/dev/null
    (cd "$WORK/src" && CARGO_TARGET_DIR="$WORK/target" cargo build --release --quiet)
    git worktree remove --force "$WORK/src"
    echo "$base_commit" >"$WORK/commit"
fi
[[ -n "${SLIDESOLVE_BIN:-}" ]] || cargo build --release --quiet
old="$WORK/target/release/slidesolve"
new=${SLIDESOLVE_BIN:-$root/target/release/slidesolve}
tiles=corpora/bench/tiles3x4-d32.tiles
puzzles=${BENCH_PUZZLES:-$(ls corpora/bench/*.grid corpora/bench/*.rush corpora/bench/*.data 2>/dev/null)}
raw="$WORK/raw.jsonl"
: >"$raw"

# run LABEL THREADS KIND FILE: one timed run, one JSON line in $raw.
run() {
    local label=$1 threads=$2 kind=$3 file=$4 bin out
    bin=$old
    [ "$label" = new ] && bin=$new
    out=$(mktemp)
    if [ "$kind" = solve ]; then
        /usr/bin/time -f '%M' -o "$out.time" "$bin" solve "$file" --threads "$threads" --json >"$out"
    else
        /usr/bin/time -f '%M' -o "$out.time" "$bin" enumerate "$file" --threads "$threads" --json --farthest 0 >"$out"
    fi
    python3 - "$label" "$threads" "$kind" "$file" "$out" "$(tail -1 "$out.time")" >>"$raw" <<'EOF'
import json, sys
label, threads, kind, file, out, rss = sys.argv[1:]
d = json.load(open(out))
stored = d["states_stored"] if kind == "solve" else d["states"]
print(json.dumps({"label": label, "threads": int(threads), "kind": kind, "file": file, "stored": stored,
                  "wall_s": d["wall_s"], "peak_bytes": d["peak_bytes"], "rss_kb": int(rss),
                  "moves": d.get("moves"), "layers": d.get("layers")}))
EOF
    rm -f "$out" "$out.time"
}

for r in $(seq "$REPEATS"); do
    for label in old new; do
        echo "repeat $r: $label $tiles" >&2
        run "$label" 1 solve "$tiles"
    done
    for file in $puzzles; do
        for threads in 1 2; do
            for label in old new; do
                echo "repeat $r: $label $file, $threads threads" >&2
                run "$label" "$threads" enumerate "$file"
            done
        done
    done
done

mkdir -p results/blockspeed
report="results/blockspeed/frontier-$(date -u +%Y-%m-%d)-$(hostname -s).md"
python3 - "$raw" "$base_commit" "$head_commit" "$REPEATS" >"$report" <<'EOF'
import json, sys, platform, statistics, subprocess
raw, base, head, repeats = sys.argv[1:]
rows = [json.loads(l) for l in open(raw)]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
def pick(label, kind, file, threads):
    return [r for r in rows if (r["label"], r["kind"], r["file"], r["threads"]) == (label, kind, file, threads)]
def rate(rs):
    return [r["stored"] / r["wall_s"] for r in rs]
med = statistics.median
print("# Frontier engine: today's (BASE) against HEAD\n")
print(f"`scripts/bench_frontier.sh`, {repeats} interleaved repeats; BASE {base[:7]}, HEAD {head}, same release")
print(f"profile; {rustc}; {cpu}, {platform.node()} (a shared host: other sessions were building). Medians;")
print("every run's figure in brackets.\n")
print("## 3x4 tiles, a state at depth 32 (`solve`, 1 thread)\n")
print("| engine | moves | stored | states/s | peak_bytes | bytes/stored | RSS |")
print("|---|---:|---:|---:|---:|---:|---:|")
tiles = [r for r in rows if r["kind"] == "solve"]
file = tiles[0]["file"] if tiles else None
res = {}
for label in ["old", "new"]:
    rs = pick(label, "solve", file, 1)
    if not rs:
        continue
    s = rate(rs)
    res[label] = med(s)
    r0 = rs[0]
    print(f"| {label} | {r0['moves']} | {r0['stored']:,} | {med(s):,.0f} [{', '.join(f'{x:,.0f}' for x in s)}] | "
          f"{r0['peak_bytes']:,} | {r0['peak_bytes'] / r0['stored']:.1f} | "
          f"{med([r['rss_kb'] for r in rs]) / 1024:,.0f} MiB |")
if len(res) == 2:
    print(f"\nnew / old states per second: **{res['new'] / res['old']:.2f}x**\n")
print("## corpora/bench (`enumerate`, 1 and 2 threads)\n")
print("| puzzle | states | engine | 1 thread states/s | 2 threads states/s | 2/1 | new/old (1 thread) | new/old (2 threads) | peak_bytes 1t / 2t |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
for file in sorted({r["file"] for r in rows if r["kind"] == "enumerate"}):
    one = {l: med(rate(pick(l, "enumerate", file, 1))) for l in ["old", "new"]}
    two = {l: med(rate(pick(l, "enumerate", file, 2))) for l in ["old", "new"]}
    for l in ["old", "new"]:
        r1, r2 = pick(l, "enumerate", file, 1), pick(l, "enumerate", file, 2)
        print(f"| {file} | {r1[0]['stored']:,} | {l} | {one[l]:,.0f} [{', '.join(f'{x:,.0f}' for x in rate(r1))}] | "
              f"{two[l]:,.0f} [{', '.join(f'{x:,.0f}' for x in rate(r2))}] | {two[l] / one[l]:.2f} | "
              f"{one['new'] / one['old']:.2f} | {two['new'] / two['old']:.2f} | "
              f"{r1[0]['peak_bytes']:,} / {r2[0]['peak_bytes']:,} |")
print("\nRaw runs (one JSON object a run):\n\n```")
for r in rows:
    r = dict(r)
    r.pop("layers", None)
    print(json.dumps(r))
print("```")
EOF
echo "wrote $report" >&2

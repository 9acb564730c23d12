#!/usr/bin/env bash
# Block-engine speed (issue 12): the engine of commit $OLD (default f5ab2ca, before the bitboard
# block domain) against this checkout and against the `pathfinding` crate's `bfs` on the same
# successor function (examples/pathfinding_bfs.rs), on one thread, interleaved in one run.
#
# Usage: scripts/bench_blockspeed.sh [REPEATS]     (default 5 rounds; every round runs every
#        contender on every row, so a slow spell of a shared host hits all of them alike)
# Env:   OLD=COMMIT       the baseline commit (built with `git worktree add` in a temp dir, with the
#                         release profile of that commit, which is this one's)
#        OLD_BIN=PATH     use a baseline binary built earlier instead of building it
#        SLIDESOLVE_BIN=PATH  use a binary built earlier for this checkout's side (only the
#                         pathfinding example is then built)
#        TILES=1          add the tiles row: corpora/tiles/3x4_depth32.tiles solved by BFS on one
#                         thread (about 20 s and 1.6 GB a run for the baseline)
#        ONLY=REGEX       only the rows whose name matches
#        TAG=WORD         append -WORD to the record's file name (two records on one day)
# Writes results/blockspeed/<date>-<host>.md (table, commands, machine) and prints it.
# Needs: git, the Rust toolchain, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
repeats=${1:-5}
old=${OLD:-f5ab2ca}
host=$(hostname -s 2>/dev/null || echo host)
out="results/blockspeed/$(date -u +%Y-%m-%d)-$host${TAG:+-$TAG}.md"
mkdir -p results/blockspeed

# shellcheck source=scripts/old_binary.sh
source scripts/old_binary.sh "$old"
if [[ -n "${SLIDESOLVE_BIN:-}" ]]; then
    echo "building the pathfinding example ..." >&2
    cargo build --release --quiet --example pathfinding_bfs
else
    echo "building HEAD ..." >&2
    cargo build --release --quiet --bin slidesolve --example pathfinding_bfs
fi
new_bin=${SLIDESOLVE_BIN:-target/release/slidesolve}
pf_bin=target/release/examples/pathfinding_bfs

python3 - "$out" "$repeats" "$old_bin" "$new_bin" "$pf_bin" "$old" "${TILES:-}" "${ONLY:-}" <<'PY'
import json, os, re, statistics, subprocess, sys, time

out, repeats, old_bin, new_bin, pf_bin, old_commit, tiles, only = sys.argv[1:9]
repeats = int(repeats)
K = "corpora/klotski/classic.grid"
# (row name, kind, file, metric or None for the file's, pathfinding contender?)
rows = []
for m in ["unit", "straight", "free"]:
    rows.append((f"Klotski classic, enumerate, {m}", "enumerate", K, m))
for m in ["unit", "straight", "free"]:
    rows.append((f"Klotski classic, solve, {m}", "solve", K, m))
rows += [
    ("Klotski sssV/BBVV/BBVV/.HHV/.sHH, enumerate, free", "enumerate", "corpora/klotski/group81340.grid", None),
    ("dlaa.me, enumerate, unit", "enumerate", "corpora/blocks/dlaa.grid", None),
    ("dlaa.me, solve, unit", "solve", "corpora/blocks/dlaa.grid", None),
    ("Century, enumerate, free", "enumerate", "corpora/blocks/century.grid", None),
    ("Century, solve, free", "solve", "corpora/blocks/century.grid", None),
    ("Rush Hour 51-move card, enumerate", "enumerate", "corpora/rush/hardest51.rush", None),
    ("Rush Hour 51-move card, solve", "solve", "corpora/rush/hardest51.rush", None),
    ("CS 351 large (10x12, no solution), enumerate", "enumerate", "corpora/cs351/large.data", None),
    ("CS 351 large (10x12, no solution), solve", "solve", "corpora/cs351/large.data", None),
    ("Rush Hour corpus (batch, verified)", "batch", "corpora/rush", None),
    ("Klotski-like 4x6 (corpora/bench), enumerate, free", "enumerate", "corpora/bench/klotski-4x6.grid", None),
    ("Rush Hour 7x7, 17 cars (corpora/bench), enumerate", "enumerate", "corpora/bench/rush-7x7.rush", None),
    ("Unit Rush Hour 5x5, 19 cars (corpora/bench), enumerate", "enumerate", "corpora/bench/unit-rush-5x5.grid", None),
    ("CS 351 10x12, five fixed blocks fewer (corpora/bench), enumerate", "enumerate", "corpora/bench/cs351-10x12.data", None),
]
if tiles:
    rows.append(("Tiles 3x4 depth 32, solve (BFS)", "solve", "corpora/tiles/3x4_depth32.tiles", None))
if only:
    rows = [r for r in rows if re.search(only, r[0])]

def command(binary, kind, path, metric):
    m = ["--metric", metric] if metric else []
    if binary == pf_bin:
        return [binary, path] + m + (["--enumerate"] if kind == "enumerate" else [])
    if kind == "enumerate":
        return [binary, "enumerate", path, "--threads", "1", "--farthest", "0", "--json"] + m
    if kind == "solve":
        return [binary, "solve", path, "--threads", "1", "--json"] + m
    return [binary, "batch", path, "--threads", "1", "--out", os.path.join(os.environ.get("TMPDIR", "/tmp"), "bench_blockspeed_batch.csv"), "--force"]

def run(cmd):
    """Wall seconds of the whole process and its stdout."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, _ = p.communicate()
    wall = time.perf_counter() - start
    if p.returncode not in (0, 1, 3):  # 1: a known optimum differs (batch), 3: no solution
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}")
    return wall, stdout.decode()

contenders = [("old", old_bin), ("new", new_bin), ("pathfinding", pf_bin)]
samples = {}  # (row, contender) -> list of (process wall, engine wall, work, bytes, answer)
for r in range(repeats):
    for name, kind, path, metric in rows:
        for who, binary in contenders:
            if who == "pathfinding" and kind == "batch":
                continue
            wall, text = run(command(binary, kind, path, metric))
            if kind == "batch":
                n = int(re.search(r"this run: (\d+) puzzles", text).group(1))
                # The same statuses and optimum checks for both engines (the corpus has one wrong
                # published number, tuler_levels200.txt:1, reported as a mismatch by both).
                summary = re.search(r"\d+ puzzles: .*\nknown optima: .*", text).group(0)
                sample = (wall, wall, n, None, summary)
            elif who == "pathfinding":
                j = json.loads(text)
                sample = (wall, j["wall_s"], j["states"], None, j["moves"] if kind == "solve" else j["states"])
            elif kind == "enumerate":
                j = json.loads(text)
                sample = (wall, j["wall_s"], j["states"], j["peak_bytes"], (j["states"], j["max_depth"]))
            else:
                j = json.loads(text)
                sample = (wall, j["wall_s"], j["states_stored"], j["peak_bytes"], j["moves"])
            samples.setdefault((name, who), []).append(sample)
    print(f"round {r + 1}/{repeats} done", file=sys.stderr)

def med(xs):
    return statistics.median(xs)

lines = []
lines.append("| puzzle | states | old states/s | new states/s | new/old | bytes/state old → new | process s old / new / pathfinding | new/pathfinding |")
lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, kind, path, metric in rows:
    o, n = samples[(name, "old")], samples[(name, "new")]
    p = samples.get((name, "pathfinding"))
    answers = {s[4] for s in o + n}
    if len(answers) != 1:
        sys.exit(f"{name}: old and new disagree: {answers}")
    if p and kind == "solve" and {s[4] for s in p} != {n[0][4]}:
        sys.exit(f"{name}: pathfinding finds {p[0][4]} moves, slidesolve {n[0][4]}")
    if p and kind == "enumerate" and {s[2] for s in p} != {n[0][2]}:
        sys.exit(f"{name}: pathfinding reaches {p[0][2]} states, slidesolve {n[0][2]}")
    work = n[0][2]
    unit = "boards" if kind == "batch" else "states"
    rate = lambda ss: work / med([s[1] for s in ss])
    bps = lambda ss: f"{med([s[3] for s in ss]) / work:.1f}" if ss[0][3] is not None else "-"
    proc = lambda ss: med([s[0] for s in ss])
    pf_cell = f"{proc(p):.3f}" if p else "-"
    pf_ratio = f"{proc(p) / proc(n):.2f}x" if p else "-"
    lines.append(
        f"| {name} | {work:,} {'' if unit == 'states' else unit} | {rate(o):,.0f} | {rate(n):,.0f} | {rate(n) / rate(o):.2f}x "
        f"| {bps(o)} → {bps(n)} | {proc(o):.3f} / {proc(n):.3f} / {pf_cell} | {pf_ratio} |"
    )

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception:
        return "?"

cpu = sh('grep -m1 "model name" /proc/cpuinfo | cut -d: -f2').strip()
load = open("/proc/loadavg").read().split()[:3]
head = [
    f"# Block engine speed — {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}",
    "",
    f"- old: commit {old_commit} (`{old_bin}`); new: commit {sh('git rev-parse --short HEAD')}"
    f"{'' if sh('git status --porcelain --untracked-files=no') == '' else ' (dirty)'} (`{new_bin}`); pathfinding: `examples/pathfinding_bfs.rs`"
    " (`pathfinding::prelude::bfs` / `bfs_reach` over the new domain's successors)",
    f"- rustc: {sh('rustc --version')}; cpu: {cpu}, {os.cpu_count()} cores; load average at the end: {' '.join(load)}"
    " (a shared host: compare only rows of one run)",
    f"- command: `scripts/bench_blockspeed.sh {repeats}`{' TILES=1' if tiles else ''}; {repeats} interleaved rounds, medians",
    "- states/s: states (enumerate: all reachable; solve: states stored) over the engine's own `wall_s`, one thread;"
    " bytes/state: the engine's `peak_bytes` over those states; process s: the whole process, start to exit;"
    " the batch row counts boards and its times are whole processes (`batch --threads 1`, verification on)",
    "",
]
text = "\n".join(head + lines) + "\n"
with open(out, "w") as f:
    f.write(text)
print(text)
print(f"wrote {out}", file=sys.stderr)
PY

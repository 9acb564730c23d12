#!/usr/bin/env python3
"""Checks Neil Bickford's hardest 4x4 sliding block puzzles against `slidesolve family`.

Bickford ("Sliding Block Puzzles, Part 3", 2012) searched every 4x4 puzzle whose goal piece starts
in the upper-left corner and must reach the lower-right one, with pieces of any shape, free metric,
and published the most moves for each number of pieces: 1, 4, 9, 19, 36, 51, 62, 89, 132, 81, 64,
73, 61, 25, 21 for 1 to 15 pieces.

A puzzle of n pieces in 16 cells, at least one empty, has at most 15 - n cells beyond one a piece,
so its pieces are polyominoes of at most 16 - n cells. His goal piece covers the upper-left cell
and must cover the lower-right one, so its shape covers both those corners of its bounding box (an
L-tromino drawn XX/X. is never a goal piece: with it, 7 pieces would give 66 moves, not 62). For
each such goal shape G this writes one family spec: the goal kind A of shape G with `start:` its
bounding box in the upper-left corner and `goal:` in the lower-right one, 1x1 pieces,
every other shape with as many pieces as the spare cells allow, and `pieces:` the numbers of
pieces asked for. Its classes are then every such puzzle; the script takes the largest
hardest_moves per number of pieces over all specs and compares it with the published figure.

    scripts/bickford_4x4.py                       # 10 to 15 pieces (seconds)
    scripts/bickford_4x4.py --pieces 8            # 8 to 15 (under a minute)
    scripts/bickford_4x4.py --pieces 7 --most 7   # 7 pieces only (under a minute)
    scripts/bickford_4x4.py --pieces 3 --most 3   # 3 pieces (a minute: 2,900 specs)

Exit status 1 when a figure differs. Needs python3 and a release build (made first).
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

PUBLISHED = [1, 4, 9, 19, 36, 51, 62, 89, 132, 81, 64, 73, 61, 25, 21]


def polyominoes(size, rows=4, cols=4):
    """Every fixed polyomino of at most `size` cells that fits a rows x cols box, smallest first."""

    def fits(cells):
        return max(p[0] for p in cells) < rows and max(p[1] for p in cells) < cols

    # A polyomino that fits grows from one that fits (drop a cell that leaves it connected).
    layer, shapes = {frozenset([(0, 0)])}, [frozenset([(0, 0)])]
    for _ in range(1, size):
        grown = set()
        for cells in layer:
            for r, c in cells:
                for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    if (r + dr, c + dc) in cells:
                        continue
                    bigger = cells | {(r + dr, c + dc)}
                    top, left = min(p[0] for p in bigger), min(p[1] for p in bigger)
                    bigger = frozenset((p[0] - top, p[1] - left) for p in bigger)
                    if fits(bigger):
                        grown.add(bigger)
        layer = grown
        shapes += sorted(grown, key=sorted)
    return shapes


def drawing(cells):
    height, width = max(p[0] for p in cells) + 1, max(p[1] for p in cells) + 1
    return "/".join("".join("X" if (r, c) in cells else "." for c in range(width)) for r in range(height))


# Kind names: one character each, never '.', '#' or '=' (hundreds of kinds need letters past ASCII).
NAMES = [chr(c) for c in range(ord("B"), ord("Z") + 1)] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
NAMES += list("0123456789") + [chr(c) for c in range(0x3B1, 0x3CA)] + [chr(c) for c in range(0x400, 0x500)]
NAMES += [chr(c) for c in range(0x4E00, 0x9FA6)]


def spec_text(goal, shapes, pieces, most):
    """The family spec for goal shape `goal`: every puzzle of `pieces` to `most` pieces."""
    height, width = max(p[0] for p in goal) + 1, max(p[1] for p in goal) + 1
    anchor = min(goal)
    spare = 15 - len(goal) - (pieces - 1)
    lines = [
        "metric: free",
        "empty: 1..",
        f"pieces: {pieces}..{most}",
        f"start: A at {anchor[0]},{anchor[1]}",
        f"goal: A at {4 - height + anchor[0]},{4 - width + anchor[1]}",
        f"kind: A {drawing(goal)} b 1",
        "kind: B X b 0..",
    ]
    for name, cells in zip(NAMES[1:], shapes[1:]):
        if len(cells) - 1 <= spare:
            lines.append(f"kind: {name} {drawing(cells)} b 0..{spare // (len(cells) - 1)}")
    return "\n".join(lines + ["board:", "....", "....", "....", "...."]) + "\n"


def pieces_of(cls, shapes):
    """A class description (`A=1 B=5 D=2 empty=2`) with its other kinds drawn: `X`×5 `X/X`×2."""
    shape_of = dict(zip(NAMES, shapes))
    words = []
    for word in cls.split():
        name, count = word.rsplit("=", 1)
        if name in ("A", "empty") or count == "0":
            continue
        words.append(f"`{drawing(shape_of[name])}`×{count}")
    return " ".join(words)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=10, help="the fewest pieces to check (1 to 15)")
    parser.add_argument("--most", type=int, default=15, help="the most pieces to check (up to 15)")
    parser.add_argument(
        "--bin",
        default=os.environ.get("SLIDESOLVE_BIN") or None,
        help="the slidesolve binary (default: $SLIDESOLVE_BIN, else build and use the release one)",
    )
    args = parser.parse_args()
    if not 1 <= args.pieces <= args.most <= 15:
        parser.error("need 1 <= --pieces <= --most <= 15")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = args.bin
    if binary is None:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=root, check=True)
        binary = os.path.join(root, "target", "release", "slidesolve")
    shapes = polyominoes(16 - args.pieces)
    assert len(shapes) <= len(NAMES), "a name for every shape"
    best, specs = {}, 0
    clock = time.time()
    with tempfile.TemporaryDirectory() as work:
        for i, goal in enumerate(shapes):
            corner = (max(p[0] for p in goal), max(p[1] for p in goal))
            if 15 - len(goal) - (args.pieces - 1) < 0 or (0, 0) not in goal or corner not in goal:
                continue
            specs += 1
            spec = os.path.join(work, f"goal{i}.family")
            with open(spec, "w", encoding="utf-8") as f:
                f.write(spec_text(goal, shapes, args.pieces, args.most))
            out = os.path.join(work, f"goal{i}")
            run = subprocess.run([binary, "family", spec, "--out", out, "--no-components"], capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"goal shape {drawing(goal)}: {run.stderr.strip()}")
            with open(os.path.join(out, "classes.csv"), encoding="utf-8") as f:
                for row in csv.DictReader(f):
                    words = [w for w in row["class"].split() if not w.startswith("empty=")]
                    count = sum(int(w.rsplit("=", 1)[1]) for w in words)
                    if row["hardest_moves"]:
                        moves = int(row["hardest_moves"])
                        if moves > best.get(count, (-1,))[0]:
                            best[count] = (moves, drawing(goal), row["class"])
    print(f"{specs} goal shapes, {time.time() - clock:.1f} s")
    print("| pieces | hardest (moves) | published | goal piece | class |")
    print("|---:|---:|---:|---|---|")
    differ = False
    for n in range(args.pieces, args.most + 1):
        moves, goal, cls = best.get(n, (None, "", ""))
        differ |= moves != PUBLISHED[n - 1]
        print(f"| {n} | {moves} | {PUBLISHED[n - 1]} | `{goal}` | {pieces_of(cls, shapes)} |")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()

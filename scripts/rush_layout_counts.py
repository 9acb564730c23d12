#!/usr/bin/env python3
"""Layouts of every piece-count class of the 6x6 Rush Hour family (corpora/families/rush6x6.family),
counted by a cell-by-cell transfer DP (profile: per column, cells a vertical piece still covers
below), without listing them. With --db, horizontal pieces other than A avoid row 2, as
`slidesolve family --db` enumerates (the rule's filled-line test is not applied: an upper bound
there). With --walls, up to two 1x1 walls (corpora/families/rush6x6-walls2.family). Prints
'class<TAB>layouts' with classes described as `slidesolve family` does (A=1 H=.. V=.. T=.. U=..
[W=..] empty=.., the kinds without pieces left out), for projecting a partial run.

    scripts/rush_layout_counts.py [--db] [--walls] > counts.tsv
"""
import sys

N, PRIMARY_ROW = 6, 2
DB = "--db" in sys.argv[1:]
WALLS = 2 if "--walls" in sys.argv[1:] else 0
# Kinds in spec order: A (1x2 h, row 2), H (1x2 h), V (2x1 v), T (1x3 h), U (3x1 v), W (1x1 n).
SIZE = [2, 2, 2, 3, 3, 1]
NAMES = "AHVTUW" if WALLS else "AHVTU"


def add(target, counts, n):
    target[counts] = target.get(counts, 0) + n


def main():
    states = {((0,) * N, 0): {(0,) * len(NAMES): 1}}  # (profile, cells of a horizontal piece left) -> counts -> n
    for r in range(N):
        for c in range(N):
            nxt = {}
            for (profile, rest), polys in states.items():
                options = []
                if profile[c] > 0:
                    if rest == 0:
                        p = list(profile)
                        p[c] -= 1
                        options.append((tuple(p), 0, None))
                elif rest > 0:
                    options.append((profile, rest - 1, None))
                else:
                    options.append((profile, 0, None))
                    if WALLS:
                        options.append((profile, 0, 5))
                    if r == PRIMARY_ROW and c + 2 <= N:
                        options.append((profile, 1, 0))
                    for length, kind in ((2, 1), (3, 3)):
                        if c + length <= N and not (DB and r == PRIMARY_ROW):
                            options.append((profile, length - 1, kind))
                    for length, kind in ((2, 2), (3, 4)):
                        if r + length <= N:
                            p = list(profile)
                            p[c] = length - 1
                            options.append((tuple(p), 0, kind))
                for p, rest2, kind in options:
                    target = nxt.setdefault((p, rest2), {})
                    for counts, n in polys.items():
                        if kind is not None:
                            counts = counts[:kind] + (counts[kind] + 1,) + counts[kind + 1:]
                            if counts[0] > 1 or (WALLS and counts[5] > WALLS):
                                continue
                        add(target, counts, n)
            states = nxt
        states = {k: v for k, v in states.items() if k[1] == 0}
    final = {}
    for (profile, _), polys in states.items():
        if not any(profile):
            for counts, n in polys.items():
                if counts[0] == 1:
                    add(final, counts, n)
    for counts in sorted(final):
        empty = N * N - sum(k * s for k, s in zip(counts, SIZE))
        names = " ".join(f"{name}={k}" for name, k in zip(NAMES, counts) if k)
        print(f"{names} empty={empty}\t{final[counts]}")


main()

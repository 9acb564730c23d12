#!/usr/bin/env python3
"""How far apart the piece colours of src/render/mod.rs are, for normal vision and simulated
protanopia, deuteranopia and tritanopia, and how the 9 colours after Okabe-Ito's 7 were chosen.

Simulation: Machado, Oliveira & Fernandes (2009), severity 1.0, on linear sRGB; distance: CIE76
Delta E in CIELAB (D65). Candidates: Paul Tol's colour-blind-safe "bright", "vibrant", "muted"
and "light" schemes without their greys (P. Tol, Colour Schemes, SRON/EPS/TN/09-002,
https://personal.sron.nl/~pault/). Greedy: each next colour is the candidate whose smallest
distance (over the four visions) to the colours already chosen is largest.

    scripts/palette.py > results/pictures/palette.md
"""
import itertools
import math

OKABE_ITO = ["#D55E00", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#CC79A7"]
TOL = {
    "bright": ["#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377"],
    "vibrant": ["#EE7733", "#0077BB", "#33BBEE", "#EE3377", "#CC3311", "#009988"],
    "muted": ["#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499"],
    "light": ["#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00"],
}
VISIONS = {
    "normal": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}


def linear(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def lab(rgb):
    r, g, b = [min(max(x, 0), 1) for x in rgb]
    x = 0.4124 * r + 0.3576 * g + 0.1805 * b
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = 0.0193 * r + 0.1192 * g + 0.9505 * b
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    fx, fy, fz = f(x / 0.95047), f(y), f(z / 1.08883)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def seen(colour):
    c = [linear(int(colour[i:i + 2], 16)) for i in (1, 3, 5)]
    return {v: lab([sum(m[r][k] * c[k] for k in range(3)) for r in range(3)]) for v, m in VISIONS.items()}


SEEN = {c: seen(c) for c in OKABE_ITO + sum(TOL.values(), [])}


def distance(a, b, vision=None):
    visions = [vision] if vision else VISIONS
    return min(math.dist(SEEN[a][v], SEEN[b][v]) for v in visions)


def closest(colours, vision=None):
    return min((distance(a, b, vision), a, b) for a, b in itertools.combinations(colours, 2))


chosen = list(OKABE_ITO)
candidates = [c for c in sum(TOL.values(), []) if c not in chosen]
print("# Piece colours: distances under simulated colour-vision deficiencies\n")
print("Made by `scripts/palette.py` (method in its docstring). Greedy choice after Okabe-Ito's 7:\n")
print("| # | colour | Tol scheme | its smallest distance to the colours before it |")
print("|---|---|---|---|")
while len(chosen) < 16:
    best = max(candidates, key=lambda c: min(distance(c, x) for x in chosen))
    scheme = next(k for k, v in TOL.items() if best in v)
    print(f"| {len(chosen) + 1} | `{best}` | {scheme} | {min(distance(best, x) for x in chosen):.1f} |")
    chosen.append(best)
    candidates.remove(best)
print("\nThe closest pair of the first N colours (CIE76 Delta E; a just-noticeable difference is about 2.3):\n")
print("| N | " + " | ".join(VISIONS) + " |")
print("|---|" + "---|" * len(VISIONS))
for n in (7, 8, 9, 12, 16):
    cells = [f"{closest(chosen[:n], v)[0]:.1f} (`{closest(chosen[:n], v)[1]}`, `{closest(chosen[:n], v)[2]}`)" for v in VISIONS]
    print(f"| {n} | " + " | ".join(cells) + " |")
muted = OKABE_ITO + ["#332288", "#882255", "#117733", "#999933", "#CC6677", "#AA4499", "#44AA99", "#88CCEE", "#DDCC77"]
worst = closest(muted)
print(f"\nFor comparison, Okabe-Ito followed by the whole muted scheme: closest pair of 16 {worst[0]:.1f} "
      f"(`{worst[1]}`, `{worst[2]}`, over the four visions).")
print("\nPalette: " + ", ".join(f"`{c}`" for c in chosen))

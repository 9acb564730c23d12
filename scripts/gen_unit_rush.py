#!/usr/bin/env python3
"""A random Unit Rush Hour board in the grid format (corpora/bench/unit-rush-5x5.grid was made so).

Usage: scripts/gen_unit_rush.py SIZE CARS SEED

A SIZE x SIZE board, the primary car A (one cell, horizontal) at the left end of the middle row
(row (SIZE - 1) // 2), and CARS more one-cell cars B, C, ...: a cell is drawn at random
(`random.Random(SEED)`) until CARS empty ones were taken, each car moving only horizontally or
only vertically by a coin toss, except in A's row, where cars are vertical (a horizontal car
there could never leave A's way). Goal: A reaches the right edge; straight metric. Prints the
board on stdout.
"""
import random
import sys

NAMES = "BCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def main():
    if len(sys.argv) != 4 or not all(a.isdigit() for a in sys.argv[1:]):
        sys.exit("usage: scripts/gen_unit_rush.py SIZE CARS SEED (three whole numbers)")
    size, cars, seed = (int(a) for a in sys.argv[1:])
    if not 2 <= size <= 8 or not 0 <= cars <= min(len(NAMES), size * size - 2):
        sys.exit("SIZE from 2 to 8, CARS from 0 to the cells left beside A and one empty cell")
    rng = random.Random(seed)
    board = [["."] * size for _ in range(size)]
    row = (size - 1) // 2
    board[row][0] = "A"
    moves = ["A=h"]
    for name in NAMES[:cars]:
        while True:
            r, c = rng.randrange(size), rng.randrange(size)
            if board[r][c] == ".":
                break
        board[r][c] = name
        moves.append(f"{name}={'v' if r == row else rng.choice('hv')}")
    print("metric: straight")
    print("goal: A reaches right")
    print("moves: " + " ".join(moves))
    print("board:")
    for line in board:
        print("".join(line))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the golden games of the referee protocol (protocol-specs/referee/*.referee and .out).

The opponent's moves of those scripts depend on ponder's answers (a cell must be empty when the
opponent names it), so a change of the search that changes ponder's moves needs new scripts,
not just new outputs. This plays each scenario against ponder in the golden tests' deterministic
mode, the opponent taking the first empty cell in reading order (a1, b1, ..., e1, a2, ...), and
writes both files. Run from the repository root after `cargo build --release`:

    python3 scripts/referee_goldens.py
"""

import subprocess
import sys

PONDER = "target/release/ponder"
GOLDEN_ARGS = ["--seed", "1", "--threads", "1", "--max-time", "0", "--max-visits", "1000", "--protocol", "referee"]
SIZE = 5

SCENARIOS = [
    ("first-no-swap", "--size 5", ["ponder moves first (Black: row 1 to row 5); the opponent takes the first empty cell",
                                   "each time and never swaps; the referee says finish once the game is won."],
     "first", False),
    ("first-opponent-swaps", "--size 5", ["ponder moves first; the opponent answers change: ponder's stone stays and is now",
                                          "the opponent's, ponder plays the second colour (column a to column e) and moves",
                                          "again; then the opponent takes the first empty cell each time."],
     "first", True),
    ("second-no-swap", "--size 5 --param-game allow_swap=0",
     ["Without the swap rule ponder answers the centre opening with a stone; the opponent then takes",
      "the first empty cell each time."], "c3", False),
    ("second-ponder-swaps", "--size 5", ["The opponent opens in the centre; ponder takes it over with change and plays the",
                                         "rows with the centre stone, while the opponent (now the second colour) moves next",
                                         "and takes the first empty cell each time."], "c3", False),
]


def cells():
    return [f"{chr(ord('a') + column)}{row}" for row in range(1, SIZE + 1) for column in range(SIZE)]


def connects(stones, player, rows):
    """Whether `player`'s stones join rows 1 and SIZE (rows=True) or columns a and e."""
    def coordinates(cell):
        return ord(cell[0]) - ord("a"), int(cell[1:]) - 1
    own = {coordinates(cell) for cell, owner in stones.items() if owner == player}
    start = [p for p in own if (p[1] if rows else p[0]) == 0]
    seen, frontier = set(start), list(start)
    while frontier:
        column, row = frontier.pop()
        if (row if rows else column) == SIZE - 1:
            return True
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
            neighbour = (column + dc, row + dr)
            if neighbour in own and neighbour not in seen:
                seen.add(neighbour)
                frontier.append(neighbour)
    return False


def play(name, extra, comment, opening, opponent_swaps):
    engine = subprocess.Popen([PONDER, *GOLDEN_ARGS, *extra.split()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    script, output = [], []
    stones = {}  # cell -> "P" (ponder) or "O" (opponent)
    # Who connects the rows: the first mover, until a swap hands the first stone over.
    rows_player = "P" if opening == "first" else "O"

    def send(line):
        script.append(line)
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def ponder_moves():
        nonlocal rows_player
        answer = engine.stdout.readline().strip()
        output.append(answer)
        if answer == "change":
            (cell,) = stones
            stones[cell] = "P"
            rows_player = "P"
        else:
            stones[answer] = "P"

    def won():
        return connects(stones, rows_player, True) or connects(stones, "O" if rows_player == "P" else "P", False)

    send(opening)
    if opening != "first":
        stones[opening] = "O"
    ponder_moves()
    if opponent_swaps:
        send("change")
        (cell,) = stones
        stones[cell] = "O"
        rows_player = "O"
        ponder_moves()
    while not won():
        cell = next(c for c in cells() if c not in stones)
        send(cell)
        stones[cell] = "O"
        if won():
            break
        ponder_moves()
    send("finish")
    engine.stdin.close()
    if engine.wait() != 0:
        sys.exit(f"{name}: ponder exited with {engine.returncode}")
    header = [f"#! {extra}"] + [f"# {line}" for line in comment]
    with open(f"protocol-specs/referee/{name}.referee", "w") as file:
        file.write("\n".join(header + script) + "\n")
    with open(f"protocol-specs/referee/{name}.out", "w") as file:
        file.write("\n".join(output) + "\n")
    print(f"{name}: {len(script)} lines in, {len(output)} out")


for scenario in SCENARIOS:
    play(*scenario)

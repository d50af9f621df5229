#!/usr/bin/env python3
"""Differential test of ponder's rules against OpenSpiel's on random games.

For every game in openspiel_games.GAMES that ponder lists (`list_games`), and every variant of
its row, plays random games through ponder's GTP interface and OpenSpiel side by side. At every
position the legal-move sets (`gogui-rules_legal_moves` against `legal_actions()`) and the side to
move must match; at the end both must agree that the game is over and on the result
(`final_score` against `returns()`).

Usage: differential.py [--ponder target/release/ponder] [--seed 1] [--games-scale 1.0]
Prints one line per variant and a final 'N passed, N failed' line; exits 1 on any failure.
"""

import argparse
import random
import subprocess
import sys

import pyspiel

from openspiel_games import GAMES, openspiel_variant


class Gtp:
    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, command):
        """The answer text; raises RuntimeError on a '?' answer."""
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"ponder closed its output after {command!r}")
            line = line.rstrip("\n")
            if not line and lines:
                break
            if line or lines:
                lines.append(line)
        head, rest = lines[0], lines[1:]
        text = "\n".join([head[1:].strip()] + rest).strip()
        if head.startswith("?"):
            raise RuntimeError(text)
        return text

    def close(self):
        try:
            self.send("quit")
        except (RuntimeError, BrokenPipeError):
            pass
        self.process.wait(timeout=10)


def expected_score(state):
    black = state.returns()[0]
    return "B+" if black > 0 else "W+" if black < 0 else "0"


def play_one(ponder, variant, rng):
    """Plays one random game; returns None when both sides agree throughout, else a message."""
    game = pyspiel.load_game(variant.openspiel_string)
    state = game.new_initial_state()
    ponder.send("clear_board")
    history = []
    while True:
        # GoGui names cells A1 bottom-left whatever the game; map them to the game's own names.
        ours = {variant.from_gogui(m) for m in ponder.send("gogui-rules_legal_moves").split()}
        theirs = set() if state.is_terminal() else {variant.action_to_move(a) for a in state.legal_actions()}
        # ponder may name special moves differently in case; compare upper-cased names.
        ours_cmp, theirs_cmp = {m.upper() for m in ours}, {m.upper() for m in theirs}
        if ours_cmp != theirs_cmp:
            return (f"after {' '.join(history) or 'no moves'}: legal moves differ; only ponder: "
                    f"{sorted(ours_cmp - theirs_cmp)}, only OpenSpiel: {sorted(theirs_cmp - ours_cmp)}")
        if state.is_terminal():
            # OpenSpiel scores only the winner; Reversi adds the disc margin (B+12), so compare
            # the winner part.
            score = ponder.send("final_score")
            winner = score if score == "0" else score[:2]
            if winner != expected_score(state):
                return f"after {' '.join(history)}: ponder scores {score}, OpenSpiel {expected_score(state)}"
            return None
        side = ponder.send("gogui-rules_side_to_move")
        if side != ("black" if state.current_player() == 0 else "white"):
            return f"after {' '.join(history)}: ponder says {side} to move, OpenSpiel player {state.current_player()}"
        try:
            ponder.send("final_score")
            return f"after {' '.join(history)}: ponder scores a running game"
        except RuntimeError:
            pass
        action = rng.choice(state.legal_actions())
        move = variant.action_to_move(action)
        color = "b" if state.current_player() == 0 else "w"
        ponder.send(f"play {color} {move}")
        state.apply_action(action)
        history.append(move)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ponder", default="target/release/ponder")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games-scale", type=float, default=1.0)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    ponder = Gtp([options.ponder])
    ponder_games = set(ponder.send("list_games").split())
    passed = failed = 0
    for name, (_, variants, games) in GAMES.items():
        if name not in ponder_games:
            print(f"skip {name}: ponder does not list it yet")
            continue
        ponder.send(f"set_game {name}")
        # `set_game` of the current game keeps its parameters, so each variant starts from the
        # defaults read here.
        defaults = {}
        for line in ponder.send("param_game").splitlines():
            words = line.split()
            if len(words) >= 2:
                defaults[words[1]] = " ".join(words[2:])
        for width, height, params in variants:
            variant = openspiel_variant(name, width, height, params)
            label = f"{name} {width}x{height} {params or ''}".strip()
            if variant is None:
                print(f"skip {label}: OpenSpiel has no such variant")
                continue
            ponder.send(f"set_game {name}")
            ponder.send(f"rectangular_boardsize {width} {height}")
            for key, value in {**defaults, **params}.items():
                ponder.send(f"param_game {key} {value}")
            count = max(1, int(games * options.games_scale))
            failures = []
            for _ in range(count):
                message = play_one(ponder, variant, rng)
                if message:
                    failures.append(message)
            if failures:
                failed += len(failures)
                print(f"FAIL {label} ({variant.openspiel_string}): {len(failures)} of {count} games differ")
                for message in failures[:3]:
                    print(f"  {message}")
            else:
                print(f"ok   {label} ({variant.openspiel_string}): {count} random games agree")
            passed += count - len(failures)
    ponder.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or passed == 0 else 0)


if __name__ == "__main__":
    main()

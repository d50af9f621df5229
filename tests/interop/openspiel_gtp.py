#!/usr/bin/env python3
"""A small GTP engine around OpenSpiel's MCTS bot, as a sparring partner for `ponder match`.

Usage: openspiel_gtp.py [--game tictactoe] [--simulations 1000] [--rollouts 1] [--seed 1] [--seconds S]

Commands: protocol_version, name, version, known_command, list_commands, quit, boardsize,
rectangular_boardsize, clear_board, komi, set_game, param_game, play, genmove, showboard,
final_score, time_settings, time_left. Moves use ponder's names for the game (see
openspiel_games.py).

The bot searches a fixed number of simulations per move, unless it has a time per move: from
`--seconds S`, or else from `time_settings 0 B 1` (B seconds a move, as `ponder match --time B`
sends it). Then each move runs as many simulations as fit in that time at the rate the previous
move reached (the first move measures the rate with a short probe), since OpenSpiel's MCTS bot
itself only counts simulations. `time_left` is accepted and ignored.
"""

import argparse
import os
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "openspiel"))
from openspiel_games import GAMES, openspiel_variant  # noqa: E402
import blocked_connect_four  # noqa: E402,F401  (registers the Connect Four game with blocked cells)

DEFAULT_SIZES = {"tictactoe": (3, 3), "gomoku": (15, 15), "reversi": (8, 8), "connect4": (7, 6), "hex": (11, 11)}


class GtpError(Exception):
    pass


class Engine:
    def __init__(self, game, simulations, rollouts, seed, seconds=None):
        self.simulations, self.rollouts = simulations, rollouts
        # Seconds per move when the bot plays on time (see the module doc), and the simulations
        # per second measured on the last move.
        self.seconds, self.fixed_seconds = seconds, seconds is not None
        self.rate = None
        self.rng = np.random.RandomState(seed)
        self.game_name = game
        self.size = DEFAULT_SIZES.get(game, (3, 3))
        self.params = {}
        self.rebuild()

    def rebuild(self):
        variant = openspiel_variant(self.game_name, self.size[0], self.size[1], self.params)
        if variant is None:
            raise GtpError("unacceptable size")
        self.variant = variant
        self.game = pyspiel.load_game(variant.openspiel_string)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=self.rng)
        self.bot = mcts.MCTSBot(self.game, uct_c=2.0, max_simulations=self.simulations, evaluator=evaluator,
                                solve=True, random_state=self.rng)
        self.state = self.game.new_initial_state()
        self.rate = None

    def set_variant(self, change):
        old = (self.game_name, self.size, dict(self.params))
        change()
        try:
            self.rebuild()
        except (GtpError, pyspiel.SpielError) as error:
            self.game_name, self.size, self.params = old
            self.rebuild()
            raise GtpError("unacceptable size") from error

    def player_of(self, color):
        color = color.lower()
        if color in ("b", "black"):
            return 0
        if color in ("w", "white"):
            return 1
        raise GtpError("syntax error")

    def play(self, color, text):
        player = self.player_of(color)
        if self.state.is_terminal() or self.state.current_player() != player:
            raise GtpError("illegal move")
        action = self.variant.move_to_action(text)
        if action is None or action not in self.state.legal_actions():
            raise GtpError("illegal move")
        self.state.apply_action(action)

    def genmove(self, color):
        player = self.player_of(color)
        if self.state.is_terminal():
            return "resign" if self.state.returns()[player] < 0 else "pass"
        if self.state.current_player() != player:
            raise GtpError("not this colour's turn")
        action = self.timed_step() if self.seconds else self.bot.step(self.state)
        move = self.variant.action_to_move(action)
        self.state.apply_action(action)
        return move

    def timed_step(self):
        """One move in about `self.seconds`, at the simulation rate measured so far."""
        if self.rate is None:
            self.run_simulations(32)
        # Leave 10% of the time for the overhead outside the search.
        simulations = max(16, int(self.rate * self.seconds * 0.9))
        return self.run_simulations(simulations)

    def run_simulations(self, count):
        self.bot.max_simulations = count
        started = time.perf_counter()
        action = self.bot.step(self.state)
        elapsed = max(time.perf_counter() - started, 1e-6)
        self.rate = count / elapsed
        return action

    def set_time_per_move(self, args):
        """`time_settings MAIN BYO STONES`: byo-yomi of one stone sets the time per move."""
        if self.fixed_seconds or len(args) != 3:
            return
        try:
            main_time, byo_yomi, stones = float(args[0]), float(args[1]), int(args[2])
        except ValueError as error:
            raise GtpError("syntax error") from error
        if main_time == 0 and byo_yomi > 0 and stones > 0:
            self.seconds = byo_yomi / stones

    def final_score(self):
        if not self.state.is_terminal():
            raise GtpError("cannot score")
        black = self.state.returns()[0]
        return "B+" if black > 0 else "W+" if black < 0 else "0"


COMMANDS = ["protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
            "rectangular_boardsize", "clear_board", "komi", "set_game", "param_game", "play", "genmove",
            "showboard", "final_score", "time_settings", "time_left"]


def execute(engine, name, args):
    if name == "protocol_version":
        return "2"
    if name == "name":
        return "openspiel-mcts"
    if name == "version":
        return f"{engine.seconds}s" if engine.seconds else f"{engine.simulations}sims"
    if name == "known_command":
        return "true" if args and args[0] in COMMANDS else "false"
    if name == "list_commands":
        return "\n".join(COMMANDS)
    if name == "time_settings":
        engine.set_time_per_move(args)
        return ""
    if name in ("komi", "time_left", "quit"):
        return ""
    if name in ("boardsize", "rectangular_boardsize"):
        if not 1 <= len(args) <= 2 or not all(a.isdigit() for a in args):
            raise GtpError("syntax error")
        width, height = int(args[0]), int(args[-1])
        engine.set_variant(lambda: setattr(engine, "size", (width, height)))
        return ""
    if name == "clear_board":
        engine.state = engine.game.new_initial_state()
        # Simulations are slower near the start (longer rollouts): measure the rate again.
        engine.rate = None
        return ""
    if name == "set_game":
        if len(args) != 1 or args[0].lower() not in GAMES:
            raise GtpError("unknown game")
        game = args[0].lower()

        def change():
            engine.game_name, engine.size, engine.params = game, DEFAULT_SIZES[game], {}
        engine.set_variant(change)
        return ""
    if name == "param_game":
        if len(args) < 2:
            return "\n".join(f"[string] {k} {v}" for k, v in engine.params.items())
        engine.set_variant(lambda: engine.params.__setitem__(args[0], " ".join(args[1:])))
        return ""
    if name == "play":
        if len(args) != 2:
            raise GtpError("syntax error")
        engine.play(args[0], args[1])
        return ""
    if name == "genmove":
        if len(args) != 1:
            raise GtpError("syntax error")
        return engine.genmove(args[0])
    if name == "showboard":
        return "\n" + str(engine.state)
    if name == "final_score":
        return engine.final_score()
    raise GtpError("unknown command")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--rollouts", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=None, help="time per move instead of a simulation count")
    options = parser.parse_args()
    engine = Engine(options.game, options.simulations, options.rollouts, options.seed, options.seconds)
    for line in sys.stdin:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        command_id = ""
        if words[0].isdigit():
            command_id, words = words[0], words[1:]
        if not words:
            continue
        try:
            reply = "=" + command_id + " " + execute(engine, words[0], words[1:])
        except GtpError as error:
            reply = "?" + command_id + " " + str(error)
        except pyspiel.SpielError as error:
            reply = "?" + command_id + " " + str(error).splitlines()[0]
        sys.stdout.write(reply + "\n\n")
        sys.stdout.flush()
        if words[0] == "quit":
            break


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Labels the positions of Gomoku games with a teacher engine's evaluation, for
`ponder train --game gomoku --model value --labels FILE`.

    python3 scripts/gomocup_teacher_labels.py --engine CMD --games GAMES.sgf --out LABELS
        [--nodes 100000] [--scale 250] [--worker K --workers N]

GAMES.sgf: c-gomoku-cli's `-sgf` file (freestyle 15x15; the moves commented "opening move"
are the opening and get no label). The games are numbered from 0 in file order, as
`ponder train` numbers the game records of a directory holding that one file.

Every position after the opening (before each later move) goes to the engine over the
Gomocup protocol (`BOARD`, own stones 1, the opponent's 2; one search of `--nodes` nodes,
sent as the Yixin-Board extension `INFO MAX_NODE`) and its last `MESSAGE ... Eval E ...` line
is read: Rapfi prints such lines. A line of LABELS is `GAME PLY CHANCE # eval E`, CHANCE the
side to move's winning chance sigmoid(E / scale) (Rapfi's classical model 220723 stores its
scale, 250, as the first number of the model file). A position the engine proves won or lost
(`Eval +M12`, `-M7`) is written as a comment line, `# GAME PLY mate E`: the threat searches,
not a static value, should find those. An engine that does not answer within 2 s is started
again and the position written as `# GAME PLY no answer`.

Workers split the games (game number modulo N); an OUT file that exists is continued (its
positions are skipped), so a stopped run can go on. Join the workers' files with
`sort -n -k1,1 -k2,2`.
"""
import argparse
import math
import os
import queue
import re
import shlex
import subprocess
import sys
import threading

MOVE = re.compile(r';([BW])\[([a-z])([a-z])\](?:C\[([^\]]*)\])?')
EVAL = re.compile(r'\bEval ([+-]?M?\d+)')
ANSWER = re.compile(r'^\d+,\d+$')
ANSWER_SECONDS = 2.0


class NoAnswer(Exception):
    pass


class Engine:
    """A Gomocup brain whose stdout lines a thread queues, so reads can time out."""

    def __init__(self, command, nodes):
        self.command, self.nodes = command, nodes
        self.process = None
        self.start()

    def start(self):
        if self.process:
            self.process.kill()
            self.process.wait()
        self.process = subprocess.Popen(shlex.split(self.command), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self.read, args=(self.process.stdout, self.lines), daemon=True).start()
        self.send('START 15')
        self.until(lambda line: line == 'OK', seconds=30)
        for info in ['INFO rule 0', 'INFO timeout_match 0', 'INFO timeout_turn 3000',
                     f'INFO MAX_NODE {self.nodes}']:
            self.send(info)

    @staticmethod
    def read(stream, lines):
        for line in stream:
            lines.put(line.strip())
        lines.put(None)

    def send(self, line):
        self.process.stdin.write(line + '\n')
        self.process.stdin.flush()

    def until(self, done, seconds=ANSWER_SECONDS):
        seen = []
        while True:
            try:
                line = self.lines.get(timeout=seconds)
            except queue.Empty:
                raise NoAnswer()
            if line is None:
                sys.exit(f'the engine ended: {self.command}')
            seen.append(line)
            if done(line):
                return seen

    def evaluate(self, stones):
        """The engine's last reported eval of the position `stones` (x, y, 1 own / 2 theirs)."""
        self.send('BOARD')
        for x, y, owner in stones:
            self.send(f'{x},{y},{owner}')
        self.send('DONE')
        evals = [m.group(1) for line in self.until(lambda line: bool(ANSWER.match(line)))
                 for m in [EVAL.search(line)] if m]
        return evals[-1] if evals else None

    def close(self):
        self.send('END')
        self.process.wait(timeout=10)


def games_of(path):
    """Each game's moves as (colour, x, y) and its number of opening moves."""
    text = open(path, encoding='utf-8').read()
    games = []
    for tree in re.split(r'\(;', text)[1:]:
        moves = MOVE.findall(tree)
        opening = sum(1 for move in moves if move[3] == 'opening move')
        games.append(([(c, ord(x) - 97, ord(y) - 97) for c, x, y, _ in moves], opening))
    return games


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--engine', required=True, help='the teacher: a Gomocup brain command')
    parser.add_argument('--games', required=True)
    parser.add_argument('--out', required=True)
    parser.add_argument('--nodes', type=int, default=100_000)
    parser.add_argument('--scale', type=float, default=250.0, help='eval units per logit')
    parser.add_argument('--worker', type=int, default=0)
    parser.add_argument('--workers', type=int, default=1)
    args = parser.parse_args()
    done = set()
    if os.path.exists(args.out):
        for line in open(args.out, encoding='utf-8'):
            fields = line.lstrip('# ').split()
            if len(fields) >= 2 and fields[0].isdigit() and fields[1].isdigit():
                done.add((int(fields[0]), int(fields[1])))
    engine = Engine(args.engine, args.nodes)
    with open(args.out, 'a', encoding='utf-8') as out:
        for number, (moves, opening) in enumerate(games_of(args.games)):
            if number % args.workers != args.worker:
                continue
            for ply in range(opening, len(moves)):
                if (number, ply) in done:
                    continue
                to_move = 'B' if ply % 2 == 0 else 'W'
                stones = [(x, y, 1 if colour == to_move else 2) for colour, x, y in moves[:ply]]
                try:
                    value = engine.evaluate(stones)
                except NoAnswer:
                    out.write(f'# {number} {ply} no answer\n')
                    engine.start()
                    continue
                if value is None:
                    out.write(f'# {number} {ply} no eval\n')
                elif 'M' in value:
                    out.write(f'# {number} {ply} mate {value}\n')
                else:
                    chance = 1.0 / (1.0 + math.exp(-int(value) / args.scale))
                    out.write(f'{number} {ply} {chance:.4f} # eval {value}\n')
                out.flush()
    engine.close()


if __name__ == '__main__':
    main()

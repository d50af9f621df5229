#!/usr/bin/env python3
"""A teacher engine's verdict on a Gomoku engine's moves in the games it lost: finds the moves
that threw away a won or level position (blunders) and measures how another build plays there.

    python3 scripts/gomocup_blunder_suite.py scan --teacher CMD --games GAMES.sgf [GAMES.sgf ...]
        --out SCAN [--player ponder] [--ms 1000]
    python3 scripts/gomocup_blunder_suite.py select SCAN [SCAN ...] --out SUITE
        [--threshold 200] [--controls 22] [--seed 7]
    python3 scripts/gomocup_blunder_suite.py score SUITE --teacher CMD --engine CMD --out REPORT
        [--ms 5000] [--teacher-ms 1000]

`scan` reads c-gomoku-cli's `-sgf` files and takes the games that `--player` lost as Black. At
every position from the end of the opening (moves commented "opening move") on, the teacher is
asked for its move and its evaluation of the side to move (its last `MESSAGE ... Eval E ...`
line; Rapfi prints such lines), until it finds White, to move, winning by force (`Eval +Mn`).
A line of SCAN is `RUN GAME PLY SIDE PLAYED BEST EVAL MOVES...`: RUN the name of the SGF file's
folder, GAME its `GN`, PLY the moves before the position, SIDE `B` or `W` to move, PLAYED the
game's move, BEST the teacher's, EVAL the teacher's evaluation for the side to move (`+M17`: it
wins in 17 plies), MOVES the moves so far in the SGF's letters (column, row from the top).

`select` keeps the player's moves (Black's) from a position that was not lost (evaluation above
-300) whose drop, the evaluation before it plus the teacher's evaluation of the reply position
for White, is at least `--threshold` (a forced win counts 3000): the blunders; and, as controls,
`--controls` moves drawn with `--seed` from the moves that dropped less than 100 from a position
neither lost nor already won by force. A position that occurs twice is kept once. A line of
SUITE is `KIND RUN GAME PLY PLAYED BEST EVAL EVAL_AFTER DROP MOVES...`, KIND `blunder` or
`control`.

`score` lets `--engine` (a Gomocup brain, `--ms` a move) choose a move at each position of the
suite, then scores the move by its drop: the suite's when it is the move played, 0 when it is
the teacher's, else the teacher's evaluation of the position after it (`--teacher-ms`). It
reports, per kind, how many moves now drop less than 150.

Each question goes to a new teacher process: Rapfi (3aedf3a) stalled on the second `BOARD` of
a session in a pipe. Engines are started in the current directory (Rapfi reads its
`config.toml` there).
"""
import argparse
import random
import re
import shlex
import subprocess
import sys
from pathlib import Path

# The SGF move, Eval and answer patterns of the teacher-label script beside this one.
from gomocup_teacher_labels import ANSWER, EVAL, MOVE

WON = 3000


def ask(command, moves, ms):
    """The brain's move and last `Eval` (or None) after `moves` (SGF letter pairs), the side to
    move's stones sent as 1 and the opponent's as 2."""
    brain = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(line):
        brain.stdin.write(line + '\n')
        brain.stdin.flush()

    def answer():
        line = brain.stdout.readline()
        if not line:
            sys.exit(f'the engine ended: {command}')
        return line.strip()

    send('START 15')
    while answer() != 'OK':
        pass
    for info in ['INFO rule 0', 'INFO timeout_match 0', f'INFO timeout_turn {ms}']:
        send(info)
    send('BOARD')
    for k, move in enumerate(moves):
        own = 1 if (len(moves) - k) % 2 == 0 else 2
        send(f'{ord(move[0]) - 97},{ord(move[1]) - 97},{own}')
    send('DONE')
    evaluation = None
    while True:
        line = answer()
        found = EVAL.search(line)
        if found:
            evaluation = found.group(1)
        if ANSWER.match(line):
            break
    send('END')
    brain.wait(timeout=10)
    x, y = map(int, line.split(','))
    return chr(97 + x) + chr(97 + y), evaluation


def value(evaluation):
    """An evaluation as a number: a forced win or loss counts `WON`."""
    if evaluation is None or evaluation == 'None':
        return None
    if 'M' in evaluation:
        return WON if evaluation.startswith('+') else -WON
    return int(evaluation)


def lost_black_games(path, player):
    """(run, game number, moves, opening length) of the games `player` lost as Black."""
    run = Path(path).resolve().parent.name
    for tree in re.split(r'\(;', Path(path).read_text(encoding='utf-8'))[1:]:
        if f'PB[{player}]' in tree and 'RE[W+' in tree:
            number = re.search(r'GN\[(\d+)\]', tree).group(1)
            moves = MOVE.findall(tree)
            opening = sum(1 for move in moves if move[3] == 'opening move')
            yield run, number, [x + y for _, x, y, _ in moves], opening


def scan(args):
    with open(args.out, 'w', encoding='utf-8') as out:
        for path in args.games:
            for run, number, moves, opening in lost_black_games(path, args.player):
                for ply in range(opening, len(moves)):
                    best, evaluation = ask(args.teacher, moves[:ply], args.ms)
                    side = 'BW'[ply % 2]
                    out.write(f'{run} {number} {ply} {side} {moves[ply]} {best} {evaluation} '
                              f'{" ".join(moves[:ply])}\n')
                    out.flush()
                    if side == 'W' and evaluation and evaluation.startswith('+M'):
                        break


def select(args):
    games = {}
    for path in args.scans:
        for line in Path(path).read_text(encoding='utf-8').splitlines():
            run, number, ply, *rest = line.split()
            games.setdefault((run, number), {})[int(ply)] = rest
    blunders, calm = {}, {}
    for (run, number), plies in sorted(games.items()):
        for ply, (side, played, best, evaluation, *moves) in sorted(plies.items()):
            after = plies.get(ply + 1)
            before, reply = value(evaluation), value(after[3]) if after else None
            if side != 'B' or before is None or reply is None or before <= -300:
                continue
            drop = before + reply
            key = ' '.join(moves)
            line = f'{run} {number} {ply} {played} {best} {evaluation} {after[3]} {drop} {key}'
            if drop >= args.threshold and played != best:
                blunders.setdefault(key, 'blunder ' + line)
            elif drop < 100 and before < WON:
                calm.setdefault(key, 'control ' + line)
    # A position also played as a blunder is no control.
    calm = [line for key, line in calm.items() if key not in blunders]
    blunders = list(blunders.values())
    random.Random(args.seed).shuffle(calm)
    Path(args.out).write_text('\n'.join(blunders + sorted(calm[:args.controls])) + '\n', encoding='utf-8')
    print(f'{len(blunders)} blunders, {min(len(calm), args.controls)} controls of {len(calm)}')


def score(args):
    teacher_cache = {}
    tally = {}
    with open(args.out, 'w', encoding='utf-8') as out:
        for line in Path(args.suite).read_text(encoding='utf-8').splitlines():
            kind, run, number, ply, played, best, evaluation, _, drop, *moves = line.split()
            move, _ = ask(args.engine, moves, args.ms)
            if move == played:
                now = int(drop)
            elif move == best:
                now = 0
            else:
                key = ' '.join(moves + [move])
                if key not in teacher_cache:
                    teacher_cache[key] = ask(args.teacher, moves + [move], args.teacher_ms)[1]
                now = value(evaluation) + (value(teacher_cache[key]) or 0)
            held, count = tally.get(kind, (0, 0))
            tally[kind] = (held + (now < 150), count + 1)
            out.write(f'{kind} {run} {number} {ply} played {played} best {best} now {move} drop {now}\n')
            out.flush()
        for kind, (held, count) in sorted(tally.items()):
            summary = f'# {kind}: {held} of {count} moves drop less than 150'
            out.write(summary + '\n')
            print(summary)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    commands = parser.add_subparsers(dest='command', required=True)
    scanning = commands.add_parser('scan')
    scanning.add_argument('--teacher', required=True)
    scanning.add_argument('--games', required=True, nargs='+')
    scanning.add_argument('--out', required=True)
    scanning.add_argument('--player', default='ponder')
    scanning.add_argument('--ms', type=int, default=1000)
    selecting = commands.add_parser('select')
    selecting.add_argument('scans', nargs='+')
    selecting.add_argument('--out', required=True)
    selecting.add_argument('--threshold', type=int, default=200)
    selecting.add_argument('--controls', type=int, default=22)
    selecting.add_argument('--seed', type=int, default=7)
    scoring = commands.add_parser('score')
    scoring.add_argument('suite')
    scoring.add_argument('--teacher', required=True)
    scoring.add_argument('--engine', required=True)
    scoring.add_argument('--out', required=True)
    scoring.add_argument('--ms', type=int, default=5000)
    scoring.add_argument('--teacher-ms', type=int, default=1000)
    args = parser.parse_args()
    {'scan': scan, 'select': select, 'score': score}[args.command](args)


if __name__ == '__main__':
    main()

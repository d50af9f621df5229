#!/usr/bin/env python3
"""Measures how fast long commands stop (issue 16: every long command within 50 ms), against the
release binary. Prints one line per case: the median and the largest latency over the tries.

    python3 scripts/interrupt_latency.py [--tries 5] [--run-seconds 1.0] [--mode M ...] [--case NAME ...]

Modes (default: all):
interrupt: a long command (CASES) runs for --run-seconds, then `# interrupt` is written; the
           latency is the time from writing it to reading the complete reply.
eof:       the same, but stdin is closed instead; the latency is the time to the process's exit.
line:      `lz-analyze` runs on each game, then `name` is written; the latency is the time to
           its reply (the analysis ends at any line).
closed-stdout: `lz-analyze` runs, then the reading end of stdout is closed while stdin stays
           open; the latency is the time to the process's exit. A closed pipe shows only when
           the next info line is written, so this is bounded by the analysis interval (10 cs
           here), not by the stop flag.
A command that ends on its own before the stop is reported, not measured. Timings are of one
loaded machine: run it twice, and compare binaries on the same machine.
Build first: cargo build --release (or name another binary in PONDER_BINARY).
"""
import argparse
import os
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path

BINARY = Path(os.environ.get("PONDER_BINARY")
              or Path(__file__).resolve().parent.parent / "target" / "release" / "ponder")

# Reversi: a game ponder played against itself (100 visits, seed 1), Black and White
# alternating without passes; N moves leave 60 - N empties.
REVERSI_GAME = ("d3 c5 c6 c3 c4 b5 a4 d2 e6 c7 d7 f6 b7 e7 c2 c1 d1 f5 b2 a1 b1 a5 b4 d6 g6 a8 "
                "a2 e8 a7 b8 f8 a3 e3 g4 d8 f7 a6 h5 h6 b6").split()


def reversi_setup(empties):
    moves = REVERSI_GAME[:60 - empties]
    return ["set_game reversi"] + [f"play {'bw'[index % 2]} {move}" for index, move in enumerate(moves)]


# name: (engine arguments, setup lines, the long command[, seconds it runs before the stop])
CASES = {
    "hex-11x11-solve": ([], ["set_game hex", "boardsize 11", "play b f6", "play w e7", "play b g4"],
                        "ponder-solve w"),
    "hex-9x9-dfpn-solve-state": ([], ["set_game hex", "boardsize 9", "play b e5", "play w d6"],
                                 "dfpn-solve-state b"),
    "reversi-30-empties-solve": ([], reversi_setup(30), "ponder-solve b"),
    "reversi-30-empties-solve-4-threads": ([], ["param_search threads 4"] + reversi_setup(30),
                                           "ponder-solve b"),
    "connect4-7x6-solve": ([], ["set_game connect4", "boardsize 7 6", "play b d"], "ponder-solve w"),
    # A middle game where Rapfi saw a win for White that neither VCF nor VCT finds: the solve
    # gives up after about 0.6 s (its node limits), so it is interrupted after 0.15 s instead of
    # --run-seconds.
    "gomoku-15x15-solve": ([], ["set_game gomoku", "boardsize 15"]
                           + [f"play {'bw'[index % 2]} {move}" for index, move in
                              enumerate("J7 K9 J9 J10 H11 H8 H7 L8 J6 L6 L9 K8 J8 J5 M8 M7 N6".split())],
                           "ponder-solve w", 0.15),
    # genmove without limits: the solver hook runs first (Reversi's endgame solve at 20
    # empties, which takes well under a second, hence the 0.1 s; Connect Four's solve; Hex's
    # virtual connections; Gomoku's threat search), then the search.
    "reversi-20-empties-genmove": ([], reversi_setup(20) + ["param_search max_time 0", "param_search max_visits 0"],
                                   "genmove b", 0.1),
    # Thirty empties: beyond the solver, so the alpha-beta search with the trained evaluation
    # plays (no limit: it deepens until the stop).
    "reversi-30-empties-genmove": ([], reversi_setup(30) + ["param_search max_time 0", "param_search max_visits 0"],
                                   "genmove b"),
    "connect4-genmove": ([], ["set_game connect4", "param_search max_time 0",
                              "param_search max_visits 0", "play b d"], "genmove w"),
    "hex-11x11-genmove": ([], ["set_game hex", "boardsize 11", "param_search max_time 0",
                               "param_search max_visits 0", "play b f6"], "genmove w"),
    "gomoku-15x15-genmove": ([], ["set_game gomoku", "boardsize 15", "param_search max_time 0",
                                  "param_search max_visits 0", "play b h8"], "genmove w"),
}

# How long a process may take to exit before it counts as never ending.
EXIT_DEADLINE = 20


class Engine:
    def __init__(self, *args):
        self.process = subprocess.Popen(
            [str(BINARY), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, bufsize=0)

    def send(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def reply(self):
        lines = []
        while True:
            line = self.process.stdout.readline()
            if line == b"":
                raise RuntimeError("engine closed stdout")
            if line == b"\n":
                return "\n".join(lines)
            lines.append(line.decode().rstrip("\n"))

    def ask(self, line):
        self.send(line)
        return self.reply()


def start(args, setup):
    engine = Engine(*args)
    for line in setup:
        answer = engine.ask(line)
        if not answer.startswith("="):
            raise RuntimeError(f"{line}: {answer}")
    return engine


def finished_early(engine):
    """Whether a reply is already waiting, so the command ended before it was stopped."""
    return bool(select.select([engine.process.stdout], [], [], 0)[0])


def measure_interrupt(args, setup, command, run_seconds):
    engine = start(args, setup)
    engine.send(command)
    time.sleep(run_seconds)
    if finished_early(engine):
        return None
    begin = time.monotonic()
    engine.send("# interrupt")
    answer = engine.reply()
    latency = time.monotonic() - begin
    engine.process.stdin.close()
    engine.process.wait(timeout=60)
    return latency, answer


def measure_eof(args, setup, command, run_seconds):
    engine = start(args, setup)
    engine.send(command)
    time.sleep(run_seconds)
    if finished_early(engine):
        return None
    begin = time.monotonic()
    engine.process.stdin.close()
    try:
        engine.process.wait(timeout=EXIT_DEADLINE)
    except subprocess.TimeoutExpired:
        engine.process.kill()
        engine.process.wait()
        return float("inf"), f"still running {EXIT_DEADLINE} s after the end of input"
    latency = time.monotonic() - begin
    answer = engine.process.stdout.read().decode().strip()
    return latency, answer


# name: setup lines for `lz-analyze` (mode line).
ANALYSES = {
    "hex-11x11-lz-analyze": ["set_game hex", "boardsize 11", "play b f6"],
    "reversi-lz-analyze": reversi_setup(40),
    "connect4-lz-analyze": ["set_game connect4", "play b d"],
    "gomoku-15x15-lz-analyze": ["set_game gomoku", "boardsize 15", "play b h8"],
}


def measure_line(setup, run_seconds):
    engine = start([], setup)
    engine.send("lz-analyze 100")
    time.sleep(run_seconds)
    begin = time.monotonic()
    engine.send("name")
    engine.reply()
    answer = engine.reply()
    latency = time.monotonic() - begin
    engine.process.stdin.close()
    engine.process.wait(timeout=60)
    return latency, answer


def measure_closed_stdout(run_seconds):
    engine = start([], ["set_game gomoku", "boardsize 15"])
    engine.send("lz-analyze 10")
    time.sleep(run_seconds)
    begin = time.monotonic()
    engine.process.stdout.close()
    try:
        engine.process.wait(timeout=EXIT_DEADLINE)
        latency = time.monotonic() - begin
        answer = f"exit {engine.process.returncode}"
    except subprocess.TimeoutExpired:
        latency = float("inf")
        answer = f"still running {EXIT_DEADLINE} s after stdout closed"
        engine.process.kill()
        engine.process.wait()
    engine.process.stdin.close()
    return latency, answer


def report(name, results):
    early = sum(result is None for result in results)
    results = [result for result in results if result is not None]
    if not results:
        print(f"{name:45s} finished before every stop; not measured", flush=True)
        return
    latencies = [latency for latency, _ in results]
    answers = sorted({answer.splitlines()[0] if answer else "(no reply)" for _, answer in results})
    print(f"{name:45s} median {statistics.median(latencies) * 1000:8.1f} ms  "
          f"max {max(latencies) * 1000:8.1f} ms  replies: {' | '.join(answers)}"
          + (f"  ({early} finished before the stop)" if early else ""), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tries", type=int, default=5)
    parser.add_argument("--run-seconds", type=float, default=1.0)
    parser.add_argument("--case", action="append", help="a case name (default: all); see CASES")
    parser.add_argument("--mode", action="append", choices=["interrupt", "eof", "line", "closed-stdout"])
    options = parser.parse_args()
    if not BINARY.exists():
        sys.exit(f"{BINARY} missing: cargo build --release")
    modes = options.mode or ["interrupt", "eof", "line", "closed-stdout"]
    names = options.case or list(CASES)
    for mode in modes:
        if mode == "line":
            for name, setup in ANALYSES.items():
                report(f"{name} (line)", [measure_line(setup, options.run_seconds) for _ in range(options.tries)])
            continue
        if mode == "closed-stdout":
            report("lz-analyze (closed stdout)",
                   [measure_closed_stdout(options.run_seconds) for _ in range(options.tries)])
            continue
        measure = measure_interrupt if mode == "interrupt" else measure_eof
        for name in names:
            args, setup, command, *run_seconds = CASES[name]
            seconds = run_seconds[0] if run_seconds else options.run_seconds
            results = [measure(args, setup, command, seconds) for _ in range(options.tries)]
            report(f"{name} ({mode})", results)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Measures what issue 3 asks about pondering, against the release binary.

    python3 scripts/measure_pondering.py latency  [--tries 100]
    python3 scripts/measure_pondering.py reuse    [--tries 20] [--ponder-seconds 1] [--game G --size N]
    python3 scripts/measure_pondering.py memory   [--minutes 10] [--cap-mb 256]

latency: while ponder is pondering, the time from writing a command line to reading its
         complete reply (median and max), next to the same without pondering.
reuse:   after pondering, play the reply ponder expected; the share of the pondered root's
         visits that the next genmove finds again (ponder-stats reused_visits / root_visits).
memory:  peak resident memory (VmHWM) of a ponder that runs for the given minutes with
         max_memory_mb set to the cap.
Build first: cargo build --release.
"""
import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

BINARY = Path(__file__).resolve().parent.parent / "target" / "release" / "ponder"


class Engine:
    def __init__(self, *args):
        self.process = subprocess.Popen(
            [str(BINARY), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def reply(self):
        lines = []
        while True:
            line = self.process.stdout.readline()
            if line == "":
                raise RuntimeError("engine closed stdout")
            if line == "\n":
                return "\n".join(lines)
            lines.append(line.rstrip("\n"))

    def ask(self, line):
        self.send(line)
        return self.reply()

    def stat(self, key):
        for line in self.ask("ponder-stats").splitlines():
            parts = line.lstrip("= ").split()
            if parts and parts[0] == key:
                return int(parts[1])
        raise KeyError(key)

    def close(self):
        self.send("quit")
        self.process.wait(timeout=30)


def latency(tries):
    results = {}
    for pondering in (False, True):
        args = ["--game", "gomoku", "--size", "15", "--max-visits", "300", "--seed", "1"]
        engine = Engine(*(args + (["--ponder"] if pondering else [])))
        samples = []
        for i in range(tries):
            if i % 100 == 0:
                engine.ask("clear_board")
            engine.ask("genmove b" if i % 2 == 0 else "genmove w")
            time.sleep(0.05 + (i % 7) * 0.02)
            started = time.perf_counter()
            engine.ask("name")
            samples.append((time.perf_counter() - started) * 1000)
        engine.close()
        results[pondering] = samples
        label = "while pondering" if pondering else "idle (baseline)"
        print(f"reply to 'name' {label}: median {statistics.median(samples):.2f} ms, "
              f"max {max(samples):.2f} ms over {len(samples)} tries")


def reuse(tries, ponder_seconds, game, size):
    fractions = []
    for seed in range(tries):
        engine = Engine("--game", game, "--size", size, "--max-visits", "500",
                        "--ponder", "--seed", str(seed + 1))
        engine.ask("genmove b")
        time.sleep(ponder_seconds)
        pv = engine.ask("ponder-pv").lstrip("= ").split()
        pondered = engine.stat("root_visits")
        expected = pv[1]
        # Pondering off, so the statistics after genmove are genmove's own (not those of the
        # ponder that would start after its reply).
        engine.ask("param_search ponder 0")
        engine.ask(f"play w {expected}")
        engine.ask("genmove b")
        reused = engine.stat("reused_visits")
        fractions.append(reused / pondered)
        engine.close()
    print(f"visits reused after the expected reply: mean {statistics.mean(fractions):.1%}, "
          f"min {min(fractions):.1%}, max {max(fractions):.1%} over {tries} tries "
          f"({game} {size}, {ponder_seconds} s of pondering each)")


def memory(minutes, cap_mb):
    engine = Engine("--game", "gomoku", "--size", "19", "--max-visits", "1000", "--ponder",
                    "--max-memory-mb", str(cap_mb))
    engine.ask("genmove b")
    status = Path(f"/proc/{engine.process.pid}/status")
    peak = 0
    deadline = time.time() + minutes * 60
    while time.time() < deadline:
        time.sleep(5)
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))
    nodes = engine.stat("nodes")
    capacity = engine.stat("capacity_nodes")
    memory_bytes = engine.stat("memory_bytes")
    engine.close()
    print(f"{minutes} min ponder at max_memory_mb {cap_mb}: peak RSS {peak / 1024:.1f} MiB, "
          f"tree {nodes} nodes of {capacity} allowed, arena {memory_bytes / 2**20:.1f} MiB")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["latency", "reuse", "memory"])
    parser.add_argument("--tries", type=int)
    parser.add_argument("--ponder-seconds", type=float, default=1.0)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--cap-mb", type=int, default=256)
    parser.add_argument("--game", default="gomoku")
    parser.add_argument("--size", default="15")
    args = parser.parse_args()
    if not BINARY.exists():
        sys.exit(f"{BINARY} is missing: run cargo build --release first")
    if args.what == "latency":
        latency(args.tries or 100)
    elif args.what == "reuse":
        reuse(args.tries or 20, args.ponder_seconds, args.game, args.size)
    else:
        memory(args.minutes, args.cap_mb)


if __name__ == "__main__":
    main()

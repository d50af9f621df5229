#!/usr/bin/env bash
# A Connect Four match on the course variant: a 10x11 board (10 columns, 11 rows) with one random
# blocked cell, a new cell for every pair of games (each side plays Black once on it), ponder
# against OpenSpiel's MCTS bot on our Python rules for blocked cells
# (tests/interop/openspiel/blocked_connect_four.py).
#
# Usage: scripts/blocked_connect4_match.sh PONDER PYTHON PAIRS SECONDS OUTDIR [SEED]
#   PONDER   the ponder binary (e.g. target/release/ponder)
#   PYTHON   a Python with open_spiel installed (e.g. tests/interop/.venv/bin/python)
#   PAIRS    pairs of games (25 for a 50-game match)
#   SECONDS  seconds per move for both sides
#   OUTDIR   where each pair's SGF files, results.tsv and log go
# Prints one summary line per pair, then the totals for ponder.
set -euo pipefail
ponder=$1 python=$2 pairs=$3 seconds=$4 outdir=$5 seed=${6:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
columns=10 rows=11
letters=ABCDEFGHJKLMNOPQRSTUVWXYZ
mkdir -p "$outdir"
RANDOM=$seed
wins=0 draws=0 losses=0
for pair in $(seq 1 "$pairs"); do
  cell="${letters:$((RANDOM % columns)):1}$((RANDOM % rows + 1))"
  dir="$outdir/pair-$pair-$cell"
  mkdir -p "$dir"
  "$ponder" match --game connect4 --size ${columns}x${rows} --param-game "blocked=$cell" \
    --games 2 --alternate --time "$seconds" --time-margin 5 --sgf "$dir" \
    --black "$ponder --game connect4" \
    --white "$python $here/tests/interop/openspiel_gtp.py --game connect4 --seed $pair" > "$dir/log" 2>&1
  summary=$(grep ' games, ' "$dir/log" | tail -1)
  echo "pair $pair, blocked $cell: $summary"
  read -r w d l < <(echo "$summary" | sed -E 's/.* ([0-9]+) wins, ([0-9]+) draws, ([0-9]+) losses.*/\1 \2 \3/')
  wins=$((wins + w)) draws=$((draws + d)) losses=$((losses + l))
done
echo "ponder: $((wins + draws + losses)) games, $wins wins, $draws draws, $losses losses"

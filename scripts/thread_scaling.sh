#!/bin/bash
# Thread scaling of issues 14 and 16 in one run, for a lent many-core machine:
#   1. `ponder bench --threads N`: every game's playout rate at one thread and at N;
#   2. FFO #40-#49 solved on one thread and on N (the endgame solver's speedup);
#   3. a control for 2: FFO #40-#44 solved on one thread alone, then by N one-thread processes
#      at once. Those share no table and no work, so what each loses against the lone run is
#      the machine's own cost of N busy cores (memory, caches, clock), which no change to the
#      parallel search can win back. (Session 39's estimate, from the device's figures and the
#      search's work and span measured on 2 cores, was that each of 16 threads ran at about 65%
#      of the one-thread rate.)
#
#   scripts/thread_scaling.sh PONDER FFO_FILE [THREADS] [OUT_DIR]
#
# PONDER is a release binary built beforehand (`cargo build --release`, then
# `strip -o SOMEWHERE/ponder target/release/ponder` to carry it: the machine may have no Rust).
# FFO_FILE holds FFO #40-#59 in the format of tests/data/reversi/ffo1-19.txt (the shared data
# folder's reversi/ffo40-59.txt). THREADS defaults to 16. The full output also goes to
# OUT_DIR/thread_scaling.log when OUT_DIR is given; the last lines printed are the summary.
# Takes about 3.9 minutes on 16 cores: 150 s of bench, 45 s and 10 s of solving, 2 x 6 s of
# control.
#
# Keep process substitutions out of this script: a plain `wait` also waits for a `>(tee ...)`,
# which never ends while the script's output is open (a device run was lost to that once). The
# control's background solves are waited for by their process ids.
set -u
ponder=${1:?usage: thread_scaling.sh PONDER FFO_FILE [THREADS] [OUT_DIR]}
ffo=${2:?usage: thread_scaling.sh PONDER FFO_FILE [THREADS] [OUT_DIR]}
threads=${3:-16}
out=${4:-}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() {
    echo "\$ $*" | tee -a "$log"
    "$@" 2>&1 | tee -a "$log"
}

{ nproc; lscpu | grep -E 'Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)'; } | tee -a "$log"
run "$ponder" bench --threads "$threads"
run "$ponder" solve --game reversi "$ffo" --first 10 --threads 1
run "$ponder" solve --game reversi "$ffo" --first 10 --threads "$threads"
run "$ponder" solve --game reversi "$ffo" --first 5 --threads 1
control=$(mktemp -d)
pids=()
for copy in $(seq "$threads"); do
    "$ponder" solve --game reversi "$ffo" --first 5 --threads 1 >"$control/$copy" 2>&1 &
    pids+=($!)
done
wait "${pids[@]}"
echo "\$ $threads one-thread solves of FFO #40-#44 at once" | tee -a "$log"
grep -h '^total:' "$control"/* | tee -a "$log"
rm -rf "$control"
[ -n "$out" ] && cp "$log" "$out/thread_scaling.log"

echo "== summary ($threads threads against one)"
grep -E 'playouts/second:' "$log"
grep -E '^total:' "$log" | awk -v threads="$threads" '
    { for (i = 1; i <= NF; i++) if ($i == "s,") seconds[NR] = $(i - 1); nodes[NR] = $(NF - 5) }
    END {
        if (NR >= 2)
            printf "first 10 FFO positions: %s s on 1 thread, %s s on %d: %.2fx, %.2fx the nodes\n",
                seconds[1], seconds[2], threads, seconds[1] / seconds[2], nodes[2] / nodes[1]
        if (NR >= 4) {
            slowest = 0
            for (i = 4; i <= NR; i++) if (seconds[i] > slowest) slowest = seconds[i]
            printf "first 5 alone: %s s; %d at once: slowest %s s, each at %.0f%% of the lone rate or more\n",
                seconds[3], NR - 3, slowest, 100 * seconds[3] / slowest
        }
    }'

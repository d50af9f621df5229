#!/usr/bin/env bash
# Fuzz campaign: runs every cargo-fuzz target for SECONDS (default 1800, the 30 minutes per
# target a submission that touches a parser needs), grows the corpus kept in the repository
# (fuzz/corpus/TARGET), then minimises it with `cargo fuzz cmin`. Prints each target's
# `Done N runs in S second(s)` line and any crash; exits non-zero when a target found one (its
# input is under fuzz/artifacts/TARGET/).
#
#   scripts/fuzz_campaign.sh [SECONDS] [TARGET...]
#
# Run it on an idle machine; libFuzzer uses one core per target, one target at a time.
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
export RUSTC_BOOTSTRAP=1
seconds=${1:-1800}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
if ! cargo fuzz build >/dev/null 2>&1; then
  cargo fuzz build
  exit 1
fi
failed=()
for target in "${targets[@]}"; do
  log=$(mktemp)
  mkdir -p "corpus/$target"
  before=$(find "corpus/$target" -type f | wc -l)
  echo "== $target: ${seconds} s, corpus $before files"
  # -timeout: a single input running this long is a hang; -rss_limit_mb: a memory blow-up.
  if cargo fuzz run "$target" -- -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 >"$log" 2>&1; then
    grep -E "^Done [0-9]+ runs" "$log" || tail -n 5 "$log"
  else
    failed+=("$target")
    grep -E "^Done [0-9]+ runs" "$log"
    grep -E -A 30 "==ERROR|panicked|Test unit written|deadly signal|timeout|out-of-memory" "$log" | head -n 60
  fi
  rm -f "$log"
  if cargo fuzz cmin "$target" >/dev/null 2>&1; then
    echo "-- $target: corpus $before -> $(find "corpus/$target" -type f | wc -l) files after cmin"
  else
    echo "-- $target: cmin failed"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "crashes in: ${failed[*]} (inputs under fuzz/artifacts/)"
  exit 1
fi
echo "no crashes"

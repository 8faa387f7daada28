#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) each, from seeded corpora, and prints libFuzzer's
# final statistics. Needs the nightly toolchain and cargo-fuzz.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
./seed-corpora.sh
for target in bvh_round_trip limits_apply_check convex_hull table_image; do
  echo "== $target, ${seconds} s"
  cargo +nightly fuzz run -O "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2>&1 |
    grep -E "(^stat::|DONE|^Done|ERROR|SUMMARY|Test unit written)" || true
  if ls artifacts/"$target"/* >/dev/null 2>&1; then
    echo "$target: failing inputs in fuzz/artifacts/$target" >&2
    exit 1
  fi
done

#!/usr/bin/env bash
# How much a Kiothi search value moves from one depth to the next: the
# noise that `sow analyze`'s estimate thresholds allow for (README "Marks").
# For every position of the analysed example game that the search did not
# prove (results/kiothi/analysis/analysis.json, written by
# scripts/analysis_examples.sh), `sow eval --threads 1 --time S` is run and
# the change of value between its last two completed depths is counted.
#
#   scripts/search_noise.sh [--time S]      (default 0.5)
set -euo pipefail
cd "$(dirname "$0")/.."
time=0.5
if [ "${1:-}" = "--time" ]; then time="$2"; fi
cargo build --release --quiet
sow=target/release/sow
jq -r '.plies[] | select(.exact | not) | .position' results/kiothi/analysis/analysis.json |
    while read -r pos; do
        "$sow" eval --threads 1 "$pos" --time "$time" |
            awk '/^depth/ {prev = last; last = $4} END {d = last - prev; if (d < 0) d = -d; print d}'
    done |
    sort -n |
    awk -v t="$time" '{v[NR] = $1; s += $1; if ($1 >= 3) big++}
        END {printf "positions %d (eval --threads 1 --time %s): |value(d) - value(d-1)| mean %.2f, median %d, 90th percentile %d, max %d; 3 stones or more in %d (%.0f%%)\n",
             NR, t, s / NR, v[int((NR + 1) / 2)], v[int(0.9 * NR + 0.999)], v[NR], big, 100 * big / NR}'

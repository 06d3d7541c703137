#!/usr/bin/env bash
# Runs the benchmarks and appends every run to results/benchmarks.csv, each as
# the current figure of its benchmark, then renders the table of current
# figures in results/BENCHMARKS.md (scripts/benchmarks.py render).
#   the benches: cargo bench --bench movegen | solver | search (divan)
#   the command line: sow perft kpe 13 on 1 and 2 threads
#   the full standard Kpé solve, /usr/bin/time -v, on a fresh directory
# Usage: scripts/benchmarks.sh [--skip-solve | --solve-threads "2 1"]
set -euo pipefail
cd "$(dirname "$0")/.."
db=$(mktemp -d)
tmp=$(mktemp)
trap 'rm -rf "$db" "$tmp" "$tmp.time"' EXIT

machine="$(nproc) cores $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB"
load() { cut -d' ' -f1-3 /proc/loadavg; }
record=(python3 scripts/benchmarks.py)

cargo build --release --quiet
for group in movegen solver search; do
  note="scripts/benchmarks.sh run; load average at the start: $(load)"
  cargo bench --quiet --bench "$group" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | tee "$tmp"
  "${record[@]}" append-divan "$group" --machine "$machine" --note "$note" < "$tmp"
done

for t in 1 2; do
  target/release/sow --threads $t perft kpe 13 | tee "$tmp"
  "${record[@]}" append-perft --threads $t --machine "$machine" \
    --note "scripts/benchmarks.sh run; load average at the start: $(load)" < "$tmp"
done

threads="2"
[ "${1:-}" = "--solve-threads" ] && threads="${2:-2}"
if [ "${1:-}" != "--skip-solve" ]; then
  for t in $threads; do
    rm -rf "${db:?}"/*
    note="scripts/benchmarks.sh run; load average at the start: $(load)"
    /usr/bin/time -v target/release/sow --threads "$t" solve kpe --db "$db" > "$tmp" 2> "$tmp.time"
    tail -1 "$tmp"
    "${record[@]}" append-solve --current --threads "$t" --machine "$machine" --note "$note" "$tmp" "$tmp.time"
  done
fi
"${record[@]}" render

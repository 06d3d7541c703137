#!/usr/bin/env bash
# Every reliability campaign, then results/RELIABILITY.md from their figures:
# the structured fuzzer on every target (10^6 inputs each by default), AFL++
# on every target too (when cargo-afl installs), the crash-kill
# script and the soak. Long: run it in the background with output to a file.
#
#   scripts/reliability.sh [--inputs N] [--afl-seconds S] [--kills K] [--games G]
set -euo pipefail
cd "$(dirname "$0")/.."
inputs=1000000 afl=300 kills=20 games=10000
while [ $# -gt 0 ]; do
  case "$1" in
    --inputs) inputs="$2"; shift 2 ;;
    --afl-seconds) afl="$2"; shift 2 ;;
    --kills) kills="$2"; shift 2 ;;
    --games) games="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
status=0
scripts/fuzz.sh all --inputs "$inputs" || status=1
if [ "$afl" -gt 0 ]; then
  scripts/fuzz_afl.sh all --seconds "$afl" || status=1
fi
cargo build --release --quiet
scripts/crash_kill.sh --kills "$kills" || status=1
scripts/soak.sh --games "$games" --interrupts 10 || status=1
python3 scripts/reliability_page.py
exit $status

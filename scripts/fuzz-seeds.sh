#!/usr/bin/env bash
# Regenerates fuzz/seeds/positions.txt: every position literal of the tests
# (tests/*.rs, the unit tests under src/ and the fuzzer's own, fuzz/src/),
# plus the start shortcuts.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  printf '%s\n' kpe kpe:3x3 kpe:2x1 kpe:8x8 kiothi kiothi:five
  grep -rhoE '"(kpe|kiothi)(:[0-9a-z]+)?( [^"{}\\]*)?"' tests src fuzz/src \
    | sed -e 's/^"//' -e 's/"$//'
} | awk 'length($0) > 0 && !seen[$0]++' > fuzz/seeds/positions.txt
wc -l fuzz/seeds/positions.txt

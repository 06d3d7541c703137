#!/usr/bin/env bash
# Regenerates the Kiothi reports under results/kiothi/ (report.md/.json,
# strength.md, openings.md/.json, pictures, game records) from engine runs:
# `sow report --only kiothi`, about 30 minutes on 2 cores (the plan and its
# estimated duration are printed first). Extra arguments go to `sow report`,
# e.g. `scripts/strength.sh --quick --out /tmp/results`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec target/release/sow report --only kiothi "$@"

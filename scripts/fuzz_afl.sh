#!/usr/bin/env bash
# Coverage-guided fuzzing with AFL++ (cargo-afl, stable toolchain) of the
# sow-fuzz targets, each for SECONDS; appends AFL's figures (executions,
# edges found, bitmap coverage, crashes, hangs over 1 s) to
# results/reliability/afl.jsonl.
#
#   scripts/fuzz_afl.sh TARGET... [--seconds S]
#
# Installs cargo-afl and builds AFL++ on first use (`cargo install
# cargo-afl`, `cargo afl config --build`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=300
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || { echo "usage: scripts/fuzz_afl.sh TARGET... [--seconds S]" >&2; exit 2; }
mkdir -p results/reliability
command -v cargo-afl >/dev/null || cargo install cargo-afl
cargo afl config --build >/dev/null 2>&1 || true
cargo build --profile fuzz --bin sow-fuzz --quiet
(cd fuzz/afl && cargo afl build --release --quiet)
root=$(pwd)
for t in "${targets[@]}"; do
  dir=$(mktemp -d /tmp/sow-afl.XXXXXX)
  target/fuzz/sow-fuzz "$t" --dump-seeds "$dir/in"
  echo "== AFL++ on $t for $seconds s" >&2
  AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
  AFL_NO_UI=1 AFL_QUIET=1 SOW_AFL_TARGET="$t" SOW_FUZZ_SEEDS="$root/fuzz/seeds" \
    cargo afl fuzz -i "$dir/in" -o "$dir/out" -V "$seconds" -t 1000 \
      fuzz/afl/target/release/sow-afl >"$dir/log" 2>&1 || true
  stats="$dir/out/default/fuzzer_stats"
  if [ -f "$stats" ]; then
    python3 - "$stats" "$t" "$seconds" <<'PY' | tee -a results/reliability/afl.jsonl
import json, sys, datetime
s = dict(l.split(":", 1) for l in open(sys.argv[1]) if ":" in l)
s = {k.strip(): v.strip() for k, v in s.items()}
print(json.dumps({"target": sys.argv[2], "seconds": int(sys.argv[3]),
  "execs": int(s.get("execs_done", 0)), "execs_per_sec": float(s.get("execs_per_sec", 0)),
  "edges_found": int(s.get("edges_found", 0)), "total_edges": int(s.get("total_edges", 0)),
  "bitmap_cvg": s.get("bitmap_cvg"), "corpus": int(s.get("corpus_count", 0)),
  "crashes": int(s.get("saved_crashes", 0)), "hangs": int(s.get("saved_hangs", 0)),
  "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")}))
PY
    mkdir -p fuzz/findings
    for f in "$dir"/out/default/crashes/id* "$dir"/out/default/hangs/id*; do
      [ -e "$f" ] && cp "$f" "fuzz/findings/afl-$t-$(basename "$(dirname "$f")")-$(sha1sum "$f" | cut -c1-12).bin"
    done
  else
    tail -20 "$dir/log" >&2
  fi
  rm -rf "$dir"
done

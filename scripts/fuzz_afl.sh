#!/usr/bin/env bash
# Coverage-guided fuzzing with AFL++ (cargo-afl, stable toolchain) of the
# sow-fuzz targets, each for SECONDS; appends AFL's figures (executions,
# edges found, bitmap coverage, crashes, hangs over 1 s) to
# results/reliability/afl.jsonl.
#
#   scripts/fuzz_afl.sh TARGET... [--seconds S]
#   scripts/fuzz_afl.sh all --seconds 300     # every sow-fuzz target in turn
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
# AFL++ itself, built once per toolchain (a second build is refused with
# "already built", which is not an error here).
if ! out=$(cargo afl config --build 2>&1); then
  grep -q "already built" <<<"$out" || { echo "$out" >&2; exit 1; }
fi
cargo build --profile fuzz -p sow-fuzz --quiet
# The harness is a workspace of its own: it starts from the crate's lock file
# so that it fuzzes the dependency versions the crate is tested with.
[ -f fuzz/afl/Cargo.lock ] || cp Cargo.lock fuzz/afl/Cargo.lock
(cd fuzz/afl && cargo afl build --release --quiet)
commit=$(git rev-parse --short HEAD)
if [ "${targets[0]}" = all ]; then
  mapfile -t targets < <(target/fuzz/sow-fuzz --list)
fi
root=$(pwd)
status=0
for t in "${targets[@]}"; do
  dir=$(mktemp -d /tmp/sow-afl.XXXXXX)
  target/fuzz/sow-fuzz "$t" --dump-seeds "$dir/in"
  # The target's files (the seed database) built once, outside AFL; each
  # process AFL forks then reopens them at its first input (fuzz/afl/main.rs).
  SOW_AFL_TARGET="$t" SOW_FUZZ_SEEDS="$root/fuzz/seeds" SOW_AFL_PREPARE=1 fuzz/afl/target/release/sow-afl
  echo "== AFL++ on $t for $seconds s" >&2
  AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
  AFL_NO_UI=1 AFL_QUIET=1 SOW_AFL_TARGET="$t" SOW_FUZZ_SEEDS="$root/fuzz/seeds" \
    cargo afl fuzz -i "$dir/in" -o "$dir/out" -V "$seconds" -t 1000 \
      fuzz/afl/target/release/sow-afl >"$dir/log" 2>&1 || true
  stats="$dir/out/default/fuzzer_stats"
  if [ -f "$stats" ]; then
    python3 - "$stats" "$t" "$seconds" "$commit" results/reliability/afl.jsonl <<'PY'
import json, os, sys, datetime
s = dict(l.split(":", 1) for l in open(sys.argv[1]) if ":" in l)
s = {k.strip(): v.strip() for k, v in s.items()}
num = lambda k: int(float(s.get(k, 0) or 0))
record = json.dumps({"target": sys.argv[2], "seconds": int(sys.argv[3]),
  "run_time": num("run_time"), "execs": num("execs_done"),
  "execs_per_sec": float(s.get("execs_per_sec", 0)),
  "edges_found": num("edges_found"), "total_edges": num("total_edges"),
  "bitmap_cvg": s.get("bitmap_cvg"), "stability": s.get("stability"),
  "corpus": num("corpus_count"), "cycles": num("cycles_done"),
  "crashes": num("saved_crashes"), "hangs": num("saved_hangs"),
  "load_avg": open("/proc/loadavg").read().split()[0],
  "afl_version": s.get("afl_version"), "commit": sys.argv[4],
  "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")})
# One append of the whole line, so that campaigns run side by side do not
# interleave their records.
line = (record + "\n").encode()
fd = os.open(sys.argv[5], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, line)
os.close(fd)
print(record)
PY
    mkdir -p fuzz/findings
    for f in "$dir"/out/default/crashes/id* "$dir"/out/default/hangs/id*; do
      [ -e "$f" ] || continue
      cp "$f" "fuzz/findings/afl-$t-$(basename "$(dirname "$f")")-$(sha1sum "$f" | cut -c1-12).bin"
      status=1
    done
  else
    echo "$t: AFL++ did not run:" >&2
    tail -20 "$dir/log" >&2
    status=1
  fi
  rm -rf "$dir"
done
exit $status

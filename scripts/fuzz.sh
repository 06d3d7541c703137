#!/usr/bin/env bash
# Runs the structured fuzzer (the sow-fuzz crate, fuzz/) on each TARGET for
# N inputs and appends each run's JSON summary to results/reliability/fuzz.jsonl.
#
#   scripts/fuzz.sh TARGET... --inputs N [--seed S]
#   scripts/fuzz.sh all --inputs 1000000      # every target, one after another
#
# Findings (inputs that panicked, hung over 1 s or broke the error contract)
# are saved under fuzz/findings/. Exit status: non-zero if any run had one.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=()
extra=()
inputs=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --inputs) inputs="$2"; shift 2 ;;
    --seed) extra+=(--seed "$2"); shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || { echo "usage: scripts/fuzz.sh TARGET... --inputs N (or: all)" >&2; exit 2; }

cargo build --profile fuzz -p sow-fuzz --quiet
bin=target/fuzz/sow-fuzz
if [ "${targets[0]}" = all ]; then
  mapfile -t targets < <("$bin" --list)
fi
mkdir -p fuzz/logs results/reliability
status=0
for t in "${targets[@]}"; do
  echo "== $t: $inputs inputs" >&2
  log="fuzz/logs/$t.log"
  if /usr/bin/time -v -o "fuzz/logs/$t.time" "$bin" "$t" --inputs "$inputs" "${extra[@]}" \
      >"fuzz/logs/$t.json" 2>"$log"; then
    :
  else
    echo "$t: findings (see $log and fuzz/findings/)" >&2
    status=1
  fi
  # The summary plus the peak memory of the run.
  rss=$(awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}' "fuzz/logs/$t.time")
  if [ -s "fuzz/logs/$t.json" ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["peak_rss_kib"]=int(sys.argv[2] or 0); d["date"]=sys.argv[3]; d["commit"]=sys.argv[4]; print(json.dumps(d))' \
      "fuzz/logs/$t.json" "$rss" "$(date -u +%FT%TZ)" "$(git rev-parse --short HEAD)" >> results/reliability/fuzz.jsonl
    tail -1 results/reliability/fuzz.jsonl >&2
  else
    tail -3 "$log" >&2
  fi
done
exit $status

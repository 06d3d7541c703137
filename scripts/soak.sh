#!/usr/bin/env bash
# Soak: Ctrl-C at random moments, and a long Kiothi self-play run.
#
#   scripts/soak.sh [--interrupts N] [--games G] [--bin PATH]
#
# 1. `sow match ab:depth=3 greedy --games 1000` and `sow eval kiothi --time 20`
#    get SIGINT after a random delay, N times each: each must exit 0 and print
#    its best completed result (match: games finished and score; eval: the
#    value of the last completed depth), with no panic on stderr.
# 2. `sow match ab:depth=1 ab:depth=1 --games G` (default 10,000) with the
#    resident memory sampled every second: it must exit 0, play every game,
#    and its memory stay flat (the search's table is allocated once per agent).
#
# Figures go to results/reliability/soak.json (and stdout).
set -euo pipefail
cd "$(dirname "$0")/.."

interrupts=10
games=10000
bin=target/release/sow
while [ $# -gt 0 ]; do
  case "$1" in
    --interrupts) interrupts="$2"; shift 2 ;;
    --games) games="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || cargo build --release --quiet
work=$(mktemp -d /tmp/sow-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT
RANDOM=14
# bc arithmetic printed as JSON-valid decimals (0.5, not .5).
calc() { LC_ALL=C printf '%.3f' "$(echo "$1" | bc -l)"; }

# Sends SIGINT to "$@" after $1 seconds; prints the exit code.
interrupt_after() {
  local delay=$1; shift
  "$@" >"$work/out" 2>"$work/err" &
  local pid=$!
  sleep "$delay"
  kill -INT "$pid" 2>/dev/null || true
  local code=0
  wait "$pid" || code=$?
  echo "$code"
}

clean_match=0 match_games=()
clean_eval=0 eval_depths=()
failures=()
for i in $(seq 1 "$interrupts"); do
  delay=$(echo "scale=2; 0.5 + 6 * $RANDOM / 32768" | bc)
  code=$(interrupt_after "$delay" "$bin" --json match ab:depth=3 greedy --games 1000 --seed "$i")
  games_done=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["games"] if "games" in d else -1)' "$work/out" 2>/dev/null || echo -1)
  if [ "$code" = 0 ] && [ "$games_done" -gt 0 ] && ! grep -q panick "$work/err"; then
    clean_match=$((clean_match + 1)); match_games+=("$games_done")
  elif grep -q '"kind":"interrupted"' "$work/out" && [ "$code" = 2 ] && ! grep -q panick "$work/err"; then
    # Interrupted while the openings were drawn: a clean, named refusal.
    clean_match=$((clean_match + 1)); match_games+=(0)
  else
    failures+=("match after ${delay}s: exit $code, $(head -c 300 "$work/err")")
  fi

  delay=$(echo "scale=2; 0.3 + 5 * $RANDOM / 32768" | bc)
  code=$(interrupt_after "$delay" "$bin" --json eval kiothi --time 20 --hash 64)
  depth=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["depth"] if d.get("best") else -1)' "$work/out" 2>/dev/null || echo -1)
  if [ "$code" = 0 ] && [ "$depth" -gt 0 ] && ! grep -q panick "$work/err"; then
    clean_eval=$((clean_eval + 1)); eval_depths+=("$depth")
  else
    failures+=("eval after ${delay}s: exit $code, $(head -c 300 "$work/err")")
  fi
done
echo "interrupts: match clean $clean_match/$interrupts (games finished: ${match_games[*]:-}), eval clean $clean_eval/$interrupts (depths: ${eval_depths[*]:-})" >&2
for f in "${failures[@]:-}"; do [ -n "$f" ] && echo "FAIL $f" >&2; done

# --- long self-play --------------------------------------------------------
echo "== $bin match ab:depth=1 ab:depth=1 --games $games" >&2
t0=$(date +%s.%N)
"$bin" --json match ab:depth=1 ab:depth=1 --games "$games" >"$work/long.json" 2>"$work/long.err" &
pid=$!
: >"$work/rss"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$(echo "$(date +%s.%N) - $t0" | bc) $rss" >>"$work/rss"
  sleep 1
done
long_code=0
wait "$pid" || long_code=$?
long_seconds=$(calc "$(date +%s.%N) - $t0")
long_games=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["games"])' "$work/long.json" 2>/dev/null || echo 0)
long_panic=$(grep -c panick "$work/long.err" || true)
# RSS in MiB: first sample after the first tenth of the run, the largest
# later, and their difference (flat: the tables are allocated once).
read -r rss_samples rss_early rss_peak rss_last rss_deciles < <(python3 - "$work/rss" <<'PY'
import sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
if not rows:
    print(0, 0, 0, 0, "[]"); sys.exit()
t_end = rows[-1][0]
late = [r for r in rows if r[0] >= t_end / 10] or rows
# RSS at each tenth of the run (the sample nearest to it).
deciles = [round(min(rows, key=lambda r: abs(r[0] - t_end * k / 10))[1] / 1024, 1) for k in range(1, 11)]
print(len(rows), round(late[0][1] / 1024, 1), round(max(r[1] for r in late) / 1024, 1),
      round(rows[-1][1] / 1024, 1), str(deciles).replace(" ", ""))
PY
)
echo "self-play: exit $long_code, $long_games games in $long_seconds s, panics $long_panic, RSS MiB after 10%: $rss_early, peak after: $rss_peak, last: $rss_last ($rss_samples samples)" >&2

mkdir -p results/reliability
ints() { local IFS=,; echo "[$*]"; }
cat > results/reliability/soak.json <<JSON
{"command": "scripts/soak.sh --interrupts $interrupts --games $games", "date": "$(date -u +%FT%TZ)",
 "interrupts": {"runs": $interrupts,
   "match": {"command": "sow --json match ab:depth=3 greedy --games 1000 --seed I, SIGINT after 0.5-6.5 s", "clean": $clean_match, "games_finished": $(ints "${match_games[@]:-}")},
   "eval": {"command": "sow --json eval kiothi --time 20 --hash 64, SIGINT after 0.3-5.3 s", "clean": $clean_eval, "depths": $(ints "${eval_depths[@]:-}")}},
 "selfplay": {"command": "sow --json match ab:depth=1 ab:depth=1 --games $games", "exit": $long_code, "games": $long_games, "seconds": $long_seconds, "panics": $long_panic,
   "rss_samples": $rss_samples, "rss_mib_after_first_tenth": $rss_early, "rss_mib_peak_after": $rss_peak, "rss_mib_last": $rss_last, "rss_mib_by_tenth": $rss_deciles}}
JSON
cat results/reliability/soak.json
[ "$clean_match" -eq "$interrupts" ] && [ "$clean_eval" -eq "$interrupts" ] && [ "$long_code" -eq 0 ] && [ "$long_games" -eq "$games" ]

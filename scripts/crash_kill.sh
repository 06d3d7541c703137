#!/usr/bin/env bash
# Crash safety, tested: kills `sow solve`, `sow export --out` and
# `sow report --quick` with SIGKILL at many points, resumes each, and checks
# what they leave behind.
#
#   scripts/crash_kill.sh [--variant kpe:4x3] [--kills N] [--layer L] [--bin PATH] [--work DIR]
#
# solve:  one uninterrupted reference build, then sequences of runs on one
#         directory: up to 6 runs each killed (after a random delay, right
#         at its start, the moment it starts writing a layer file or the
#         region file (a new `*.sowdb.tmp`), or during the opening phase once
#         every layer is there), then a run let finish. Every database file must
#         then be byte-identical to the reference, with no temporary left.
#         The phase each kill hit is read off the directory at that moment.
# export: `export --positions $layer --out F` killed at random moments: F is
#         absent or byte-identical to the reference; a rerun completes it.
# report: `report --quick` killed at random moments: every file present
#         is whole (JSON parses, SVG closed, nothing empty); a rerun completes.
#
# Figures go to results/reliability/crash_kill.json (and stdout).
set -euo pipefail
cd "$(dirname "$0")/.."

variant=kpe:4x3
kills=20
layer=12
bin=target/release/sow
work=$(mktemp -d /tmp/sow-crash.XXXXXX)
while [ $# -gt 0 ]; do
  case "$1" in
    --variant) variant="$2"; shift 2 ;;
    --kills) kills="$2"; shift 2 ;;
    --layer) layer="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --work) work="$2"; mkdir -p "$work"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || cargo build --release --quiet
trap 'rm -rf "$work"' EXIT
marker="$work/marker"  # touched as each run starts
size=${variant#kpe:}
vdir="kpe-$size"
RANDOM=14
# bc arithmetic printed as JSON-valid decimals (0.5, not .5).
calc() { LC_ALL=C printf '%.3f' "$(echo "$1" | bc -l)"; }

now() { date +%s.%N; }

# Runs "$@" in the background and SIGKILLs it when `$when` says so:
# `delay:S` after S seconds, `tmp:DIR` as soon as a *.tmp file shows in DIR.
# Prints `killed` or `finished`.
run_and_kill() {
  local when=$1; shift
  touch "$marker"
  "$@" >/dev/null 2>&1 &
  local pid=$!
  case "$when" in
    delay:*)
      local s=${when#delay:}
      local end; end=$(echo "$(now) + $s" | bc)
      while kill -0 "$pid" 2>/dev/null && [ "$(echo "$(now) < $end" | bc)" = 1 ]; do sleep 0.01; done ;;
    never)
      wait "$pid" 2>/dev/null || true ;;
    tmp:*)
      # A temporary written by this run (not one an earlier kill left).
      local glob=${when#tmp:}
      while kill -0 "$pid" 2>/dev/null \
        && [ -z "$(find "$(dirname "$glob")" -maxdepth 1 -name "$(basename "$glob")" -newer "$marker" 2>/dev/null | head -1)" ]; do
        sleep 0.002
      done ;;
    layers:*)
      # Every layer written (the opening phase), then a random part of it.
      local spec=${when#layers:}
      local dir=${spec%:*} n=${spec##*:}
      while kill -0 "$pid" 2>/dev/null && [ "$(ls "$dir"/layer-*.sowdb 2>/dev/null | wc -l)" -lt "$n" ]; do
        sleep 0.01
      done
      sleep "$(echo "scale=3; 3 * $RANDOM / 32768" | bc)" ;;
  esac
  if kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    echo killed
  else
    wait "$pid" 2>/dev/null || true
    echo finished
  fi
}

# The phase a solve is in, from its directory: layers written so far, a
# layer or the region being written, or the opening phase (all layers there).
phase_of() {
  local dir=$1 layers=$2
  # A temporary written by the killed run itself (not one left earlier).
  local tmp; tmp=$(find "$dir" -maxdepth 1 -name '*.tmp' -newer "$marker" 2>/dev/null | head -1)
  local done; done=$(ls "$dir"/layer-*.sowdb 2>/dev/null | wc -l)
  if [ -n "$tmp" ]; then
    case "$tmp" in
      *opening*) echo "writing opening.sowdb" ;;
      *) echo "writing a layer file" ;;
    esac
  elif [ "$done" -eq 0 ]; then echo "start (no layer yet)"
  elif [ "$done" -lt "$layers" ]; then echo "endgame layers"
  elif [ ! -e "$dir/opening.sowdb" ]; then echo "opening phase (explore/solve)"
  else echo "done"
  fi
}

echo "== reference: $bin solve $variant" >&2
t0=$(now)
"$bin" --quiet solve "$variant" --db "$work/ref" >/dev/null
ref_seconds=$(calc "$(now) - $t0")
layers=$(ls "$work/ref/$vdir"/layer-*.sowdb | wc -l)
echo "reference: $layers layers, $ref_seconds s" >&2

# --- solve ---------------------------------------------------------------
declare -A phases=()
solve_kills=0 sequences=0 solve_ok=0 solve_bad=0
while [ "$solve_kills" -lt "$kills" ]; do
  sequences=$((sequences + 1))
  db="$work/seq$sequences"
  rm -rf "$db"
  # At most 6 kills, then a run that is let finish.
  for attempt in $(seq 1 7); do
    case $((attempt == 7 ? 9 : RANDOM % 5)) in
      0) when="delay:$(echo "scale=3; 1.5 * $RANDOM / 32768" | bc)" ;;
      1) when="tmp:$db/$vdir/*.tmp" ;;
      2) when="layers:$db/$vdir:$layers" ;;
      3) when="tmp:$db/$vdir/opening.sowdb.tmp" ;;
      4) when="delay:0.0$((RANDOM % 10))" ;;
      *) when="never" ;;
    esac
    r=$(run_and_kill "$when" "$bin" --quiet solve "$variant" --db "$db")
    if [ "$r" = finished ]; then break; fi
    solve_kills=$((solve_kills + 1))
    p=$(phase_of "$db/$vdir" "$layers")
    phases[$p]=$(( ${phases[$p]:-0} + 1 ))
  done
  # The completed database must equal the reference, byte for byte.
  if diff -r -q "$work/ref/$vdir" "$db/$vdir" --exclude=lock >/dev/null \
     && ! compgen -G "$db/$vdir/*.tmp" >/dev/null; then
    solve_ok=$((solve_ok + 1))
  else
    solve_bad=$((solve_bad + 1))
    diff -r -q "$work/ref/$vdir" "$db/$vdir" --exclude=lock >&2 || true
  fi
  rm -rf "$db"
done
phase_json=$(for k in "${!phases[@]}"; do printf '"%s": %d\n' "$k" "${phases[$k]}"; done | paste -sd, -)
echo "solve: $solve_kills kills in $sequences sequences; identical $solve_ok, different $solve_bad; phases {$phase_json}" >&2

# --- export --out ------------------------------------------------------------
echo "== export --out" >&2
"$bin" --quiet export "$variant" --positions $layer --db "$work/ref" --out "$work/ref.csv"
t0=$(now)
"$bin" --quiet export "$variant" --positions $layer --db "$work/ref" --out "$work/again.csv"
export_seconds=$(calc "$(now) - $t0")
cmp -s "$work/ref.csv" "$work/again.csv" || { echo "export is not deterministic" >&2; exit 1; }
export_kills=0 export_partial=0 export_ok=0
for i in $(seq 1 "$kills"); do
  out="$work/export-$i.csv"
  when="delay:$(echo "scale=3; $export_seconds * $RANDOM / 32768" | bc)"
  r=$(run_and_kill "$when" "$bin" --quiet export "$variant" --positions $layer --db "$work/ref" --out "$out")
  [ "$r" = killed ] && export_kills=$((export_kills + 1))
  if [ -e "$out" ] && ! cmp -s "$out" "$work/ref.csv"; then export_partial=$((export_partial + 1)); fi
  "$bin" --quiet export "$variant" --positions $layer --db "$work/ref" --out "$out"
  cmp -s "$out" "$work/ref.csv" && export_ok=$((export_ok + 1))
  rm -f "$out" "$out.tmp" "$work"/export-"$i".csv.tmp
done
echo "export: $export_kills kills, partial outputs $export_partial, completed identical $export_ok of $kills" >&2

# --- report --quick ----------------------------------------------------------
echo "== report --quick" >&2
t0=$(now)
"$bin" --quiet report --quick --db "$work/rdb" --out "$work/rref" >/dev/null
report_seconds=$(calc "$(now) - $t0")
whole() { # every file under $1 whole; prints the broken ones
  find "$1" -type f ! -name '*.tmp' | while read -r f; do
    [ -s "$f" ] || { echo "$f empty"; continue; }
    case "$f" in
      *.json) python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" 2>/dev/null || echo "$f"; ;;
      *.jsonl) python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$f" 2>/dev/null || echo "$f"; ;;
      *.svg) tail -c 8 "$f" | grep -q '</svg>' || echo "$f" ;;
    esac
  done
}
report_kills=0 report_broken=0 report_ok=0
for i in $(seq 1 "$kills"); do
  out="$work/report-$i"
  when="delay:$(echo "scale=3; $report_seconds * $RANDOM / 32768" | bc)"
  r=$(run_and_kill "$when" "$bin" --quiet report --quick --db "$work/rdb-$i" --out "$out")
  [ "$r" = killed ] && report_kills=$((report_kills + 1))
  if [ -d "$out" ]; then
    broken=$(whole "$out")
    [ -n "$broken" ] && { report_broken=$((report_broken + 1)); echo "broken after kill: $broken" >&2; }
  fi
  "$bin" --quiet report --quick --db "$work/rdb-$i" --out "$out" >/dev/null
  if [ -z "$(whole "$out")" ] && diff -q <(cd "$work/rref" && find . -type f | sort) <(cd "$out" && find . -type f ! -name '*.tmp' | sort) >/dev/null \
     && diff -r -q "$work/rdb" "$work/rdb-$i" --exclude=lock >/dev/null; then
    report_ok=$((report_ok + 1))
  fi
  rm -rf "$out" "$work/rdb-$i"
done
echo "report: $report_kills kills, broken files after a kill $report_broken, complete after rerun $report_ok of $kills" >&2

mkdir -p results/reliability
cat > results/reliability/crash_kill.json <<JSON
{"command": "scripts/crash_kill.sh --variant $variant --kills $kills --layer $layer", "date": "$(date -u +%FT%TZ)",
 "variant": "$variant", "layers": $layers, "reference_seconds": $ref_seconds,
 "solve": {"kills": $solve_kills, "sequences": $sequences, "identical": $solve_ok, "different": $solve_bad, "phases": {$phase_json}},
 "export": {"seconds": $export_seconds, "kills": $export_kills, "runs": $kills, "partial_outputs": $export_partial, "identical_after_rerun": $export_ok},
 "report": {"seconds": $report_seconds, "kills": $report_kills, "runs": $kills, "broken_after_kill": $report_broken, "complete_after_rerun": $report_ok}}
JSON
cat results/reliability/crash_kill.json
[ "$solve_bad" -eq 0 ] && [ "$export_partial" -eq 0 ] && [ "$report_broken" -eq 0 ]

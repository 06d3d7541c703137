#!/usr/bin/env bash
# How far from the end of real Kiothi games the exact prover reaches:
# writes results/kiothi/exact.md and results/kiothi/exact.json.
#
# Selection (deterministic): the first GAMES (default 6) games that ended
# with no legal move (`"end":"over"`) in FILE (default: the games of the two
# strongest engines, results/kiothi/games/ab_time_1-vs-ab_time_0.5.jsonl);
# --file may be given more than once, GAMES games from each.
# For each game, the position DISTANCE plies before its last position is
# given to `sow solve --json --time LIMIT` (default 60 s, all cores) for
# DISTANCE = 4, 8, 12, ... until one is not proved exact within the limit;
# then the distance 2 plies shorter is tried. The deepest distance proved
# exact within the limit is the game's result. Distances stop at the end of
# the opening (the first two plies) and at MAX_DISTANCE (default 60).
#
# With --db DIR, every proof takes exact values from the Kiothi endgame
# tables in DIR (`sow solve kiothi --stones N --db DIR`, built beforehand:
# their build time is not in the proofs' times).
#
# Usage: scripts/kiothi_exact.sh [--games N] [--file F]... [--limit S] [--out DIR] [--name NAME] [--db DIR] [--hash MB]
#        scripts/kiothi_exact.sh --past-limit S [--target PLIES] [--out DIR] [--name NAME] [--db DIR] [--hash MB] [--render-only]
#
# --name NAME names the pages: OUT/kiothi/NAME.md and .json (default
# exact), and NAME.past-limit.md and .json for --past-limit.
#
# --hash MB gives every proof a bound table of MB MiB (`sow solve --hash`;
# default: sow's own, sized for proofs of about a minute).
#
# With --past-limit S, instead: for every game of OUT/kiothi/NAME.json
# (the run above) whose deepest exact distance is short of TARGET (default
# 24, --target), the distances from 2 past it up to TARGET, each given S
# seconds (stopping at the first not exact): how far beyond the limit the
# missing plies are. Written to OUT/kiothi/NAME.past-limit.md and .json,
# with the times at which the lower and the upper bound reached the value.
# --render-only writes that page again from its JSON, running nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=6
DEFAULT_FILE=results/kiothi/games/ab_time_1-vs-ab_time_0.5.jsonl
FILES=()
NAME=exact
LIMIT=60
OUT=results
MAX_DISTANCE=60
PAST_LIMIT=0
RENDER_ONLY=0
TARGET=24
DB_ARGS=()
HASH_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --games) GAMES="$2"; shift 2 ;;
        --file) FILES+=("$2"); shift 2 ;;
        --name) NAME="$2"; shift 2 ;;
        --limit) LIMIT="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --max-distance) MAX_DISTANCE="$2"; shift 2 ;;
        --past-limit) PAST_LIMIT="$2"; shift 2 ;;
        --target) TARGET="$2"; shift 2 ;;
        --render-only) RENDER_ONLY=1; shift ;;
        --db) DB_ARGS=(--db "$2"); shift 2 ;;
        --hash) HASH_ARGS=(--hash "$2"); shift 2 ;;
        *) echo "error: unknown argument \`$1\` (expected --games, --file, --limit, --out, --name, --max-distance, --past-limit, --target, --render-only, --db, --hash)" >&2; exit 2 ;;
    esac
done

[ ${#FILES[@]} -gt 0 ] || FILES=("$DEFAULT_FILE")
if [ ${#FILES[@]} -gt 1 ] && { [ "$PAST_LIMIT" != 0 ] || [ "$RENDER_ONLY" = 1 ]; }; then
    echo "error: --file may be given more than once only for the distances' run (--past-limit reads the files of NAME.json)" >&2
    exit 2
fi
case "$NAME" in
    ''|*/*|.*) echo "error: --name \`$NAME\` must be a plain file name (no directory)" >&2; exit 2 ;;
esac

command -v jq >/dev/null || { echo "error: jq is needed (apt-get install jq)" >&2; exit 2; }

# SOW=path runs that binary instead of building target/release/sow.
if [ "$RENDER_ONLY" = 1 ]; then
    SOW=true # runs nothing: the page's conditions come from its JSON
elif [ -z "${SOW:-}" ]; then
    cargo build --release --quiet
    SOW=target/release/sow
fi
# The options every proof gets besides the time, as on the pages.
SOLVE_ARGS=("${HASH_ARGS[@]}" "${DB_ARGS[@]}")
NAME_ARGS=""
[ "$NAME" = exact ] || NAME_ARGS=" --name $NAME"
COMMAND="scripts/kiothi_exact.sh --games $GAMES$(printf ' --file %s' "${FILES[@]}") --limit $LIMIT --max-distance $MAX_DISTANCE$NAME_ARGS${SOLVE_ARGS[*]:+ ${SOLVE_ARGS[*]}}"
VERSION="$($SOW --version) ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
MACHINE="$(uname -sm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/{print $2}') GiB"
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
# What else was running: the processes above 5% CPU over one second now,
# names only (ps's %CPU is a lifetime average: it listed processes long
# idle or stopped).
OTHERS="$(top -b -n 2 -d 1 -w 200 | awk '/^top -/ {n++} n == 2 && $1 ~ /^[0-9]+$/ && $9 + 0 > 5 {print $12}' \
    | sort | uniq -c | sort -rn | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')"
START=$(date +%s)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
games_json="$tmp/games.jsonl"
: > "$games_json"

# The position after the first $1 moves of the game in $tmp/moves.
position_after() {
    $SOW apply -q kiothi $(head -n "$1" "$tmp/moves" | tr '\n' ' ') | tail -n 1
}

# The run's conditions, as the pages' list items: version, date, machine,
# load, and whether the times are inflated by other work.
conditions() {
    echo "- version: $VERSION"
    echo "- date: $DATE, run time $SECONDS_TOTAL s"
    echo "- machine: $MACHINE"
    echo "- load average at start / end: $LOAD_START / $LOAD_END; processes using more than 5% CPU at the start: $OTHERS."
    if awk -v l="${LOAD_START%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
        echo "  The machine was shared (load above half its cores at the start): the times are inflated."
    else
        echo "  The machine was quiet at the start (load at most half its cores)."
    fi
}

# A jq definition of `game_name`, a game's name on the pages: its number, after
# its file's name (the pair of engines) when the run read $1 > 1 files.
game_name_def() {
    if [ "$1" -gt 1 ]; then
        echo 'def game_name: "\(.file | split("/") | last | rtrimstr(".jsonl")) #\(.game)"; '
    else
        echo 'def game_name: "\(.game)"; '
    fi
}

# `sow solve` on the position `distance` plies before the end of the game
# whose moves are in $tmp/moves; prints one JSON object with the distance.
try_distance() {
    local distance=$1 plies=$2
    local pos
    pos="$(position_after $((plies - distance)))"
    $SOW solve --json --time "$LIMIT" "${SOLVE_ARGS[@]}" "$pos" | jq -c --argjson d "$distance" '{distance: $d} + .'
}

if [ "$PAST_LIMIT" != 0 ] || [ "$RENDER_ONLY" = 1 ]; then
    base="$OUT/kiothi/$NAME.json"
    [ -f "$base" ] || { echo "error: --past-limit reads $base: run the script without it first" >&2; exit 2; }
    COMMAND="scripts/kiothi_exact.sh --past-limit $PAST_LIMIT --target $TARGET$NAME_ARGS${SOLVE_ARGS[*]:+ ${SOLVE_ARGS[*]}}"
    if [ "$RENDER_ONLY" = 1 ]; then
        # The page again from the last run's JSON (its conditions too).
        past="$OUT/kiothi/$NAME.past-limit.json"
        [ -f "$past" ] || { echo "error: --render-only reads $past: run --past-limit first" >&2; exit 2; }
        cp "$past" "$tmp/past.json"
        COMMAND="$(jq -r .command "$past")" VERSION="$(jq -r .version "$past")" DATE="$(jq -r .date "$past")"
        MACHINE="$(jq -r .machine "$past")" SECONDS_TOTAL="$(jq -r .run_seconds "$past")"
        LOAD_START="$(jq -r .load_average.start "$past")" LOAD_END="$(jq -r .load_average.end "$past")"
        OTHERS="$(jq -r .other_processes "$past")" PAST_LIMIT="$(jq -r .limit_seconds "$past")"
        TARGET="$(jq -r .target "$past")"
    else
        # try_distance proves with LIMIT.
        LIMIT="$PAST_LIMIT"
        rows="$tmp/past.jsonl"
        : > "$rows"
        while IFS= read -r g; do
            game=$(jq -r .game <<<"$g")
            deepest=$(jq -r .deepest_exact <<<"$g")
            file=$(jq -r .file <<<"$g")
            line="$(jq -c --argjson g "$game" 'select(.game == $g)' "$file")"
            plies=$(jq -r .plies <<<"$line")
            jq -r '(.opening + .moves)[]' <<<"$line" > "$tmp/moves"
            for ((distance = deepest + 2; distance <= TARGET && plies - distance >= 2; distance += 2)); do
                r="$(try_distance "$distance" "$plies" | jq -c --argjson g "$game" --arg f "$file" '{file: $f, game: $g} + .')"
                echo "$r" >> "$rows"
                echo "past limit: $(jq -r '"\(.file | split("/") | last) game \(.game) distance \(.distance): exact \(.exact) [\(.lower), \(.upper)] \(.seconds|.*100|round/100) s"' <<<"$r")" >&2
                [ "$(jq -r .exact <<<"$r")" = true ] || break
            done
        done < <(jq -c --argjson target "$TARGET" '.games[] | select(.deepest_exact < $target)' "$base")
        SECONDS_TOTAL=$(( $(date +%s) - START ))
        LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"
        jq -s --arg command "$COMMAND" --arg version "$VERSION" --arg date "$DATE" --arg machine "$MACHINE" \
            --arg load_start "$LOAD_START" --arg load_end "$LOAD_END" --arg others "$OTHERS" \
            --argjson limit "$PAST_LIMIT" --argjson target "$TARGET" --argjson seconds "$SECONDS_TOTAL" \
            '{command: $command, version: $version, date: $date, machine: $machine,
              limit_seconds: $limit, target: $target, run_seconds: $seconds,
              load_average: {start: $load_start, end: $load_end}, other_processes: $others, runs: .}' \
            "$rows" > "$tmp/past.json"
    fi
    {
        echo "# Kiothi: the distances short of $TARGET plies, past the $(jq -r .limit_seconds "$base") s limit"
        echo
        echo "For each game of [$NAME.md]($NAME.md) whose deepest exact distance within the limit is"
        echo "short of $TARGET plies: the distances after it, up to $TARGET, each proved with up to"
        echo "$PAST_LIMIT s (\`sow solve --json --time $PAST_LIMIT\`, both cores, with the command's --hash"
        echo "and --db when it gives them), stopping at the first not exact. Written by \`$COMMAND\`."
        echo
        conditions
        echo "- columns: the seconds at which the proved lower bound reached its final value (the"
        echo "  climb from the engine's guess) and at which the upper bound did (the refutation of"
        echo "  one more), from the proof's \`bounds\`; the proof ends with the later of the two."
        echo
        echo "| game | distance | exact | value | lower | upper | seconds | lower final at (s) | upper final at (s) | nodes |"
        echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
        jq -r "$(game_name_def "$(jq '.files | length' "$base")")"'.runs[] | . as $r
            | def at($k): if $r.exact then ([.bounds[] | select(.[$k] == $r[$k])] | first | .seconds // 0) * 10 | round / 10 else "-" end;
            "| \(game_name) | \(.distance) | \(.exact) | \(.value // "-") | \(.lower) | \(.upper) | \(.seconds*100|round/100) | \(at("lower")) | \(at("upper")) | \(.nodes) |"' "$tmp/past.json"
    } > "$tmp/past.md"
    mkdir -p "$OUT/kiothi"
    mv "$tmp/past.json" "$OUT/kiothi/$NAME.past-limit.json"
    mv "$tmp/past.md" "$OUT/kiothi/$NAME.past-limit.md"
    echo "wrote $OUT/kiothi/$NAME.past-limit.json and $OUT/kiothi/$NAME.past-limit.md" >&2
    exit 0
fi

for file in "${FILES[@]}"; do
    index=0
    while IFS= read -r line && [ "$index" -lt "$GAMES" ]; do
        [ "$(jq -r .end <<<"$line")" = over ] || continue
        game=$(jq -r .game <<<"$line")
        plies=$(jq -r .plies <<<"$line")
        jq -r '(.opening + .moves)[]' <<<"$line" > "$tmp/moves"
        tries="$tmp/tries.jsonl"
        : > "$tries"
        deepest=0
        failed=0
        distance=4
        while [ "$distance" -le "$MAX_DISTANCE" ] && [ $((plies - distance)) -ge 2 ]; do
            r="$(try_distance "$distance" "$plies")"
            echo "$r" >> "$tries"
            echo "${file##*/} game $game ($plies plies): distance $distance: $(jq -r '"exact \(.exact) value \(.value) [\(.lower), \(.upper)] \(.nodes) nodes \(.seconds|.*100|round/100) s"' <<<"$r")" >&2
            if [ "$(jq -r .exact <<<"$r")" = true ]; then
                deepest=$distance
                distance=$((distance + 4))
            else
                failed=$distance
                break
            fi
        done
        if [ "$failed" -gt 0 ] && [ $((failed - 2)) -gt "$deepest" ]; then
            r="$(try_distance $((failed - 2)) "$plies")"
            echo "$r" >> "$tries"
            echo "${file##*/} game $game: distance $((failed - 2)): $(jq -r '"exact \(.exact) \(.seconds|.*100|round/100) s"' <<<"$r")" >&2
            if [ "$(jq -r .exact <<<"$r")" = true ]; then
                deepest=$((failed - 2))
            fi
        fi
        jq -c -n --argjson game "$game" --argjson plies "$plies" --argjson deepest "$deepest" \
            --arg south "$(jq -r .south <<<"$line")" --arg north "$(jq -r .north <<<"$line")" \
            --arg file "$file" --slurpfile tries "$tries" \
            '{file: $file, game: $game, south: $south, north: $north, plies: $plies, deepest_exact: $deepest, tries: $tries}' >> "$games_json"
        index=$((index + 1))
    done < "$file"
done

SECONDS_TOTAL=$(( $(date +%s) - START ))
LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$OUT/kiothi"
GAME_LABEL="$(game_name_def ${#FILES[@]})"
json="$OUT/kiothi/$NAME.json"
md="$OUT/kiothi/$NAME.md"
jq -n --arg command "$COMMAND" --arg version "$VERSION" --arg date "$DATE" --arg machine "$MACHINE" \
    --argjson files "$(printf '%s\n' "${FILES[@]}" | jq -R . | jq -s -c .)" --argjson limit "$LIMIT" \
    --arg load_start "$LOAD_START" --arg load_end "$LOAD_END" \
    --arg others "$OTHERS" --argjson seconds "$SECONDS_TOTAL" --slurpfile games "$games_json" \
    '{command: $command, version: $version, date: $date, machine: $machine, files: $files,
      limit_seconds: $limit, run_seconds: $seconds,
      load_average: {start: $load_start, end: $load_end}, other_processes: $others,
      games: $games}' > "$tmp/exact.json"

{
    echo "# Kiothi: exact values near the end of engine games"
    echo
    echo "How many plies before the end of a real game \`sow solve\` proves the exact"
    echo "value within $LIMIT s. Written by \`$COMMAND\`."
    echo
    conditions
    echo "- games: the first $GAMES games that ended with no legal move in $(printf '`%s`, ' "${FILES[@]}" | sed 's/, $//')"
    echo "- method: for the position DISTANCE plies before the last one, \`sow solve --json --time $LIMIT${HASH_ARGS[*]:+ ${HASH_ARGS[*]}}\`"
    echo "  (both cores), DISTANCE = 4, 8, 12, ... until one is not exact in time, then 2 less."
    stones="$(jq -r '[.games[].tries[].endgame_stones] | max // empty' "$tmp/exact.json")"
    if [ -n "$stones" ]; then
        echo "- endgame tables: every board of at most $stones warriors with no protected pit, built beforehand by"
        echo "  \`sow solve kiothi --stones $stones --db DIR\` (not counted in the times; results/BENCHMARKS.md)."
    else
        echo "- endgame tables: none."
    fi
    echo
    echo "| game | South | North | plies | deepest exact (plies before the end) | value there | time there (s) | nodes there |"
    echo "|---:|---|---|---:|---:|---:|---:|---:|"
    jq -r "$GAME_LABEL"'.games[] | . as $g | ([.tries[] | select(.distance == $g.deepest_exact)] | first) as $t
        | "| \(game_name) | \(.south) | \(.north) | \(.plies) | \(.deepest_exact) | \($t.value // "-") | \(if $t then ($t.seconds*100|round/100) else "-" end) | \($t.nodes // "-") |"' "$tmp/exact.json"
    echo
    echo "Every try (distance: value or proved bounds, time, nodes):"
    echo
    echo "| game | distance | exact | value | lower | upper | seconds | nodes | depth |"
    echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|"
    jq -r "$GAME_LABEL"'.games[] | game_name as $g | .tries[]
        | "| \($g) | \(.distance) | \(.exact) | \(.value // "-") | \(.lower) | \(.upper) | \(.seconds*100|round/100) | \(.nodes) | \(.depth) |"' "$tmp/exact.json"
} > "$tmp/exact.md"

mv "$tmp/exact.json" "$json"
mv "$tmp/exact.md" "$md"
echo "wrote $json and $md" >&2

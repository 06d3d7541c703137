#!/usr/bin/env bash
# The analysed example games of results/: a Kiothi engine game (from the
# match records in results/kiothi/games/) and a Kpé engine game (played
# here by `sow match`, seeded), each analysed by `sow analyze --out`.
#
#   scripts/analysis_examples.sh [--only kpe|kiothi] [--kpe GAME] [--db DIR] [--time S]
#
# --kpe GAME   the Kpé variant (default `kpe`, the standard game, whose
#              database must exist under --db: `sow solve kpe --db DIR`,
#              3.5 minutes and 2 GB; a small variant such as kpe:4x3 is
#              solved on the fly)
# --db DIR     database directory (default: sow's, $SOW_DB): the Kpé
#              database, and the Kiothi endgame tables the Kiothi analysis
#              takes exact values from, if any (`sow solve kiothi --stones
#              14 --db DIR`; the page's "values" line names them)
# --time S     Kiothi search time per position (default 1)
#
# Pages: results/kiothi/analysis/ and results/kpe/analysis/ (a variant:
# results/kpe/analysis-WxK/), each with analysis.md, analysis.json and
# values.svg; the Kpé game record is kept next to them (game.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."

only=""
kpe="kpe"
db=()
time=1
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only="$2"; shift 2 ;;
        --kpe) kpe="$2"; shift 2 ;;
        --db) db=(--db "$2"); shift 2 ;;
        --time) time="$2"; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

cargo build --release --quiet
sow=target/release/sow

if [ "$only" != "kpe" ]; then
    # Game 0 of the 1 s engine against the 0.5 s one (balanced opening).
    games=results/kiothi/games/ab_time_1-vs-ab_time_0.5.jsonl
    echo "== Kiothi: $games, game 0, $time s per position"
    "$sow" analyze "$games" --record 0 --time "$time" "${db[@]}" --out results/kiothi/analysis
fi

if [ "$only" != "kiothi" ]; then
    case "$kpe" in
        kpe) dir=results/kpe/analysis ;;
        kpe:*) dir="results/kpe/analysis-${kpe#kpe:}" ;;
        *) echo "--kpe expects kpe or kpe:WxK" >&2; exit 2 ;;
    esac
    mkdir -p "$dir"
    # The depth-6 engine against the greedy one from a seeded random opening.
    echo "== Kpé: $kpe, ab:depth=6 against greedy (seed 3), analysed from the database"
    "$sow" match ab:depth=6 greedy --game "$kpe" --games 1 --seed 3 --records "$dir/game.jsonl" >/dev/null
    "$sow" analyze "$dir/game.jsonl" --start "$kpe" "${db[@]}" --out "$dir"
fi

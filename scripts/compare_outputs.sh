#!/usr/bin/env bash
# Compares the output of two `sow` binaries on a fixed list of small
# commands: stdout, stderr and exit code of each, human and `--json`, and the
# files the command writes. Only what varies from run to run is masked:
# times, nodes per second, peak memory, dates, the temporary directories;
# and for the Kiothi report pages and game records, whose matches are
# limited by time (so differ between any two runs), only their structure is
# compared (JSON key paths; Markdown and SVG lines with digits masked).
#
#   scripts/compare_outputs.sh OLD_BIN NEW_BIN      # exit 0 when equal
#
# KEEP=1 keeps the work directory (its path is printed) for inspection.
set -uo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 OLD_BIN NEW_BIN" >&2
    exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/sow-compare.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

# A Kiothi position in the play phase (after both redistributions).
KP=$("$old" -q apply kiothi '4+5>9,9,9,9,9,9,9,9,9,9' '14+16>0,1,2,3,4,5,6,7,8,9' 8x6 | tail -1)
K33='kpe:3x3 0,4,2,3,0,3 S xxx xxx 4 2'

# One case per line: a name, then the arguments (bash words). `DB` is the
# binary's database directory, `OUT` the case's own output directory.
cases=$(cat <<EOF
show-kpe|show kpe
show-kpe33|show kpe:3x3
show-kpe33-pos|show '$K33'
show-kiothi|show kiothi
show-kiothi-play|show '$KP'
show-over|show 'kpe 0,0,0,0,6,6,6,6 S xxxx xxxx 12 12'
moves-kpe|moves kpe
moves-kpe33|moves '$K33'
moves-kiothi|moves kiothi
moves-kiothi-play|moves '$KP'
apply-kpe|apply kpe 2 4 1
apply-kpe33|apply kpe:3x3 0 3 1
apply-kiothi|apply kiothi '4+5>9,9,9,9,9,9,9,9,9,9' '14+16>0,1,2,3,4,5,6,7,8,9' 8x6
perft-kpe|perft kpe 6
perft-kpe33|perft kpe:3x3 8 --divide
perft-kiothi-play|perft '$KP' 2 --divide
eval-kpe33|eval '$K33' --db DB
eval-kpe33-start|eval kpe:3x3 --db DB
eval-kpe-search|--threads 1 eval kpe --depth 6
eval-kiothi|--threads 1 eval '$KP' --depth 3
eval-kiothi-nodes|--threads 1 eval kiothi --nodes 2000
solve-kpe33|solve kpe:3x3 --db DB
openings-kpe33|openings kpe:3x3 --db DB --out OUT
stats-kpe33-csv|stats kpe:3x3 --format csv --db DB
stats-kpe33-json|stats kpe:3x3 --format json --db DB
stats-kiothi|stats kiothi --games 2 --depth 2
stats-kiothi-json|stats kiothi --games 2 --depth 2 --format json --seed 4
export-all|export kpe:3x3 --positions all --db DB
export-layer|export kpe:3x3 --positions 4 --db DB
export-out|export kpe:3x3 --positions 2 --db DB --out OUT/layer2.csv
variants|variants --max-positions 100000 --db DB --out OUT
match-greedy|match greedy random --games 4 --seed 3
match-kpe|match greedy random --game kpe:3x3 --games 4 --seed 5
match-balanced|--threads 1 match ab:depth=2 mcts:50 --games 2 --seed 2 --balance 0 --balance-depth 2 --records OUT/records.jsonl
tune|tune kiothi --games 4 --depth 2 --data OUT/selfplay.csv --out OUT/weights.json
tune-fit|tune kiothi --fit-only --data SIDE/selfplay.csv --out OUT/w.json
report-quick|report --quick --db DB --out OUT
report-quick-kpe|report --quick --only kpe --db DB --out OUT
err-game|show chess
err-counts|show 'kpe 6,6,6 S .... ....'
err-variant|show kpe:9x9
err-move|apply kpe 2 1 3
err-depth|perft kpe abc
err-depth-missing|perft kpe
err-threads|--threads 0 perft kpe 1
err-threads-text|--threads x perft kpe 1
err-bogus|bogus
err-show-missing|show
err-flag|show kpe --bogus
err-time|eval kiothi --time 0
err-eval-depth|eval kiothi --depth 0
err-hash|eval kiothi --depth 2 --hash 0
err-agent|match alphazero random
err-agent-time|match ab:time=0 random
err-games|match greedy random --games 0
err-balance|match greedy random --balance=-2
err-balance-depth|match greedy random --balance 0 --balance-depth 0
err-solve-kiothi|solve kiothi --stones 15 --db DB
err-openings|openings chess
err-stats-format|stats kpe:3x3 --format xml --db DB
err-stats-kiothi-games|stats kiothi --games 0
err-stats-kpe-games|stats kpe:3x3 --games 3 --db DB
err-export-layer|export kpe:3x3 --positions 3 --db DB
err-export-format|export kpe:3x3 --positions 2 --format json --db DB
err-export-json|export kpe:3x3 --positions 2 --db DB
err-tune-kpe|tune kpe
err-tune-games|tune kiothi --games 0
err-report-only|report --only foo
err-variants|variants --max-positions abc
EOF
)

# Masks what varies between runs of the same binary.
mask() {
    sed -E \
        -e "s#$work/(old|new)#WORK#g" \
        -e 's/"(seconds|nps|peak_rss_mib|layers|opening_explore|opening_solve|run_seconds|selfplay_seconds)": ?[-0-9.e+]+/"\1":T/g' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}/DATE/g' \
        -e 's/[0-9]+(\.[0-9]+)? s\b/T s/g' \
        -e 's/nps +[0-9]+/nps N/g' \
        -e 's/peak memory [0-9]+ MiB/peak memory M MiB/g' \
        -e 's/\| [0-9]+\.[0-9] \| ([0-9]+ \|)$/| T | \1/' \
        -e 's/[0-9]+ nps\b/N nps/g'
}

# The structure of a file whose numbers depend on timing.
shape() {
    case "$1" in
    *.json) jq -S '.' "$1" >/dev/null 2>&1 || { mask <"$1" | sed -E -e 's/[+-]?([0-9]+(\.[0-9]+)?|inf)/N/g' | sort -u; return; }
        jq -S '[paths | map(if type == "number" then "#" else . end) | join(".")] | unique' "$1" ;;
    *.jsonl) head -1 "$1" | jq -S '[paths | map(if type == "number" then "#" else . end) | join(".")] | unique' ;;
    *.svg) grep -oE '<(svg|text)[^>]*>[^<]*' "$1" | head -3 | sed -E 's/[0-9.]+/N/g' ;;
    *) mask <"$1" | sed -E -e 's/[+-]?([0-9]+(\.[0-9]+)?|inf)/N/g' | sort -u ;;
    esac
}

# run BIN SIDE NAME JSON ARGS: writes WORK/SIDE/NAME[.json]/{stdout,stderr,rc,files}
run() {
    local bin=$1 side=$2 name=$3 json=$4 args=$5
    local dir="$work/$side/$name$json"
    mkdir -p "$dir/out"
    local words
    words=${args//DB/$work/$side/db}
    words=${words//OUT/$dir/out}
    words=${words//SIDE/$work/$side}
    (
        cd "$dir/out" || exit
        if [ -n "$json" ]; then
            eval "\"$bin\" --json $words" >"$dir/stdout" 2>"$dir/stderr"
        else
            eval "\"$bin\" $words" >"$dir/stdout" 2>"$dir/stderr"
        fi
        echo $? >"$dir/rc"
    )
    # Files written: Kiothi report pages by shape, the rest masked.
    (
        cd "$dir/out" || exit
        find . -type f | sort | while read -r f; do
            echo "== $f"
            case "$name:$f" in
            report-quick:./kiothi/* | report-quick:./README.md) shape "$f" ;;
            *) mask <"$f" ;;
            esac
        done
    ) >"$dir/files"
    for f in stdout stderr; do
        mask <"$dir/$f" >"$dir/$f.masked"
    done
}

fail=0
count=0
# The tune-fit case reads the data the tune case wrote.
while IFS='|' read -r name args; do
    [ -z "$name" ] && continue
    for json in "" ".json"; do
        count=$((count + 1))
        run "$old" old "$name" "$json" "$args"
        run "$new" new "$name" "$json" "$args"
        if [ "$name" = tune ]; then
            cp "$work/old/tune$json/out/selfplay.csv" "$work/old/selfplay.csv" 2>/dev/null
            cp "$work/new/tune$json/out/selfplay.csv" "$work/new/selfplay.csv" 2>/dev/null
        fi
        for part in rc stdout.masked stderr.masked files; do
            a="$work/old/$name$json/$part"
            b="$work/new/$name$json/$part"
            if [ "$name" = report-quick ] && [ "$part" = stdout.masked ]; then
                # Timed matches: compare the shape only.
                cp "$work/old/$name$json/stdout" "$work/a.json"
                cp "$work/new/$name$json/stdout" "$work/b.json"
                shape "$work/a.json" >"$work/a.shape"
                shape "$work/b.json" >"$work/b.shape"
                a=$work/a.shape b=$work/b.shape
            fi
            if ! diff -q "$a" "$b" >/dev/null; then
                echo "DIFF $name${json:+ --json} ($part)"
                diff "$a" "$b" | head -${DIFF_LINES:-20}
                fail=$((fail + 1))
            fi
        done
    done
done <<<"$cases"

echo "compared $count command runs: $fail difference(s)"
[ "${KEEP:-0}" = 1 ] && echo "work directory: $work"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# Times the standard Kpé solve (2 threads, fresh directory) with two
# binaries in one sitting, alternating A B B A A B ... so that the
# machine's drift falls on both alike. One row a run, appended to
# results/solve_before_after.csv (written with its header if absent).
# Used to show that the layer over MPI ranks does not slow the single
# machine: A built from the commit before it (a8c1f82^1), B from main
# without the mpi feature.
#
#   scripts/solve_before_after.sh SOW_A LABEL_A SOW_B LABEL_B [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
a=$(realpath "$1"); label_a=$2; b=$(realpath "$3"); label_b=$4; pairs=${5:-3}
csv=results/solve_before_after.csv
[ -f "$csv" ] || echo "date,time_utc,run,label,wall_seconds,user_seconds,sys_seconds,max_rss_kib,load_average_before" > "$csv"
db=$(mktemp -d "${TMPDIR:-/tmp}/sow-before-after.XXXXXX")
trap 'rm -rf "$db" "$db.time"' EXIT
run=0
one() {
    local sow=$1 label=$2
    rm -rf "${db:?}"/*
    run=$((run + 1))
    local load; load=$(cut -d' ' -f1 /proc/loadavg)
    local clock; clock=$(date -u +%H:%M)
    /usr/bin/time -f "%e %U %S %M" -o "$db.time" "$sow" --threads 2 solve kpe --db "$db" > /dev/null
    read -r wall user sys rss < "$db.time"
    echo "$(date -u +%F),$clock,$run,$label,$wall,$user,$sys,$rss,$load" | tee -a "$csv"
}
for i in $(seq "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then one "$a" "$label_a"; one "$b" "$label_b"
    else one "$b" "$label_b"; one "$a" "$label_a"; fi
done

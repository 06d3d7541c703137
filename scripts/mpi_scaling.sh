#!/usr/bin/env bash
# Measures the layered retrograde over 1, 2 and 4 MPI ranks on this
# machine (oversubscribed past its cores) on kpe:4x5, kpe:4x6 and the
# Kiothi endgame tables of 0-12 warriors: wall time, positions solved
# together, waves, bytes exchanged (per position, per wave), the largest
# peak memory of a rank. One row a run, appended to results/mpi_scaling.csv
# (written with its header if absent); docs/scaling.md turns them into a
# model.
#
#   cargo build --release --features mpi
#   scripts/mpi_scaling.sh [SOW_BINARY] [CASES...]
#
# CASES default to all three ("kpe:4x5" "kpe:4x6" "kiothi"); RANKS (env)
# defaults to "1 2 4", KIOTHI_STONES to 12. Each run solves into a fresh
# directory. Threads: the machine's cores shared out between the ranks (at
# least one each), and no rank bound to a core (`--bind-to none`: Open
# MPI binds each of one or two ranks to one core by default, which would
# put a rank's threads on one core). The CPU seconds (user and system,
# every rank) are less sensitive than the wall time to other work on the
# machine, whose load average before the run is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
sow=$(realpath "${1:-target/release/sow}")
shift || true
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=("kpe:4x5" "kpe:4x6" "kiothi")
csv=results/mpi_scaling.csv
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
cores=$(nproc)
[ -f "$csv" ] || echo "date,case,ranks,threads_per_rank,wall_seconds,cpu_seconds,layers_seconds,positions_solved,waves,bytes_exchanged,bytes_per_position,bytes_per_wave,peak_rss_mib_max_rank,load_average_before" > "$csv"
for case in "${cases[@]}"; do
    for ranks in ${RANKS:-1 2 4}; do
        threads=$(( cores / ranks )); [ "$threads" -ge 1 ] || threads=1
        db=$(mktemp -d "${TMPDIR:-/tmp}/sow-mpi-scaling.XXXXXX")
        load=$(cut -d' ' -f1 /proc/loadavg)
        case $case in
            kiothi) args=(solve kiothi --stones "${KIOTHI_STONES:-12}") ;;
            *) args=(solve "$case") ;;
        esac
        start=$(date +%s.%N)
        json=$(RAYON_NUM_THREADS=$threads /usr/bin/time -f "%U %S" -o "$db.cpu" \
            mpirun --bind-to none -np "$ranks" "$sow" --json "${args[@]}" --db "$db")
        cpu=$(awk '{print $1 + $2}' "$db.cpu"); rm -f "$db.cpu"
        end=$(date +%s.%N)
        rm -rf "$db"
        row=$(python3 -c '
import json, sys
j = json.loads(sys.argv[1]); r = j["ranks"]
layers = j.get("phase_seconds", {}).get("layers", j.get("seconds"))
print(",".join(str(x) for x in [layers, r["positions"], r["waves"], r["bytes_exchanged"],
    round(r["bytes_per_position"], 3), round(r["bytes_per_wave"]), round(r["peak_rss_mib_max"])]))
' "$json")
        wall=$(python3 -c "print(round($end - $start, 2))")
        layers=${row%%,*}
        label=$case
        [ "$case" != kiothi ] || label="kiothi:${KIOTHI_STONES:-12}"
        echo "$(date -u +%F),$label,$ranks,$threads,$wall,$cpu,$(python3 -c "print(round($layers, 2))"),${row#*,},$load" | tee -a "$csv"
    done
done

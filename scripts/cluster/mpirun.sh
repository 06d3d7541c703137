#!/usr/bin/env bash
# A solve over the nodes of a hostfile with plain `mpirun` (no batch
# system), one rank a node:
#
#   scripts/cluster/mpirun.sh scripts/cluster/hostfile.example kpe:4x6 /shared/sow-db
#   scripts/cluster/mpirun.sh hosts "kiothi --stones 14" /shared/sow-db
#
# The ranks reach each other over ssh (passwordless, as Open MPI expects);
# the database directory must be shared by every node (a directory they do
# not share is refused before anything is written).
set -euo pipefail
HOSTS=${1:?usage: $0 HOSTFILE GAME DB_DIR}
GAME=${2:?usage: $0 HOSTFILE GAME DB_DIR}
DB=${3:?usage: $0 HOSTFILE GAME DB_DIR}
SOW=${SOW:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/sow}
# 0: every core of the node (rayon's default).
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-0}
RANKS=$(grep -v '^#' "$HOSTS" | grep -c .)
# --map-by node: one rank a node; --bind-to none: a rank's threads use
# every core of its node.
# shellcheck disable=SC2086
exec mpirun -np "$RANKS" --hostfile "$HOSTS" --map-by node --bind-to none \
    -x RAYON_NUM_THREADS "$SOW" solve $GAME --db "$DB"

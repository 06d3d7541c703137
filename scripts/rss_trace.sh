#!/usr/bin/env bash
# Samples a command's memory every 0.25 s: seconds since start, peak RSS
# (VmHWM), RSS, and RSS's anonymous and file-backed parts (RssAnon,
# RssFile: an out-of-core solve's mapped scratch files are the latter) in
# MiB, and the files present in DBDIR's variant
# directories (so that each sample can be placed in a solve's phases).
# The command's own output goes to OUT.log, the samples to OUT.trace.
# Usage: scripts/rss_trace.sh OUT DBDIR -- COMMAND...
# e.g.   scripts/rss_trace.sh /tmp/std /tmp/db -- /usr/bin/time -v sow solve kpe --db /tmp/db
set -uo pipefail
out=${1:?usage: scripts/rss_trace.sh OUT DBDIR -- COMMAND...}
db=${2:?usage: scripts/rss_trace.sh OUT DBDIR -- COMMAND...}
shift 3
"$@" > "$out.log" 2>&1 &
pid=$!
sleep 0.2
# The measured process: the command's child when it is a wrapper such as /usr/bin/time.
child=$(pgrep -P $pid | head -1)
[ -z "$child" ] && child=$pid
t0=$(date +%s.%N)
while kill -0 $pid 2>/dev/null; do
  mem=$(grep -E "VmHWM|VmRSS|RssAnon|RssFile" /proc/$child/status 2>/dev/null | awk '{printf "%d ", $2/1024}')
  files=$(ls "$db"/*/ 2>/dev/null | tr '\n' ' ' | sed 's/layer-0*//g; s/\.sowdb//g')
  echo "$(echo "$(date +%s.%N) - $t0" | bc | cut -c1-7) $mem| $files"
  sleep 0.25
done > "$out.trace"
wait $pid

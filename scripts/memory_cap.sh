#!/usr/bin/env bash
# Runs a command under a hard memory limit (a cgroup v1 memory group, as
# root): anonymous memory past the limit gets the command OOM-killed,
# while file-backed pages (the page cache, an out-of-core solve's mapped
# scratch files) are written back and evicted instead. Prints the group's
# peak usage and its OOM-kill count when the command ends.
# Usage: scripts/memory_cap.sh MIB -- COMMAND...
# e.g.   scripts/memory_cap.sh 1280 -- sow solve kpe:7x1 --out-of-core always --db /tmp/db
set -uo pipefail
mib=${1:?usage: scripts/memory_cap.sh MIB -- COMMAND...}
shift 2
root=/sys/fs/cgroup/memory
[ -w "$root" ] || { echo "memory_cap.sh: needs a writable cgroup v1 memory hierarchy at $root" >&2; exit 2; }
group=$root/sow-cap-$$
mkdir "$group"
echo $((mib << 20)) > "$group/memory.limit_in_bytes"
# No swap here, but where there is some, forbid it too.
[ -w "$group/memory.memsw.limit_in_bytes" ] && echo $((mib << 20)) > "$group/memory.memsw.limit_in_bytes" 2>/dev/null
bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$group" "$@"
status=$?
echo "memory_cap.sh: limit $mib MiB, peak $(( $(cat "$group/memory.max_usage_in_bytes") >> 20 )) MiB, $(grep -E '^oom_kill ' "$group/memory.oom_control" | awk '{print $2}') OOM kills, exit $status" >&2
rmdir "$group"
exit $status

#!/usr/bin/env bash
# Proves again every exact value of a page written by scripts/kiothi_exact.sh
# (its JSON, default results/kiothi/exact.json) with `sow solve --verify`,
# which checks the proved value by a certificate walked move by move
# (src/prove/certificate.rs), and compares it with the value on the page.
# One line per value: game, distance, value on the page, value proved,
# nodes, proof seconds, certificate positions, children proved again, check
# seconds, OK or MISMATCH; then a summary. Exits 1 on any mismatch.
#
# Usage: scripts/kiothi_verify.sh [--json FILE] [--db DIR] [--hash MB] [--threads N]
set -euo pipefail
cd "$(dirname "$0")/.."
json=results/kiothi/exact.json
db=""
hash=1024
threads=1
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json="$2"; shift 2 ;;
    --db) db="$2"; shift 2 ;;
    --hash) hash="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    *) echo "usage: scripts/kiothi_verify.sh [--json FILE] [--db DIR] [--hash MB] [--threads N]" >&2; exit 2 ;;
  esac
done
cargo build --release --quiet
python3 - "$json" "$db" "$hash" "$threads" <<'PY'
import json, subprocess, sys, time
page, db, hash_mb, threads = sys.argv[1:5]
games = json.load(open(page))["games"]
total = ok = 0
start = time.time()
for g in games:
    for t in g["tries"]:
        if not t["exact"]:
            continue
        total += 1
        cmd = ["target/release/sow", "--threads", threads, "--json", "solve", "--verify",
               "--hash", hash_mb, t["position"]] + (["--db", db] if db else [])
        r = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
        v = r.get("verified") or {}
        good = r.get("value") == t["value"] == v.get("lower") == v.get("upper")
        ok += good
        print(g["game"], t["distance"], t["value"], r.get("value"), r.get("nodes"),
              round(r.get("seconds", 0), 1), v.get("positions"), v.get("reproved"),
              round(v.get("seconds", 0), 1), "OK" if good else "MISMATCH", flush=True)
print(f"{ok} of {total} exact values of {page} proved again and verified, {time.time() - start:.0f} s")
sys.exit(0 if ok == total else 1)
PY

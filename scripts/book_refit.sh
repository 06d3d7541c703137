#!/usr/bin/env bash
# Refits E1, the evaluation of the board after South's first move
# (data/kiothi/opening_models.json, compiled into sow), by distillation:
# 40,000 uniform and 40,000 concentrated first moves (test set: 5,000 and
# 5,000 of other seeds), each valued by the two-ply estimate of the scans
# (minus North's best reply under E2), fitted by ridge least squares
# (ridge 1). The steps are the ignored test `fit_step` of tests/book/scan.rs;
# the fit's errors are written into the models file's `fit.after_first`.
# E2 is kept as it is. Rebuild sow afterwards: the models are compiled in.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/book-refit}
mkdir -p "$dir"
step() { cargo test --release --test book -- scan::fit_step --ignored --exact --nocapture; }
STEP=e1twoply N=40000 SEED=11 OUT="$dir/e1_train.csv" step
STEP=e1twoply N=5000 SEED=1001 OUT="$dir/e1_test.csv" step
STEP=fit STAGE=e1 RIDGE=1 TRAIN="$dir/e1_train.csv" TEST="$dir/e1_test.csv" \
  DATA="STEP=e1twoply N=40000 SEED=11 (train), N=5000 SEED=1001 (test): uniform and concentrated first moves, target the two-ply estimate (minus North's best reply under E2)" \
  OUT="$dir/models.json" step
# Keep E2's weights byte for byte; take E1 and its record.
python3 - "$dir/models.json" <<'PY'
import json, sys
new = json.load(open(sys.argv[1]))
path = "data/kiothi/opening_models.json"
old = json.load(open(path))
old["after_first"] = new["after_first"]
fit = old["fit"] if isinstance(old.get("fit"), dict) and "bootstrap" not in old["fit"] else {}
fit["after_first"] = new["fit"]["after_first"]
fit.setdefault("after_reply", "fitted before this record was kept (see git log of this file)")
old["fit"] = fit
json.dump(old, open(path, "w"), separators=(",", ":"))
PY
echo "wrote data/kiothi/opening_models.json"

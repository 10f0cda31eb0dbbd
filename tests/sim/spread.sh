#!/usr/bin/env bash
# The spread behind test_sim_dumbbell.py's bounds: runs tests/sim/dumbbell-20s.toml for seeds
# 1..N and prints "protocol seed multicast_% tcp_% max_loss_%" per run, then mean/sd/range.
# Usage: AMCAST_BUILD=<build dir> tests/sim/spread.sh asmp|tfmcc [N=100]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
proto=${1:?protocol}; n=${2:-100}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for s in $(seq 1 "$n"); do
  "$top/tools/sim/amcast-sim" "$top/tests/sim/dumbbell-20s.toml" --protocol "$proto" --seed "$s" \
    --out "$tmp/r" --no-report >/dev/null 2>&1
  /usr/bin/python3 - "$tmp/r/metrics.json" "$proto" "$s" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
r = [v["fair_share_pct"] for v in m["receivers"].values()]
print(sys.argv[2], sys.argv[3], round(sum(r) / len(r), 1), round(m["flows"]["tcp1"]["fair_share_pct"], 1),
      round(max(v["packet_loss_pct"] for v in m["receivers"].values()), 2))
PY
  rm -rf "$tmp/r"
done | tee "$tmp/all"
/usr/bin/python3 - "$tmp/all" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
for col, name in ((2, "multicast"), (3, "tcp")):
    xs = [float(r[col]) for r in rows]
    print(f"{name}: mean {st.fmean(xs):.1f} sd {st.pstdev(xs):.1f} range {min(xs):.1f}-{max(xs):.1f} ({len(xs)} seeds)")
PY

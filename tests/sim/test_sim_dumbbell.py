#!/usr/bin/python3
"""The ns-3 harness on a 20 s dumbbell (tests/sim/dumbbell-20s.toml: 4 Mb/s, 20 ms, 50-packet
drop-tail bottleneck, one TCP Reno flow, 2 receivers; fair share 4 Mb/s / 2 = 2 Mb/s on the
wire; measured from 8 s on). No root, no namespaces: everything is simulated.

  test_sim_dumbbell.py asmp|tfmcc [SEED]     (default: a random seed, printed)

Checks (the shares are analysis.py's, from the traces, against the scenario's fair share):
 - amcast-sim exits 0 and leaves a run directory of the documented format (sender/sd.txt,
   sender/rate.csv, rx-NAME/rd.txt and stats.csv, flows/tcp1.csv, meta.json marked simulated);
 - the fair share derived from the scenario is 2 Mb/s for the session and the TCP flow;
 - the multicast share and the TCP share lie within the bounds below, and together they fill
   the link (the sum of the two shares >= 190 %: the bottleneck is busy);
 - every receiver receives, with at most 3 % packet loss.
Bounds, from the spread over 100 seeds per protocol (seeds 1-100, 2026-11-25, tests/sim/spread.sh,
TCP as ns-3's TcpLinuxReno since the cross-validation of docs/sim.md; ns-3 is deterministic per
seed, the seed moves packet sizes, RTCP timers and SSRCs):
   ASMP  multicast mean 64.1 %, sd 11.3, range 18.2-90.9;
         TCP mean 139.5 %, sd 11.0, range 114.5-181.3; sum 199-207 %; loss <= 1.41 %
   TFMCC multicast mean 70.9 %, sd 7.5, range 52.0-91.2;
         TCP mean 130.6 %, sd 7.0, range 114.8-149.1; sum 199-206 %; loss <= 1.21 %
 Asserted: mean +- 4 sd, rounded outwards, ASMP's lower multicast bound also below the lowest
 seed seen (18.2: its lower tail, seeds that stay in the delay regime, is longer than a normal
 one's) (a false failure is then rarer than 1 in 10 000 runs
 if the tails were normal; a 12 s window of one Reno flow next to an equation-based sender is
 that noisy, ASMP's more than TFMCC's).
 What still fails (checked by pinning the file's rates, ASMP, seed 1): a sender that does not
 respond (min = initial = max = 4 Mb/s: multicast 194 %, TCP 7 %), one stuck at its minimum
 (max = initial = 50 kb/s: multicast 4 %, TCP 191 %); also an idle link (sum < 190 %).
 (Those two were measured with TcpNewReno; each fails on the multicast bound alone.)
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tools", "testbed"))
from amcast_testbed import analysis  # noqa: E402

BOUNDS = {"asmp": {"mc": (15.0, 110.0), "tcp": (95.0, 185.0)},
          "tfmcc": {"mc": (40.0, 102.0), "tcp": (102.0, 159.0)}}
SUM_MIN_PCT = 190.0
LOSS_MAX_PCT = 3.0
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def main():
    proto = sys.argv[1] if len(sys.argv) > 1 else "asmp"
    MC_PCT, TCP_PCT = BOUNDS[proto]["mc"], BOUNDS[proto]["tcp"]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.SystemRandom().randint(1, 1 << 30)
    print(f"protocol {proto}, seed {seed}")
    run = tempfile.mkdtemp(prefix=f"amt-sim-{proto}-")
    r = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"),
                        os.path.join(TOP, "tests", "sim", "dumbbell-20s.toml"),
                        "--protocol", proto, "--seed", str(seed), "--no-report", "--out", run],
                       timeout=120)
    check(r.returncode == 0, f"amcast-sim exited {r.returncode}")
    for f in ("meta.json", "metrics.json", "sender/sd.txt", "sender/rate.csv", "rx-mr1/rd.txt",
              "rx-mr1/stats.csv", "rx-mr2/rd.txt", "flows/tcp1.csv"):
        check(os.path.isfile(os.path.join(run, f)) and os.path.getsize(os.path.join(run, f)) > 0,
              f"{f} written")
    if failures:
        print(f"run directory kept: {run}\n# amtest: checks={checks} failures={failures}")
        return 1
    meta = analysis.load_meta(run)
    check(meta.get("simulator", {}).get("engine") == "ns-3", "meta.json says the run is simulated")
    fs = meta["fair_share"]
    check(abs(fs["flows"]["tcp1"]["fair_share_bps"] - 2e6) < 1
          and abs(fs["receivers"]["mr1"]["fair_share_bps"] - 2e6) < 1,
          "fair share 2 Mb/s (4 Mb/s / 2 flows) for TCP and the session")
    m = json.load(open(os.path.join(run, "metrics.json")))
    rx = m["receivers"]
    mc = sum(v["fair_share_pct"] or 0 for v in rx.values()) / len(rx)
    tcp = m["flows"]["tcp1"]["fair_share_pct"] or 0
    check(MC_PCT[0] <= mc <= MC_PCT[1],
          f"multicast share {mc:.1f} % in [{MC_PCT[0]:.0f}, {MC_PCT[1]:.0f}] %")
    check(TCP_PCT[0] <= tcp <= TCP_PCT[1],
          f"TCP share {tcp:.1f} % in [{TCP_PCT[0]:.0f}, {TCP_PCT[1]:.0f}] %")
    check(mc + tcp >= SUM_MIN_PCT, f"the two shares fill the link: {mc + tcp:.1f} % >= {SUM_MIN_PCT:.0f} %")
    for name, v in rx.items():
        check(v["packets"] > 0 and (v["packet_loss_pct"] or 0) <= LOSS_MAX_PCT,
              f"{name}: {v['packets']} packets, loss {v['packet_loss_pct'] or 0:.2f} % <= {LOSS_MAX_PCT} %")
    if failures:
        print(f"run directory kept: {run} (seed {seed})")
    else:
        shutil.rmtree(run, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Short TCP-fairness scenario with the real elements: tools/testbed/scenarios/fairness-l1.toml
--short (36 s: a 6.5 Mb/s, 10 ms bottleneck shared by 10 Reno flows and the multicast session;
fair share 6.5 Mb/s / 11 = 591 kb/s on the wire; measured from 9 s on).

  test_scenario_fairness.py asmp|tfmcc

TCP must not be starved:
 - the TCP flows' mean share is at least 80 % of the fair share. The paper's worst mean is
   85.7 % (TFMCC, table I), with a multicast flow taking 143 % of its share; a multicast flow at
   its share leaves 100 %. 80 % = the paper's worst less 5 points for a run a quarter as long.
 - every single TCP flow keeps at least 50 % of the fair share: with equal RTTs and one drop-tail
   queue, Reno flows split the link equally on average but not in every 27 s window (their
   windows halve at different drops); half the fair share is the line below which a flow is
   starved rather than unlucky. Both bounds hold against the multicast flow whatever its rate,
   as long as it backs off: an unresponsive flow at the 6.5 Mb/s link rate would take them to 0.
 - the multicast session gets through (its receiver receives, > 0 bit/s) and every node exits 0;
 - no namespace is left behind.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TB = os.path.join(TOP, "tools", "testbed")
sys.path.insert(0, TB)
from amcast_testbed import analysis  # noqa: E402
from amcast_testbed.netns import leftover_namespaces  # noqa: E402

MEAN_MIN_PCT = 80.0
EACH_MIN_PCT = 50.0
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def main():
    proto = sys.argv[1] if len(sys.argv) > 1 else "asmp"
    run = tempfile.mkdtemp(prefix=f"amt-fairness-{proto}-")
    r = subprocess.run([os.path.join(TB, "amcast-scenario"),
                        os.path.join(TB, "scenarios", "fairness-l1.toml"), "--short",
                        "--protocol", proto, "--no-report", "--out", run], timeout=200)
    check(r.returncode == 0, f"amcast-scenario exited {r.returncode} (every node exited 0, no bus error)")
    meta = analysis.load_meta(run)
    left = leftover_namespaces(meta["topology"]["prefix"])
    check(left == [], f"no namespace left behind ({left})")
    m = json.load(open(os.path.join(run, "metrics.json")))
    fs = meta["fair_share"]["flows"]["tcp1"]["fair_share_bps"]
    check(abs(fs - 6.5e6 / 11) < 1, f"fair share {fs:.0f} bit/s = 6.5 Mb/s / 11 flows")
    rx = m["receivers"]["mr1"]
    check((rx["throughput_bps"] or 0) > 0,
          f"multicast receiver got {(rx['throughput_bps'] or 0) / 1e3:.0f} kbit/s "
          f"({rx['fair_share_pct'] or 0:.0f} % of its fair share)")
    tcp = {k: v["fair_share_pct"] or 0.0 for k, v in m["flows"].items()}
    print("TCP % of fair share:", {k: round(v) for k, v in tcp.items()})
    mean = sum(tcp.values()) / len(tcp)
    check(len(tcp) == 10 and mean >= MEAN_MIN_PCT,
          f"TCP flows' mean share {mean:.0f} % >= {MEAN_MIN_PCT:.0f} % of the fair share")
    worst = min(tcp, key=tcp.get)
    check(tcp[worst] >= EACH_MIN_PCT,
          f"every TCP flow >= {EACH_MIN_PCT:.0f} % of the fair share (lowest: {worst} {tcp[worst]:.0f} %)")
    if failures:
        print(f"run directory kept: {run}")
    else:
        shutil.rmtree(run, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

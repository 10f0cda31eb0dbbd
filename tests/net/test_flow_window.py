#!/usr/bin/python3
"""A TCP flow's window_bytes on the testbed (traffic.py, flowgen.py: the sink clamps its
advertised window with TCP_WINDOW_CLAMP on a locked receive buffer): tests/sim/dumbbell-20s.toml
(4 Mb/s bottleneck, 40 ms round trip, one Reno flow next to an ASMP session) with the flow's
window_bytes = 8000, 20 s. A flow with at most W bytes in flight moves at most 8 W / RTT, RTT
the path's round-trip propagation delay from the file: 1.6 Mbit/s here; open, the flow took 2.9 Mbit/s of the 4 (and 2.8 with the clamp alone, before the
buffer was locked: receive autotuning raised the clamp). Checks over 8-20 s:
 - amcast-scenario exits 0, meta.json records the window, no namespace is left behind;
 - the flow moves data, and at most 8 W / RTT + 10 % (the 1 s rows at the window's edges; one
   run: 1.32 Mbit/s).
About 40 s."""
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TB = os.path.join(TOP, "tools", "testbed")
sys.path.insert(0, TB)
from amcast_testbed import analysis, scenario  # noqa: E402
from amcast_testbed.netns import leftover_namespaces  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_asmp_elements as el  # noqa: E402  (check() and its counters)

WINDOW = 8000
check = el.check


def main():
    if os.geteuid() != 0:
        print("# skip: needs root (network namespaces)")
        return 77
    tmp = tempfile.mkdtemp(prefix="amt-window-")
    base = open(os.path.join(TOP, "tests", "sim", "dumbbell-20s.toml")).read()
    assert 'kind = "tcp"\n' in base
    path = os.path.join(tmp, "window.toml")
    with open(path, "w") as f:
        f.write(base.replace('kind = "tcp"\n', f'kind = "tcp"\nwindow_bytes = {WINDOW}\n'))
    run = os.path.join(tmp, "run")
    r = subprocess.run([os.path.join(TB, "amcast-scenario"), path, "--protocol", "asmp",
                        "--no-report", "--out", run], timeout=150)
    check(r.returncode == 0, f"amcast-scenario exited {r.returncode}")
    meta = analysis.load_meta(run)
    check(leftover_namespaces(meta["topology"]["prefix"]) == [], "no namespace left behind")
    check(meta["flows"][0].get("window_bytes") == WINDOW, "meta.json records the window")
    bps = analysis.flow_throughput(run, "tcp1", meta["t0"], [(8.0, 20.0)], 1.0) or 0
    sc = scenario.load(path)
    f = sc["flow"][0]
    bound = 8 * WINDOW / scenario.propagation_rtt_s(sc, f["src"], f["dst"])  # 40 ms: 1.6 Mbit/s
    check(0 < bps <= 1.1 * bound, f"tcp1 {bps / 1e3:.0f} kbit/s over 8-20 s, at most "
          f"8 W / RTT + 10 % = {1.1 * bound / 1e3:.0f}")
    if el.failures:
        print(f"run directory kept: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"# amtest: checks={el.checks} failures={el.failures}")
    return 1 if el.failures else 0


if __name__ == "__main__":
    sys.exit(main())

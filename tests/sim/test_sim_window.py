#!/usr/bin/python3
"""A TCP flow's window_bytes in ns-3 (tools/sim/flows.cc; the testbed clamps the receiver's
window, docs/testbed.md): tests/sim/dumbbell-20s.toml (4 Mb/s bottleneck, 40 ms round trip,
one Reno flow next to an ASMP session), seed 1, once as it is and once with the flow's
window_bytes = 8000. A flow with at most W bytes in flight moves at most 8 W / RTT, RTT the
path's round-trip propagation delay from the file: 1.6 Mbit/s here (the queue only lengthens the
RTT). Checks, over the steady window (8-20 s):
 - sim.conf carries the window to amcast-sim-ns3 (win=8000) only in the capped run;
 - the capped flow stays below 8 W / RTT (+2 % for the 1 s rows at the window's edges);
 - the open flow takes more than that bound (so the cap is what holds the capped one).
ns-3 is deterministic per seed: nothing here can fail by chance. About 2 s.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tools", "testbed"))
from amcast_testbed import analysis, scenario  # noqa: E402

FILE = os.path.join(TOP, "tests", "sim", "dumbbell-20s.toml")
WINDOW = 8000
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def run(tmp, name, text):
    path = os.path.join(tmp, name + ".toml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(tmp, name)
    p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"), path, "--protocol", "asmp",
                        "--seed", "1", "--no-report", "--out", out], stdout=subprocess.DEVNULL,
                       timeout=120)
    check(p.returncode == 0, f"{name}: amcast-sim exited {p.returncode}")
    if p.returncode:
        return None, ""
    meta = analysis.load_meta(out)
    bps = analysis.flow_throughput(out, "tcp1", meta["t0"], [(8.0, 20.0)], 1.0)
    return bps, open(os.path.join(out, "sim.conf")).read()


def main():
    tmp = tempfile.mkdtemp(prefix="amt-sim-window-")
    try:
        base = open(FILE).read()
        assert 'kind = "tcp"\n' in base
        capped = base.replace('kind = "tcp"\n', f'kind = "tcp"\nwindow_bytes = {WINDOW}\n')
        open_bps, open_conf = run(tmp, "open", base)
        cap_bps, cap_conf = run(tmp, "capped", capped)
        sc = scenario.load(FILE)
        f = sc["flow"][0]
        rtt = scenario.propagation_rtt_s(sc, f["src"], f["dst"])   # 0.040: 20 ms each way
        bound = 8 * WINDOW / rtt
        print(f"# tcp1 over 8-20 s: open {(open_bps or 0) / 1e3:.0f} kbit/s, window {WINDOW} B "
              f"{(cap_bps or 0) / 1e3:.0f} kbit/s (8 W / RTT = {bound / 1e3:.0f})")
        check(f"win={WINDOW}" in cap_conf and "win=" not in open_conf,
              "sim.conf carries the window only when the file sets it")
        check(cap_bps is not None and 0 < cap_bps <= 1.02 * bound,
              f"the capped flow stays below 8 W / RTT ({(cap_bps or 0) / 1e3:.0f} <= "
              f"{1.02 * bound / 1e3:.0f} kbit/s)")
        check(open_bps is not None and open_bps > 1.1 * bound,
              f"the open flow takes more ({(open_bps or 0) / 1e3:.0f} kbit/s)")
    finally:
        if failures:
            print(f"runs kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The sim's IGMP model (docs/sim.md): routers forward the group onto a receiver's link only
from its join + the join latency to its leave + the leave latency.

tools/testbed/scenarios/late-join-quick.toml --short: mr5 joins at 30 s and leaves at 60 s
behind its own 300 kb/s link r2 -> mr5 (a shaped queue, so the sim counts every video packet
that reaches it); mr1 hangs off the same router r2 on an unshaped link and stays throughout, so
its arrival times are the times video packets reach r2 (plus a 1 Gbit/s transmission, < 0.01 ms).
Run twice, leave latency 2000 ms and 500 ms (random seed each, printed). Checks, each run:
 - the video packets that reached r2 -> mr5's queue = mr1's packets that arrived in
   [join + join latency, leave + leave latency), within 3 (a packet on the wire at either edge);
 - mr5 received packets only while joined (its rd.txt lies inside [join, leave]);
and between the runs: the 1.5 s of extra leave latency put more packets on mr5's link (about
1.5 s of the stream, not checked in count: the stream's rate after the leave is the protocol's).
Also: a receiver whose join falls after the run's end (--duration) lets the run end cleanly,
for a single stream (asmp) and for simulcast (assp).
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
JOIN_MS = 5.0
SLACK = 3
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def times(path, t0):
    with open(path) as f:
        return [float(l.split()[0]) - t0 for l in f if " id " in l]


def run_once(leave_ms, seed, base):
    run = os.path.join(base, f"leave{int(leave_ms)}")
    r = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"),
                        os.path.join(TOP, "tools", "testbed", "scenarios", "late-join-quick.toml"),
                        "--short", "--seed", str(seed), "--igmp-join-ms", str(JOIN_MS),
                        "--igmp-leave-ms", str(leave_ms), "--no-report", "--out", run],
                       stdout=subprocess.DEVNULL, timeout=120)
    check(r.returncode == 0, f"leave latency {leave_ms:.0f} ms: amcast-sim exited {r.returncode}")
    if r.returncode:
        return None
    meta = json.load(open(os.path.join(run, "meta.json")))
    summary = json.load(open(os.path.join(run, "nodes.json")))["sim"]["summary"]
    mr5 = next(x for x in meta["receivers"] if x["name"] == "mr5")
    a, b = mr5["join_s"] + JOIN_MS / 1e3, mr5["leave_s"] + leave_ms / 1e3
    at_r2 = times(os.path.join(run, "rx-mr1", "rd.txt"), meta["t0"])
    want = sum(1 for t in at_r2 if a <= t < b)
    got = summary["queues"]["r2>mr5"]["video"][0]
    check(abs(got - want) <= SLACK,
          f"leave latency {leave_ms:.0f} ms: {got} video packets reached r2 -> mr5, "
          f"{want} reached r2 in [{a:.3f}, {b:.3f}) s (+-{SLACK})")
    rx = times(os.path.join(run, "rx-mr5", "rd.txt"), meta["t0"])
    check(bool(rx) and mr5["join_s"] <= min(rx) and max(rx) <= mr5["leave_s"],
          f"mr5 received {len(rx)} packets, all within its membership "
          f"[{mr5['join_s']:.0f}, {mr5['leave_s']:.0f}] s")
    return got


def joins_after_end(base):
    """A receiver whose join falls after the run's end never starts; the run still ends cleanly
    (its stop crashed on sockets and a controller never made): late-join-quick's mr5 (joins at
    50 s in the full file) with --duration 20 for asmp, and assp-accuracy's mr1 moved to 30 s for assp."""
    sc = os.path.join(TOP, "tools", "testbed", "scenarios")
    assp = open(os.path.join(sc, "assp-accuracy.toml")).read()
    assert '[[receiver]]\nname = "mr1"\n' in assp
    late = os.path.join(base, "assp-late.toml")
    with open(late, "w") as f:
        f.write(assp.replace('[[receiver]]\nname = "mr1"\n',
                             '[[receiver]]\nname = "mr1"\njoin_s = 30\n'))
    for proto, path in (("asmp", os.path.join(sc, "late-join-quick.toml")), ("assp", late)):
        p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"), path, "--protocol",
                            proto, "--duration", "20", "--seed", "1", "--no-report", "--out",
                            os.path.join(base, "late-" + proto)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        check(p.returncode == 0, f"{proto}: a receiver joining after the run's end: exit "
              f"{p.returncode}")


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else random.SystemRandom().randint(1, 1 << 30)
    print(f"seed {seed}")
    base = tempfile.mkdtemp(prefix="amt-sim-igmp-")
    long_ = run_once(2000.0, seed, base)
    short = run_once(500.0, seed, base)
    joins_after_end(base)
    if long_ is not None and short is not None:
        check(long_ > short, f"a longer leave latency keeps the link busy longer ({long_} > {short})")
    if failures:
        print(f"run directories kept: {base} (seed {seed})")
    else:
        shutil.rmtree(base, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Short ASSP subscription-accuracy scenario with the real elements (papers/001 §3.1):
tools/testbed/scenarios/assp-accuracy.toml --short (60 s: three streams 100-200, 200-500,
600-1000 kb/s; six receivers, a pair each on 150 kb/s, 450 kb/s and 2 Mb/s links; 30 ms one way).

Asserts what the paper promises, with bounds from the full and short runs in docs/results.md
(ASSP section):
 - every node exits cleanly, every receiver receives, no namespace is left behind;
 - the rule of amcast_testbed/simulcast.py puts each pair's link on stream 1, 2, 3;
 - each receiver got on its right stream within RIGHT_BOUND_S of joining (issue 11's target is
   10 s): decisions come every 5 s (the J rounds) and a stream-3 receiver needs two up-moves,
   then the new stream's key frame; 3 short runs took 0-15.9 s (a round missed on the loaded
   machine adds 5 s), the 200 s run 0-9.2 s; the bound allows two missed rounds;
 - once there, it stays on it at least ON_RIGHT_MIN_PCT of the time. Not "never leaves": the two
   lower pairs try the next stream and come back (lib/cc's share probe climbs past lambda x the
   next lower limit while nothing on the path pushes back; docs/results.md, ASSP), each trip
   4-15 s, sometimes one stream below on the way back: 55-100 % of the time on the right stream
   in 3 short runs, 82-90 % in the 200 s run. The bound (40 %) says the right stream is where
   the receiver mostly is; the paper's "no oscillation" is not asserted, it does not hold;
 - it left its right stream at most MAX_TRIPS times: after a failed move up, lib/cc's up-hold
   makes the receiver wait 3 rounds (15 s), then 6, then 12 before the next; with a trip of at
   least one round that is at most 3 tries up in 60 s, plus one step below the right stream on
   the way back (the runs: at most 3 in all);
 - the 2 Mb/s pair never leaves stream 3 once there (its path can carry the stream's top rate);
 - the stream-3 pair receives at least STREAM3_MIN_BPS over the steady window (the stream's
   lower limit 600 kb/s less 10 %: its own 2 Mb/s path holds nothing back, so it must not sit
   below the stream's floor; the short runs gave 804-895 kbit/s);
 - the 150 kb/s pair never took stream 3 (its link cannot carry 600 kb/s: a receiver there
   would be a gross misjudgement, not an oscillation of the hysteresis).
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

RIGHT_BOUND_S = 20.0
ON_RIGHT_MIN_PCT = 40.0
MAX_TRIPS = 4
STREAM3_MIN_BPS = 540_000
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def main():
    run = tempfile.mkdtemp(prefix="amt-assp-")
    r = subprocess.run([os.path.join(TB, "amcast-scenario"),
                        os.path.join(TB, "scenarios", "assp-accuracy.toml"), "--short",
                        "--protocol", "assp", "--no-report", "--out", run], timeout=200)
    check(r.returncode == 0, f"amcast-scenario exited {r.returncode} (every node exited 0, no bus error)")
    meta = analysis.load_meta(run)
    left = leftover_namespaces(meta["topology"]["prefix"])
    check(left == [], f"no namespace left behind ({left})")
    m = json.load(open(os.path.join(run, "metrics.json")))
    expect = {"mr1": 0, "mr2": 0, "mr3": 1, "mr4": 1, "mr5": 2, "mr6": 2}
    for name, rx in sorted(m["receivers"].items()):
        print(f"{name}: streams {rx['switch_path']} at {rx['switch_times_s']} s, "
              f"{(rx['throughput_bps'] or 0) / 1e3:.0f} kbit/s, time on streams "
              f"{rx['time_on_streams_s']}")
        check(rx["packets"] > 0, f"{name} received {rx['packets']} packets")
        check(rx["right_final"] == expect[name],
              f"{name}: the rule puts its link on stream {rx['right_final'] + 1} "
              f"(expected {expect[name] + 1})")
        t = rx["time_to_right_s"]
        check(t is not None and t <= RIGHT_BOUND_S,
              f"{name} reached its right stream {t} s after joining (bound {RIGHT_BOUND_S} s)")
        p = rx["on_right_pct"]
        check(p is not None and p >= ON_RIGHT_MIN_PCT,
              f"{name} on its right stream {p and round(p)} % of the time once there "
              f"(>= {ON_RIGHT_MIN_PCT:.0f} %)")
        off = len(rx["switches_off_right"])
        check(off <= (0 if name in ("mr5", "mr6") else MAX_TRIPS),
              f"{name} left its right stream {off} times (at {rx['switches_off_right']} s; "
              f"bound {0 if name in ('mr5', 'mr6') else MAX_TRIPS})")
    for name in ("mr5", "mr6"):
        thr = m["receivers"][name]["throughput_bps"] or 0
        check(thr >= STREAM3_MIN_BPS, f"{name} received {thr / 1e3:.0f} kbit/s in the steady "
              f"window (>= {STREAM3_MIN_BPS / 1e3:.0f})")
    for name in ("mr1", "mr2"):
        on = m["receivers"][name]["time_on_streams_s"]
        check(on[2] == 0, f"{name} (150 kb/s link) never on stream 3 ({on[2]} s)")
    if failures:
        print(f"run directory kept: {run}")
    else:
        shutil.rmtree(run, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""tools/sim/sim-assp-table on hand-made metrics.json files (no ns-3 run, no root): runs of one
scenario give one row per receiver; a run of another scenario, of the same file with --short
(another steady window), with another receiver set or another protocol is refused with a message
naming that run and what differs, and no table."""
import copy
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(TOP, "tools", "sim", "sim-assp-table")
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def receiver(right, on_pct):
    return {"right_final": right, "stream_final": right, "time_to_right_s": 10.5,
            "switches": 2, "switches_off_right": [], "on_right_pct": on_pct,
            "fair_share_pct": 90.0, "share_in_limits_pct": 95.0, "switch_gap_max_s": 1.2,
            "right_changes": [{"at_s": 50.0, "to": right, "after_s": 6.0}]}


METRICS = {"protocol": "assp", "scenario": "assp-switch", "steady_window_s": [37.5, 150.0],
           "sender": {"streams": [{"target_mean_bps": 150e3}, {"target_mean_bps": 400e3},
                                  {"target_mean_bps": 900e3}]},
           "receivers": {"lo": receiver(0, 98.0), "hi": receiver(2, 97.0)}, "flows": {}}


def table(tmp, *metrics):
    runs = []
    for i, m in enumerate(metrics):
        d = os.path.join(tmp, f"r{len(os.listdir(tmp))}-{i}")
        os.makedirs(d)
        with open(os.path.join(d, "metrics.json"), "w") as f:
            json.dump(m, f)
        runs.append(d)
    p = subprocess.run([sys.executable, TOOL] + runs, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30)
    return p, runs


def main():
    with tempfile.TemporaryDirectory() as tmp:
        p, runs = table(tmp, METRICS, METRICS)
        check(p.returncode == 0 and "2 run(s)" in p.stdout and "| lo | 1 | 2/2 |" in p.stdout
              and "| hi | 3 | 2/2 |" in p.stdout,
              f"two runs of one scenario: one row per receiver (exit {p.returncode}, "
              f"{p.stdout[-400:]!r} {p.stderr[-300:]!r})")
        for what, change in (
                ("scenario 'dumbbell-assp', not 'assp-switch'",
                 lambda m: m.update(scenario="dumbbell-assp")),
                ("steady window (duration, --short) [7.5, 30.0], not [37.5, 150.0]",
                 lambda m: m.update(steady_window_s=[7.5, 30.0])),
                ("receivers ['lo'], not ['hi', 'lo']", lambda m: m["receivers"].pop("hi")),
                ("protocol 'asmp', not 'assp'", lambda m: m.update(protocol="asmp"))):
            other = copy.deepcopy(METRICS)
            change(other)
            p, runs = table(tmp, METRICS, other)
            check(p.returncode == 1 and "| receiver |" not in p.stdout
                  and f"{runs[1]} is not a run of the same scenario as {runs[0]}: {what}"
                  in p.stderr,
                  f"refused: {what} (exit {p.returncode}, {p.stderr.strip()[-300:]!r})")
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

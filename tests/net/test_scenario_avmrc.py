#!/usr/bin/python3
"""Short AVMRC layered scenario with the real elements (papers/003 §5.1, §5.4):
tools/testbed/scenarios/avmrc-layers-tcp.toml --short (48 s: the paper's first 4 channels, 256,
384, 576, 864 kb/s in bursts every 100 ms; r1 behind 1 Mb/s with one Reno TCP flow, r2 behind
700 kb/s alone, r3 unconstrained; steady window 16-48 s).

Asserts what does not depend on luck, with bounds from the short runs in docs/results.md (AVMRC):
 - every node exits cleanly, every receiver receives, no namespace is left behind;
 - r3 (nothing in its way) holds all 4 layers over the steady window (mean >= R3_MIN_MEAN);
 - r2 (700 kb/s: 3 layers fit, 4 do not) settles on 3: mean level in [R2_MIN_MEAN,
   R2_MAX_MEAN] (probes of the 4th in add slots, each dropped within a few slots);
 - r1 (1 Mb/s shared with TCP) never holds more than 3 layers for long: mean <= R1_MAX_MEAN;
 - the TCP flow gets some of its link (>= TCP_MIN_PCT of its fair share);
 - evalvid-run on the run (traces only: the synthetic workload; docs/evalvid.md "Layered runs"):
   per receiver and layer, the packets rd.txt shows received equal avmrcsrc's own count, and the
   packets it counts lost are at least the element's (it also counts those lost at the end of a
   held period, which no later packet shows the element). (r3 lost 1 packet in one of five runs:
   its zero loss is the network's, not asserted.)
 - papers/003's steady-state loss is counted at r1's and r2's links (the tbf counters at the
   steady mark and at the end). Not set against the receivers' own counts: their marks are
   taken by other processes a few ms apart, and a socket can drop too.
Three short runs (load average 8-10): r3 4.00, r2 3.10-3.11, r1 1.19-2.05, tcp1 118-140 %.
Not asserted: AVMRC's share against TCP (r1 held mostly 1 layer in two runs, 2 in one: 53-77 %
of its fair share; docs/results.md) and zero loss (each try of the 4th layer costs about 5
packets on this testbed: 1.8-2.0 % of r2's in the steady window).
"""
import csv
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

R3_MIN_MEAN = 3.9
R2_MIN_MEAN = 2.5
R2_MAX_MEAN = 3.4
R1_MAX_MEAN = 2.5
TCP_MIN_PCT = 50
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def layers_vs_element(run):
    build = os.environ.get("AMCAST_BUILD", os.path.join(TOP, "build"))
    r = subprocess.run([os.path.join(build, "tools", "evalvid", "evalvid-run"), "--no-plots", run],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "evalvid-run on the run exits 0" + (f" ({r.stderr.strip()[-300:]})" if r.returncode else ""))
    if r.returncode != 0:
        return
    nodes = json.load(open(os.path.join(run, "nodes.json")))
    for name in ("r1", "r2", "r3"):
        st = nodes[name]["summary"]["stats"]
        with open(os.path.join(run, "report", f"{name}.layers.csv")) as f:
            lay = list(csv.DictReader(f))
        rx = [int(x["packets_received"]) for x in lay]
        lost = [int(x["packets_lost"]) for x in lay]
        el_rx = [int(st.get(f"packets-{i}", 0)) for i in range(len(lay))]
        el_lost = [int(st.get(f"lost-{i}", 0)) for i in range(len(lay))]
        print(f"# {name}: evalvid per layer received {rx} lost {lost}; avmrcsrc {el_rx} lost {el_lost}")
        check(rx == el_rx, f"{name}: evalvid's received per layer = avmrcsrc's")
        check(all(a >= b for a, b in zip(lost, el_lost)), f"{name}: evalvid's lost per layer >= avmrcsrc's")


def main():
    if os.geteuid() != 0:
        print("# skip: needs root (network namespaces)")
        return 77
    run = tempfile.mkdtemp(prefix="amt-avmrc-")
    r = subprocess.run([os.path.join(TB, "amcast-scenario"),
                        os.path.join(TB, "scenarios", "avmrc-layers-tcp.toml"), "--short",
                        "--protocol", "avmrc", "--out", run], timeout=200)
    check(r.returncode == 0, f"amcast-scenario exited {r.returncode} (every node exited 0, no bus error)")
    meta = analysis.load_meta(run)
    left = leftover_namespaces(meta["topology"]["prefix"])
    check(left == [], f"no namespace left behind ({left})")
    m = json.load(open(os.path.join(run, "metrics.json")))
    rx = m["receivers"]
    for name, v in sorted(rx.items()):
        print(f"# {name}: mean level {v['mean_level']}, time at levels {v['time_at_level_pct']}, "
              f"{v['changes']} changes, steady loss {v['steady_loss_pct']} %, "
              f"{(v['throughput_bps'] or 0) / 1e3:.0f} kbit/s")
        check((v["throughput_bps"] or 0) > 0, f"{name} received")
    mean = {k: v["mean_level"] or 0 for k, v in rx.items()}
    check(mean["r3"] >= R3_MIN_MEAN, f"r3 holds all 4 layers (mean {mean['r3']:.2f} >= {R3_MIN_MEAN})")
    check(R2_MIN_MEAN <= mean["r2"] <= R2_MAX_MEAN,
          f"r2 settles on 3 layers (mean {mean['r2']:.2f} in [{R2_MIN_MEAN}, {R2_MAX_MEAN}])")
    check(mean["r1"] <= R1_MAX_MEAN, f"r1 (with TCP) below 3 layers (mean {mean['r1']:.2f} <= {R1_MAX_MEAN})")
    tcp = m["flows"]["tcp1"]["fair_share_pct"] or 0
    check(tcp >= TCP_MIN_PCT, f"tcp1 got {tcp:.0f} % of its fair share (>= {TCP_MIN_PCT})")
    # papers/003's steady-state loss: each receiver link's tbf counters at the mark and the end
    bl = m.get("bottleneck_loss") or {}
    q = bl.get("queues", {})
    print(f"# shapers' drops from the steady mark: {q}")
    check(bl.get("counts") == "all" and {"c1>h1", "c1>h2"} <= set(q)
          and all(0 <= d <= a for a, d in q.values()),
          f"the shapers' steady-state drops are counted at r1's and r2's links ({sorted(q)})")
    layers_vs_element(run)
    if failures:
        print(f"run directory kept: {run}")
    else:
        shutil.rmtree(run, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

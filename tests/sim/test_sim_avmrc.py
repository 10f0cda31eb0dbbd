#!/usr/bin/python3
"""Layered sessions (AVMRC) in ns-3 (tools/sim/avmrc.cc; docs/sim.md "Layered sessions").

tools/testbed/scenarios/avmrc-layers-tcp.toml --short (48 s: 4 layers of 256-864 kbit/s; r1
behind 1 Mb/s with a Reno flow, r2 behind 700 kbit/s alone, r3 unconstrained), --protocol avmrc,
seeds 1-3 (a run is a function of its seed: nothing here can fail by chance):
 - amcast-sim exits 0 and writes what the testbed's layered runs have: sender/sd.txt with a
   layer column (one line per packet the summary counts), rx-NAME/rd.txt, logs/rx-NAME.log with
   {"layers"}, {"mark"} and {"result"} lines, metrics.json and comparison.md;
 - every line of a receiver's rd.txt is a packet the sender sent, on the layer it was sent on,
   and its count per layer equals the receiver's own packets-i;
 - a receiver holds only layers it subscribed to: no rd.txt packet of layer L arrives while
   the receiver's level (from its {"layers"} lines) is L or less;
 - what the scenario says (the bounds hold in seeds 1-6 of the full and the short run): r3, on
   an open path, takes all 4 layers (mean level >= 3.9); r2 settles on the 3 that fit its 700
   kbit/s (mean 2.8-3.3, final 3) without loss in the steady window; r1, next to the Reno flow
   on 1 Mb/s, stays below 3 (mean <= 2.5), and the Reno flow keeps at least 85 % of its share;
 - the shapers' steady-state drops of the session's packets (layered.bottleneck_loss, from the
   sim's queue counters at the mark): counted at both receivers' links, at least what the
   receiver behind each lost of the layers it held, and none at r2's (the file's fast_leave:
   with the 0.4 s leave of its last-member interval alone, 40 of 2480 in each seed).
Also: layered.bottleneck_loss on made-up testbed counters; clients that join after a --duration
run ends; --unsync-slots reaches the sim and
changes the receivers' decisions, and amcast-sim refuses it for asmp; amcast-sim-ns3 refuses a
layered protocol without a 'layers' record, and a layers record for a protocol that is not
layered. About 3 s.
"""
import json
import os
import subprocess
import sys
import tempfile
import shutil

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tools", "testbed"))
from amcast_testbed.layered import bottleneck_loss, json_lines  # noqa: E402

FILE = os.path.join(TOP, "tools", "testbed", "scenarios", "avmrc-layers-tcp.toml")
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def traces(run, seed):
    sent = {}
    with open(os.path.join(run, "sender", "sd.txt")) as f:
        for line in f:
            p = line.split()
            sent[int(p[2])] = int(p[8])
    s = json.load(open(os.path.join(run, "nodes.json")))["sim"]["summary"]
    check(len(sent) == s["packets_sent"] > 0,
          f"s{seed}: sd.txt has a line per packet sent ({len(sent)}, summary {s['packets_sent']})")
    t0 = json.load(open(os.path.join(run, "meta.json")))["t0"]
    for name in ("r1", "r2", "r3"):
        lines = json_lines(os.path.join(run, "logs", f"rx-{name}.log"))
        changes = [(x["layers"]["t"], x["layers"]["to"]) for x in lines if "layers" in x]
        result = [x["result"] for x in lines if "result" in x]
        check(len(result) == 1 and any("mark" in x for x in lines),
              f"s{seed} {name}: its log has a mark and a result")
        per, wrong, above = {}, 0, 0
        with open(os.path.join(run, f"rx-{name}", "rd.txt")) as f:
            for line in f:
                p = line.split()
                t, pid, layer = float(p[0]), int(p[2]), int(p[6])
                wrong += sent.get(pid) != layer
                per[layer] = per.get(layer, 0) + 1
                level = 1
                for ct, to in changes:
                    if ct <= t:
                        level = to
                above += layer >= level
        st = result[0]["stats"] if result else {}
        check(wrong == 0, f"s{seed} {name}: every packet received was sent, on its layer ({wrong} not)")
        check(all(per.get(i, 0) == st.get(f"packets-{i}") for i in range(4)),
              f"s{seed} {name}: rd.txt per layer {[per.get(i, 0) for i in range(4)]} = its packets-i")
        check(above == 0, f"s{seed} {name}: no packet of a layer above its level ({above})")
    return t0


def run_seed(seed, tmp):
    run = os.path.join(tmp, f"s{seed}")
    p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"), FILE, "--short",
                        "--protocol", "avmrc", "--seed", str(seed), "--out", run],
                       stdout=subprocess.DEVNULL, timeout=120)
    check(p.returncode == 0, f"s{seed}: amcast-sim exited {p.returncode}")
    if p.returncode:
        return
    check(os.path.isfile(os.path.join(run, "comparison.md")), f"s{seed}: comparison.md written")
    traces(run, seed)
    m = json.load(open(os.path.join(run, "metrics.json")))
    rx = m["receivers"]
    for name, v in sorted(rx.items()):
        print(f"# s{seed} {name}: mean level {v['mean_level']:.2f}, final {v['final_level']}, "
              f"steady loss {v['steady_loss_pct']} %, {(v['throughput_bps'] or 0) / 1e3:.0f} kbit/s")
    check(rx["r3"]["mean_level"] >= 3.9, f"s{seed}: r3 holds all 4 layers ({rx['r3']['mean_level']:.2f})")
    check(2.8 <= rx["r2"]["mean_level"] <= 3.3 and rx["r2"]["final_level"] == 3
          and rx["r2"]["level_fitting_fair_share"] == 3,
          f"s{seed}: r2 settles on the 3 layers that fit 700 kbit/s ({rx['r2']['mean_level']:.2f})")
    check(rx["r2"]["steady_lost"] == 0, f"s{seed}: r2 loses nothing in the steady window "
          f"({rx['r2']['steady_lost']} of {rx['r2']['steady_packets']})")
    check(rx["r1"]["mean_level"] <= 2.5, f"s{seed}: r1 (next to Reno) below 3 layers "
          f"({rx['r1']['mean_level']:.2f})")
    tcp = m["flows"]["tcp1"]["fair_share_pct"] or 0
    check(tcp >= 85, f"s{seed}: the Reno flow keeps {tcp:.0f} % of its share (>= 85)")
    # papers/003's steady-state loss: the shapers' drops of the session's packets from the mark
    bl = m.get("bottleneck_loss") or {}
    q = bl.get("queues", {})
    print(f"# s{seed} bottleneck drops from the mark: {q}")
    check(bl.get("counts") == "session" and {"c1>h1", "c1>h2"} <= set(q),
          f"s{seed}: the session's drops at both shaped links counted ({sorted(q)})")
    for name, link in (("r1", "c1>h1"), ("r2", "c1>h2")):
        a, d = q.get(link, (0, 0))
        check(rx[name]["steady_lost"] <= d <= a,
              f"s{seed}: {link} dropped {d} of {a} from the mark, at least the {name}'s "
              f"{rx[name]['steady_lost']} lost of the layers it held")
    check(q.get("c1>h2", (0, -1))[1] == 0, f"s{seed}: r2's link (alone, 700 kbit/s) drops none "
          f"of the session's packets in steady state ({q.get('c1>h2')}; papers/003 §5.1's zero)")


def unsync(tmp):
    """--unsync-slots reaches the sim (sim.conf, meta.json) and moves the receivers' decisions:
    the layer changes of the same seed differ from the synchronised run's (s1)."""
    run = os.path.join(tmp, "u1")
    p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"), FILE, "--short",
                        "--protocol", "avmrc", "--seed", "1", "--unsync-slots", "--out", run],
                       stdout=subprocess.DEVNULL, timeout=120)
    check(p.returncode == 0, f"unsync: amcast-sim exited {p.returncode}")
    if p.returncode:
        return
    conf = open(os.path.join(run, "sim.conf")).read()
    meta = json.load(open(os.path.join(run, "meta.json")))
    check("unsync_slots" in conf.split() and meta["simulator"]["unsync_slots"] is True,
          "unsync: sim.conf and meta.json say so")

    def changes(d):
        return [(x["layers"]["t"], x["layers"]["to"]) for name in ("r1", "r2", "r3")
                for x in json_lines(os.path.join(d, "logs", f"rx-{name}.log")) if "layers" in x]
    check(changes(run) != changes(os.path.join(tmp, "s1")),
          "unsync: the layer changes differ from the synchronised run's")


def refusals(tmp):
    exe = os.environ.get("AMCAST_SIM_NS3") or os.path.join(os.environ["AMCAST_BUILD"], "tools",
                                                           "sim", "amcast-sim-ns3")
    base = ("duration 5\nt0 1000000000\nseed 1\ngroup 239.1.2.3 5004\nvideo 25 25 500000 50000 "
            "4000000 1000\nsender ms\nnode ms host\nnode r1 router\nlink ms r1 0 0 0 0 0 0 0 0\n")
    for what, proto, extra in (("avmrc without a layers record", "avmrc", ""),
                               ("a layers record for asmp", "asmp",
                                "layers 4 256000 1.5 100 1000 2\n")):
        conf = os.path.join(tmp, "bad.conf")
        with open(conf, "w") as f:
            f.write(base + f"protocol {proto}\n" + extra)
        p = subprocess.run([exe, conf, os.path.join(tmp, "bad")], capture_output=True, text=True,
                           timeout=30)
        check(p.returncode == 2 and "layer" in p.stderr,
              f"refused: {what} ({p.returncode}: {p.stderr.strip()[:90]})")
    p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"), FILE, "--protocol",
                        "asmp", "--unsync-slots", "--out", os.path.join(tmp, "bad-unsync")],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode != 0 and "--unsync-slots is for layered" in p.stderr
          and not os.path.exists(os.path.join(tmp, "bad-unsync")),
          f"refused: --unsync-slots with asmp ({p.returncode}: {p.stderr.strip()[:90]})")


def late_joiners(tmp):
    """--duration 1 on avmrc-clients.toml: 12 of the 16 clients join after the run ends. Their
    receivers never start; the run still exits 0 with a result line for each (it crashed on
    the stats of a controller never made)."""
    run = os.path.join(tmp, "late")
    p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"),
                        os.path.join(TOP, "tools", "sim", "scenarios", "avmrc-clients.toml"),
                        "--protocol", "avmrc", "--duration", "1", "--no-report", "--out", run],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    logs = [json_lines(os.path.join(run, "logs", f"rx-c{i}.log")) for i in range(1, 17)] \
        if p.returncode == 0 else []
    check(p.returncode == 0 and len(logs) == 16
          and all(sum("result" in x for x in lg) == 1 for lg in logs),
          f"late joiners: --duration 1 exits {p.returncode}, a result line per client")


def counters(tmp):
    """bottleneck_loss on a testbed run's nodes.json (tbf counters at the mark and at the end:
    drops and sent packets since the mark), and None without counters or with a broken file."""
    run = os.path.join(tmp, "tb")
    os.makedirs(run)

    def nodes(obj):
        with open(os.path.join(run, "nodes.json"), "w") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))
        return bottleneck_loss(run)
    q = lambda p, d: {"packets": p, "bytes": 1000 * p, "drops": d, "overlimits": 0, "backlog": 0}
    bl = nodes({"qdisc": {"c1>h1": q(900, 30), "c1>h2": q(500, 4), "c1>h3": None},
                "qdisc_steady_mark": {"c1>h1": q(100, 10), "c1>h2": q(500, 4), "c1>h3": None}})
    check(bl and bl["queue"] == "c1>h1" and bl["arrived"] == 820 and bl["dropped"] == 20
          and bl["counts"] == "all" and bl["queues"] == {"c1>h1": [820, 20]},
          f"counters: testbed drops since the mark, the link that passed nothing left out ({bl})")
    check(nodes({"qdisc": {"c1>h1": q(900, 30)}, "qdisc_steady_mark": None}) is None
          and nodes("{not json") is None and nodes({}) is None,
          "counters: None without a mark, with a broken nodes.json or without counters")


def main():
    tmp = tempfile.mkdtemp(prefix="amt-sim-avmrc-")
    try:
        counters(tmp)
        late_joiners(tmp)
        for seed in (1, 2, 3):
            run_seed(seed, tmp)
        unsync(tmp)
        refusals(tmp)
    finally:
        if failures:
            print(f"runs kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

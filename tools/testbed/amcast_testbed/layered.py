"""Layered, receiver-driven sessions (AVMRC, RMRC, VMRC: papers/003) on the testbed.

amcast-scenario hands a layered protocol (protocols.py, layered=True) to run_all(): the same
topology and competing flows as every scenario, but the sender is the paper's synthetic workload
(tools/testbed/amcast-layered-node send: avmrcsynth into avmrclayers) and each receiver runs
avmrcsrc, which joins and leaves the layers' groups itself. The file's [layers] section:
  channels (9), b1_bps (256000), factor (1.5)   B_1 = b1, B_i = factor B_(i-1) (paper 4.2)
  period_ms (100), packet_size (1000)           one burst per channel per period, <= 1 KB packets
  last_member_interval_cs                       the bridges' IGMP last-member interval (1/100 s;
                                                absent: the kernel's, a leave then takes ~2 s)
  fast_leave (false)                            true: the bridges' host ports leave a group as
                                                soon as their host's leave report arrives (bridge
                                                link ... fastleave on), as ns-2's leaves did
Measured per receiver over the steady window: the layers held (time-weighted mean, time at each
level, final, changes), loss (the receiver's per-layer counts between the steady mark and the
end), throughput (rd.txt), its share of the fair share and the highest level that fits it (its
cumulative rate on the wire: packets with the stamp, UDP, IP and Ethernet headers); over the
whole run, when it reached the level that fits for good (papers/003's convergence: never below
it afterwards); per TCP/UDP flow its throughput and share. Per run, papers/003 §5's
steady-state loss: what the bottleneck dropped from the steady mark on (the shaper's counters at
the mark and at the end; in ns-3 the session's packets alone, on the testbed every packet the
tbf saw), which also counts a layer's packets still forwarded while its leave propagates and
lost by nobody who holds it. RUN/metrics.json, OUT/comparison.md.
tools/sim/amcast-sim evaluates its layered runs with the same functions.
"""
import json
import os
import statistics
import subprocess
import sys
import time

from . import analysis, scenario, traffic
from .netns import Topology

ADDRESS, PORT = "239.1.3.1", 5100      # layer i: ADDRESS + i, PORT + 2 i (clear of flows' 5301+)
LEAD_S, RX_LEAD_S, TAIL_S = 3.0, 1.5, 2.0
WIRE_EXTRA = 24 + 8 + 20 + 14          # the stamp extension, UDP, IP, Ethernet (what tbf counts)
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE = os.path.join(HERE, "amcast-layered-node")
LAYER_DEFAULTS = {"channels": 9, "b1_bps": 256000, "factor": 1.5, "period_ms": 100,
                  "packet_size": 1000}


def log(msg):
    print(f"[amcast-scenario] {msg}", file=sys.stderr, flush=True)


def layers_of(sc):
    return {**LAYER_DEFAULTS, **sc.get("layers", {})}


def cum_rates(ly):
    out = [float(ly["b1_bps"])]
    for _ in range(1, int(ly["channels"])):
        out.append(out[-1] * float(ly["factor"]))
    return out


def node_cmd(role, ly, run, topo, host, dur, protocol=None, name=None, mark=None):
    argv = [NODE, role, "--run", run, "--iface", topo.iface(host), "--duration", f"{dur:.2f}",
            "--address", ADDRESS, "--port", PORT, "--channels", ly["channels"],
            "--b1", ly["b1_bps"], "--factor", ly["factor"]]
    if role == "send":
        argv += ["--period", ly["period_ms"], "--packet-size", ly["packet_size"]]
    else:
        argv += ["--protocol", protocol, "--name", name, "--mark-at", f"{mark:.3f}"]
    return [str(x) for x in argv]


def json_lines(path):
    out = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("{"):
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def host_ports(topo):
    """(router, interface) of every bridge port that faces a host."""
    out = []
    for ln in topo.links:
        for x, y in ((ln["a"], ln["b"]), (ln["b"], ln["a"])):
            if topo.nodes[x]["kind"] == "router" and topo.nodes[y]["kind"] == "host":
                out.append((x, topo.nodes[x]["ifaces"][y]))
    return out


def run_one(sc, protocol, run, scale, cmdline, env):
    """One run of a layered protocol in RUN; True when every node exited 0."""
    os.makedirs(os.path.join(run, "logs"), exist_ok=True)
    ly = layers_of(sc)
    dur = sc["duration_s"] * scale
    steady = sc.get("steady_from_s", sc["duration_s"] * 0.25) * scale
    rxs = [{"name": r["name"], "host": r.get("host", r["name"]),
            "join_s": float(r.get("join_s", 0)) * scale,
            "leave_s": float(r.get("leave_s", sc["duration_s"])) * scale} for r in sc["receiver"]]
    topo = Topology(log_dir=os.path.join(run, "logs"))
    nodes, ok, qdisc_mark = [], True, None
    try:
        scenario.build_topology(sc, topo).build()
        if "last_member_interval_cs" in ly:
            for r in sc.get("routers", []):
                topo.exec(r, ["ip", "link", "set", "br0", "type", "bridge",
                              "mcast_last_member_interval", str(int(ly["last_member_interval_cs"]))])
        if ly.get("fast_leave"):
            for x, ifn in host_ports(topo):
                topo.exec(x, ["bridge", "link", "set", "dev", ifn, "fastleave", "on"])
        topo.wait_snooping()
        t0 = time.time() + LEAD_S
        fs = scenario.fair_shares(sc)
        meta = {"scenario": sc["name"], "title": sc.get("title"), "paper": sc.get("paper"),
                "protocol": protocol, "duration_s": dur, "t0": t0, "short_scale": scale,
                "steady_from_s": steady, "command": cmdline, "address": ADDRESS, "port": PORT,
                "layers": ly, "layer_rates_bps": cum_rates(ly), "receivers": rxs,
                "flows": traffic.describe(sc.get("flow", []), dur, scale),
                "topology": topo.describe(), "fair_share": fs,
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        with open(os.path.join(run, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        flows = traffic.start_flows(topo, sc.get("flow", []), run, t0, dur, scale)
        events = [(t0, "send", None), (t0 + steady, "mark", None)] + \
            [(t0 + r["join_s"] - RX_LEAD_S, "recv", r) for r in rxs]
        events.sort(key=lambda e: e[0])
        log(f"{protocol}: t0 in {LEAD_S:.0f} s, {dur:.0f} s, {len(rxs)} layered receivers, "
            f"{len(sc.get('flow', []))} flows; run directory {run}")
        for when, role, r in events:
            d = when - time.time()
            if d > 0:
                time.sleep(d)
            if role == "mark":
                qdisc_mark = topo.qdisc_stats()
            elif role == "send":
                argv = node_cmd("send", ly, run, topo, sc["sender"], dur)
                nodes.append(("sender", topo.run(sc["sender"], argv, env=env,
                                                 log=os.path.join(run, "logs", "sender.log"))))
            else:
                end = t0 + r["leave_s"] + (TAIL_S if r["leave_s"] >= dur else 0)
                argv = node_cmd("recv", ly, run, topo, r["host"], end - time.time(), protocol,
                                r["name"], t0 + max(steady, r["join_s"]))
                nodes.append((r["name"], topo.run(r["host"], argv, env=env,
                                                  log=os.path.join(run, "logs", f"rx-{r['name']}.log"))))
        deadline = t0 + dur + TAIL_S + 30
        for name, p in nodes:
            try:
                p.wait(max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                log(f"{name} did not stop by itself: stopping it")
                Topology.stop(p)
        for f, sink, snd in flows:
            for p in (snd, sink):
                if p is not None:
                    try:
                        p.wait(max(1, t0 + dur + 5 - time.time()))
                    except subprocess.TimeoutExpired:
                        Topology.stop(p)
        qdisc = topo.qdisc_stats()
    finally:
        topo.teardown()
    results = {"qdisc": qdisc, "qdisc_steady_mark": qdisc_mark}
    for name, p in nodes:
        lines = json_lines(os.path.join(run, "logs", ("sender" if name == "sender" else f"rx-{name}") + ".log"))
        res = next((x["result"] for x in reversed(lines) if "result" in x), None)
        results[name] = {"exit": p.returncode, "summary": res}
        if p.returncode != 0 or res is None or res.get("errors"):
            ok = False
            log(f"{protocol}: {name} exited {p.returncode}, summary {res}")
    with open(os.path.join(run, "nodes.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    m = evaluate(run)
    log(f"{protocol}: " + ", ".join(f"{k} mean {v['mean_level']:.2f} layers, final {v['final_level']}"
                                    for k, v in m["receivers"].items() if v["mean_level"] is not None))
    return ok


def timeline(changes, t_join, t_end):
    """[(a, b, level)] from the layer changes (level 1 from the join)."""
    out, t, lv = [], t_join, 1
    for c in changes:
        out.append((t, c["t"], lv))
        t, lv = c["t"], c["to"]
    out.append((t, t_end, lv))
    return out


def level_stats(spans, a, b):
    tot = {lv: 0.0 for _, _, lv in spans}
    for x, y, lv in spans:
        tot[lv] += max(0.0, min(y, b) - max(x, a))
    span = b - a
    mean = sum(lv * d for lv, d in tot.items()) / span if span > 0 else None
    return mean, {lv: round(100 * d / span, 1) for lv, d in sorted(tot.items()) if d > 0}


def wire_factor(ly):
    """Bytes on the link per byte of the channels' packets (packet_size includes RTP's 12)."""
    return (float(ly["packet_size"]) + WIRE_EXTRA) / float(ly["packet_size"])


def converged_at(spans, fits):
    """When the level reached `fits` for good: the end of the last span below it (None when the
    run ends below it)."""
    low = [b for a, b, lv in spans if lv < fits]
    if spans and spans[-1][2] < fits:
        return None
    return max(low) if low else spans[0][0]


def session_convergence(m, meta):
    """papers/003 §4's convergence of a run (metrics `m`): from the last join until every
    receiver holds the level that fits it for good; None when one never does."""
    joins = {r["name"]: r["join_s"] for r in meta["receivers"]}
    conv = {k: v["converged_s"] for k, v in m["receivers"].items()}
    if not conv or None in conv.values():
        return None
    return max(0.0, max(c + joins[k] for k, c in conv.items()) - max(joins.values()))


def layer_counts(stats, n):
    pk = sum(int(stats.get(f"packets-{i}", 0)) for i in range(n))
    lost = sum(int(stats.get(f"lost-{i}", 0)) for i in range(n))
    return pk, lost


def receiver(run, meta, r, win):
    t0, n = meta["t0"], int(meta["layers"]["channels"])
    lines = json_lines(os.path.join(run, "logs", f"rx-{r['name']}.log"))
    changes = [{"t": x["layers"]["t"] - t0, "to": x["layers"]["to"]} for x in lines if "layers" in x]
    res = next((x["result"] for x in reversed(lines) if "result" in x), {}) or {}
    mark = next((x["mark"] for x in lines if "mark" in x), None)
    spans = timeline(changes, r["join_s"], min(r["leave_s"], meta["duration_s"]))
    mean, at = level_stats(spans, *win)
    st = res.get("stats", {})
    pk1, lost1 = layer_counts(st, n)
    pk0, lost0 = layer_counts(mark or {}, n) if mark else (0, 0)
    dp, dl = pk1 - pk0, lost1 - lost0
    nbytes = 0
    try:
        with open(os.path.join(run, f"rx-{r['name']}", "rd.txt")) as f:
            for line in f:
                p = line.split()
                if len(p) >= 5 and win[0] <= float(p[0]) - t0 < win[1]:
                    nbytes += int(p[4])
    except (OSError, ValueError):
        pass
    thr = 8 * nbytes / (win[1] - win[0]) if win[1] > win[0] else None
    entry = meta["fair_share"]["receivers"][r["name"]]
    fs = analysis.active_fair_share(meta, entry, [win])
    rates, wf = meta["layer_rates_bps"], wire_factor(meta["layers"])
    fits = max([i + 1 for i, b in enumerate(rates) if fs is None or b * wf <= fs] or [0])
    conv = converged_at(spans, fits) if fits else None
    # a testbed receiver starts RX_LEAD_S before its join time and may hold the level by then: 0
    return {"mean_level": mean, "time_at_level_pct": at, "final_level": spans[-1][2],
            "converged_s": max(0.0, conv - r["join_s"]) if conv is not None else None,
            "changes": len(changes), "adds": st.get("adds"), "drops": st.get("drops"),
            "steady_packets": dp, "steady_lost": dl,
            "steady_loss_pct": 100 * dl / (dp + dl) if dp + dl > 0 else None,
            "run_loss_pct": 100 * lost1 / (pk1 + lost1) if pk1 + lost1 > 0 else None,
            "throughput_bps": thr, "fair_share_bps": fs, "level_fitting_fair_share": fits,
            "fair_share_pct": 100 * thr / fs if thr and fs else None,
            "bottleneck_bps": entry.get("rate_bps")}


def bottleneck_loss(run):
    """papers/003 §5's steady-state loss at the shaped queues, from the steady mark on: the one
    that dropped most as {"queue", "arrived", "dropped", "pct", "counts"}, with "queues" {name:
    [arrived, dropped]} of every one that passed packets. counts: "session" (ns-3: the session's
    packets) or "all" (testbed tbf: every packet, a competing flow's too). None without counters."""
    try:
        nodes = json.load(open(os.path.join(run, "nodes.json")))
    except (OSError, ValueError):
        return None
    summ = (nodes.get("sim") or {}).get("summary") or {}
    qs = {}
    if summ.get("queues_steady"):
        qs = {k: (v["video"][0], v["video"][1], "session")
              for k, v in summ["queues_steady"].items()}
    elif nodes.get("qdisc") and nodes.get("qdisc_steady_mark"):
        for k, end in nodes["qdisc"].items():
            mk = nodes["qdisc_steady_mark"].get(k)
            try:
                d = end["drops"] - mk["drops"]
                qs[k] = (end["packets"] - mk["packets"] + d, d, "all")
            except (TypeError, KeyError):
                pass                    # a link tc could not read at either end
    qs = {k: v for k, v in qs.items() if v[0] > 0}
    if not qs:
        return None
    k = max(qs, key=lambda k: (qs[k][1], qs[k][0]))
    a, d, what = qs[k]
    return {"queue": k, "arrived": a, "dropped": d, "pct": 100 * d / a, "counts": what,
            "queues": {q: [v[0], v[1]] for q, v in sorted(qs.items())}}


def evaluate(run):
    meta = analysis.load_meta(run)
    t0, dur = meta["t0"], meta["duration_s"]
    steady = (meta["steady_from_s"], dur)
    out = {"protocol": meta["protocol"], "scenario": meta["scenario"], "steady_window_s": steady,
           "layer_rates_bps": meta["layer_rates_bps"], "receivers": {}, "flows": {}}
    for r in meta["receivers"]:
        win = (max(steady[0], r["join_s"]), min(steady[1], r["leave_s"]))
        out["receivers"][r["name"]] = receiver(run, meta, r, win)
    for f in meta["flows"]:
        factor = analysis.TCP_WIRE_FACTOR if f["kind"].startswith("tcp") else 1.0
        periods = analysis.clip(f["on_periods_s"], steady)
        thr = analysis.flow_throughput(run, f["name"], t0, periods, factor)
        fs = analysis.active_fair_share(meta, meta["fair_share"]["flows"][f["name"]], periods)
        out["flows"][f["name"]] = {"kind": f["kind"], "throughput_bps": thr, "fair_share_bps": fs,
                                   "fair_share_pct": 100 * thr / fs if thr and fs else None}
    out["bottleneck_loss"] = bottleneck_loss(run)
    with open(os.path.join(run, "metrics.json"), "w") as f:
        json.dump(out, f, indent=1)
    return out


def _k(v, nd=0):
    return "–" if v is None else f"{v / 1e3:.{nd}f}"


def _p(v, nd=1):
    return "–" if v is None else f"{v:.{nd}f} %"


def comparison_md(runs, paper, title):
    lines = [f"## {title}", ""]
    for p, run in runs.items():
        m = evaluate(run)
        rates = ", ".join(f"{b / 1e3:g}" for b in m["layer_rates_bps"])
        lines += [f"### {p}", "", f"Cumulative layer rates (kbit/s): {rates}; steady window "
                  f"{m['steady_window_s'][0]:.0f}-{m['steady_window_s'][1]:.0f} s.", "",
                  "| receiver | bottleneck kbit/s | fair share kbit/s | level fitting it | final "
                  "level | mean level | time at levels | changes | at the fitting level for good "
                  "| loss (steady, layers held) | throughput kbit/s | % of fair share |", "| --- " * 12 + "|"]
        for name, v in m["receivers"].items():
            at = ", ".join(f"{lv}: {pc:g} %" for lv, pc in v["time_at_level_pct"].items())
            mean = "–" if v["mean_level"] is None else f"{v['mean_level']:.2f}"
            loss = _p(v["steady_loss_pct"], 2) + (f" ({v['steady_lost']} of "
                                                  f"{v['steady_packets'] + v['steady_lost']})")
            conv = "never" if v["converged_s"] is None else f"{v['converged_s']:.1f} s after join"
            lines.append(f"| {name} | {_k(v['bottleneck_bps'])} | {_k(v['fair_share_bps'])} | "
                         f"{v['level_fitting_fair_share']} | {v['final_level']} | {mean} | {at} | "
                         f"{v['changes']} | {conv} | {loss} | {_k(v['throughput_bps'])} | "
                         f"{_p(v['fair_share_pct'], 0)} |")
        meta = analysis.load_meta(run)
        conv = session_convergence(m, meta)
        if conv is not None:
            last_join = max(r["join_s"] for r in meta["receivers"])
            lines += ["", f"Convergence (papers/003 §4: from the last join, {last_join:.1f} s, "
                      f"until every receiver holds the level that fits it for good): "
                      f"{conv:.1f} s."]
        bl = m.get("bottleneck_loss")
        if bl:
            what = "the session's packets" if bl["counts"] == "session" else \
                "every packet, a competing flow's too"
            per = "; ".join(f"{q} {100 * d / a:.2f} % ({d} of {a})"
                            for q, (a, d) in bl["queues"].items())
            lines += ["", f"Steady-state loss at the bottlenecks (papers/003 §5: dropped from the "
                      f"steady mark on, {what}, layers being left included): {per}."]
        if m["flows"]:
            lines += ["", "| flow | kind | throughput kbit/s | fair share kbit/s | % of fair share |",
                      "| --- | --- | --- | --- | --- |"]
            for name, v in m["flows"].items():
                lines.append(f"| {name} | {v['kind']} | {_k(v['throughput_bps'])} | "
                             f"{_k(v['fair_share_bps'])} | {_p(v['fair_share_pct'], 0)} |")
        lines.append("")
        for k, v in paper.get(p, {}).items():
            lines.append(f"- paper: {k}: {v}")
        lines.append("")
    return "\n".join(lines)


def run_all(sc, protos, out, scale, cmdline, env, short):
    ok, runs = True, {}
    for p in protos:
        run = os.path.join(out, p) if len(protos) > 1 else out
        ok = run_one(sc, p, run, scale, cmdline, env) and ok
        runs[p] = run
    title = f"{sc.get('title', sc['name'])} ({'short' if short else 'full'} run)"
    md = comparison_md(runs, sc.get("paper_numbers", {}), title)
    with open(os.path.join(out, "comparison.md"), "w") as f:
        f.write(md + f"\nCommand: `{cmdline}`\n")
    print(md)
    return ok

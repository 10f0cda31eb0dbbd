"""RMANP trees on the testbed (papers/004): a file from a source through rmanprelays to
rmanpsrc receivers, built from a scenario file (amcast-scenario FILE --protocol rmanp).

The file is an ordinary scenario (scenario.py: routers, hosts, [[link]], [[receiver]], [[flow]])
plus the tree:
  sender = "HOST"              the source (filesrc ! rmanpsink)
  [[relay]] name, host (= name), parent (the sender's host or a relay's name)
                               an rmanprelay on a host linked to exactly two routers: the
                               segment of its parent (upstream) and its own (downstream)
  [[receiver]] ..., parent     rmanpsrc ! filesink on a host of its parent's downstream segment
                               (default parent: the sender)
  file_bytes                   the random file sent (--short: times short_scale)
  duration_s                   the bound: the source must be done by then (scaled by --short)
  [rmanp] min_rate_bps, packet_size, cache_packets, queue_packets, stats_ms
                               element properties (min-rate, ...) on every node that has them
  [measure] settle_s (5)       a TCP flow's first seconds left out of the shared phase
Every node gets auth-key = the run's group key (AMCAST_SRTP_KEY in env, as amcast-scenario sets
it; none without): RMANP's packets tagged and checked (gst/common/gstamrmanp.c). gst-launch
takes it on its command line (the namespaces share the machine's process list).
A segment is a set of routers joined by router-router links; segments are joined only by
relays (a relay's two interfaces; Topology.route_hosts gives each its /32 routes), never by a
router link or another host, so everything reaching a segment passed a relay.
Run directory: meta.json, nodes.json (exit and last stats message of every node, tbf
counters), metrics.json, report.md, logs/ (NODE.log: gst-launch -m stdout, each line prefixed
with the time it was read), flows/NAME.csv, in.bin and rx-NAME.bin.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time

from . import analysis, scenario, traffic
from .netns import Topology

GROUP_BASE, PORT_BASE = "239.1.4", 5200     # source: .1/5200, relay i: .(i+2)/5200+2(i+1)
PARAMS = {"min_rate_bps": ("min-rate", ("src", "relay")),
          "packet_size": ("packet-size", ("src", "relay", "rx")),
          "cache_packets": ("cache-packets", ("relay",)),
          "queue_packets": ("queue-packets", ("relay",))}
STATS_MS = 500
SETTLE_S = 5.0
LEAD_S = 1.0        # after the bridges filter: the relays and receivers have joined
RX_EXIT_S = 15      # receivers linger (2 s) after the stream is complete, then EOS
FIELD = re.compile(r'([a-z-]+)=\((?:[a-z0-9]+)\)([^,;]+)')
ELEMENT = {"src": "rmanpsink", "relay": "rmanprelay", "rx": "rmanpsrc"}
KEY_ENV = "AMCAST_SRTP_KEY"     # the run's group key: every node's auth-key


def log(msg):
    print(f"[amcast-scenario] {msg}", file=sys.stderr, flush=True)


# ---- gst-launch -m logs ----------------------------------------------------------------------
def last_stats(path, name):
    """The last `name` element message gst-launch -m printed, as a dict of numbers."""
    last = None
    try:
        with open(path, errors='replace') as f:
            for line in f:
                if f'{name}, ' in line:
                    last = line
    except OSError:
        return {}
    out = {}
    for k, v in FIELD.findall(last.split(f'{name}, ', 1)[1]) if last else ():
        try:
            out[k] = float(v)
        except ValueError:
            out[k] = v
    return out


def series(path, name, key):
    """[(time, value)] of `key` in every `name` message of a log written by run_stamped."""
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            if f'{name}, ' not in line:
                continue
            fields = dict(FIELD.findall(line.split(f'{name}, ', 1)[1]))
            if key in fields:
                out.append((float(line.split(' ', 1)[0]), float(fields[key])))
    return out


def at(ser, t):
    """A cumulative series' value at time t (linear between samples, clamped at the ends)."""
    if not ser:
        return 0.0
    if t <= ser[0][0]:
        return ser[0][1]
    for (t0, v0), (t1, v1) in zip(ser, ser[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1
    return ser[-1][1]


def sha256(path):
    h = hashlib.sha256()
    try:
        with open(path, 'rb') as f:
            for chunk in iter(lambda: f.read(1 << 20), b''):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def run_stamped(t, node, argv, path, env):
    """Start argv in node's namespace; each stdout line goes to `path` prefixed with time.time()
    (gst-launch -m prints the stats messages without a time); stderr to path + '.err'."""
    p = t.run_ns(t.ns(node), argv, log=path + '.err', env=env, pipe_stdout=True)

    def pump():
        with open(path, 'w') as f:
            for line in p.stdout:
                f.write(f'{time.time():.3f} {line}')
                f.flush()
    threading.Thread(target=pump, daemon=True).start()
    return p


# ---- the tree ----------------------------------------------------------------------------------
def segments(sc):
    """{router: segment id}: routers joined by router-router links share a segment."""
    routers = set(sc.get("routers", []))
    seg = {r: r for r in routers}

    def find(x):
        while seg[x] != x:
            x = seg[x]
        return x
    for ln in sc["link"]:
        if ln["a"] in routers and ln["b"] in routers:
            seg[find(ln["a"])] = find(ln["b"])
    return {r: find(r) for r in routers}


def tree(sc):
    """The session's tree, validated: {"relays": [{name, host, parent, up, down}] parents
    first, "receivers": [{name, host, parent}], "segment_hosts": {segment: [hosts]},
    "children": {node: n}}; up/down are the relay's routers toward its parent's and its own
    segment. Raises ValueError naming what is wrong."""
    seg = segments(sc)
    routers_of = {}
    for ln in sc["link"]:
        for x, y in ((ln["a"], ln["b"]), (ln["b"], ln["a"])):
            if x in sc["hosts"]:
                if y not in seg:
                    raise ValueError(f"link {x}-{y}: RMANP trees link hosts to routers only")
                routers_of.setdefault(x, []).append(y)
    relays = {r["name"]: dict(r, host=r.get("host", r["name"])) for r in sc.get("relay", [])}
    src = sc["sender"]
    if src in relays or len(relays) != len(sc.get("relay", [])):
        raise ValueError("relay names must be unique and differ from the sender's host")
    down = {src: None}          # node -> its downstream segment
    for h, rs in routers_of.items():
        if h not in {r["host"] for r in relays.values()} and len({seg[x] for x in rs}) > 1:
            raise ValueError(f"host {h} joins two segments: only a relay may")
    if len(routers_of.get(src, [])) != 1:
        raise ValueError(f"sender {src}: needs exactly one link, to a router")
    down[src] = seg[routers_of[src][0]]
    ordered, todo = [], dict(relays)
    while todo:                 # parents before children; a cycle or unknown parent stops it
        ready = [r for r in todo.values() if r.get("parent") in down]
        if not ready:
            bad = sorted(todo)
            raise ValueError(f"relays {bad}: parent unknown or a cycle (parent: the sender's "
                             f"host or a relay)")
        for r in ready:
            rs = routers_of.get(r["host"], [])
            if len(rs) != 2 or seg[rs[0]] == seg[rs[1]]:
                raise ValueError(f"relay {r['name']}: its host needs two links, to routers of "
                                 "two segments")
            up = [x for x in rs if seg[x] == down[r["parent"]]]
            if not up:
                raise ValueError(f"relay {r['name']}: no link into its parent "
                                 f"{r['parent']}'s segment")
            r["up"], r["down"] = up[0], next(x for x in rs if x != up[0])
            down[r["name"]] = seg[r["down"]]
            ordered.append(r)
            del todo[r["name"]]
    rxs, children = [], {n: 0 for n in down}
    for r in ordered:
        children[r["parent"]] += 1
    for r in sc["receiver"]:
        x = {"name": r["name"], "host": r.get("host", r["name"]), "parent": r.get("parent", src)}
        if x["parent"] not in down:
            raise ValueError(f"receiver {x['name']}: parent {x['parent']!r} is neither the "
                             "sender nor a relay")
        rs = routers_of.get(x["host"], [])
        if len(rs) != 1 or seg[rs[0]] != down[x["parent"]]:
            raise ValueError(f"receiver {x['name']}: its host must have one link, into "
                             f"{x['parent']}'s downstream segment")
        children[x["parent"]] += 1
        rxs.append(x)
    hosts = {}
    for h, rs in routers_of.items():
        for x in rs:
            hosts.setdefault(seg[x], set()).add(h)
    return {"relays": ordered, "receivers": rxs, "children": children,
            "segment_hosts": {s: sorted(v) for s, v in hosts.items()}, "segment": seg}


def groups(sc, t):
    """{node: (group, port)}: the source's (keyed by its host) and each relay's own group."""
    out = {sc["sender"]: (f"{GROUP_BASE}.1", PORT_BASE)}
    for i, r in enumerate(t["relays"]):
        out[r["name"]] = (f"{GROUP_BASE}.{i + 2}", PORT_BASE + 2 * (i + 1))
    return out


def props(sc, role, env=None):
    p = sc.get("rmanp", {})
    out = [f"stats-interval={int(p.get('stats_ms', STATS_MS))}"]
    for k, (prop, roles) in PARAMS.items():
        if k in p and role in roles:
            out.append(f"{prop}={int(p[k])}")
    if (env or {}).get(KEY_ENV):
        out.append(f"auth-key={env[KEY_ENV]}")
    return out


def check_file(sc):
    """What only an RMANP run needs of the file (tree() checks the topology)."""
    bad = set(sc.get("rmanp", {})) - set(PARAMS) - {"stats_ms"}
    if bad:
        raise ValueError(f"[rmanp]: unknown keys {sorted(bad)} (known: "
                         f"{sorted(set(PARAMS) | {'stats_ms'})})")
    if not isinstance(sc.get("file_bytes"), int) or sc["file_bytes"] <= 0:
        raise ValueError("file_bytes: a positive integer (the size of the file sent)")
    if len(sc.get("relay", [])) > 40:       # their ports 5202-5280 stay below the flows' 5301+
        raise ValueError("at most 40 relays (one group and port each)")
    tree(sc)


# ---- a run ---------------------------------------------------------------------------------
def run(sc, out, scale, cmdline, env, git_head=None):
    """One RMANP run of scenario sc into directory `out`; returns metrics (metrics.json)."""
    t = tree(sc)
    gr = groups(sc, t)
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    dur = sc["duration_s"] * scale
    nbytes = max(1, int(sc["file_bytes"] * scale))
    src_file = os.path.join(out, "in.bin")
    with open(src_file, "wb") as f:
        f.write(os.urandom(nbytes))
    flows = sc.get("flow", [])
    stamped = {}                      # node -> log path
    procs = {}
    stopped = set()                   # source/receivers that had to be stopped: their exit
                                      # code (gst-launch on SIGINT: 0) says nothing
    topo = Topology(log_dir=logs)
    qdisc, took, t0 = None, None, None
    try:
        scenario.build_topology(sc, topo).build()
        # each relay answers each of its segments out of the interface on it
        for r in t["relays"]:
            for router in (r["up"], r["down"]):
                far = [h for h in t["segment_hosts"][t["segment"][router]] if h != r["host"]]
                topo.route_hosts(r["host"], router, far)
        topo.wait_snooping()
        for i, r in enumerate(t["relays"]):
            (pa, pp), (ga, gp) = gr[r["parent"]], gr[r["name"]]
            stamped[r["name"]] = os.path.join(logs, f"{r['name']}.log")
            procs[r["name"]] = run_stamped(topo, r["host"], [
                "gst-launch-1.0", "-m", "rmanprelay", f"parent-address={pa}",
                f"parent-port={pp}", f"parent-iface={topo.iface(r['host'], r['up'])}",
                f"address={ga}", f"port={gp}",
                f"multicast-iface={topo.iface(r['host'], r['down'])}", f"node={i + 1}",
                *props(sc, "relay", env)], stamped[r["name"]], env)
        for i, x in enumerate(t["receivers"]):
            ga, gp = gr[x["parent"]]
            stamped[x["name"]] = os.path.join(logs, f"{x['name']}.log")
            procs[x["name"]] = run_stamped(topo, x["host"], [
                "gst-launch-1.0", "-m", "rmanpsrc", f"address={ga}", f"port={gp}",
                f"multicast-iface={topo.iface(x['host'])}", f"node={1000 + i}",
                *props(sc, "rx", env), "!", "filesink",
                f"location={os.path.join(out, 'rx-' + x['name'] + '.bin')}"],
                stamped[x["name"]], env)
        time.sleep(LEAD_S)
        t0 = time.time()
        meta = {"scenario": sc["name"], "title": sc.get("title"), "paper": sc.get("paper"),
                "protocol": "rmanp", "t0": t0, "short_scale": scale, "bound_s": dur,
                "file_bytes": nbytes, "command": cmdline, "git_head": git_head,
                "groups": {k: list(v) for k, v in gr.items()},
                "relays": [{k: r[k] for k in ("name", "host", "parent", "up", "down")}
                           for r in t["relays"]],
                "receivers": t["receivers"], "children": t["children"],
                "flows": traffic.describe(flows, dur, scale), "topology": topo.describe(),
                "fair_share": scenario.fair_shares(sc),
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        started = traffic.start_flows(topo, flows, out, t0, dur, scale)
        ga, gp = gr[sc["sender"]]
        stamped["src"] = os.path.join(logs, "src.log")
        log(f"rmanp: {nbytes} bytes, {len(t['relays'])} relays, {len(t['receivers'])} "
            f"receivers, {len(flows)} flows, bound {dur:.0f} s; run directory {out}")
        procs["src"] = src = run_stamped(topo, sc["sender"], [
            "gst-launch-1.0", "-m", "filesrc", f"location={src_file}", "!", "rmanpsink",
            f"address={ga}", f"port={gp}", f"multicast-iface={topo.iface(sc['sender'])}",
            *props(sc, "src", env)], stamped["src"], env)
        try:
            # done = exit 0 after every byte was ACKed; an early failure is no transfer time
            if src.wait(dur) == 0:
                took = time.time() - t0
        except subprocess.TimeoutExpired:
            log(f"rmanp: the source was not done within {dur:.0f} s: stopping it")
            Topology.stop(src)
            stopped.add("src")
        for x in t["receivers"]:
            p = procs[x["name"]]
            try:
                p.wait(RX_EXIT_S)
            except subprocess.TimeoutExpired:
                log(f"rmanp: {x['name']} did not reach EOS: stopping it")
                Topology.stop(p)
                stopped.add(x["name"])
        qdisc = topo.qdisc_stats()
        for r in t["relays"]:
            Topology.stop(procs[r["name"]])
        for _f, sink, snd in started:
            for p in (snd, sink):
                if p is not None:
                    Topology.stop(p)
    finally:
        topo.teardown()
    exits = {n: "stopped" if n in stopped else p.returncode for n, p in procs.items()}
    return evaluate(sc, t, out, t0, took, nbytes, scale, exits, stamped, qdisc, cmdline)


RELAY_KEYS = ("forwarded", "cache-hits", "cache-misses", "retransmitted", "nacks-received",
              "nacks-sent", "ci-received", "ci-sent", "reactions", "gaps", "overflows",
              "queue-peak", "children", "auth-rejected")
RX_KEYS = ("bytes", "gaps", "nacks-sent", "duplicates", "ci-sent", "acks-sent", "auth-rejected")
SRC_KEYS = ("rate", "sent", "retransmitted", "ci-received", "reactions", "ack-timeouts",
            "auth-rejected")


def _pick(st, keys):
    return {k: st.get(k, 0) for k in keys}


def shared_phases(sc, t, out, meta_flows, t0, took, settle, goodput):
    """Per flow that crosses a link of the session: its throughput and the session's (the
    fastest receiver behind that link: bytes delivered in order) over the shared phase, from
    settle s after the flow starts to the end of the flow or of the transfer."""
    fs = scenario.fair_shares(sc)
    rows = {}
    for f in meta_flows:
        link = fs["flows"].get(f["name"], {}).get("bottleneck")
        if not link or not f["on_periods_s"] or took is None:
            continue
        behind = [x["name"] for x in t["receivers"]
                  if tuple(link) in scenario.hops(sc, sc["sender"], x["host"])]
        if not behind:
            continue
        a0, b0 = f["on_periods_s"][0][0], f["on_periods_s"][-1][1]
        a, b = t0 + a0 + settle, t0 + min(b0, took)
        row = {"bottleneck": f"{link[0]}>{link[1]}", "rate_bps": fs["flows"][f["name"]]["rate_bps"],
               "phase_s": [round(a - t0, 1), round(b - t0, 1)], "receivers": behind}
        if b - a >= 5:
            rm = max((at(goodput[n], b) - at(goodput[n], a)) * 8 / (b - a) for n in behind)
            fl = analysis.flow_throughput(out, f["name"], t0, [(a - t0, b - t0)])
            row.update({"rmanp_bps": rm, "flow_bps": fl})
        rows[f["name"]] = row
    return rows


def evaluate(sc, t, out, t0, took, nbytes, scale, exits, stamped, qdisc, cmdline=""):
    want = sha256(os.path.join(out, "in.bin"))
    nodes = {"qdisc": qdisc}
    m = {"file_bytes": nbytes, "sha256": want, "took_s": None if took is None else round(took, 2),
         "payload_bps": nbytes * 8 / took if took else None, "receivers": {}, "relays": {},
         "flows": {}}
    src = last_stats(stamped.get("src", ""), "rmanpsink-stats")
    nodes["src"] = {"exit": exits.get("src"), "stats": src}
    m["source"] = {"exit": nodes["src"]["exit"], **_pick(src, SRC_KEYS)}
    goodput = {}
    for x in t["receivers"]:
        n = x["name"]
        st = last_stats(stamped.get(n, ""), "rmanpsrc-stats")
        got = sha256(os.path.join(out, f"rx-{n}.bin"))
        goodput[n] = series(stamped[n], "rmanpsrc-stats", "bytes") if n in stamped else []
        done = next((ts for ts, v in goodput[n] if v >= nbytes), None)
        nodes[n] = {"exit": exits.get(n), "stats": st}
        m["receivers"][n] = {"parent": x["parent"], "exit": nodes[n]["exit"], "sha256": got,
                             "identical": got == want and got is not None,
                             "complete_s": round(done - t0, 2) if done and t0 else None,
                             **_pick(st, RX_KEYS)}
    for r in t["relays"]:
        n = r["name"]
        st = last_stats(stamped.get(n, ""), "rmanprelay-stats")
        nodes[n] = {"exit": exits.get(n), "stats": st}
        m["relays"][n] = {"parent": r["parent"], "expected_children": t["children"][n],
                          "repaired": st.get("cache-hits", 0) > 0
                          and st.get("retransmitted", 0) > 0, **_pick(st, RELAY_KEYS)}
    if t0 is not None:
        settle = float(sc.get("measure", {}).get("settle_s", SETTLE_S))
        fl = traffic.describe(sc.get("flow", []), sc["duration_s"] * scale, scale)
        m["flows"] = shared_phases(sc, t, out, fl, t0, took, settle, goodput)
        for row in m["flows"].values():
            if row.get("flow_bps"):
                row["ratio"] = row["rmanp_bps"] / row["flow_bps"]
                row["use_pct"] = 100 * (row["rmanp_bps"] + row["flow_bps"]) / row["rate_bps"]
    m["ok"] = bool(took is not None and m["source"]["exit"] == 0 and all(
        v["identical"] and v["exit"] == 0 for v in m["receivers"].values()))
    with open(os.path.join(out, "nodes.json"), "w") as f:
        json.dump(nodes, f, indent=1)
    with open(os.path.join(out, "metrics.json"), "w") as f:
        json.dump(m, f, indent=1)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(report_md(sc, m, scale, cmdline))
    return m


def _k(v):
    return "–" if v is None else f"{v / 1e3:.0f}"


def _s(v, fmt, unit=""):
    return "–" if v is None else f"{v:{fmt}}{unit}"


def report_md(sc, m, scale, cmdline):
    title = sc.get("title", sc["name"])
    took = m["took_s"]
    lines = [f"# {title} (RMANP, {'short' if scale < 1 else 'full'} run)", "",
             f"{m['file_bytes']} bytes: " + (f"done in {took:.1f} s, {_k(m['payload_bps'])} "
                                             "kbit/s of payload" if took else "NOT done")
             + "; every receiver's file identical to the source's: "
             f"{'yes' if all(v['identical'] for v in m['receivers'].values()) else 'NO'}.", "",
             "| receiver | parent | sha256 = source | complete at | gaps | NACKs sent | exit |",
             "|---|---|---|---|---|---|---|"]
    for n, v in m["receivers"].items():
        lines.append(f"| {n} | {v['parent']} | {'yes' if v['identical'] else 'NO'} | "
                     f"{_s(v['complete_s'], '.1f', ' s')} | "
                     f"{v['gaps']:.0f} | {v['nacks-sent']:.0f} | {v['exit']} |")
    lines += ["", "| relay | parent | children (expected) | cache hits | cache misses | "
              "retransmitted | NACKs up | CIs up | queue peak |",
              "|---|---|---|---|---|---|---|---|---|"]
    for n, v in m["relays"].items():
        lines.append(f"| {n} | {v['parent']} | {v['children']:.0f} ({v['expected_children']}) | "
                     f"{v['cache-hits']:.0f} | {v['cache-misses']:.0f} | "
                     f"{v['retransmitted']:.0f} | {v['nacks-sent']:.0f} | {v['ci-sent']:.0f} | "
                     f"{v['queue-peak']:.0f} |")
    s = m["source"]
    lines += ["", f"Source: rate at the end {_k(s['rate'])} kbit/s, sent {s['sent']:.0f}, "
              f"retransmitted {s['retransmitted']:.0f}, CIs received {s['ci-received']:.0f}, "
              f"ACK timeouts {s['ack-timeouts']:.0f}, exit {s['exit']}."]
    if m["flows"]:
        lines += ["", "| flow | bottleneck | shared phase | RMANP kbit/s | flow kbit/s | "
                  "RMANP/flow | link use (goodput) |", "|---|---|---|---|---|---|---|"]
        for n, v in m["flows"].items():
            r = v.get("ratio")
            lines.append(f"| {n} | {v['bottleneck']} | {v['phase_s'][0]}-{v['phase_s'][1]} s | "
                         f"{_k(v.get('rmanp_bps'))} | {_k(v.get('flow_bps'))} | "
                         f"{_s(r, '.2f')} | {_s(v.get('use_pct'), '.1f', ' %')} |")
    paper = sc.get("paper_numbers", {}).get("rmanp", {})
    if paper:
        lines += ["", "Paper: " + "; ".join(f"{k}: {v}" for k, v in paper.items())]
    lines += ["", f"Command: `{cmdline}`", ""]
    return "\n".join(lines)


def run_all(sc, out, scale, cmdline, env, git_head=None):
    """amcast-scenario --protocol rmanp: one run into `out`, its report printed; True when the
    transfer finished and every receiver's file is the source's."""
    m = run(sc, out, scale, cmdline, env, git_head)
    with open(os.path.join(out, "report.md")) as f:
        print(f.read())
    return m["ok"]

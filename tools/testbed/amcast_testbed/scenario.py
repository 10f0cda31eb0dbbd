"""Scenario files (TOML) and what follows from them: topology, paths, bottlenecks, fair shares.

File format (tools/testbed/scenarios/*.toml; docs/testbed.md has the full reference):
  name, title, paper            identification; paper = which seed section it reproduces
  duration_s                    length of the full run
  short_scale                   --short multiplies every time (duration, joins, schedules) by it
  steady_from_s                 start of the steady-state window (before scaling; default 25 %)
  routers = [..], hosts = [..]  namespaces (routers are IGMPv3-snooping bridges)
  sender = "HOST"               the multicast sender's host
  [video]                       width, height, fps, key_int, initial_bitrate, min_bitrate,
                                max_bitrate, rtcp_interval_ms, encoder, intra_refresh,
                                fec ("off" or "auto": SMPTE 2022-1 parity, testbed only)
  [[video.stream]]              a simulcast ladder (ASSP), lowest first: width, height,
                                min_bitrate, max_bitrate (fps, if given, must be [video]'s);
                                default the protocol's ladder (protocols.py); single-stream
                                protocols ignore it and use [video]
  [[link]]  a, b, rate_bps, queue, delay_ms, loss_pct, loss_port
                                rate/queue/delay/loss: one value or [a->b, b->a]; 0 = not
                                shaped; queue: bytes, or "50p" for 50 full-size frames;
                                loss_pct: random loss in the delay line (percent); loss_port:
                                only UDP to that port is lost
  [[receiver]] name, host (default: name), join_s (0), leave_s (default: the end)
  [[receivers]] (only valid for ./amcast sim) a group of receivers described by a count and a
                link distribution instead of one [[receiver]] each: name, count, router, and
                for each receiver's own host "NAME-i" and link router -> host: rate_bps, queue,
                delay_ms, loss_pct (random loss on router -> host), join_s, leave_s; each one
                value or {uniform = [lo, hi]} drawn per receiver (seed, default 1, fixes the
                draws: the same file gives the same receivers every run); trace = how many of
                them (the first) write rd.txt/stats.csv (default min(count, 50)).
                load() expands a group into hosts, links and receivers (receiver["group"]).
  [[flow]]  see amcast_testbed/traffic.py (kind "norm": NORM-CC multicast, dst or dsts)
  [[relay]] / relay = [..]     an RMANP tree (amcast-scenario --protocol rmanp): name, host,
                                parent; with file_bytes, [rmanp], [measure] and each
                                [[receiver]]'s parent: amcast_testbed/rmanp.py has the keys
  [playout] delays_ms = [150]   extra evalvid-run passes with an absolute play-out delay
  [paper_numbers.asmp], [paper_numbers.tfmcc]   the paper's numbers for the comparison table,
                                keyed by its row labels (other keys are printed as notes)
"""
import random
import tomllib

from . import traffic

VIDEO_DEFAULTS = {"width": 320, "height": 240, "fps": 25, "key_int": 25,
                  "initial_bitrate": 500_000, "min_bitrate": 50_000, "max_bitrate": 4_000_000,
                  "rtcp_interval_ms": 1000, "encoder": "x264enc", "intra_refresh": False,
                  "fec": "off"}
FEC_MODES = ("off", "auto")


# keys that only the simulator can honour (the testbed runs a namespace and a decoder per receiver)
SIM_ONLY = ("receivers",)
GROUP_KEYS = {"name", "count", "router", "rate_bps", "queue", "delay_ms", "loss_pct", "join_s",
              "leave_s", "trace", "seed"}


class ScenarioError(Exception):
    pass


def load(path, testbed=False):
    """The scenario, validated, groups expanded. testbed=True: refuse what only sim can run."""
    try:
        with open(path, "rb") as f:
            sc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ScenarioError(f"{path}: {e}")
    if testbed:
        bad = [k for k in SIM_ONLY if k in sc]
        if bad:
            raise ScenarioError(f"{path}: {', '.join('[[' + k + ']]' for k in bad)}: only valid "
                                "for ./amcast sim (the testbed runs one namespace and one "
                                "decoding receiver per [[receiver]])")
    try:
        expand_groups(sc)
        validate(sc)
    except KeyError as e:
        raise ScenarioError(f"{path}: {e.args[0] if e.args else e}")
    except (ValueError, TypeError) as e:
        raise ScenarioError(f"{path}: {e}")
    sc["video"] = {**VIDEO_DEFAULTS, **sc.get("video", {})}
    return sc


def draw(v, rng, what):
    """A group value: a number, or {uniform = [lo, hi]} drawn from rng."""
    if isinstance(v, dict):
        lo, hi = v.get("uniform", (None, None))
        if set(v) != {"uniform"} or not all(isinstance(x, (int, float)) for x in (lo, hi)) \
                or hi < lo:
            raise ValueError(f"{what}: {v!r} is neither a number nor {{uniform = [lo, hi]}}")
        return rng.uniform(lo, hi)
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ValueError(f"{what}: {v!r} is neither a number nor {{uniform = [lo, hi]}}")
    return v


def expand_groups(sc):
    """[[receivers]] -> hosts NAME-1..NAME-count, links ROUTER-host, [[receiver]] entries."""
    for g in sc.get("receivers", []):
        unknown = set(g) - GROUP_KEYS
        if unknown:
            raise ValueError(f"receivers {g.get('name')}: unknown keys {sorted(unknown)}")
        name, n, router = g["name"], g["count"], g["router"]
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"receivers {name}: count {n!r} is not a positive integer")
        if router not in sc.get("routers", []):
            raise ValueError(f"receivers {name}: router {router!r} is not a router")
        trace = g.get("trace", min(n, 50))
        rng = random.Random(f"{name}/{g.get('seed', 1)}")
        hosts, links, rxs = sc.setdefault("hosts", []), sc.setdefault("link", []), \
            sc.setdefault("receiver", [])
        for i in range(1, n + 1):
            h = f"{name}-{i}"
            ln = {"a": router, "b": h}
            for k in ("rate_bps", "queue", "delay_ms"):
                if k in g:
                    ln[k] = draw(g[k], rng, f"receivers {name}: {k}")
            if "rate_bps" in ln:
                ln["rate_bps"] = [round(ln["rate_bps"]), 0]
            if "loss_pct" in g:
                ln["loss_pct"] = [draw(g["loss_pct"], rng, f"receivers {name}: loss_pct"), 0]
            rx = {"name": h, "group": name, "trace": i <= trace}
            for k in ("join_s", "leave_s"):
                if k in g:
                    rx[k] = draw(g[k], rng, f"receivers {name}: {k}")
            hosts.append(h)
            links.append(ln)
            rxs.append(rx)
STREAM_KEYS = {"width", "height", "min_bitrate", "max_bitrate", "fps"}


def validate_streams(video):
    """[[video.stream]]: a ladder lowest first, each stream's limits inside the next one's start."""
    ladder = video.get("stream")
    if ladder is None:
        return
    if not isinstance(ladder, list) or not ladder:
        raise ValueError("[[video.stream]]: a non-empty list of streams")
    fps = video.get("fps", VIDEO_DEFAULTS["fps"])
    prev = None
    for k, st in enumerate(ladder):
        bad = set(st) - STREAM_KEYS
        if bad:
            raise ValueError(f"video.stream {k}: unknown keys {sorted(bad)}")
        for key in ("width", "height", "min_bitrate", "max_bitrate"):
            if not isinstance(st.get(key), int) or st[key] <= 0:
                raise ValueError(f"video.stream {k}: {key} must be a positive integer")
        if st["min_bitrate"] >= st["max_bitrate"]:
            raise ValueError(f"video.stream {k}: min_bitrate must be below max_bitrate")
        # one tee feeds every encoder: frame i of each stream is source frame i (evalvid-run
        # relies on it), so every stream runs at the source's rate
        if st.get("fps", fps) != fps:
            raise ValueError(f"video.stream {k}: fps {st['fps']} differs from [video] fps {fps} "
                             "(one source feeds every stream)")
        if prev is not None and st["min_bitrate"] < prev["min_bitrate"]:
            raise ValueError(f"video.stream {k}: the ladder goes lowest first")
        prev = st


def ladder(sc, proto):
    """The streams a simulcast protocol sends for this scenario, lowest first, as dicts
    (width, height, min_bps, max_bps): the file's [[video.stream]], else the protocol's ladder;
    [] for a single-stream protocol."""
    if not proto.streams:
        return []
    if sc["video"].get("stream"):
        return [{"width": st["width"], "height": st["height"], "min_bps": st["min_bitrate"],
                 "max_bps": st["max_bitrate"]} for st in sc["video"]["stream"]]
    return [{"width": st.width, "height": st.height, "min_bps": st.min_bps,
             "max_bps": st.max_bps} for st in proto.streams]


def ladder_arg(streams):
    """amcast-node's --streams value: WxH:MIN:MAX,... ."""
    return ",".join(f"{s['width']}x{s['height']}:{s['min_bps']}:{s['max_bps']}" for s in streams)


# [layers] (amcast_testbed/layered.py): a misspelt key would silently leave its default
LAYER_KEYS = {"channels", "b1_bps", "factor", "period_ms", "packet_size",
              "last_member_interval_cs", "fast_leave"}


def validate_layers(ly):
    unknown = set(ly) - LAYER_KEYS
    if unknown:
        raise ValueError(f"layers: unknown keys {sorted(unknown)} (allowed: "
                         f"{', '.join(sorted(LAYER_KEYS))})")
    if not isinstance(ly.get("fast_leave", False), bool):
        raise ValueError(f"layers: fast_leave {ly['fast_leave']!r} is not true or false")


def validate(sc):
    for k in ("name", "duration_s", "hosts", "sender", "link", "receiver"):
        if k not in sc:
            raise KeyError(f"missing '{k}'")
    hosts, routers = set(sc["hosts"]), set(sc.get("routers", []))
    if hosts & routers:
        raise ValueError(f"names used as both host and router: {sorted(hosts & routers)}")
    nodes = hosts | routers
    if sc["sender"] not in hosts:
        raise ValueError(f"sender {sc['sender']!r} is not a host")
    for ln in sc["link"]:
        for e in ("a", "b"):
            if ln[e] not in nodes:
                raise ValueError(f"link {ln.get('a')}-{ln.get('b')}: unknown node {ln[e]!r}")
        for v in pair(ln.get("loss_pct", 0)):
            if not isinstance(v, (int, float)) or not 0 <= v <= 100:
                raise ValueError(f"link {ln['a']}-{ln['b']}: loss_pct {v!r} not in 0..100")
        lp = ln.get("loss_port")
        if lp is not None and (not isinstance(lp, int) or not 1 <= lp <= 65535):
            raise ValueError(f"link {ln['a']}-{ln['b']}: loss_port {lp!r} not a UDP port")
    seen = set()
    for r in sc["receiver"]:
        h = r.get("host", r["name"])
        if h not in hosts:
            raise ValueError(f"receiver {r['name']}: unknown host {h!r}")
        if r["name"] in seen:
            raise ValueError(f"receiver {r['name']} defined twice")
        seen.add(r["name"])
        if float(r.get("leave_s", sc["duration_s"])) <= float(r.get("join_s", 0)):
            raise ValueError(f"receiver {r['name']}: leave_s must be after join_s")
    fec = sc.get("video", {}).get("fec", "off")
    if fec not in FEC_MODES:
        raise ValueError(f"video.fec {fec!r}: one of {', '.join(FEC_MODES)}")
    traffic.validate(sc.get("flow", []), hosts)
    validate_streams(sc.get("video", {}))
    validate_layers(sc.get("layers", {}))
    if float(sc["duration_s"]) <= 0 or not 0 < float(sc.get("short_scale", 1)) <= 1:
        raise ValueError("duration_s must be > 0 and short_scale in (0, 1]")


def pair(v):
    if isinstance(v, list):
        return v[0], v[1]
    return v, v


def directed_links(sc):
    """{(x, y): rate bit/s or None} for both directions of every link."""
    out = {}
    for ln in sc["link"]:
        rab, rba = pair(ln.get("rate_bps", 0))
        out[(ln["a"], ln["b"])] = float(rab) or None
        out[(ln["b"], ln["a"])] = float(rba) or None
    return out


# (id of the link list, what) -> (the list, value): per-scenario results kept for 10 000 receivers.
# The list itself is kept with its value: an id is unique only while its object lives, and a
# scenario loaded later may get a freed one's id.
_TREES = {}


def _cached(sc, what, make):
    ls = sc["link"]
    hit = _TREES.get((id(ls), what))
    if hit is not None and hit[0] is ls and hit[2] == len(ls):
        return hit[1]
    if len(_TREES) > 64:
        _TREES.clear()
    value = make()
    _TREES[(id(ls), what)] = (ls, value, len(ls))
    return value


def _tree(sc, src):
    return _cached(sc, ("tree", src), lambda: _bfs(sc, src))


def _bfs(sc, src):
    adj = {}
    for ln in sc["link"]:
        adj.setdefault(ln["a"], []).append(ln["b"])
        adj.setdefault(ln["b"], []).append(ln["a"])
    prev, todo, k = {src: None}, [src], 0
    while k < len(todo):
        x = todo[k]
        k += 1
        for y in adj.get(x, []):
            if y not in prev:
                prev[y] = x
                todo.append(y)
    return prev


def path(sc, src, dst):
    """Node path src -> dst (the topologies are trees, so it is unique); BFS."""
    prev = _tree(sc, src)
    if dst not in prev:
        raise ValueError(f"no path from {src} to {dst}")
    p = [dst]
    while p[-1] != src:
        p.append(prev[p[-1]])
    return p[::-1]


def hops(sc, src, dst):
    p = path(sc, src, dst)
    return list(zip(p, p[1:]))


def propagation_rtt_s(sc, src, dst):
    """Round-trip propagation delay between two nodes, s: the links' delay_ms, both ways."""
    d = {}
    for ln in sc["link"]:
        d[(ln["a"], ln["b"])], d[(ln["b"], ln["a"])] = pair(ln.get("delay_ms", 0))
    return sum(d[(x, y)] + d[(y, x)] for x, y in hops(sc, src, dst)) / 1e3


def bottleneck(sc, src, dst):
    """(directed link, rate) of the slowest shaped hop on the path, or (None, None)."""
    rates = _cached(sc, "rates", lambda: directed_links(sc))
    best = (None, None)
    for h in hops(sc, src, dst):
        r = rates[h]
        if r and (best[1] is None or r < best[1]):
            best = (h, r)
    return best


def fair_shares(sc):
    """Fair share (bit/s) of every receiver and flow at its own bottleneck: the link's rate over
    the number of flows that cross it (the multicast session counts once, papers 000 §5.3.1 and
    002 §A: 'each flow receives 100 %/n'). Flows that are not always on are counted all the same:
    the share is the one while everything runs (what the papers' tables compare against)."""
    flows = sc.get("flow", [])
    users = {}                                  # directed link -> set of flow ids crossing it
    mc_hops = set()
    for r in sc["receiver"]:
        mc_hops.update(hops(sc, sc["sender"], r.get("host", r["name"])))
    for h in mc_hops:
        users.setdefault(h, set()).add("multicast")
    for f in flows:                             # a NORM flow counts once, like the session
        for d in traffic.dsts(f):
            for h in hops(sc, f["src"], d):
                users.setdefault(h, set()).add(f["name"])
    out = {"receivers": {}, "flows": {},
           "links": {f"{a}>{b}": sorted(u) for (a, b), u in users.items()}}
    for r in sc["receiver"]:
        link, rate = bottleneck(sc, sc["sender"], r.get("host", r["name"]))
        out["receivers"][r["name"]] = {
            "bottleneck": list(link) if link else None, "rate_bps": rate,
            "n_flows": len(users[link]) if link else None,
            "fair_share_bps": rate / len(users[link]) if link else None}
    for f in flows:
        # a NORM flow to several receivers: the slowest of their bottlenecks (NORM-CC follows its
        # current limiting receiver)
        link, rate = min((bottleneck(sc, f["src"], d) for d in traffic.dsts(f)),
                         key=lambda x: x[1] if x[1] else float("inf"))
        out["flows"][f["name"]] = {
            "bottleneck": list(link) if link else None, "rate_bps": rate,
            "n_flows": len(users[link]) if link else None,
            "fair_share_bps": rate / len(users[link]) if link else None}
    return out


def build_topology(sc, topo):
    """Describe the scenario's nodes and links on a netns.Topology (not yet built)."""
    for r in sc.get("routers", []):
        topo.add_router(r)
    for h in sc["hosts"]:
        topo.add_host(h)
    for ln in sc["link"]:
        rab, rba = pair(ln.get("rate_bps", 0))
        topo.link(ln["a"], ln["b"], rate=(rab or None, rba or None), queue=ln.get("queue"),
                  delay_ms=ln.get("delay_ms", 0), loss_pct=ln.get("loss_pct", 0),
                  loss_port=ln.get("loss_port"))
    return topo

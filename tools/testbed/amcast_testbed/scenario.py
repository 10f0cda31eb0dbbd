"""Scenario files (TOML) and what follows from them: topology, paths, bottlenecks, fair shares.

File format (tools/testbed/scenarios/*.toml; docs/testbed.md has the full reference):
  name, title, paper            identification; paper = which seed section it reproduces
  duration_s                    length of the full run
  short_scale                   --short multiplies every time (duration, joins, schedules) by it
  steady_from_s                 start of the steady-state window (before scaling; default 25 %)
  routers = [..], hosts = [..]  namespaces (routers are IGMPv3-snooping bridges)
  sender = "HOST"               the multicast sender's host
  [video]                       width, height, fps, key_int, initial_bitrate, min_bitrate,
                                max_bitrate, rtcp_interval_ms, encoder, intra_refresh
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
  [[flow]]  see amcast_testbed/traffic.py (kind "norm": NORM-CC multicast, dst or dsts)
  [playout] delays_ms = [150]   extra evalvid-run passes with an absolute play-out delay
  [paper_numbers.asmp], [paper_numbers.tfmcc]   the paper's numbers for the comparison table,
                                keyed by its row labels (other keys are printed as notes)
"""
import tomllib

from . import traffic

VIDEO_DEFAULTS = {"width": 320, "height": 240, "fps": 25, "key_int": 25,
                  "initial_bitrate": 500_000, "min_bitrate": 50_000, "max_bitrate": 4_000_000,
                  "rtcp_interval_ms": 1000, "encoder": "x264enc", "intra_refresh": False}


class ScenarioError(Exception):
    pass


def load(path):
    try:
        with open(path, "rb") as f:
            sc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ScenarioError(f"{path}: {e}")
    try:
        validate(sc)
    except KeyError as e:
        raise ScenarioError(f"{path}: {e.args[0] if e.args else e}")
    except (ValueError, TypeError) as e:
        raise ScenarioError(f"{path}: {e}")
    sc["video"] = {**VIDEO_DEFAULTS, **sc.get("video", {})}
    return sc


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
    traffic.validate(sc.get("flow", []), hosts)
    validate_streams(sc.get("video", {}))
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


def path(sc, src, dst):
    """Node path src -> dst (the topologies are trees, so it is unique); BFS."""
    adj = {}
    for ln in sc["link"]:
        adj.setdefault(ln["a"], []).append(ln["b"])
        adj.setdefault(ln["b"], []).append(ln["a"])
    prev, todo = {src: None}, [src]
    while todo:
        x = todo.pop(0)
        for y in adj.get(x, []):
            if y not in prev:
                prev[y] = x
                todo.append(y)
    if dst not in prev:
        raise ValueError(f"no path from {src} to {dst}")
    p = [dst]
    while p[-1] != src:
        p.append(prev[p[-1]])
    return p[::-1]


def hops(sc, src, dst):
    p = path(sc, src, dst)
    return list(zip(p, p[1:]))


def bottleneck(sc, src, dst):
    """(directed link, rate) of the slowest shaped hop on the path, or (None, None)."""
    rates = directed_links(sc)
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

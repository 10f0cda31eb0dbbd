"""Competing flows of a scenario: long-lived TCP, TCP on/off, UDP CBR and UDP square wave, and
NORM (RFC 5740) multicast with NORM-CC, the comparator.

A flow is a dict (one [[flow]] table of a scenario file):
  name      flows/NAME.csv is its throughput over time (bytes received by its sink per interval)
  kind      "tcp" | "tcp-onoff" | "cbr" | "square" | "norm"
  src, dst  host names; port (default: 5301 + index)
  cc        TCP congestion control, "reno" (the papers') or "cubic" (today's default)
  window_bytes                tcp / tcp-onoff: the receiver's window clamp (TCP_WINDOW_CLAMP on
                              a locked receive buffer; ns-3: at most that much in flight at the
                              sender, docs/sim.md): the papers' ns-2 "maximum
                              congestion window" (papers/003: 64 packets); default none
  start_s, stop_s             active span (default: the whole scenario)
  on_s, off_s                 tcp-onoff / square: alternate on_s active, off_s idle from start_s
  rate_bps                    cbr / square: rate while on (UDP payload bits)
  norm only:
  dst or dsts = [hosts]       its receivers (each joins the group inside its namespace);
                              flows/NAME.csv is the first receiver's, norm/NAME.HOST.csv each
                              other's, norm/NAME.sender.csv NORM-CC's rate (time_s,rate_bps,grtt_s)
                              (flows/ keeps one time_s,bytes file per flow: evalvid-run reads all)
  group                       multicast group (default 239.1.2.9; never the video's 239.1.2.3)
  rate_max_bps                upper bound for NORM-CC (default none)
Times are scaled by `scale` (--short) before use. Every process is bounded: the senders stop at
their last on-period, the sinks at the scenario's end. NORM flows need the norm-flow program
(tools/testbed/norm-flow.cc, built when libnorm-dev is installed).
"""
import ipaddress
import os

from . import netns

HERE = os.path.dirname(os.path.abspath(__file__))
FLOWGEN = os.path.join(HERE, "flowgen.py")
KINDS = ("tcp", "tcp-onoff", "cbr", "square", "norm")
NORM_GROUP = "239.1.2.9"
VIDEO_GROUP = "239.1.2.3"          # amcast-scenario's GROUP: the multicast session under test
COMMON_KEYS = {"name", "kind", "src", "dst", "port", "start_s", "stop_s"}
KEYS = {"tcp": COMMON_KEYS | {"cc", "window_bytes"},
        "tcp-onoff": COMMON_KEYS | {"cc", "on_s", "off_s", "window_bytes"},
        "cbr": COMMON_KEYS | {"rate_bps"}, "square": COMMON_KEYS | {"rate_bps", "on_s", "off_s"},
        "norm": COMMON_KEYS | {"dsts", "group", "rate_max_bps"}}


def dsts(flow):
    """The flow's receiving hosts: [dst], or a norm flow's dsts."""
    return list(flow["dsts"]) if "dsts" in flow else [flow["dst"]]


def find_norm_flow():
    """The norm-flow binary: $AMCAST_NORM_FLOW, $AMCAST_BUILD/tools/testbed, then PATH; None if
    it was not built (libnorm missing)."""
    return netns.find_built_tool("norm-flow", "AMCAST_NORM_FLOW")


NORM_MISSING = ("this scenario has NORM flows (kind = \"norm\") but the norm-flow program was not "
                "found: install libnorm-dev (scripts/setup-deps), rebuild (meson builds "
                "<build>/tools/testbed/norm-flow when it finds libnorm) and set AMCAST_BUILD, or "
                "set AMCAST_NORM_FLOW")


def on_periods(flow, duration, scale=1.0):
    """The flow's on-periods [(a, b)] in scenario seconds (after scaling), clipped to duration."""
    start = float(flow.get("start_s", 0)) * scale
    stop = min(float(flow.get("stop_s", duration / scale)) * scale, duration)
    if flow["kind"] in ("tcp", "cbr", "norm"):
        return [(start, stop)] if stop > start else []
    on, off = float(flow["on_s"]) * scale, float(flow["off_s"]) * scale
    if on <= 0 or off < 0:
        raise ValueError(f"flow {flow['name']}: on_s must be > 0 and off_s >= 0")
    out, t = [], start
    while t < stop:
        out.append((t, min(t + on, stop)))
        t += on + off
    return out


def _validate_norm(f, hosts):
    if ("dst" in f) == ("dsts" in f):
        raise ValueError(f"flow {f['name']}: norm needs either dst or dsts (a list of hosts)")
    if "dsts" in f and (not isinstance(f["dsts"], list) or not f["dsts"]):
        raise ValueError(f"flow {f['name']}: dsts must be a non-empty list of hosts")
    ds = dsts(f)
    if len(set(ds)) != len(ds):
        raise ValueError(f"flow {f['name']}: a host is listed twice in dsts")
    if f["src"] in ds:
        raise ValueError(f"flow {f['name']}: src {f['src']!r} cannot also receive")
    try:
        g = ipaddress.IPv4Address(f.get("group", NORM_GROUP))
    except (ipaddress.AddressValueError, ValueError):
        raise ValueError(f"flow {f['name']}: group must be an IPv4 multicast address")
    if not g.is_multicast or str(g).startswith("224.0.0."):
        raise ValueError(f"flow {f['name']}: group {g} is not a routable multicast group")
    if str(g) == VIDEO_GROUP:
        raise ValueError(f"flow {f['name']}: group {g} is the video session's group")
    if "rate_max_bps" in f and not float(f["rate_max_bps"]) > 0:
        raise ValueError(f"flow {f['name']}: rate_max_bps must be > 0")


def validate(flows, hosts):
    names = set()
    groups = {}
    for i, f in enumerate(flows):
        for k in ("name", "kind", "src"):
            if k not in f:
                raise ValueError(f"flow #{i + 1}: missing '{k}'")
        if f["kind"] not in KINDS:
            raise ValueError(f"flow {f['name']}: kind must be one of {', '.join(KINDS)}")
        if "dst" not in f and f["kind"] != "norm":
            raise ValueError(f"flow {f['name']}: missing 'dst'")
        if f["name"] in names:
            raise ValueError(f"flow {f['name']} defined twice")
        names.add(f["name"])
        bad = sorted(set(f) - KEYS[f["kind"]])
        if bad:
            raise ValueError(f"flow {f['name']}: unknown key(s) for kind {f['kind']}: "
                             f"{', '.join(bad)} (allowed: {', '.join(sorted(KEYS[f['kind']]))})")
        if f["kind"] == "norm":
            _validate_norm(f, hosts)
            key = (f.get("group", NORM_GROUP), int(f.get("port", 5301 + i)))
            if key in groups:
                raise ValueError(f"flow {f['name']}: group and port {key[0]}/{key[1]} already "
                                 f"used by flow {groups[key]}")
            groups[key] = f["name"]
        for h in [f["src"]] + dsts(f):
            if h not in hosts:
                raise ValueError(f"flow {f['name']}: unknown host {h!r}")
        if f["kind"] in ("cbr", "square") and not float(f.get("rate_bps", 0)) > 0:
            raise ValueError(f"flow {f['name']}: {f['kind']} needs rate_bps > 0")
        if f["kind"] in ("tcp-onoff", "square") and "on_s" not in f:
            raise ValueError(f"flow {f['name']}: {f['kind']} needs on_s and off_s")
        if f.get("cc", "reno") not in ("reno", "cubic"):
            raise ValueError(f"flow {f['name']}: cc must be reno or cubic")
        w = f.get("window_bytes")
        if w is not None and (isinstance(w, bool) or not isinstance(w, int) or not
                              2048 <= w <= 1 << 30):
            raise ValueError(f"flow {f['name']}: window_bytes must be an integer in [2048, 2^30]")


def start_flows(topo, flows, run_dir, t0, duration, scale=1.0, interval=1.0):
    """Start every flow's sink, then its sender (both timed from t0, CLOCK_REALTIME).
    Returns [(flow, sink_proc, sender_proc)]; the sinks end by themselves at t0 + duration."""
    fdir = os.path.join(run_dir, "flows")
    os.makedirs(fdir, exist_ok=True)
    logs = os.path.join(run_dir, "logs")
    os.makedirs(logs, exist_ok=True)
    started = []
    norm = find_norm_flow() if any(f["kind"] == "norm" for f in flows) else None
    if norm is None and any(f["kind"] == "norm" for f in flows):
        raise RuntimeError(NORM_MISSING)
    for i, f in enumerate(flows):
        port = int(f.get("port", 5301 + i))
        if f["kind"] == "norm":
            started += _start_norm(topo, f, norm, port, fdir, logs, t0, duration, scale, interval)
            continue
        proto = "tcp" if f["kind"].startswith("tcp") else "udp"
        ons = on_periods(f, duration, scale)
        sink = topo.run(f["dst"], ["/usr/bin/python3", FLOWGEN, "sink", proto, port,
                                   os.path.join(fdir, f["name"] + ".csv"), "--t0", f"{t0:.6f}",
                                   "--until", f"{duration:.3f}", "--interval", interval]
                        + (["--window", int(f["window_bytes"])] if "window_bytes" in f else []),
                        log=os.path.join(logs, f"flow-{f['name']}-sink.log"))
        started.append((f, sink, None))
        if not ons:
            continue
        argv = ["/usr/bin/python3", FLOWGEN, proto, topo.addr(f["dst"]), port, "--t0", f"{t0:.6f}"]
        for a, b in ons:
            argv += ["--on", f"{a:.3f}:{b:.3f}"]
        if proto == "tcp":
            argv += ["--cc", f.get("cc", "reno")]
        else:
            argv += ["--rate", float(f["rate_bps"])]
        snd = topo.run(f["src"], argv, log=os.path.join(logs, f"flow-{f['name']}-send.log"))
        started[-1] = (f, sink, snd)
    return started


def _start_norm(topo, f, exe, port, fdir, logs, t0, duration, scale, interval):
    """A NORM flow: one norm-flow recv per receiver host (each joins the group in its own
    namespace), then norm-flow send on src for the flow's on-period. Multicast is only ever sent
    from inside the testbed's namespaces."""
    group = f.get("group", NORM_GROUP)
    ndir = os.path.join(os.path.dirname(fdir), "norm")   # flows/ holds one time_s,bytes per flow
    os.makedirs(ndir, exist_ok=True)
    out = []
    for j, h in enumerate(dsts(f)):
        csv = os.path.join(fdir, f["name"] + ".csv") if j == 0 else \
            os.path.join(ndir, f"{f['name']}.{h}.csv")
        sink = topo.run(h, [exe, "recv", "--group", group, "--port", port, "--iface",
                            topo.iface(h), "--t0", f"{t0:.6f}", "--duration", f"{duration:.3f}",
                            "--interval", interval, "--csv", csv],
                        log=os.path.join(logs, f"flow-{f['name']}-sink-{h}.log"))
        out.append((f, sink, None))
    ons = on_periods(f, duration, scale)
    if ons:
        (a, b), = ons
        argv = [exe, "send", "--group", group, "--port", port, "--iface", topo.iface(f["src"]),
                "--t0", f"{t0:.6f}", "--start", f"{a:.3f}", "--duration", f"{b - a:.3f}",
                "--interval", interval,
                "--rate-csv", os.path.join(ndir, f["name"] + ".sender.csv")]
        if "rate_max_bps" in f:
            argv += ["--rate-max", float(f["rate_max_bps"])]
        snd = topo.run(f["src"], argv, log=os.path.join(logs, f"flow-{f['name']}-send.log"))
        out[0] = (f, out[0][1], snd)
    return out


def describe(flows, duration, scale=1.0):
    """Flow schedule for meta.json."""
    out = []
    for f in flows:
        d = {"name": f["name"], "kind": f["kind"], "src": f["src"], "dst": dsts(f)[0],
             "cc": f.get("cc", "reno") if f["kind"].startswith("tcp") else None,
             "rate_bps": f.get("rate_bps"), "on_periods_s": on_periods(f, duration, scale)}
        if "window_bytes" in f:
            d["window_bytes"] = int(f["window_bytes"])
        if f["kind"] == "norm":
            d.update({"dsts": dsts(f), "group": f.get("group", NORM_GROUP), "cc": "norm-cc",
                      "rate_max_bps": f.get("rate_max_bps")})
        out.append(d)
    return out

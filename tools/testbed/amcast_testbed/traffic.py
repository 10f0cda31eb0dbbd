"""Competing flows of a scenario: long-lived TCP, TCP on/off, UDP CBR and UDP square wave.

A flow is a dict (one [[flow]] table of a scenario file):
  name      flows/NAME.csv is its throughput over time (bytes received by its sink per interval)
  kind      "tcp" | "tcp-onoff" | "cbr" | "square"
  src, dst  host names; port (default: 5301 + index)
  cc        TCP congestion control, "reno" (the papers') or "cubic" (today's default)
  start_s, stop_s             active span (default: the whole scenario)
  on_s, off_s                 tcp-onoff / square: alternate on_s active, off_s idle from start_s
  rate_bps                    cbr / square: rate while on (UDP payload bits)
Times are scaled by `scale` (--short) before use. Every process is bounded: the senders stop at
their last on-period, the sinks at the scenario's end.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FLOWGEN = os.path.join(HERE, "flowgen.py")
KINDS = ("tcp", "tcp-onoff", "cbr", "square")


def on_periods(flow, duration, scale=1.0):
    """The flow's on-periods [(a, b)] in scenario seconds (after scaling), clipped to duration."""
    start = float(flow.get("start_s", 0)) * scale
    stop = min(float(flow.get("stop_s", duration / scale)) * scale, duration)
    if flow["kind"] in ("tcp", "cbr"):
        return [(start, stop)] if stop > start else []
    on, off = float(flow["on_s"]) * scale, float(flow["off_s"]) * scale
    if on <= 0 or off < 0:
        raise ValueError(f"flow {flow['name']}: on_s must be > 0 and off_s >= 0")
    out, t = [], start
    while t < stop:
        out.append((t, min(t + on, stop)))
        t += on + off
    return out


def validate(flows, hosts):
    names = set()
    for i, f in enumerate(flows):
        for k in ("name", "kind", "src", "dst"):
            if k not in f:
                raise ValueError(f"flow #{i + 1}: missing '{k}'")
        if f["kind"] not in KINDS:
            raise ValueError(f"flow {f['name']}: kind must be one of {', '.join(KINDS)}")
        if f["name"] in names:
            raise ValueError(f"flow {f['name']} defined twice")
        names.add(f["name"])
        for k in ("src", "dst"):
            if f[k] not in hosts:
                raise ValueError(f"flow {f['name']}: unknown host {f[k]!r}")
        if f["kind"] in ("cbr", "square") and not float(f.get("rate_bps", 0)) > 0:
            raise ValueError(f"flow {f['name']}: {f['kind']} needs rate_bps > 0")
        if f["kind"] in ("tcp-onoff", "square") and "on_s" not in f:
            raise ValueError(f"flow {f['name']}: {f['kind']} needs on_s and off_s")
        if f.get("cc", "reno") not in ("reno", "cubic"):
            raise ValueError(f"flow {f['name']}: cc must be reno or cubic")


def start_flows(topo, flows, run_dir, t0, duration, scale=1.0, interval=1.0):
    """Start every flow's sink, then its sender (both timed from t0, CLOCK_REALTIME).
    Returns [(flow, sink_proc, sender_proc)]; the sinks end by themselves at t0 + duration."""
    fdir = os.path.join(run_dir, "flows")
    os.makedirs(fdir, exist_ok=True)
    logs = os.path.join(run_dir, "logs")
    os.makedirs(logs, exist_ok=True)
    started = []
    for i, f in enumerate(flows):
        port = int(f.get("port", 5301 + i))
        proto = "tcp" if f["kind"].startswith("tcp") else "udp"
        ons = on_periods(f, duration, scale)
        sink = topo.run(f["dst"], ["/usr/bin/python3", FLOWGEN, "sink", proto, port,
                                   os.path.join(fdir, f["name"] + ".csv"), "--t0", f"{t0:.6f}",
                                   "--until", f"{duration:.3f}", "--interval", interval],
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


def describe(flows, duration, scale=1.0):
    """Flow schedule for meta.json."""
    return [{"name": f["name"], "kind": f["kind"], "src": f["src"], "dst": f["dst"],
             "cc": f.get("cc", "reno") if f["kind"].startswith("tcp") else None,
             "rate_bps": f.get("rate_bps"), "on_periods_s": on_periods(f, duration, scale)}
            for f in flows]

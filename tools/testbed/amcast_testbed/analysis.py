"""Scenario metrics straight from a run directory's traces (docs/run-directory.md).

evalvid-run gives the video side (frame loss, PSNR, MOS, cumulative jitter); this module gives
what the scenario tests assert and the comparison table needs without decoding video: the
sender's rate over time and its smoothness, each receiver's and flow's throughput against its
fair share in the steady-state window, packet loss and one-way delay. Times are scenario
seconds (0 = meta.json t0). Throughputs are on the wire (Ethernet frame bytes, what tbf counts),
like the link rates and fair shares they are compared with: an RTP packet of SIZE bytes is
SIZE + 42 (UDP 8, IPv4 20, Ethernet 14); a bulk TCP flow's payload is carried 1448 bytes per
1514-byte frame (MSS with timestamps); a UDP competitor's 1200-byte datagram is 1242 bytes; a
NORM flow's 1400-byte stream segment is a 1482-byte frame.
"""
import csv
import json
import math
import os
import statistics


def node_summary(path):
    """A node's summary: the last JSON line amcast-node printed into its log (logs/NAME.log),
    None without the file or such a line; a line cut short (a node killed while writing) is
    skipped for the one before it."""
    try:
        with open(path, errors="replace") as f:
            lines = [l for l in f if l.startswith("{")]
    except OSError:
        return None
    for l in reversed(lines):
        try:
            return json.loads(l)
        except ValueError:
            continue
    return None


UDP_OVERHEAD = 42                     # bytes per datagram below the UDP payload
TCP_WIRE_FACTOR = 1514 / 1448         # full-size segment: frame bytes per payload byte
UDP_FLOW_SIZE = 1200                  # flowgen's default datagram payload
# norm-flow's NORM_DATA: 1400-byte segment + 8 stream payload header + 32 NORM header (common 8,
# object 8, FEC payload id 4, FTI extension 12) = 1440-byte UDP payload, 1482-byte frame
# (measured with tcpdump in the testbed); the sink counts the 1400 bytes of stream data.
NORM_SEGMENT = 1400
NORM_UDP_PAYLOAD = 1440
NORM_WIRE_FACTOR = (NORM_UDP_PAYLOAD + UDP_OVERHEAD) / NORM_SEGMENT


def _csv(path):
    if not os.path.isfile(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load_meta(run):
    with open(os.path.join(run, "meta.json")) as f:
        return json.load(f)


def rate_series(run, t0):
    """[(t, target_bps, sent_bps, receivers)] from sender/rate.csv."""
    out = []
    for r in _csv(os.path.join(run, "sender", "rate.csv")):
        try:
            out.append((float(r["time_s"]) - t0, float(r["target_bps"]), float(r["sent_bps"]),
                        int(float(r["receivers"]))))
        except (KeyError, ValueError):
            continue
    return out


def mean_between(series, a, b, col=1):
    xs = [s[col] for s in series if a <= s[0] < b]
    return statistics.fmean(xs) if xs else None


def cov(xs):
    """Coefficient of variation: standard deviation over mean (smoothness of the sender's rate)."""
    if len(xs) < 2 or statistics.fmean(xs) == 0:
        return None
    return statistics.pstdev(xs) / statistics.fmean(xs)


def read_sd(path):
    """{id: (time, size)} of every packet sent."""
    out = {}
    if not os.path.isfile(path):
        return out
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 5 and p[1] == "id":
                try:
                    out[p[2]] = (float(p[0]), int(p[4]))
                except ValueError:
                    continue
    return out


def read_rd(path):
    """[(time, id, size)] of every packet received (duplicates kept)."""
    out = []
    if not os.path.isfile(path):
        return out
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 5 and p[1] == "id":
                try:
                    out.append((float(p[0]), p[2], int(p[4])))
                except ValueError:
                    continue
    return out


def percentile(xs, p):
    ys = sorted(xs)
    k = max(0, min(len(ys) - 1, math.ceil(p / 100 * len(ys)) - 1))
    return ys[k]


def receiver_metrics(sd, rd, t0, win):
    """Throughput over win (scenario s), packet loss over the span it received, one-way delay."""
    a, b = win
    got = {}
    for t, pid, size in rd:
        got.setdefault(pid, (t, size))
    if not got:
        return {"packets": 0, "throughput_bps": 0.0, "packet_loss_pct": None,
                "delay_median_ms": None, "delay_p99_ms": None}
    rbytes = sum(size + UDP_OVERHEAD for t, size in got.values() if a <= t - t0 < b)
    # loss: packets sent while this receiver was receiving (between its first and last arrival)
    first = min(sd[p][0] for p in got if p in sd) if any(p in sd for p in got) else None
    last = max(sd[p][0] for p in got if p in sd) if first is not None else None
    sent = [p for p, (t, _) in sd.items() if first is not None and first <= t <= last]
    lost = sum(1 for p in sent if p not in got)
    delays = [(got[p][0] - sd[p][0]) * 1e3 for p in got if p in sd]
    return {"packets": len(got), "throughput_bps": 8 * rbytes / (b - a) if b > a else None,
            "packet_loss_pct": 100.0 * lost / len(sent) if sent else None,
            "delay_median_ms": percentile(delays, 50) if delays else None,
            "delay_p99_ms": percentile(delays, 99) if delays else None}


def flow_throughput(run, name, t0, periods, factor=1.0):
    """bit/s of a flow over the parts of its on-periods inside `periods` [(a, b)] (scenario s);
    factor converts the sink's payload bytes to bytes on the wire."""
    rows = _csv(os.path.join(run, "flows", name + ".csv"))
    if len(rows) < 2:
        return None
    ts = [float(r["time_s"]) - t0 for r in rows]
    dt = (ts[-1] - ts[0]) / (len(ts) - 1)
    nbytes, span = 0, 0.0
    for a, b in periods:
        for t, r in zip(ts, rows):
            if a <= t and t + dt <= b + 1e-6:
                nbytes += float(r["bytes"])
                span += dt
    return 8 * nbytes * factor / span if span > 0 else None


def clip(periods, win):
    a, b = win
    return [(max(x, a), min(y, b)) for x, y in periods if min(y, b) > max(x, a)]


def _link_users(meta):
    """{"A>B": [flows crossing that directed link]} from meta.json, or from the scenario file
    for runs made before meta.json carried it."""
    if "links" in meta["fair_share"]:
        return meta["fair_share"]["links"]
    from . import scenario
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenarios",
                        meta["scenario"] + ".toml")
    return scenario.fair_shares(scenario.load(path))["links"] if os.path.isfile(path) else {}


def active_fair_share(meta, entry, periods, step=0.5):
    """Fair share while the flows come and go: at each instant the bottleneck's rate over the
    flows active on it then (the multicast session while a receiver is joined), averaged over
    `periods`. With every flow always on this is the static share rate / n."""
    link, rate = entry.get("bottleneck"), entry.get("rate_bps")
    users = _link_users(meta).get(f"{link[0]}>{link[1]}") if link else None
    if not users or not rate:
        return entry.get("fair_share_bps")
    on = {f["name"]: f["on_periods_s"] for f in meta["flows"]}
    mc = [(r["join_s"], r["leave_s"]) for r in meta["receivers"]]
    shares = []
    for a, b in periods:
        t = a
        while t < b:
            n = sum(1 for u in users
                    if any(x <= t < y for x, y in (mc if u == "multicast" else on.get(u, []))))
            shares.append(rate / max(n, 1))
            t += step
    return statistics.fmean(shares) if shares else entry.get("fair_share_bps")


def time_to_share(meta, r, rd, t0, frac=0.9, step=1.0):
    """Seconds from the receiver's join until the first `step`-second window whose throughput
    on the wire reaches frac x its fair share then (issue 8: 90 % within 15 s of the start);
    None if it never does."""
    entry = meta["fair_share"]["receivers"][r["name"]]
    got = {}
    for t, pid, size in rd:
        got.setdefault(pid, (t - t0, size))
    bins = {}
    for t, size in got.values():
        if t >= r["join_s"]:
            k = int((t - r["join_s"]) // step)
            bins[k] = bins.get(k, 0) + size + UDP_OVERHEAD
    for k in sorted(bins):
        a = r["join_s"] + k * step
        fs = active_fair_share(meta, entry, [(a, a + step)])
        if fs and 8 * bins[k] / step >= frac * fs:
            return k * step + step
    return None


def group_share(meta, win, cap_bps, step=0.5):
    """What a single-rate session could carry over win: at each instant the lowest fair share
    (active_fair_share) among the receivers joined then, at most cap_bps (the sender's
    max-bitrate on the wire), averaged over win. A receiver sharing the group with a slower one,
    or behind a link faster than the sender may send, is judged against this, not against its
    own fair share (issue 8: a receiver alone gets >= 85 % of what its path allows)."""
    a, b = win
    rx = meta["receivers"]
    out, t = [], a
    while t < b:
        on = [r for r in rx if r["join_s"] <= t < r["leave_s"]]
        shares = [active_fair_share(meta, meta["fair_share"]["receivers"][r["name"]],
                                    [(t, t + step)], step) for r in on]
        shares = [x for x in shares if x]
        if shares:
            out.append(min(min(shares), cap_bps) if cap_bps else min(shares))
        t += step
    return statistics.fmean(out) if out else None


def norm_metrics(run, f, t0, periods):
    """A NORM flow's extra metrics: each receiver's throughput (flows/NAME.csv is the first
    receiver's, norm/NAME.HOST.csv the others') and NORM-CC's rate over the steady part of its
    on-period (norm/NAME.sender.csv, UDP payload bit/s as NormGetTxRate reports it)."""
    rx = {}
    for j, h in enumerate(f.get("dsts", [f["dst"]])):
        rx[h] = flow_throughput(run, f["name"] if j == 0 else f"../norm/{f['name']}.{h}", t0,
                                periods, NORM_WIRE_FACTOR)
    rates = []
    for r in _csv(os.path.join(run, "norm", f["name"] + ".sender.csv")):
        try:
            t, v = float(r["time_s"]) - t0, float(r["rate_bps"])
        except (KeyError, ValueError):
            continue
        if any(a <= t < b for a, b in periods):
            rates.append(v)
    got = [v for v in rx.values() if v is not None]
    return {"receivers_bps": rx, "min_receiver_bps": min(got) if got else None,
            "cc_rate_mean_bps": statistics.fmean(rates) if rates else None,
            "cc_rate_cov": cov(rates), "segment_bytes": NORM_SEGMENT}


def evaluate(run):
    """Every metric of one run directory, as a dict (also written to RUN/metrics.json). A
    simulcast run (meta.json "streams") is measured across every stream (simulcast.py)."""
    from . import simulcast
    meta = load_meta(run)
    t0, dur = meta["t0"], meta["duration_s"]
    steady = (meta["steady_from_s"], dur)
    streams = meta.get("streams")
    rs = rate_series(run, t0)
    st_target = [r[1] for r in rs if steady[0] <= r[0] < steady[1]]
    out = {"protocol": meta["protocol"], "scenario": meta["scenario"], "steady_window_s": steady,
           "sender": {"reports": len(rs), "target_mean_bps": statistics.fmean(st_target)
                      if st_target else None, "target_cov": cov(st_target)},
           "receivers": {}, "flows": {}}
    if streams:
        per = simulcast.sender(run, t0, steady, streams)
        out["sender"]["streams"] = per
        got = [x["target_mean_bps"] for x in per if x["target_mean_bps"] is not None]
        out["sender"]["target_mean_bps"] = sum(got) if got else None   # every stream together
        sent = [read_sd(os.path.join(run, "sender", f"stream{k}", "sd.txt"))
                for k in range(len(streams))]
        sd = {p: v for x in sent for p, v in x.items()}
        users = _link_users(meta)
    else:
        sd = read_sd(os.path.join(run, "sender", "sd.txt"))
    sizes = [size for t, size in sd.values() if steady[0] <= t - t0 < steady[1]]
    # the equations (ASMP eq. 12, TFMCC) scale with the packet size: worth seeing next to the rate
    out["sender"]["packet_size_mean_bytes"] = psize = statistics.fmean(sizes) if sizes else None
    # max-bitrate counts the RTP packets' bytes; on the wire each carries UDP_OVERHEAD more
    cap = meta.get("video", {}).get("max_bitrate")
    cap = cap * (psize + UDP_OVERHEAD) / psize if cap and psize else None
    for r in meta["receivers"]:
        win = (max(steady[0], r["join_s"]), min(steady[1], r["leave_s"]))
        if win[1] <= win[0]:
            win = (r["join_s"], r["leave_s"])
        if streams:
            out["receivers"][r["name"]] = simulcast.receiver(run, meta, r, win, users, sent)
            continue
        rd = read_rd(os.path.join(run, f"rx-{r['name']}", "rd.txt"))
        m = receiver_metrics(sd, rd, t0, win)
        m["time_to_90pct_s"] = time_to_share(meta, r, rd, t0)
        fs = active_fair_share(meta, meta["fair_share"]["receivers"][r["name"]], [win])
        m["fair_share_bps"] = fs
        m["fair_share_pct"] = 100 * m["throughput_bps"] / fs if fs and m["throughput_bps"] else None
        gs = group_share(meta, win, cap)
        m["group_share_bps"] = gs
        m["group_share_pct"] = 100 * m["throughput_bps"] / gs if gs and m["throughput_bps"] else None
        out["receivers"][r["name"]] = m
    for f in meta["flows"]:
        factor = TCP_WIRE_FACTOR if f["kind"].startswith("tcp") else \
            NORM_WIRE_FACTOR if f["kind"] == "norm" else \
            (UDP_FLOW_SIZE + UDP_OVERHEAD) / UDP_FLOW_SIZE
        periods = clip(f["on_periods_s"], steady)
        thr = flow_throughput(run, f["name"], t0, periods, factor)
        fs = active_fair_share(meta, meta["fair_share"]["flows"][f["name"]], periods)
        out["flows"][f["name"]] = {"kind": f["kind"], "throughput_bps": thr, "fair_share_bps": fs,
                                   "fair_share_pct": 100 * thr / fs if thr and fs else None}
        if f["kind"] == "norm":
            out["flows"][f["name"]].update(norm_metrics(run, f, t0, periods))
    with open(os.path.join(run, "metrics.json"), "w") as f:
        json.dump(out, f, indent=1)
    return out


def _fmt(v, nd=1, unit=""):
    if v is None:
        return "–"
    return f"{v:.{nd}f}{unit}"


def _video(run, report="report"):
    """Mean over receivers of evalvid-run's receivers.csv columns (if the report exists). Only
    receivers there from start to end count: evalvid-run scores a late joiner on every frame of
    the stream, so the frames sent before it joined would count as its losses."""
    rows = _csv(os.path.join(run, report, "receivers.csv"))
    meta = load_meta(run)
    whole = {r["name"] for r in meta["receivers"]
             if r["join_s"] <= 0 and r["leave_s"] >= meta["duration_s"]}
    if whole:
        rows = [r for r in rows if r.get("receiver") in whole]
    res = {}
    for col in ("frame_loss_pct", "cumjitter_max_s", "delay_max_s", "psnr_mean_db_y", "mos_mean",
                "mos5_pct", "mos4_pct", "mos3_pct", "mos2_pct", "mos1_pct"):
        xs = []
        for r in rows:
            try:
                xs.append(float(r[col]))
            except (KeyError, ValueError):
                pass
        res[col] = statistics.fmean(xs) if xs else None
    res["cumjitter_max_s"] = max([float(r["cumjitter_max_s"]) for r in rows
                                  if r.get("cumjitter_max_s")] or [None]) if rows else None
    return res


def summary_rows(run):
    """(label, value) rows of one run for the comparison table."""
    m = evaluate(run) if not os.path.isfile(os.path.join(run, "metrics.json")) else \
        json.load(open(os.path.join(run, "metrics.json")))
    rx = list(m["receivers"].values())
    tcp = [f for f in m["flows"].values() if f["kind"].startswith("tcp")]
    udp = [f for f in m["flows"].values() if f["kind"] in ("cbr", "square")]
    norm = [f for f in m["flows"].values() if f["kind"] == "norm"]
    v = _video(run)
    vp = _video(run, "report-playout150") if os.path.isdir(os.path.join(run, "report-playout150")) \
        else None

    def mean(xs):
        xs = [x for x in xs if x is not None]
        return statistics.fmean(xs) if xs else None
    rows = [("multicast throughput, % of fair share (mean over receivers)",
             _fmt(mean([r["fair_share_pct"] for r in rx]), 0, " %")),
            (GROUP_ROW, _fmt(mean([r.get("group_share_pct") for r in rx]), 0, " %")),
            ("time to 90 % of fair share (first 1 s window; mean over receivers)",
             _fmt(mean([r.get("time_to_90pct_s") for r in rx]), 0, " s")
             if all(r.get("time_to_90pct_s") is not None for r in rx) else
             "never (some receiver)" if rx else "–"),
            ("TCP throughput, % of fair share (mean over TCP flows)",
             _fmt(mean([f["fair_share_pct"] for f in tcp]), 0, " %") if tcp else "no TCP"),
            ("TCP, lowest flow's % of fair share",
             _fmt(min([f["fair_share_pct"] for f in tcp if f["fair_share_pct"]] or [None])
                  if tcp else None, 0, " %")),
            ("UDP competitors, % of fair share (mean while on)",
             _fmt(mean([f["fair_share_pct"] for f in udp]), 0, " %") if udp else "no UDP")]
    if norm:
        rows.append((NORM_ROW, _fmt(mean([f["fair_share_pct"] for f in norm]), 0, " %")))
    per = m["sender"].get("streams")
    rows += [
            ("sender target rate, steady mean", _fmt((m["sender"]["target_mean_bps"] or 0) / 1e3,
                                                     0, " kbit/s") if not per else
             " / ".join(_fmt((x["target_mean_bps"] or 0) / 1e3, 0) for x in per)
             + " kbit/s (per stream)"),
            ("sender rate CoV (steady state)", _fmt(m["sender"]["target_cov"], 3) if not per else
             " / ".join(_fmt(x["target_cov"], 3) for x in per)),
            ("mean RTP packet size (the equations' P / s)",
             _fmt(m["sender"].get("packet_size_mean_bytes"), 0, " B")),
            ("packet loss (mean over receivers)",
             _fmt(mean([r["packet_loss_pct"] for r in rx]), 2, " %")),
            ("frame loss (mean over receivers present throughout)",
             _fmt(v["frame_loss_pct"], 2, " %")),
            ("one-way delay, median / p99",
             f"{_fmt(mean([r['delay_median_ms'] for r in rx]), 0)} / "
             f"{_fmt(max([r['delay_p99_ms'] for r in rx if r['delay_p99_ms']] or [None]) if rx else None, 0)} ms"),
            ("cumulative jitter, max", _fmt(v["cumjitter_max_s"], 3, " s")),
            ("PSNR Y mean (no play-out limit)", _fmt(v["psnr_mean_db_y"], 1, " dB")),
            ("MOS mean / % frames MOS 5", f"{_fmt(v['mos_mean'], 2)} / {_fmt(v['mos5_pct'], 0, ' %')}"),
            ("MOS distribution, % of frames 5/4/3/2/1",
             "/".join(_fmt(v[f"mos{k}_pct"], 0) for k in (5, 4, 3, 2, 1)))]
    if vp:
        rows.append(("PSNR Y / MOS / MOS 5 % with 150 ms play-out",
                     f"{_fmt(vp['psnr_mean_db_y'], 1)} dB / {_fmt(vp['mos_mean'], 2)} / "
                     f"{_fmt(vp['mos5_pct'], 0, ' %')}"))
    if load_meta(run).get("ladder_scenario"):
        from . import simulcast
        rows += simulcast.receiver_rows(run, m, per_receiver_video(run))
    return rows


def per_receiver_video(run, report="report"):
    """{receiver: {"psnr_mean_db_y": "35.1", "mos_mean": "3.80"}} from evalvid-run's table."""
    out = {}
    for r in _csv(os.path.join(run, report, "receivers.csv")):
        out[r.get("receiver")] = {k: _fmt(float(r[k]), nd) if r.get(k) not in (None, "") else None
                                  for k, nd in (("psnr_mean_db_y", 1), ("mos_mean", 2))}
    return out


NORM_ROW = "NORM throughput, % of fair share (mean over NORM flows)"
GROUP_ROW = ("multicast throughput, % of what the group could carry (the slowest joined "
             "receiver's fair share, at most max-bitrate; mean over receivers)")


def norm_column(run):
    """The NORM comparator's cells, keyed by the table's row labels, or None without NORM flows:
    its throughput as % of fair share in the multicast row (what ASMP/TFMCC are judged by),
    NORM-CC's rate and its CoV in the sender rows, its segment size."""
    m = json.load(open(os.path.join(run, "metrics.json")))
    norm = [f for f in m["flows"].values() if f["kind"] == "norm"]
    if not norm:
        return None

    def mean(xs):
        xs = [x for x in xs if x is not None]
        return statistics.fmean(xs) if xs else None
    share = _fmt(mean([f["fair_share_pct"] for f in norm]), 0, " %")
    return {"multicast throughput, % of fair share (mean over receivers)": share,
            NORM_ROW: share,
            "sender target rate, steady mean":
                _fmt((mean([f.get("cc_rate_mean_bps") for f in norm]) or 0) / 1e3, 0,
                     " kbit/s (NORM-CC rate)"),
            "sender rate CoV (steady state)": _fmt(mean([f.get("cc_rate_cov") for f in norm]), 3),
            "mean RTP packet size (the equations' P / s)": f"{NORM_SEGMENT} B (NORM segment)"}


def comparison_md(runs, paper, title):
    """Markdown table: one column per run (protocol), one per run with NORM flows (the NORM
    comparator measured in that run, on the same bottleneck) and the paper's numbers."""
    cols = {p: dict(summary_rows(r)) for p, r in runs.items()}
    labels = []
    for c in cols.values():         # every run's rows, first run's order first
        labels += [l for l in c if l not in labels]
    ncols = {p: c for p, c in ((p, norm_column(r)) for p, r in runs.items()) if c}
    head = ["metric"] + [f"{p} (here)" for p in cols] + [f"NORM (here, with {p})" for p in ncols] \
        + [f"{p} (paper)" for p in paper]
    out = [f"## {title}", "", "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for l in labels:
        cells = [l] + [cols[p].get(l, "–") for p in cols] + [ncols[p].get(l, "–") for p in ncols] \
            + [str(paper[p].get(l, "")) for p in paper]
        out.append("| " + " | ".join(cells) + " |")
    notes = [f"- paper, {p}: {k} = {v}" for p in paper for k, v in paper[p].items()
             if k not in labels]
    return "\n".join(out + [""] + notes) + "\n"

"""Simulcast (ASSP) metrics of a run directory: each receiver's stream over time against the
stream its fair share entitles it to, its throughput across the streams it was on, the sender's
rate per stream (docs/run-directory.md, "Simulcast runs"; called by analysis.evaluate).

The right stream at time t is what papers/001's rule (eq. 4-5) picks when the receiver's
TCP-friendly rate equals its fair share at t (the bottleneck's rate over the flows active on it
then): starting on stream 0 at the join, up to j+1 while share > LAMBDA x low_{j+1}, down to
j-1 while share < KAPPA x low_j, otherwise stay (so a share between KAPPA x low_j and
LAMBDA x low_j keeps whichever stream the receiver came from). eq. 4's second condition
(share > beta x the next stream's average rate) is left out: it depends on the run, not on the
path. Times are scenario seconds (0 = meta.json t0); switches.csv is CLOCK_REALTIME like t0.
"""
import csv
import os
import statistics

LAMBDA = 1.2        # lib/cc amcc_assp_params_init, spec/assp.md defaults
KAPPA = 0.8
SEG_GAP_S = 2.0     # a stream's arrivals further apart than this: a leave and a later re-join
STEP_S = 0.5        # time step of the share / right-stream timelines


def _csv(path):
    if not os.path.isfile(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def share_at(meta, entry, t, users_by_link):
    """The receiver's fair share at t: its bottleneck's rate over the flows active on it then
    (the multicast session counts once, while any receiver is joined)."""
    link, rate = entry.get("bottleneck"), entry.get("rate_bps")
    if not link or not rate:
        return None
    users = users_by_link.get(f"{link[0]}>{link[1]}") or ["multicast"]
    on = {f["name"]: f["on_periods_s"] for f in meta["flows"]}
    mc = [(r["join_s"], r["leave_s"]) for r in meta["receivers"]]
    n = sum(1 for u in users
            if any(x <= t < y for x, y in (mc if u == "multicast" else on.get(u, []))))
    return rate / max(n, 1)


def right_stream_step(j, share, streams):
    """One application of the rule to a share: the stream after j (eq. 4-5 with rx = share)."""
    while j + 1 < len(streams) and share > LAMBDA * streams[j + 1]["min_bps"]:
        j += 1
    while j > 0 and share < KAPPA * streams[j]["min_bps"]:
        j -= 1
    return j


def timeline(changes, a, b):
    """Piecewise-constant [(start, end, value)] over [a, b) from [(t, value)] sorted by t, the
    first value holding from a."""
    out = []
    for i, (t, v) in enumerate(changes):
        end = changes[i + 1][0] if i + 1 < len(changes) else b
        s, e = max(t, a), min(end, b)
        if e > s:
            out.append((s, e, v))
    return out


def value_at(tl, t):
    for s, e, v in tl:
        if s <= t < e:
            return v
    return tl[-1][2] if tl and t >= tl[-1][1] else None


def read_switches(run, name, t0):
    """[(time, from, to, decided, gap_s)] of rx-NAME/switches.csv, scenario seconds."""
    out = []
    for r in _csv(os.path.join(run, f"rx-{name}", "switches.csv")):
        try:
            out.append((float(r["time_s"]) - t0, int(r["from"]), int(r["to"]),
                        float(r["decided_s"]) - t0, float(r["gap_s"])))
        except (KeyError, ValueError):
            continue
    return sorted(out)


def on_right(cur, right, start, end):
    """First t in [start, end) where the current and right timelines agree, or None."""
    pts = sorted({start} | {s for s, _, _ in cur + right if start <= s < end})
    for t in pts:
        if value_at(cur, t) == value_at(right, t):
            return t
    return None


def receiver(run, meta, r, win, users_by_link, sent_by_stream):
    """The simulcast metrics of one receiver (r: meta.json's receiver entry)."""
    from . import analysis
    streams = meta["streams"]
    t0, name = meta["t0"], r["name"]
    join, leave = r["join_s"], r["leave_s"]
    entry = meta["fair_share"]["receivers"][name]
    sw = read_switches(run, name, t0)
    cur = timeline([(join, 0)] + [(t, to) for t, _f, to, _d, _g in sw], join, leave)
    # right stream: the rule applied to the share at every step
    ch, j, t = [], 0, join
    while t < leave:
        share = share_at(meta, entry, t, users_by_link)
        j2 = right_stream_step(j, share, streams) if share else j
        if not ch or j2 != ch[-1][1]:
            ch.append((t, j2))
        j, t = j2, t + STEP_S
    right = timeline(ch, join, leave)
    # throughput, loss and delay over every stream the receiver was on
    got, lost, expected, delays = {}, 0, 0, []
    for k in range(len(streams)):
        rd = analysis.read_rd(os.path.join(run, f"rx-{name}", f"stream{k}", "rd.txt"))
        sd = sent_by_stream[k]
        mine = {}
        for ta, pid, size in rd:
            mine.setdefault(pid, (ta, size))
        got.update(mine)
        seg = []
        for ta in sorted(x[0] for x in mine.values()):
            if seg and ta - seg[-1][1] <= SEG_GAP_S:
                seg[-1][1] = ta
            else:
                seg.append([ta, ta])
        for a, b in seg:   # packets sent from the first to the last that arrived in this stretch
            ts = [sd[p][0] for p, (ta, _) in mine.items() if a <= ta <= b and p in sd]
            if ts:
                lo, hi = min(ts), max(ts)     # once: per packet it made this quadratic
                exp = [p for p, (ts_, _) in sd.items() if lo <= ts_ <= hi]
                expected += len(exp)
                lost += sum(1 for p in exp if p not in mine)
        delays += [(ta - sd[p][0]) * 1e3 for p, (ta, _) in mine.items() if p in sd]
    a, b = win
    nbytes = sum(size + analysis.UDP_OVERHEAD for ta, size in got.values() if a <= ta - t0 < b)
    m = {"packets": len(got), "throughput_bps": 8 * nbytes / (b - a) if b > a else None,
         "packet_loss_pct": 100.0 * lost / expected if expected else None,
         "delay_median_ms": analysis.percentile(delays, 50) if delays else None,
         "delay_p99_ms": analysis.percentile(delays, 99) if delays else None}
    fs = analysis.active_fair_share(meta, entry, [win])
    m["fair_share_bps"] = fs
    m["fair_share_pct"] = 100 * m["throughput_bps"] / fs if fs and m["throughput_bps"] else None
    # the share a receiver can have on the stream it is on: its fair share clamped to that
    # stream's limits (issue 11: "0.7-1.15 of its fair share within its stream's limits")
    caps, t = [], a
    while t < b:
        s, k = share_at(meta, entry, t, users_by_link), value_at(cur, t)
        if s and k is not None:
            caps.append(min(max(s, streams[k]["min_bps"]), streams[k]["max_bps"]))
        t += STEP_S
    cap = statistics.fmean(caps) if caps else None
    m["share_in_limits_bps"] = cap
    m["share_in_limits_pct"] = 100 * m["throughput_bps"] / cap if cap and m["throughput_bps"] \
        else None
    # streams: where it ended, where it should be, how long it took, what moved it
    first = on_right(cur, right, join, leave)
    changes = [s for s, _, _ in right[1:]]
    recov = []
    for c in changes:
        nxt = [x for x in changes if x > c]
        tr = on_right(cur, right, c, nxt[0] if nxt else leave)
        recov.append({"at_s": round(c, 1), "to": value_at(right, c),
                      "after_s": None if tr is None else round(tr - c, 1)})
    # a switch away from the right stream while the right stream did not change: oscillation
    wrong = [round(t, 1) for t, f, to, _d, _g in sw if value_at(right, t - 1e-6) == f
             and value_at(right, t) == f and to != f]
    on = [0.0] * len(streams)
    for s, e, k in cur:
        on[k] += e - s
    # from the first time on the right stream to the end: the share of time still on it
    held, t = [], first
    while first is not None and t < leave:
        held.append(value_at(cur, t) == value_at(right, t))
        t += STEP_S
    m.update({"stream_final": cur[-1][2] if cur else 0, "right_final": right[-1][2] if right else 0,
              "time_to_right_s": None if first is None else round(first - join, 1),
              "right_changes": recov, "switches": len(sw),
              "switch_times_s": [round(x[0], 1) for x in sw],
              "switch_path": [f"{x[1]}>{x[2]}" for x in sw],
              "switches_off_right": wrong, "time_on_streams_s": [round(x, 1) for x in on],
              "on_right_pct": 100.0 * sum(held) / len(held) if held else None,
              "switch_gap_max_s": max((x[4] for x in sw), default=None)})
    return m


def sender(run, t0, steady, streams):
    """Per stream: steady mean target, CoV, mean receiver count, mean packet size."""
    from . import analysis
    out = []
    for k in range(len(streams)):
        d = os.path.join(run, "sender", f"stream{k}")
        rs = []
        for r in _csv(os.path.join(d, "rate.csv")):
            try:
                rs.append((float(r["time_s"]) - t0, float(r["target_bps"]),
                           int(float(r["receivers"]))))
            except (KeyError, ValueError):
                continue
        st = [x for x in rs if steady[0] <= x[0] < steady[1]]
        out.append({"target_mean_bps": statistics.fmean([x[1] for x in st]) if st else None,
                    "target_cov": analysis.cov([x[1] for x in st]),
                    "receivers_mean": statistics.fmean([x[2] for x in st]) if st else None,
                    "min_bps": streams[k]["min_bps"], "max_bps": streams[k]["max_bps"]})
    return out


def _fmt(v, nd=0, unit=""):
    return "–" if v is None else f"{v:.{nd}f}{unit}"


def receiver_rows(run, m, video):
    """Per-receiver and per-flow rows of the comparison table for a scenario with a ladder (the
    same labels for a simulcast run and a single-stream run on that file). video: {name: row of
    report/receivers.csv}."""
    rows = []
    for name, r in m["receivers"].items():
        if "stream_final" in r:
            rc = [f"{x['after_s']:.0f} s" if x["after_s"] is not None else "never"
                  for x in r["right_changes"]]
            rows.append((f"{name}: stream at the end (right one) / time to the right stream",
                         f"{r['stream_final'] + 1} ({r['right_final'] + 1}) / "
                         + (f"{r['time_to_right_s']:.0f} s" if r["time_to_right_s"] is not None
                            else "never")
                         + (f"; after path changes {', '.join(rc)}" if rc else "")))
            rows.append((f"{name}: switches (away from the right stream); % of time on it once reached",
                         f"{r['switches']} ({len(r['switches_off_right'])}); "
                         f"{_fmt(r.get('on_right_pct'), 0, ' %')}"))
        else:
            rows.append((f"{name}: stream at the end (right one) / time to the right stream",
                         "one stream"))
            rows.append((f"{name}: switches (away from the right stream); % of time on it once reached", "–"))
        cap = r.get("share_in_limits_pct")
        rows.append((f"{name}: throughput, % of fair share (of the share within its stream)",
                     f"{_fmt((r['throughput_bps'] or 0) / 1e3, 0, ' kbit/s')}, "
                     f"{_fmt(r['fair_share_pct'], 0, ' %')}"
                     + (f" ({_fmt(cap, 0, ' %')})" if "share_in_limits_pct" in r else "")))
        v = video.get(name, {})
        rows.append((f"{name}: PSNR Y / MOS", f"{v.get('psnr_mean_db_y') or '–'} dB / "
                     f"{v.get('mos_mean') or '–'}"))
    for name, f in m["flows"].items():
        rows.append((f"{name} ({f['kind']}): % of fair share", _fmt(f["fair_share_pct"], 0, " %")))
    return rows

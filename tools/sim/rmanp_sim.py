#!/usr/bin/python3
"""amcast-sim --protocol rmanp: an RMANP scenario (papers/004) in ns-3.

  amcast-sim FILE.toml --protocol rmanp [--out RUN] [--seed N] [--duration S]
             [--da 0.6,0.7,0.8,0.9] [--file-bytes N]

FILE is an RMANP scenario (tools/sim/scenarios/rmanp-*.toml: routers, links, the session tree,
background traffic, measurement windows; docs/results.md "RMANP in sim"). Writes RUN/sim.conf,
runs amcast-sim-rmanp, and leaves RUN/nodes.csv, links.csv, delay-NAME.csv, summary.json (the
program's summary plus the figures below) and report.md. With several --da values each runs in RUN/da-X and
RUN/report.md puts them side by side (papers/004 table 2). Figures:
 - throughput: bytes delivered in order at the delay receiver over the run, counted as whole
   packets on the wire (IP bytes), bytes/s (papers/004 table 2's "end-to-end throughput");
 - use of the bottleneck per window: RMANP bytes (data, repairs included) sent on the
   bottleneck link / what the background's nominal rate leaves of it;
 - delay at the delay receiver: source's first emission -> first arrival, mean over packets;
 - relay queue: per relay the time-average of the packets it holds (heard from its parent, not
   yet ACKed by all its children: new_queue included) and of new_queue alone; the table gives
   the largest over the relays (papers/004: "average number of packets stored at the ARs").
Environment: AMCAST_BUILD (build dir with tools/sim/amcast-sim-rmanp) or AMCAST_SIM_RMANP.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib

IP_UDP = 28                          # bytes of IP and UDP header around an RMANP packet


def find_exe():
    cands = [os.environ.get("AMCAST_SIM_RMANP")]
    if os.environ.get("AMCAST_BUILD"):
        cands.append(os.path.join(os.environ["AMCAST_BUILD"], "tools/sim/amcast-sim-rmanp"))
    cands.append(shutil.which("amcast-sim-rmanp"))
    return next((c for c in cands if c and os.access(c, os.X_OK)), None)


def load(path):
    with open(path, "rb") as f:
        sc = tomllib.load(f)
    for k in ("name", "duration_s", "file_bytes", "routers", "link", "source", "relay",
              "receiver"):
        if k not in sc:
            raise ValueError(f"{path}: missing '{k}'")
    return sc


def write_config(sc, path, seed):
    p = sc.get("rmanp", {})
    hl = sc.get("host_link", {})
    q = sc.get("router_queue", 3)
    lines = [f"duration {sc['duration_s']}", f"seed {seed}", f"sample {sc.get('sample_s', 1.0)}",
             f"file {sc['file_bytes']}", f"relay_api {sc.get('relay_api', 'role')}",
             "params {} {} {} {} {} {} {} {}".format(
                 p.get("rm_bps", 16000), p.get("is", 0.005), p.get("in", 0.05), p.get("da", 0.8),
                 p.get("dr", 0.99), p.get("packet_bytes", 1057), p.get("cache_packets", 100),
                 p.get("queue_packets", 10))]
    hosts = [sc["source"]] + sc["receiver"]
    lines += [f"node {r} router" for r in sc["routers"]]
    lines += [f"node {h['name']} host" for h in hosts]

    def link(a, b, d):
        return (f"link {a} {b} {float(d.get('rate_bps', hl.get('rate_bps', 10e6)))} "
                f"{float(d.get('delay_ms', hl.get('delay_ms', 0)))} {int(d.get('queue', q))} "
                f"{int(d.get('trace', False))} {float(d.get('loss_pct', 0))}")
    lines += [link(ln["a"], ln["b"], ln) for ln in sc["link"]]
    lines += [link(h["at"], h["name"], h) for h in hosts]
    src = sc["source"]["name"]
    lines.append(f"source {src} {src}")
    lines += [f"relay {r['name']} {r['node']} {r['parent']}" for r in sc["relay"]]
    lines += [f"receiver {r['name']} {r['name']} {r['parent']}" for r in sc["receiver"]]
    for b in sc.get("background", []):
        lines.append(f"background {b['name']} {b['src']} {b['dst']} {b.get('ip_bytes', 1000)} "
                     + " ".join(f"{s}:{e}:{r}" for s, e, r in b["steps"]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def series(path, key, name, col):
    """time -> value of column col for rows whose `key` is name."""
    out = []
    with open(path) as f:
        for row in csv.DictReader(f):
            if row[key] == name:
                out.append((float(row["time_s"]), float(row[col])))
    return out


def at(s, t):
    """The cumulative value at time t (last sample at or before t; 0 before the first)."""
    v = 0.0
    for x, y in s:
        if x > t + 1e-9:
            break
        v = y
    return v


def figures(sc, run, summ):
    m = sc.get("measure", {})
    p = sc.get("rmanp", {})
    pkt = p.get("packet_bytes", 1057)
    payload = pkt - 16
    dur = sc["duration_s"]
    rx = m.get("delay_receiver", sc["receiver"][-1]["name"])
    r = summ["members"][rx]
    fig = {"delay_receiver": rx, "delay_ms_mean": r["delay_ms"]["mean"],
           "delay_ms_min": r["delay_ms"]["min"], "delay_ms_max": r["delay_ms"]["max"],
           "throughput_Bps": r["got"] / payload * (pkt + IP_UDP) / dur,
           "goodput_Bps": r["got"] / dur}
    relays = {k: v for k, v in summ["members"].items() if v["role"] == "relay"}
    fig["held_mean_max"] = max(v["held_mean"] for v in relays.values())
    fig["queue_mean_max"] = max(v["queue_mean"] for v in relays.values())
    fig["held_peak_max"] = max(v["held_peak"] for v in relays.values())
    fig["queue_peak_max"] = max(v["queue_peak"] for v in relays.values())
    recv = {k: v for k, v in summ["members"].items() if v["role"] == "receiver"}
    fig["receivers_complete"] = sum(1 for v in recv.values() if v["complete"])
    fig["receivers"] = len(recv)
    fig["bad_bytes"] = sum(v["bad"] for v in recv.values())
    bn = m.get("bottleneck")
    if bn:
        rate = next(float(ln["rate_bps"]) for ln in sc["link"]
                    if f"{ln['a']}>{ln['b']}" == bn or f"{ln['b']}>{ln['a']}" == bn)
        data = series(os.path.join(run, "links.csv"), "link", bn, "data_bytes")
        bgb = series(os.path.join(run, "links.csv"), "link", bn, "bg_bytes")
        fig["windows"] = {}
        for w in m.get("window", []):
            a, b = w["start_s"], min(w["end_s"], dur)
            if b <= a:
                continue
            used = (at(data, b) - at(data, a)) / (b - a)
            bg_sent = (at(bgb, b) - at(bgb, a)) / (b - a)
            bg_nominal = sum(max(0.0, min(e, b) - max(s, a)) * rr
                             for bg in sc.get("background", []) for s, e, rr in bg["steps"]) / (b - a)
            free = rate / 8 - bg_nominal
            fig["windows"][w["name"]] = {
                "start_s": a, "end_s": b, "rmanp_Bps": used, "background_Bps": bg_sent,
                "free_Bps": free, "use_pct": 100 * used / free if free > 0 else None,
                "use_of_left_pct": 100 * used / (rate / 8 - bg_sent) if rate / 8 > bg_sent else None}
    return fig


def run_one(sc, run, exe, seed):
    os.makedirs(run, exist_ok=True)
    conf = os.path.join(run, "sim.conf")
    write_config(sc, conf, seed)
    with open(os.path.join(run, "sim.log"), "w") as lg:
        p = subprocess.run([exe, conf, run], stdout=subprocess.PIPE, stderr=lg, text=True)
        lg.write(p.stdout)
    summ = next((json.loads(x) for x in reversed(p.stdout.splitlines()) if x.startswith("{")),
                None)
    if p.returncode != 0 or summ is None:
        print(f"[amcast-sim] rmanp: amcast-sim-rmanp exited {p.returncode} ({run}/sim.log)",
              file=sys.stderr)
        return None
    summ["figures"] = figures(sc, run, summ)
    summ["scenario"] = sc["name"]
    summ["da"] = sc.get("rmanp", {}).get("da", 0.8)
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump(summ, f, indent=1)
    return summ


def report(sc, results, cmd):
    paper = sc.get("paper_numbers", {})
    rows = ["| Da | delay at {} (ms) | paper | throughput (B/s) | paper | mean relay queue "
            "(held / new_queue, packets) | paper | complete | wall (s) |".format(
                results[0][1]["figures"]["delay_receiver"]),
            "|---|---|---|---|---|---|---|---|---|"]
    for da, s in results:
        f = s["figures"]
        pp = paper.get(f"da_{da}", {})
        rows.append(f"| {da} | {f['delay_ms_mean']:.0f} | {pp.get('delay_ms', '-')} | "
                    f"{f['throughput_Bps']:.0f} | {pp.get('throughput_Bps', '-')} | "
                    f"{f['held_mean_max']:.2f} / {f['queue_mean_max']:.2f} | "
                    f"{pp.get('queue_packets', '-')} | {f['receivers_complete']}/"
                    f"{f['receivers']} | {s['wall_s']:.1f} |")
    out = [f"# {sc.get('title', sc['name'])} (ns-3)", "", *rows, ""]
    for da, s in results:
        for name, w in s["figures"].get("windows", {}).items():
            pct = lambda v: "-" if v is None else f"{v:.1f}"     # None: no room left
            out.append(f"- Da {da}, {name} [{w['start_s']:.0f}, {w['end_s']:.0f}) s: RMANP "
                       f"{w['rmanp_Bps']:.0f} B/s on the bottleneck = {pct(w['use_pct'])} % of "
                       f"the {w['free_Bps']:.0f} B/s the background leaves "
                       f"({pct(w['use_of_left_pct'])} % of what it actually left)")
    out += ["", f"Command: `{cmd}`", ""]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--protocol", default="rmanp", choices=["rmanp"])
    ap.add_argument("--out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float)
    ap.add_argument("--da", help="comma-separated Da values (one run each)")
    ap.add_argument("--file-bytes", type=int)
    ap.add_argument("--relay-api", choices=["role", "controller"],
                    help="relays through amcc/rmanp.h (role, default) or amcc/controller.h's "
                    "relay table (controller: Rm only, lib/cc's defaults for the rest, no queue "
                    "counters)")
    ap.add_argument("--no-report", action="store_true", help="accepted for amcast-sim's sake")
    a = ap.parse_args(argv)
    try:
        sc = load(a.file)
    except (OSError, ValueError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"amcast-sim: {e}")
    exe = find_exe()
    if not exe:
        sys.exit("amcast-sim: amcast-sim-rmanp not found (ns-3 missing at build time?); set AMCAST_BUILD")
    if a.duration:
        sc["duration_s"] = a.duration
    if a.file_bytes:
        sc["file_bytes"] = a.file_bytes
    if a.relay_api:
        sc["relay_api"] = a.relay_api
    out = os.path.abspath(a.out or os.path.join(
        "runs", f"sim-{sc['name']}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"))
    das = [float(x) for x in a.da.split(",")] if a.da else [sc.get("rmanp", {}).get("da", 0.8)]
    cmd = " ".join(["amcast-sim"] + (argv if argv is not None else sys.argv[1:]))
    results = []
    for da in das:
        sc.setdefault("rmanp", {})["da"] = da
        run = os.path.join(out, f"da-{da}") if len(das) > 1 else out
        s = run_one(sc, run, exe, a.seed)
        if s is None:
            return 1
        print(f"[amcast-sim] rmanp Da {da}: {sc['duration_s']} s simulated in {s['wall_s']:.1f} s; "
              f"{s['figures']['receivers_complete']}/{s['figures']['receivers']} receivers complete",
              file=sys.stderr)
        results.append((da, s))
    md = report(sc, results, cmd)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

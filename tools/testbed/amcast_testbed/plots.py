"""One figure per scenario: the sender's rate of each protocol over time, with the competing
flows' throughput and the receivers' joins and leaves (the papers' rate figures)."""
import os

from . import analysis


def flow_series(run, name, t0):
    rows = analysis._csv(os.path.join(run, "flows", name + ".csv"))
    return [(float(r["time_s"]) - t0, 8 * float(r["bytes"]) / 1e3) for r in rows]


def rates_png(runs, path, title):
    """runs: {protocol: run dir}. Writes a PNG to path; returns path, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(9, 4.2))
    meta = None
    for proto, run in runs.items():
        meta = analysis.load_meta(run)
        rs = analysis.rate_series(run, meta["t0"])
        ax.plot([r[0] for r in rs], [r[1] / 1e3 for r in rs], lw=1.6,
                label=f"{proto} sender target")
    first = next(iter(runs.values()))
    meta = analysis.load_meta(first)            # flows and joins as seen in the first run
    flows = meta["flows"] if meta else []
    if len(flows) > 4:                          # many flows: one line, their mean
        ss = [flow_series(first, f["name"], meta["t0"]) for f in flows]
        ss = [s for s in ss if s]
        n = min(len(s) for s in ss) if ss else 0
        if n:
            ax.plot([ss[0][i][0] for i in range(n)],
                    [sum(s[i][1] for s in ss) / len(ss) for i in range(n)], lw=0.8, alpha=0.7,
                    label=f"mean of {len(ss)} flows (with {next(iter(runs))})")
        flows = []
    for f in flows:
        s = flow_series(first, f["name"], meta["t0"])
        if s:
            ax.plot([x[0] for x in s], [x[1] for x in s], lw=0.7, alpha=0.6,
                    label=f"{f['name']} ({f['kind']}, with {next(iter(runs))})")
    for r in meta["receivers"] if meta else []:
        if r["join_s"] > 0:
            ax.axvline(r["join_s"], color="k", ls=":", lw=0.8)
            ax.text(r["join_s"], ax.get_ylim()[1] * 0.95, f" {r['name']} joins", fontsize=7)
        if r["leave_s"] < meta["duration_s"]:
            ax.axvline(r["leave_s"], color="k", ls="--", lw=0.8)
            ax.text(r["leave_s"], ax.get_ylim()[1] * 0.9, f" {r['name']} leaves", fontsize=7)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("kbit/s")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path

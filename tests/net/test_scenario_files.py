#!/usr/bin/python3
"""Scenario files and the numbers derived from them, without running anything (no root needed):
every shipped file loads; fair shares and bottlenecks follow from the link rates as the papers
define them (a NORM flow counts once on its bottleneck); flow schedules (on/off, square wave,
--short scaling) are what the file says; bad files (NORM flows with bad keys, groups or hosts
too) are rejected with a message naming the problem; rmanp-chain's shared phase from a hand-made
run directory; what a single-rate group could carry while a slow receiver comes and goes."""
import os
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TB = os.path.join(TOP, "tools", "testbed")
sys.path.insert(0, TB)
from amcast_testbed import analysis, protocols, rmanp, scenario, simulcast, traffic  # noqa: E402

SC = os.path.join(TB, "scenarios")
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def near(a, b, tol=1e-6):
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))


def shipped():
    names = sorted(f for f in os.listdir(SC) if f.endswith(".toml"))
    for n in names:
        try:
            scenario.load(os.path.join(SC, n))
            check(True, f"{n} loads")
        except scenario.ScenarioError as e:
            check(False, f"{n}: {e}")
    check(len(names) >= 7, f"{len(names)} scenario files shipped")


def fair_shares():
    for name, rate in (("fairness-l1", 6.5e6), ("fairness-l2", 11e6)):
        fs = scenario.fair_shares(scenario.load(os.path.join(SC, name + ".toml")))
        # papers/000 §5.3.1: 10 TCP + 1 multicast per bottleneck, 100 %/11 = 9.09 % each
        check(near(fs["receivers"]["mr1"]["fair_share_bps"], rate / 11),
              f"{name}: multicast fair share {fs['receivers']['mr1']['fair_share_bps']:.0f} = {rate:g}/11")
        check(all(near(f["fair_share_bps"], rate / 11) for f in fs["flows"].values()),
              f"{name}: every TCP flow's fair share is {rate / 11:.0f}")
    lj = scenario.load(os.path.join(SC, "late-join.toml"))
    fs = scenario.fair_shares(lj)
    check(near(fs["receivers"]["mr1"]["fair_share_bps"], 1.5e6 / 5),
          "late-join: fast receivers share 1.5 Mb/s with 4 TCP flows (300 kb/s)")
    check(fs["receivers"]["mr5"]["bottleneck"] == ["r2", "mr5"] and
          near(fs["receivers"]["mr5"]["rate_bps"], 300e3),
          f"late-join: mr5's bottleneck is its own 300 kb/s link ({fs['receivers']['mr5']['bottleneck']})")
    db = scenario.fair_shares(scenario.load(os.path.join(SC, "dumbbell-tcp.toml")))
    # papers/002 §III-A: the multicast session must not take more than 2 Mb/s of 4 Mb/s
    check(near(db["receivers"]["mr1"]["fair_share_bps"], 2e6), "dumbbell-tcp: fair share 2 Mb/s")
    dn = scenario.fair_shares(scenario.load(os.path.join(SC, "dumbbell-tcp-norm.toml")))
    # the session, one TCP flow and one NORM flow (counted once for its two receivers): 4 Mb/s / 3
    check(near(dn["receivers"]["mr1"]["fair_share_bps"], 4e6 / 3) and
          near(dn["flows"]["tcp1"]["fair_share_bps"], 4e6 / 3) and
          near(dn["flows"]["norm1"]["fair_share_bps"], 4e6 / 3),
          "dumbbell-tcp-norm: session, TCP and NORM each get 4 Mb/s / 3")
    check(sorted(dn["links"]["r1>r2"]) == ["multicast", "norm1", "tcp1"] and
          dn["links"]["r2>nr2"] == ["norm1"],
          f"dumbbell-tcp-norm: the NORM flow crosses the bottleneck once and reaches both receivers")


def group_share():
    """late-join-quick: the fast receivers' 1.5 Mb/s path is capped by the sender's max-bitrate
    (1 Mb/s of video, on the wire 1 Mb/s x (1000 + 42) / 1000 for 1000-byte packets), and while
    the 300 kb/s receiver is joined (50-100 s) the group can carry 300 kb/s."""
    sc = scenario.load(os.path.join(SC, "late-join-quick.toml"))
    meta = {"flows": traffic.describe(sc.get("flow", []), 150, 1.0),
            "fair_share": scenario.fair_shares(sc),
            "receivers": [{"name": r["name"], "join_s": r.get("join_s", 0),
                           "leave_s": r.get("leave_s", 150)} for r in sc["receiver"]]}
    cap = 1e6 * 1042 / 1000
    got = [analysis.group_share(meta, w, cap) for w in ((20, 50), (50, 100), (20, 150))]
    want = (cap, 300e3, (80 * cap + 50 * 300e3) / 130)
    check(all(near(a, b) for a, b in zip(got, want)),
          f"late-join-quick: the group can carry {[round(x or 0) for x in got]} bit/s over 20-50, "
          f"50-100 and 20-150 s (want {[round(x) for x in want]})")
    check(near(analysis.group_share(meta, (20, 50), None), 1.5e6),
          "late-join-quick without a max-bitrate: the 1.5 Mb/s bottleneck alone")
    # time to 90 % of the share: 958-byte packets (1000 on the wire), 100 then 200 per second
    # from t0 = 5; 0.9 x 1.5 Mb/s = 1.35 Mb/s is first reached by the window 3-4 s
    r = meta["receivers"][0]
    rd = [(5 + i / 100, str(i), 958) for i in range(300)] + \
        [(8 + i / 200, str(300 + i), 958) for i in range(1000)]
    got = analysis.time_to_share(meta, r, rd, 5)
    check(got == 4.0, f"time to 90 % of the share: {got} s (want 4.0)")
    check(analysis.time_to_share(meta, r, rd[:300], 5) is None, "never reached: None")


def schedules():
    dyn = scenario.load(os.path.join(SC, "dynamics.toml"))
    fl = {f["name"]: f for f in dyn["flow"]}
    check(traffic.on_periods(fl["tcp2"], 200) == [(30.0, 120.0)], "dynamics: TCP2 on 30-120 s")
    check(traffic.on_periods(fl["cbr"], 200) == [(80.0, 170.0)], "dynamics: CBR on 80-170 s")
    check(traffic.on_periods(fl["cbr"], 50, 0.25) == [(20.0, 42.5)], "dynamics --short: CBR 20-42.5 s")
    sq = scenario.load(os.path.join(SC, "dumbbell-udp.toml"))["flow"][0]
    p = traffic.on_periods(sq, 80)
    check(p == [(0.0, 10.0), (20.0, 30.0), (40.0, 50.0), (60.0, 70.0)],
          f"square wave 10 s on / 10 s off over 80 s: {p}")
    onoff = {"name": "x", "kind": "tcp-onoff", "on_s": 3, "off_s": 2, "start_s": 1, "stop_s": 12}
    check(traffic.on_periods(onoff, 20) == [(1.0, 4.0), (6.0, 9.0), (11.0, 12.0)],
          "tcp-onoff: periods clipped at stop_s")


def bad_files():
    base = open(os.path.join(SC, "late-join-quick.toml")).read()
    cases = {
        "unknown node": base.replace('b = "mr5"\nrate_bps', 'b = "nosuch"\nrate_bps'),
        "leave_s must be after join_s": base.replace("leave_s = 100", "leave_s = 10"),
        "missing 'sender'": base.replace('sender = "ms"', ""),
        "Expected": base + "\n[[link]\n",                       # TOML syntax error
        "kind must be one of": base + '\n[[flow]]\nname="f"\nkind="ftp"\nsrc="ms"\ndst="mr1"\n',
        "needs rate_bps": base + '\n[[flow]]\nname="f"\nkind="cbr"\nsrc="ms"\ndst="mr1"\n',
        "cc must be reno or cubic": base + '\n[[flow]]\nname="f"\nkind="tcp"\ncc="bbr"\nsrc="ms"\ndst="mr1"\n',
        "layers: unknown keys ['fastleave']": base + '\n[layers]\nfastleave = true\n',
        "layers: fast_leave 'yes' is not true or false": base + '\n[layers]\nfast_leave = "yes"\n',
        "window_bytes must be an integer": base + '\n[[flow]]\nname="f"\nkind="tcp"\nwindow_bytes=100\nsrc="ms"\ndst="mr1"\n',
        "unknown key(s) for kind cbr: window_bytes": base + '\n[[flow]]\nname="f"\nkind="cbr"\nrate_bps=1e5\nwindow_bytes=64000\nsrc="ms"\ndst="mr1"\n',
        "unknown key(s) for kind norm: cc": base + '\n[[flow]]\nname="f"\nkind="norm"\ncc="reno"\nsrc="ms"\ndst="mr1"\n',
        "norm needs either dst or dsts": base + '\n[[flow]]\nname="f"\nkind="norm"\nsrc="ms"\ndst="mr1"\ndsts=["mr2"]\n',
        "the video session's group": base + '\n[[flow]]\nname="f"\nkind="norm"\nsrc="ms"\ndsts=["mr1"]\ngroup="239.1.2.3"\n',
        "is not a routable multicast group": base + '\n[[flow]]\nname="f"\nkind="norm"\nsrc="ms"\ndsts=["mr1"]\ngroup="10.0.0.1"\n',
        "cannot also receive": base + '\n[[flow]]\nname="f"\nkind="norm"\nsrc="ms"\ndsts=["mr1", "ms"]\n',
        "loss_pct 120 not in 0..100": base.replace('b = "mr5"\nrate_bps', 'b = "mr5"\nloss_pct = 120\nrate_bps'),
        "loss_port 0 not a UDP port": base.replace('b = "mr5"\nrate_bps', 'b = "mr5"\nloss_pct = 1\nloss_port = 0\nrate_bps'),
        "video.fec 'always': one of off, auto": base.replace("[video]\n", '[video]\nfec = "always"\n'),
        "unknown host 'nosuch'": base + '\n[[flow]]\nname="f"\nkind="norm"\nsrc="ms"\ndsts=["mr1", "nosuch"]\n',
    }
    reject(cases)


def rmanp_shared_phase():
    """rmanp-chain's shared phase from a hand-made run directory: the TCP flow's rate is the
    run directory's flow throughput (analysis.flow_throughput), whatever the sink's row interval
    (flowgen sink --interval; 0.5 s here)."""
    sc = scenario.load(os.path.join(SC, "rmanp-chain.toml"))
    t0, took, step = 1000.0, 100.0, 0.5
    fl = traffic.describe(sc["flow"], sc["duration_s"])              # tcp1 on 3-123 s
    with tempfile.TemporaryDirectory() as run:
        os.makedirs(os.path.join(run, "flows"))
        with open(os.path.join(run, "flows", "tcp1.csv"), "w") as f:
            f.write("time_s,bytes\n")
            for k in range(int(120 / step)):                       # 400 kbit/s of payload
                f.write(f"{t0 + 3 + k * step:.6f},{int(400e3 / 8 * step)}\n")
        goodput = {n: [(t0 + s, 60e3 * s) for s in range(0, 101)] for n in ("rx1", "rx2")}
        rows = rmanp.shared_phases(sc, rmanp.tree(sc), run, fl, t0, took, 5.0, goodput)
    r = rows.get("tcp1", {})
    check(r.get("phase_s") == [8.0, 100.0] and r.get("receivers") == ["rx1", "rx2"],
          f"rmanp-chain: tcp1 shares r2>r2b with rx1, rx2 over 8-100 s ({r})")
    check(near(r.get("flow_bps"), 400e3) and near(r.get("rmanp_bps"), 480e3),
          f"rmanp-chain: TCP 400 kbit/s from 0.5 s sink rows, RMANP 480 kbit/s "
          f"({r.get('flow_bps')}, {r.get('rmanp_bps')})")


STREAM = '\n[[video.stream]]\nwidth = 320\nheight = 180\nmin_bitrate = {lo}\nmax_bitrate = {hi}\n'


def ladders():
    """[[video.stream]]: the file's ladder for a simulcast protocol, the registry's without one,
    none for a single-stream protocol; bad ladders rejected; the right-stream rule."""
    acc = scenario.load(os.path.join(SC, "assp-accuracy.toml"))
    assp, asmp = protocols.get("assp"), protocols.get("asmp")
    lad = scenario.ladder(acc, assp)
    check([(x["min_bps"], x["max_bps"]) for x in lad] ==
          [(100000, 200000), (200000, 500000), (600000, 1000000)],
          f"assp-accuracy: the paper's ladder 100-200, 200-500, 600-1000 kb/s ({lad})")
    check(scenario.ladder_arg(lad) == "320x180:100000:200000,480x270:200000:500000,"
          "640x360:600000:1000000", "amcast-node --streams of that ladder")
    check(scenario.ladder(acc, asmp) == [], "a single-stream protocol sends no ladder")
    lj = scenario.load(os.path.join(SC, "late-join-quick.toml"))
    check(len(scenario.ladder(lj, assp)) == len(assp.streams) == 3,
          "no [[video.stream]]: the protocol's ladder")
    fa = scenario.fair_shares(scenario.load(os.path.join(SC, "assp-fairness.toml")))
    # papers/001 §3.2: 2 TCP + 1 multicast per bottleneck, 100 %/3 each
    for rx, rate in (("mr1", 0.8e6), ("mr2", 2e6), ("mr3", 3.5e6)):
        check(near(fa["receivers"][rx]["fair_share_bps"], rate / 3),
              f"assp-fairness: {rx}'s fair share {rate / 3:.0f} = {rate:g}/3")
    base = open(os.path.join(SC, "late-join-quick.toml")).read()
    cases = {
        "min_bitrate must be below max_bitrate": base + STREAM.format(lo=300000, hi=200000),
        "unknown keys ['bitrate']": base + STREAM.format(lo=1, hi=2) + "bitrate = 5\n",
        "differs from [video] fps": base + STREAM.format(lo=1, hi=2) + "fps = 15\n",
        "the ladder goes lowest first": base + STREAM.format(lo=500, hi=900)
        + STREAM.format(lo=100, hi=200),
        "width must be a positive integer": base + STREAM.format(lo=1, hi=2).replace(
            "width = 320", "width = 0"),
    }
    reject(cases)
    # the rule (lambda 1.2, kappa 0.8) on assp-fairness's ladder 100-300, 300-500, 600-1500:
    # up to 2 needs > 360, up to 3 > 720; down from 3 below 480, from 2 below 240
    st = [{"min_bps": 100e3}, {"min_bps": 300e3}, {"min_bps": 600e3}]
    got = [simulcast.right_stream_step(j, share, st) for j, share in
           ((0, 267e3), (0, 667e3), (0, 1167e3), (2, 667e3), (2, 470e3), (1, 250e3), (2, 200e3))]
    check(got == [0, 1, 2, 2, 1, 1, 0], f"right stream by the rule: {got} "
          "(267k: 1, 667k: 2, 1167k: 3; from 3: 667k stays, 470k -> 2; from 2: 250k stays, "
          "from 3 at 200k -> 1)")
    dyn = scenario.load(os.path.join(SC, "assp-dynamics.toml"))
    meta = {"flows": traffic.describe(dyn["flow"], 240, 1.0),
            "receivers": [{"join_s": 0, "leave_s": 240}]}
    e = scenario.fair_shares(dyn)["receivers"]["mr3"]
    users = scenario.fair_shares(dyn)["links"]
    shares = [simulcast.share_at(meta, e, t, users) for t in (50, 80, 120, 170)]
    check(all(near(a, b) for a, b in zip(shares, (7e5, 3.5e5, 7e5, 3.5e5))),
          f"assp-dynamics: L3's share 2.1 Mb/s / 3, / 6 with the extra flows at 70-95 and "
          f"160-185 s ({shares})")


def reject(cases):
    for want, text in cases.items():
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write(text)
        try:
            scenario.load(f.name)
            check(False, f"bad file accepted (wanted an error with '{want}')")
        except scenario.ScenarioError as e:
            check(want in str(e) and f.name in str(e), f"rejected with a clear message: {e}")
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    shipped()
    ladders()
    fair_shares()
    group_share()
    schedules()
    bad_files()
    rmanp_shared_phase()
    print(f"# amtest: checks={checks} failures={failures}")
    sys.exit(1 if failures else 0)

#!/usr/bin/python3
"""[[receivers]] groups (a count and a link distribution instead of one [[receiver]] each), which
only ./amcast sim can run (docs/sim.md).

Parser (tools/testbed/amcast_testbed/scenario.py) on tests/sim/group-30.toml:
 - the groups expand to 30 hosts slow-1..2, lossy-1..28, one link r2 -> host each and 30
   receivers; slow links 500 kbit/s; lossy links' loss in [0, 1] %, delay in [5, 40] ms, joins in
   [0, 2] s; the draws are the same on a second load (seeded by the group, not by the run);
 - the testbed refuses the file: load(testbed=True) raises "only valid for ./amcast sim", and
   amcast-scenario exits 1 with that message before it touches any namespace;
 - bad groups are refused: count 0, an unknown router, an unknown key, a malformed distribution.
Sim (tools/sim/amcast-sim, ASMP, random seed printed):
 - exits 0; meta.json lists the 5 traced receivers, "receivers_total" 30; rx-NAME exists for
   exactly those 5; the summary line counts all 30;
 - every receiver received video packets and the sender heard at least one report from each
   (the slow ones included); the per-second feedback counts add up to the reports heard.
Tree routing (tests/sim/group-tree.toml: 200 receivers and a TCP flow, 205 nodes, above the
200 at which the sim stops using ns-3's global routing): the summary says "tree", every receiver
gets video, the TCP flow gets > 3 of its 5 Mbit/s (4.8 measured).
About 5 s.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import shutil

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tools", "testbed"))
from amcast_testbed import scenario  # noqa: E402

FILE = os.path.join(TOP, "tests", "sim", "group-30.toml")
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def refused(text):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
    try:
        scenario.load(f.name)
        return None
    except scenario.ScenarioError as e:
        return str(e)
    finally:
        os.unlink(f.name)


def parser():
    sc = scenario.load(FILE)
    hosts = [h for h in sc["hosts"] if h != "ms"]
    check(hosts == [f"slow-{i}" for i in (1, 2)] + [f"lossy-{i}" for i in range(1, 29)],
          f"30 hosts slow-1..2, lossy-1..28 ({len(hosts)})")
    links = {ln["b"]: ln for ln in sc["link"] if ln["a"] == "r2"}
    check(len(links) == 30 and len(sc["receiver"]) == 30, "one link r2 -> host and one receiver each")
    check(all(links[f"slow-{i}"]["rate_bps"] == [500000, 0] for i in (1, 2)), "slow links 500 kbit/s")
    lossy = [links[f"lossy-{i}"] for i in range(1, 29)]
    check(all(0 <= ln["loss_pct"][0] <= 1 and ln["loss_pct"][1] == 0 for ln in lossy)
          and len({ln["loss_pct"][0] for ln in lossy}) == 28, "lossy: 28 different loss rates in [0, 1] %")
    check(all(5 <= ln["delay_ms"] <= 40 for ln in lossy), "lossy: delays in [5, 40] ms")
    check(all(0 <= r["join_s"] <= 2 for r in sc["receiver"]), "joins in [0, 2] s")
    check(sum(r["trace"] for r in sc["receiver"]) == 5, "5 receivers traced")
    again = scenario.load(FILE)
    check([ln.get("loss_pct") for ln in again["link"]] == [ln.get("loss_pct") for ln in sc["link"]],
          "a second load draws the same links")
    try:
        scenario.load(FILE, testbed=True)
        check(False, "the testbed refuses [[receivers]]")
    except scenario.ScenarioError as e:
        check("only valid for ./amcast sim" in str(e), f"the testbed refuses [[receivers]]: {e}")
    p = subprocess.run([os.path.join(TOP, "tools", "testbed", "amcast-scenario"), FILE, "--short"],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 1 and "only valid for ./amcast sim" in p.stderr,
          f"amcast-scenario exits 1 with the message ({p.returncode}: {p.stderr.strip()[:80]})")
    base = ('name = "g"\nduration_s = 5\nrouters = ["r1"]\nhosts = ["ms"]\nsender = "ms"\n'
            '[[link]]\na = "ms"\nb = "r1"\n[[receivers]]\nname = "x"\n')
    for what, extra in (("count 0", 'count = 0\nrouter = "r1"\n'),
                        ("an unknown router", 'count = 2\nrouter = "r9"\n'),
                        ("an unknown key", 'count = 2\nrouter = "r1"\nrate = 5\n'),
                        ("a malformed distribution", 'count = 2\nrouter = "r1"\nloss_pct = {normal = [0, 1]}\n')):
        err = refused(base + extra)
        check(err is not None, f"refused: {what} ({err})")


def sim():
    seed = random.SystemRandom().randint(1, 1 << 30)
    print(f"seed {seed}")
    run = tempfile.mkdtemp(prefix="amt-sim-group-")
    try:
        p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"), FILE, "--seed",
                            str(seed), "--out", run, "--no-report"], stdout=subprocess.DEVNULL,
                           timeout=120)
        check(p.returncode == 0, f"amcast-sim exited {p.returncode}")
        if p.returncode:
            return
        meta = json.load(open(os.path.join(run, "meta.json")))
        traced = sorted(r["name"] for r in meta["receivers"])
        check(traced == ["lossy-1", "lossy-2", "lossy-3", "slow-1", "slow-2"]
              and meta["receivers_total"] == 30, f"meta.json: 5 traced of 30 ({traced})")
        dirs = sorted(d[3:] for d in os.listdir(run) if d.startswith("rx-"))
        check(dirs == traced, f"rx-NAME only for the traced ({len(dirs)})")
        s = json.load(open(os.path.join(run, "nodes.json")))["sim"]["summary"]
        rx = s["receivers"]
        check(len(rx) == 30, f"the summary counts all 30 ({len(rx)})")
        check(all(v["packets"] > 0 for v in rx.values()),
              f"every receiver got video (least {min(v['packets'] for v in rx.values())})")
        check(all(v["heard"] >= 1 for v in rx.values()),
              f"the sender heard every receiver (least {min(v['heard'] for v in rx.values())} reports)")
        check(sum(s["feedback_per_s"]) == sum(v["heard"] for v in rx.values()) > 0,
              f"feedback per second adds up ({sum(s['feedback_per_s'])})")
    finally:
        shutil.rmtree(run, ignore_errors=True)


def tree():
    """group-tree.toml: 205 nodes, so unicast goes by tree_unicast; the TCP flow must get
    through it (5 Mbit/s link r2 -> tr, nothing else on it) and the group still reaches all."""
    seed = random.SystemRandom().randint(1, 1 << 30)
    run = tempfile.mkdtemp(prefix="amt-sim-tree-")
    try:
        p = subprocess.run([os.path.join(TOP, "tools", "sim", "amcast-sim"),
                            os.path.join(TOP, "tests", "sim", "group-tree.toml"), "--seed",
                            str(seed), "--out", run, "--no-report"], stdout=subprocess.DEVNULL,
                           timeout=120)
        check(p.returncode == 0, f"tree: amcast-sim exited {p.returncode} (seed {seed})")
        if p.returncode:
            return
        s = json.load(open(os.path.join(run, "nodes.json")))["sim"]["summary"]
        check(s["routing"] == "tree", f"tree: routed by the tree ({s['routing']})")
        check(len(s["receivers"]) == 200 and all(v["packets"] > 0 for v in s["receivers"].values()),
              "tree: all 200 receivers got video")
        with open(os.path.join(run, "flows", "tcp1.csv")) as f:
            rows = [l.split(",") for l in f.readlines()[1:]]
        bps = 8 * sum(int(b) for t, b in rows[2:6]) / 4    # seconds 3-6: past slow start
        check(bps > 3e6, f"tree: the TCP flow got {bps / 1e6:.2f} Mbit/s of its 5 (> 3)")
    finally:
        shutil.rmtree(run, ignore_errors=True)


parser()
sim()
tree()
print(f"{checks - failures}/{checks} checks passed")
sys.exit(1 if failures else 0)

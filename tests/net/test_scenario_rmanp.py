#!/usr/bin/python3
"""Short RMANP scenario with the real elements: tools/testbed/scenarios/rmanp-chain.toml
--protocol rmanp --short (a 400 kB file from src through relay1, a 1 Mbit/s bottleneck shared
with one TCP Reno flow, relay2, to rx1 and rx2; 2 % random loss on rx2's link; the tree, its
segments and the relays' routes come from the file, not from this test). About 40 s.

First, without namespaces (also when not root): the tree amcast_testbed/rmanp.py derives from
the file (each relay's upstream and downstream router, the children counted), and files it must
refuse: a relay whose parent is unknown, two relays each other's parent, a receiver outside its
parent's segment, segments joined by a router link or by a host that is no relay, an unknown
[rmanp] key, no file_bytes; amcast-scenario refuses another protocol on this file and rmanp on a
file without relays, naming the problem.
Then, from the run directory amcast-scenario leaves:
 - amcast-scenario exits 0, no namespace of the run is left behind;
 - the source finished within the file's bound (every byte ACKed through both relays);
 - each receiver's file, hashed here from RUN/rx-NAME.bin, has the sha256 of RUN/in.bin, and
   metrics.json says the same;
 - each relay counts the children the tree gives it (1 and 2);
 - the relay above the lossy link (found from the file: the parent of the receiver whose link
   has loss_pct) repaired from its cache: cache-hits > 0 and retransmitted > 0;
 - the RMANP/TCP ratio in the shared phase lies in [0.10, 0.25], the bounds of
   tests/net/test_rmanp_chain.py for the same link, Rm and loss (their derivation there and in
   docs/results.md "RMANP": the low one is RMANP at its floor Rm next to TCP holding the rest).
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TB = os.path.join(TOP, "tools", "testbed")
sys.path.insert(0, TB)
from amcast_testbed import rmanp, scenario  # noqa: E402
from amcast_testbed.netns import find_delayline, leftover_namespaces  # noqa: E402

FILE = os.path.join(TB, "scenarios", "rmanp-chain.toml")
RATIO_MIN, RATIO_MAX = 0.10, 0.25
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def lossy_relays(sc):
    """The parents of the receivers whose own link has random loss."""
    hosts = {r.get("host", r["name"]): r.get("parent", sc["sender"]) for r in sc["receiver"]}
    out = set()
    for ln in sc["link"]:
        if any(scenario.pair(ln.get("loss_pct", 0))):
            out |= {hosts[x] for x in (ln["a"], ln["b"]) if x in hosts}
    return out


def refused(edit, words):
    """The shipped file changed by edit(sc) is refused by rmanp.check_file with a message that
    contains every one of words."""
    sc = scenario.load(FILE, testbed=True)
    edit(sc)
    try:
        rmanp.check_file(sc)
        return False, "accepted"
    except ValueError as e:
        return all(w in str(e) for w in words), str(e)


def offline():
    sc = scenario.load(FILE, testbed=True)
    t = rmanp.tree(sc)
    got = [(r["name"], r["up"], r["down"]) for r in t["relays"]]
    check(got == [("relay1", "r1", "r2"), ("relay2", "r2b", "r3")],
          f"each relay's upstream and downstream router from the file: {got}")
    check(t["children"] == {"src": 1, "relay1": 1, "relay2": 2},
          f"children: {t['children']}")
    gr = rmanp.groups(sc, t)
    check(len(set(gr.values())) == 3, f"one group per sender and relay: {gr}")

    def relay(sc, name):
        return next(r for r in sc["relay"] if r["name"] == name)

    def parent(name, p):
        return lambda sc: relay(sc, name).update(parent=p)
    cases = [
        ("a relay with an unknown parent", parent("relay2", "nope"), ["relay2", "parent"]),
        ("two relays each other's parent",
         lambda sc: (parent("relay1", "relay2")(sc), parent("relay2", "relay1")(sc)),
         ["relay1", "relay2"]),
        ("a receiver outside its parent's segment",
         lambda sc: sc["receiver"][0].update(parent="relay1"), ["rx1", "segment"]),
        ("segments joined by a router link",
         lambda sc: sc["link"].append({"a": "r2", "b": "r3"}), ["relay2", "two segments"]),
        ("segments joined by a host that is no relay",
         lambda sc: sc["link"].append({"a": "tcps", "b": "r3"}), ["tcps", "only a relay"]),
        ("an unknown [rmanp] key", lambda sc: sc["rmanp"].update(da=0.8), ["da"]),
        ("no file_bytes", lambda sc: sc.pop("file_bytes"), ["file_bytes"]),
    ]
    for what, edit, words in cases:
        ok, msg = refused(edit, words)
        check(ok, f"refused: {what} ({msg})")
    for argv, words in (([FILE, "--protocol", "asmp"], ["RMANP tree", "--protocol rmanp"]),
                        ([os.path.join(TB, "scenarios", "late-join-quick.toml"), "--protocol",
                          "rmanp"], ["[[relay]]"])):
        r = subprocess.run([os.path.join(TB, "amcast-scenario"), *argv], capture_output=True,
                           text=True, timeout=30)
        check(r.returncode != 0 and all(w in r.stderr for w in words),
              f"amcast-scenario {' '.join(os.path.basename(x) for x in argv)} refused "
              f"({r.stderr.strip()[-120:]})")


def main():
    offline()
    skip = "needs root (network namespaces)" if os.geteuid() != 0 else None
    try:
        find_delayline()
    except RuntimeError as e:
        skip = skip or str(e)
    if skip:
        print(f"# skip (live part): {skip}")
        print(f"# amtest: checks={checks} failures={failures}")
        return 1 if failures else 77
    sc = scenario.load(FILE, testbed=True)
    run = tempfile.mkdtemp(prefix="amt-rmanp-")
    r = subprocess.run([os.path.join(TB, "amcast-scenario"), FILE, "--short", "--protocol",
                        "rmanp", "--out", run], timeout=150)
    check(r.returncode == 0, f"amcast-scenario exited {r.returncode}")
    meta = json.load(open(os.path.join(run, "meta.json")))
    left = leftover_namespaces(meta["topology"]["prefix"])
    check(left == [], f"no namespace left behind ({left})")
    m = json.load(open(os.path.join(run, "metrics.json")))
    bound = sc["duration_s"] * sc["short_scale"]
    check(m["took_s"] is not None and m["source"]["exit"] == 0,
          f"the source finished within {bound:.0f} s (took {m['took_s']} s, exit "
          f"{m['source']['exit']})")
    want = digest(os.path.join(run, "in.bin"))
    check(want is not None and os.path.getsize(os.path.join(run, "in.bin")) ==
          int(sc["file_bytes"] * sc["short_scale"]), "the source's file has the scaled size")
    for x in sc["receiver"]:
        n = x["name"]
        got = digest(os.path.join(run, f"rx-{n}.bin"))
        check(got == want and m["receivers"][n]["identical"],
              f"{n}: sha256 of the received file equals the source's ({got and got[:12]} vs "
              f"{want and want[:12]}; metrics.json identical={m['receivers'][n]['identical']})")
    for n, v in m["relays"].items():
        print(f"# {n}: cache-hits {v['cache-hits']:.0f}, cache-misses {v['cache-misses']:.0f}, "
              f"retransmitted {v['retransmitted']:.0f}, NACKs up {v['nacks-sent']:.0f}, "
              f"CIs up {v['ci-sent']:.0f}, queue-peak {v['queue-peak']:.0f}")
        check(v["children"] == v["expected_children"],
              f"{n}: {v['children']:.0f} children (the tree gives {v['expected_children']})")
    lossy = lossy_relays(sc)
    check(bool(lossy), f"the file has a lossy branch (below {sorted(lossy)})")
    for n in sorted(lossy):
        v = m["relays"][n]
        check(v["cache-hits"] > 0 and v["retransmitted"] > 0,
              f"{n} (above the lossy link) repaired from its cache (cache-hits "
              f"{v['cache-hits']:.0f}, retransmitted {v['retransmitted']:.0f})")
    fl = m["flows"].get("tcp1", {})
    ratio = fl.get("ratio")
    print(f"# transfer {m['took_s']} s, {(m['payload_bps'] or 0) / 1e3:.0f} kbit/s of payload; "
          f"shared phase {fl.get('phase_s')} s: RMANP {(fl.get('rmanp_bps') or 0) / 1e3:.0f}, "
          f"TCP {(fl.get('flow_bps') or 0) / 1e3:.0f} kbit/s, "
          f"link use {fl.get('use_pct') or 0:.1f} %")
    check(ratio is not None and RATIO_MIN <= ratio <= RATIO_MAX,
          f"RMANP/TCP in the shared phase {ratio if ratio is None else round(ratio, 3)} within "
          f"[{RATIO_MIN}, {RATIO_MAX}]")
    if failures:
        print(f"run directory kept: {run}")
    else:
        shutil.rmtree(run, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

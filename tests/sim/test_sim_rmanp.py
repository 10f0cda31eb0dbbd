#!/usr/bin/python3
"""RMANP in ns-3 (tools/sim/rmanp-sim.cc through `amcast-sim FILE --protocol rmanp`), two short
scenarios on a 3-relay tree with papers/004's 180 kb/s WAN links and 3-packet router queues:

  test_sim_rmanp.py [SEED]      (the loss case's seed; default 1, printed)

1. tests/sim/rmanp-step.toml: background 14.5 KB/s, 18.5 KB/s in [100, 250) s on the first WAN
   link; a 1.5 MB file. Deterministic (nothing random in it). Checks:
   - every receiver has every byte, in order and correct (the file is a known function of the
     offset), and said so by 380 s of the 400 (measured: 349.2 s);
   - RMANP's use of what the background leaves in [100, 250) s >= 90 % (the issue's target; measured
     96.9 %; papers/004: 94.7 %) and <= 101 % of what the background actually left (a link cannot
     carry more); the background keeps >= 97 % of its 18.5 KB/s there (measured 99.4 %).
     What fails (measured on a copy of the file): no increase (Is = In = 0) uses 51.3 % and does
     not finish; no decrease (Da = Dr = 1) leaves the background 84.6 %;
   - new_queue's peak <= its configured size at every relay, and every relay's memory the same
     constant (lib/cc allocates it at _new);
   - the source knows (every receiver ACKed the end); the reverse of the bottleneck carried
     control and no data (each group is forwarded toward its children only);
   - the minimum delay at R3 = propagation + transmission computed by hand: 5 + 88.1 + 112.1 ms,
     plus 1057 bytes at 10 Mb/s twice, 100 Mb/s once, 180 kb/s twice = 300.9 ms (+-0.5): the
     topology, rates and multicast forwarding are what the file says.
2. The same file with lib/cc's default packet size, once with the relays through amcc/rmanp.h
   and once through amcc/controller.h's relay table (--relay-api controller): the same run (the
   source's and receivers' end times, bytes, delays; RMANP's bytes on the bottleneck).
3. tests/sim/rmanp-loss.toml: no background, 5 % random loss each way on the second WAN link, a
   300 kB file, new_queue 3. Checks: every byte at every receiver within 300 s (measured over
   seeds 1-40: done in 135.5-151.1 s, 10-38 repairs at A2), the relay upstream of the loss (A2)
   repaired from its cache, new_queue's peak <= 3 at every relay.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIM = os.path.join(TOP, "tools", "sim", "amcast-sim")
USE_MIN_PCT = 90.0
LEFT_MAX_PCT = 101.0
BG_KEPT_MIN = 0.97
# 1057 bytes: 8456 bits at 10 Mb/s (x2), 100 Mb/s, 180 kb/s (x2); propagation 5 + 88.1 + 112.1 ms
MIN_DELAY_MS = 5 + 88.1 + 112.1 + 1e3 * 8456 * (2 / 10e6 + 1 / 100e6 + 2 / 180e3)
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def run(toml, seed, out, extra=()):
    try:
        r = subprocess.run([SIM, os.path.join(TOP, "tests", "sim", toml), "--protocol", "rmanp",
                            "--seed", str(seed), "--out", out, *extra],
                           stdout=subprocess.DEVNULL, timeout=120)
    except subprocess.TimeoutExpired:
        check(False, f"{toml}: amcast-sim --protocol rmanp still running after 120 s")
        return None
    check(r.returncode == 0, f"{toml}: amcast-sim --protocol rmanp exited {r.returncode}")
    p = os.path.join(out, "summary.json")
    return json.load(open(p)) if r.returncode == 0 and os.path.isfile(p) else None


def every_byte(s, file_bytes, name, done_max_s):
    for k, v in s["members"].items():
        if v["role"] == "receiver":
            check(v["complete"] and v["got"] == file_bytes and v["bad"] == 0
                  and 0 <= v["done_s"] <= done_max_s,
                  f"{name}: {k} got {v['got']}/{file_bytes} bytes, {v['bad']} wrong, done at "
                  f"{v['done_s']:.1f} s (<= {done_max_s:.0f})")


def queues(s, cap, name):
    relays = {k: v for k, v in s["members"].items() if v["role"] == "relay"}
    for k, v in relays.items():
        check(v["queue_cap"] == cap and v["queue_peak"] <= cap,
              f"{name}: {k} new_queue peak {v['queue_peak']} <= {cap}")
    mem = {v["memory"] for v in relays.values()}
    check(len(mem) == 1 and min(mem) > 0, f"{name}: every relay's memory {sorted(mem)} B, one constant")


def main():
    # the loss case's seed: 1 (deterministic, as the rest of the suite); any other as argument
    # (seeds 1-40 all passed, 135.5-151.1 s, 10-38 repairs at A2)
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    tmp = tempfile.mkdtemp(prefix="amt-sim-rmanp-")
    s = run("rmanp-step.toml", 1, os.path.join(tmp, "step"))
    if s:
        every_byte(s, 1_500_000, "step", 380.0)
        w = s["figures"]["windows"]["congested"]
        check(w["use_pct"] >= USE_MIN_PCT,
              f"step: RMANP used {w['use_pct']:.1f} % of the {w['free_Bps']:.0f} B/s the "
              f"background leaves in [100, 250) s (>= {USE_MIN_PCT:.0f} %)")
        check(w["use_of_left_pct"] <= LEFT_MAX_PCT,
              f"step: and {w['use_of_left_pct']:.1f} % of what it actually left (<= {LEFT_MAX_PCT:.0f} %)")
        check(w["background_Bps"] >= BG_KEPT_MIN * 18500,
              f"step: the background kept {w['background_Bps']:.0f} B/s of its 18500 "
              f"(>= {100 * BG_KEPT_MIN:.0f} %)")
        queues(s, 10, "step")
        d = s["members"]["R3"]["delay_ms"]
        check(abs(d["min"] - MIN_DELAY_MS) <= 0.5,
              f"step: minimum delay at R3 {d['min']:.2f} ms = {MIN_DELAY_MS:.2f} ms computed")
        check(s["members"]["S"]["done_s"] >= 0,
              f"step: the source saw every receiver ACK the end ({s['members']['S']['done_s']:.1f} s)")
        links = list(csv.DictReader(open(os.path.join(tmp, "step", "links.csv"))))
        back = [r for r in links if r["link"] == "W1>W0"][-1]
        check(int(back["data_bytes"]) == 0 and int(back["ctl_bytes"]) > 0,
              f"step: W1 -> W0 carried control ({back['ctl_bytes']} B) and no data (the groups "
              "go down only)")
        rows = list(csv.DictReader(open(os.path.join(tmp, "step", "nodes.csv"))))
        check(len(rows) >= 399 * 7 and os.path.getsize(os.path.join(tmp, "step", "delay-R3.csv")) > 0,
              f"step: nodes.csv has {len(rows)} rows (7 members x 399 s), delay-R3.csv written")
    # the relays through amcc/controller.h's relay table: it takes Rm only, so the file's one
    # other parameter (packet_bytes) goes back to lib/cc's default for both runs
    text = open(os.path.join(TOP, "tests", "sim", "rmanp-step.toml")).read()
    eq = os.path.join(tmp, "eq.toml")
    with open(eq, "w") as f:
        f.write("\n".join(x for x in text.splitlines() if not x.startswith("packet_bytes")) + "\n")
    same = [run(eq, 1, os.path.join(tmp, "eq-" + api), ["--relay-api", api])
            for api in ("role", "controller")]
    if all(same):
        def outcome(x):
            return ({k: (v["done_s"], v.get("got"), v.get("bad"), json.dumps(v.get("delay_ms")))
                     for k, v in x["members"].items() if v["role"] != "relay"},
                    x["figures"]["windows"]["congested"]["rmanp_Bps"])
        a, b = outcome(same[0]), outcome(same[1])
        check(a == b and a[0]["R3"][0] > 0,
              f"relays through amcc/controller.h: the same run as through amcc/rmanp.h (R3 done at "
              f"{b[0]['R3'][0]:.3f} s vs {a[0]['R3'][0]:.3f} s, {b[1]:.0f} vs {a[1]:.0f} B/s)")
    print(f"loss case: seed {seed}")
    s = run("rmanp-loss.toml", seed, os.path.join(tmp, "loss"))
    if s:
        every_byte(s, 300_000, "loss", 300.0)
        a2 = s["members"]["A2"]
        check(a2["retransmitted"] > 0, f"loss: A2 repaired {a2['retransmitted']} packets from its cache")
        queues(s, 3, "loss")
    if failures:
        print(f"run directories kept: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

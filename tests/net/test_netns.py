#!/usr/bin/python3
"""Self-test of the namespace plumbing (tools/testbed/amcast_testbed/netns.py).

Topology: h1 (sender) -- r1 (bridge, IGMPv3 snooping) -- h2 (joins), h3 (does not join);
the port r1->h2 is a tbf bottleneck. Checks: multicast reaches the joined host and not the other
one, the bottleneck carries TCP at its configured rate (+-15 %), the delay line (if built) adds
its configured one-way delay (h1 -> h4 through a 20 ms line), its drop stage loses 10 % at random
(r1 -> h5), and no namespace is left afterwards.
"""
import json
import os
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tools", "testbed"))
from amcast_testbed.netns import (Topology, leftover_namespaces, find_delayline, sweep_stale,  # noqa
                                  MTU_FRAME)
from amcast_testbed.owd import measure, percentile  # noqa

PROBE = os.path.join(TOP, "tools", "testbed", "amcast_testbed", "mcprobe.py")
GROUP, PORT = "239.1.2.3", 5004
RATE = 2_000_000            # bit/s bottleneck r1 -> h2
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def probe(t, host, *args):
    return subprocess.Popen(["ip", "netns", "exec", t.ns(host), "/usr/bin/python3", PROBE, *args],
                            stdout=subprocess.PIPE, text=True)


def multicast(t):
    t.wait_snooping()
    rx = probe(t, "h2", "join", GROUP, str(PORT), t.iface("h2"), "6")
    sn2 = probe(t, "h2", "sniff", GROUP, t.iface("h2"), "6")
    sn3 = probe(t, "h3", "sniff", GROUP, t.iface("h3"), "6")
    for p in (rx, sn2, sn3):
        p.stdout.readline()                    # "joined" / "sniffing"
    time.sleep(1.0)                            # the join report reaches the bridge
    n_sent = 100
    tx = probe(t, "h1", "send", GROUP, str(PORT), str(n_sent), "0.02")
    outs = {}
    for name, p in (("tx", tx), ("rx", rx), ("sn2", sn2), ("sn3", sn3)):
        out, _ = p.communicate(timeout=20)
        outs[name] = int(out.split()[-1])
    print("multicast:", outs)
    # 100 datagrams of 1000 B at 400 kbit/s through a 2 Mbit/s port: none may be lost
    check(outs["rx"] == n_sent, f"joined host h2 received {outs['rx']}/{n_sent} datagrams")
    check(outs["sn2"] == n_sent, f"h2's interface saw {outs['sn2']}/{n_sent} frames")
    check(outs["sn3"] == 0, f"host h3 that did not join saw {outs['sn3']} frames (want 0)")


def bottleneck(t):
    srv = t.run("h2", ["iperf3", "-s", "-1", "-p", "5201"])
    time.sleep(0.5)
    out = t.exec("h1", ["timeout", "20", "iperf3", "-c", t.addr("h2"), "-p", "5201", "-t", "6",
                        "-O", "2", "-C", "reno", "-J"])
    Topology.stop(srv)
    res = json.loads(out)
    goodput = res["end"]["sum_received"]["bits_per_second"]
    # TCP goodput carries 1448 B of payload per 1514 B frame (MSS 1448 with timestamps)
    wire = goodput * MTU_FRAME / 1448
    print(f"bottleneck: configured {RATE} bit/s, TCP goodput {goodput:.0f}, on the wire {wire:.0f}")
    check(abs(wire - RATE) <= 0.15 * RATE, f"tbf bottleneck rate {wire/1e6:.3f} Mbit/s within 15 % "
          f"of {RATE/1e6:.3f}")


def delay(t):
    sent, owd = measure(t, "h1", "h4", 1_000_000, 2.0)
    med = percentile(owd, 50) * 1e3 if owd else -1
    print(f"delay line: {len(owd)}/{sent} probes, median one-way {med:.3f} ms")
    # one-way delay = 20 ms set on r1->h4 + the bare path (~0.05 ms) + the line's own error
    # (median ~0.1-0.2 ms, tools/testbed/measure-delay): 1 ms is 5 % of the setting
    check(sent > 0 and len(owd) == sent, f"every probe crossed the delay line ({len(owd)}/{sent})")
    check(abs(med - 20.0) <= 1.0, f"median one-way delay {med:.3f} ms vs 20 ms configured")


def loss(t):
    """10 % random loss on r1->h5 (the delay line's drop stage), 0 % toward h2: of 1000 multicast
    datagrams h5 must get 900 +- 4 binomial sd (sd 9.5), h3 (no bottleneck, no loss) all."""
    t.wait_snooping()
    rx5 = probe(t, "h5", "join", GROUP, str(PORT), t.iface("h5"), "12")
    rx3 = probe(t, "h3", "join", GROUP, str(PORT), t.iface("h3"), "12")
    for p in (rx5, rx3):
        p.stdout.readline()
    time.sleep(1.0)
    n_sent = 1000
    tx = probe(t, "h1", "send", GROUP, str(PORT), str(n_sent), "0.004")
    got = {}
    for name, p in (("tx", tx), ("h5", rx5), ("h3", rx3)):
        out, _ = p.communicate(timeout=30)
        got[name] = int(out.split()[-1])
    print("loss stage:", got)
    check(abs(got["h5"] - 900) <= 38, f"10 % random loss: h5 received {got['h5']}/{n_sent} "
          f"(want 900 +- 38)")
    check(got["h3"] == n_sent, f"no loss elsewhere: h3 received {got['h3']}/{n_sent}")


def stale():
    """A namespace left by a process that is gone (SIGKILLed test) is swept; one of a live
    process is not."""
    p = subprocess.Popen(["true"])
    p.wait()
    dead, mine = f"amt{p.pid}-stale", f"amt{os.getpid()}-keep"
    for ns in (dead, mine):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        gone = sweep_stale()
        left = leftover_namespaces("amt")
        check(dead in gone and dead not in left, f"stale {dead} deleted ({gone})")
        check(mine not in gone and mine in left, f"{mine} of a live process kept")
    finally:
        for ns in (dead, mine):
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def main():
    stale()
    try:
        dl = find_delayline()
    except RuntimeError as e:
        dl = None
        print("delay line not built, skipping its check:", e)
    t = Topology()
    prefix = t.prefix
    with t:
        t.add_router("r1")
        for h in ("h1", "h2", "h3"):
            t.add_host(h)
        t.link("h1", "r1")
        t.link("r1", "h2", rate=(RATE, None), queue="50p")
        t.link("r1", "h3")
        if dl:
            t.add_host("h4")
            t.link("r1", "h4", delay_ms=20)
            t.add_host("h5")
            t.link("r1", "h5", loss_pct=(10, 0))
        t.build()
        check(len(leftover_namespaces(prefix)) == len(t.namespaces),
              f"{len(t.namespaces)} namespaces created")
        multicast(t)
        bottleneck(t)
        if dl:
            delay(t)
            loss(t)
    left = leftover_namespaces(prefix)
    check(left == [], f"namespaces left after teardown: {left}")
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

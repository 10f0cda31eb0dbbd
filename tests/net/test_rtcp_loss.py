#!/usr/bin/python3
"""50 % RTCP loss on the slow receiver's path (suite 'net', needs root): issue 14's fault.

tx -- r (bridge, IGMPv3 snooping) -- fast, slow; the port r->slow is a tbf of SLOW_RATE bit/s and
the slow link's delay line drops half of the RTCP datagrams (UDP to the RTCP port, both ways).
One sender (x264enc through asmpsink), two receivers (asmpsrc), SEND_S seconds. Half of the slow
receiver's reports and of the sender's SRs (its echoes) are lost. Checks over the last WINDOW_S:
  - the target still follows the slow link: time-weighted mean within [0.8, 1.05] x its video
    capacity, 95th percentile below 1.45 x (a report lost three times in a row expires the
    receiver for a moment, RFC 3550's 3 intervals; what that costs is printed);
  - the slow receiver still decodes most frames.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.

An expired receiver does not free the rate at once: without a BYE the target climbs at most 10 %
per RTCP interval from where it was (lib/cc controller.c, EXPIRY_RISE). Measured (2026-11-24,
3 runs): target mean 544/537/538 of 558 kbit/s capacity, p95 694/585/584 kbit/s (1.24/1.05/1.05 x),
the slow receiver expired 4-5 times in 30 s; before the ramp p95 was 999 kbit/s (1.79 x).
2026-11-25, in a CI run while other agents loaded both cores (load 5-9): mean 561 kbit/s, p95
727 kbit/s (1.30 x), 3 expiries. The p95 bound is therefore 1.45 x: above every run with the
ramp (1.05-1.30 x), well below the 1.79 x of the jumps it guards against.
Which reports are lost is repeatable: the delay line draws each direction from its own seeded
sequence, so the slow receiver's n-th report is lost or not in every run. Its sequence loses
runs of 3, 4, 3 and 3 reports in a row at reports 87-139 (about the window) and at most 7 in a
row (reports 19-25, start-up); a 2026-11-26 run before the directions had their own sequences
(their draws interleaved by timing) lost 12 in a row in the window: the slow receiver stayed
expired 6 s, the target ramped to 908 kbit/s, p95 1.51 x.
"""
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
from amcast_testbed.netns import Topology, find_delayline  # noqa: E402
import test_asmp_elements as el  # noqa: E402  (trace readers, check(), time weighting)

NODE = os.path.join(TOP, 'tools', 'testbed', 'amcast-node')
SLOW_RATE = 600_000
PORT = 5004                 # amcast-node's default; RTCP on PORT + 1
RTCP_MS = 500
LOSS_PCT = 50
SEND_S = 60
WINDOW_S = 30
check = el.check


def session(run):
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env = dict(os.environ)
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    find_delayline()            # the loss stage lives in the delay line: required here
    common = ['--run', run, '--protocol', 'asmp', '--rtcp-interval', str(RTCP_MS),
              '--port', str(PORT)]
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fast', 'slow', 'sender')}
    with Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=20)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(SLOW_RATE, None), loss_pct=LOSS_PCT, loss_port=PORT + 1)
        t.build()
        rx = {n: t.run(n, [NODE, 'recv', '--name', n, '--iface', t.iface(n),
                           '--duration', SEND_S + 10] + common, log=logs[n], env=env)
              for n in ('fast', 'slow')}
        t.wait_snooping()
        time.sleep(1.0)
        start = time.time()
        tx = t.run('tx', [NODE, 'send', '--iface', t.iface('tx'), '--duration', SEND_S,
                          '--initial-bitrate', 300000, '--min-bitrate', 100000,
                          '--max-bitrate', 2000000, '--no-ref'] + common,
                   log=logs['sender'], env=env)
        rc = t.finish(tx, SEND_S + 30)
        for p in rx.values():
            t.finish(p, 30)
    return {'start': start, 'rc': rc, 'json': {n: el.last_json(logs[n]) for n in logs}}


def evaluate(run, s):
    rows = el.read_csv(os.path.join(run, 'sender', 'rate.csv'))
    sd = el.read_dump(os.path.join(run, 'sender', 'sd.txt'))
    if not check(len(rows) > 20 and len(sd) > 0, f'sender traces ({len(rows)} rate rows)'):
        return
    tr = [float(r['time_s']) for r in rows]
    end = tr[-1]
    w0 = end - WINDOW_S
    pts = [(t, float(r['target_bps'])) for t, r in zip(tr, rows)]
    tw = el.time_weighted(pts, w0, end)
    mean = sum(v * d for v, d in tw) / sum(d for _, d in tw)
    p95 = el.weighted_quantile(tw, 0.95)
    pkt = statistics.mean(size for (tt, size) in sd.values() if w0 <= tt < end)
    cap = SLOW_RATE * (pkt - el.RTP_HDR) / (pkt + el.ETH_IP_UDP)
    recv = [(t, int(float(r['receivers'] or 0))) for t, r in zip(tr, rows)]
    dips = sum(1 for (t, a), (_, b) in zip(recv, recv[1:]) if t >= w0 and b < a)
    print(f'# {LOSS_PCT} % RTCP loss on the slow path: target mean {mean:.0f}, p95 {p95:.0f} '
          f'bit/s; video capacity {cap:.0f}; the slow receiver expired {dips} times in '
          f'{WINDOW_S} s')
    check(0.8 * cap <= mean <= 1.05 * cap, f'target mean {mean:.0f} within [0.8, 1.05] x {cap:.0f}')
    check(p95 <= 1.45 * cap, f'target p95 {p95:.0f} <= 1.45 x {cap:.0f}')
    j = s['json'].get('slow') or {}
    frames = (s['json'].get('sender') or {}).get('frames', 0)
    check(j.get('frames', 0) >= 0.7 * frames, f'slow receiver decoded {j.get("frames", 0)} of '
          f'{frames} frames (want >= 70 %)')
    check(s['rc'] == 0, f'sender exited 0 (got {s["rc"]})')


def main():
    return el.live_main('rtcploss', lambda run: evaluate(run, session(run)), needs_delayline=True)


if __name__ == '__main__':
    sys.exit(main())

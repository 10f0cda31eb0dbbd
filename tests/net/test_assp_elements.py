#!/usr/bin/python3
"""A live ASSP session (suite 'net', needs root): asspsimulcast and two asspsrc receivers.

tx -- r (bridge, IGMPv3 snooping; 20 ms) -- fast, slow. The sender encodes the testbed's picture
as three x264 streams with the paper's limits (100-200, 200-500, 600-1000 kbit/s). The fast path
is unconstrained; the slow path is a tbf of 2 Mbit/s that drops to DOWN_RATE at DOWN_S. Checks:
  - switch up: both receivers reach stream 2 within UP_S of the start (issue 11: 10 s, the
    paper 20 s);
  - switch down: the slow receiver is on stream 1 within DOWN_WITHIN_S of the drop and ends
    there; the fast receiver ends on stream 2;
  - the output plays across switches: each receiver decodes frames all along (>= 70 % of the
    sender's 25 fps) with no pipeline error.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
from amcast_testbed.netns import Topology, _sh, tbf_burst, queue_bytes  # noqa: E402
import test_asmp_elements as el  # noqa: E402  (check())

PEER = os.path.join(HERE, 'assp_peer.py')
SEND_S = 70
DOWN_S = 35                 # the slow path drops from 2 Mbit/s ...
DOWN_RATE = 350_000         # ... to this: right stream 1 (200-500 kbit/s)
UP_S = 20.0
DOWN_WITHIN_S = 20.0
check = el.check


def session(run):
    env = dict(os.environ)
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fast', 'slow', 'sender')}
    with Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=20)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(2_000_000, None))
        t.build()
        rx = {n: t.run(n, [PEER, 'recv', '--iface', t.iface(n), '--duration',
                           str(SEND_S + 2)], log=logs[n], env=env) for n in ('fast', 'slow')}
        t.wait_snooping()
        time.sleep(1.0)
        start = time.time()
        tx = t.run('tx', [PEER, 'send', '--iface', t.iface('tx'), '--duration',
                          str(SEND_S), '--trace', os.path.join(run, 'sender')],
                   log=logs['sender'], env=env)
        time.sleep(DOWN_S)
        # the slow path shrinks (the router's port toward slow)
        ns, ifn = t.ns('r'), t.nodes['r']['ifaces']['slow']
        _sh(['tc', '-n', ns, 'qdisc', 'replace', 'dev', ifn, 'root', 'tbf', 'rate',
             f'{DOWN_RATE}bit', 'burst', str(tbf_burst(DOWN_RATE)), 'limit',
             str(queue_bytes(None, DOWN_RATE))])
        down = time.time()
        procs = [tx] + list(rx.values())
        for p in procs:
            t.finish(p, SEND_S + 40)
    return {'start': start, 'down': down - start, 'logs': logs,
            'rc': {n: p.returncode for n, p in zip(('sender', 'fast', 'slow'), procs)}}


def on_stream(switches, t):
    s = 0
    for sw in switches:
        if sw['t'] <= t:
            s = sw['to']
    return s


def evaluate(s):
    down = s['down']
    for n in ('fast', 'slow'):
        sw, res = el.read_peer_log(s['logs'][n], 'switch')
        ups = [x['t'] for x in sw if x['to'] == 2]
        print(f'# {n}: switches ' + ', '.join(f'{x["t"]:.1f} s {x["from"]}->{x["to"]} '
                                             f'(gap {x["gap_s"]:.2f} s)' for x in sw))
        print(f'# {n}: {res.get("frames", 0)} frames decoded, last stats {res.get("stats")}')
        check(s['rc'][n] == 0 and res.get('errors', 1) == 0, f'{n}: ran without error')
        # receivers start before the sender: their clock starts ~1.5 s earlier
        check(bool(ups) and ups[0] <= UP_S + 3, f'{n}: on stream 2 within {UP_S:.0f} s '
              f'({ups[0] if ups else float("nan"):.1f} s after the receiver started)')
        check(res.get('frames', 0) >= 0.7 * 25 * SEND_S,
              f'{n}: decoded {res.get("frames", 0)} frames (want >= 70 % of {25 * SEND_S})')
        if n == 'fast':
            check(res.get('stream') == 2, f'fast: ends on stream 2 (on {res.get("stream")})')
        else:
            downs = [x['t'] for x in sw if x['to'] == 1 and x['t'] > down]
            check(bool(downs) and downs[0] - down <= DOWN_WITHIN_S + 2,
                  f'slow: on stream 1 within {DOWN_WITHIN_S:.0f} s of the drop '
                  f'({downs[0] - down if downs else float("nan"):.1f} s)')
            check(res.get('stream') == 1, f'slow: ends on stream 1 (on {res.get("stream")})')
    check(s['rc']['sender'] == 0, f'sender exited 0 (got {s["rc"]["sender"]})')


def main():
    return el.live_main('assp', lambda run: evaluate(session(run)))


if __name__ == '__main__':
    sys.exit(main())

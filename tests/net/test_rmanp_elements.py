#!/usr/bin/python3
"""A live RMANP session (suite 'net', needs root): rmanpsink -> rmanprelay -> two rmanpsrc.

    src -- r1 (10 ms) -- relay -- r2 -- rx1
                                    `-- rx2   (LOSS_PCT random loss both ways: the delay line)

r1 and r2 are two bridges that are not linked: the relay is the only way from one segment to the
other, an application-level relay (it joins 239.1.4.1 on its r1 interface and sends 239.1.4.2
on its r2 interface; Topology.route_hosts gives it its routes to rx1 and rx2). The source sends
a FILE_BYTES random file generated here, with gst-launch-1.0 pipelines as a user would:
  filesrc ! rmanpsink;  rmanprelay (no pads);  rmanpsrc ! filesink.
Checks: the source finishes (every byte ACKed through the relay) within DONE_S; both receivers
EOS and their files' sha256 equal the source's; the relay repaired rx2 from its cache
(cache-hits > 0 and retransmitted > 0 in its last rmanprelay-stats message); rx2 NACKed.
Every node holds auth-key, a random group key made for the run (AMCAST_SRTP_KEY when set; set
empty: none), as amcast-scenario does: every RMANP packet tagged and checked; checked too that
no node rejected one (auth-rejected 0: nothing but the members sends here).
With the argument `upstream` the loss is on the source's link: the relay sees the gaps, sends
CIs and NACKs up, the source retransmits and the relay passes the repairs down.
Prints the transfer time, the source's final rate and the relay's counters.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root or no delay line.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
from amcast_testbed.netns import Topology  # noqa: E402
from amcast_testbed.rmanp import last_stats, sha256  # noqa: E402
import test_asmp_elements as el  # noqa: E402  (check(), live_main())

GROUP_S, PORT_S = '239.1.4.1', 5200     # the source's group
GROUP_R, PORT_R = '239.1.4.2', 5202     # the relay's group
FILE_BYTES = 400_000                    # 385 packets of 1041 bytes: more than one window (256)
LOSS_PCT = 5
MIN_RATE = 400_000                      # Rm, bit/s: the file at Rm alone takes 8 s
# Bounds. At Rm the file needs 8 s, and the rate only rises (+Is Rm = 2 kbit/s per packet
# ACKed) unless CIs lower it, never below Rm: 8 s plus repairs (NACK interval 1 s, ACK timeout
# 2 s) on a loaded 2-core machine: 60 s is 7x that.
DONE_S = 60
RX_EXIT_S = 15                          # receivers linger 2 s after the stream is complete
# argument `upstream`: the loss is on the source's link instead (both receivers lose the same
# packets, the relay NACKs them up and the source repairs)
UPSTREAM = sys.argv[1:] == ['upstream']
check = el.check


def session(run):
    env = dict(os.environ)
    key = os.environ.get('AMCAST_SRTP_KEY', os.urandom(30).hex())
    auth = [f'auth-key={key}'] if key else []
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    src_file = os.path.join(run, 'in.bin')
    with open(src_file, 'wb') as f:
        f.write(os.urandom(FILE_BYTES))
    logs = {n: os.path.join(run, f'{n}.log') for n in ('src', 'relay', 'rx1', 'rx2')}
    out = {n: os.path.join(run, f'{n}.bin') for n in ('rx1', 'rx2')}
    rate = f'min-rate={MIN_RATE}'
    with Topology(log_dir=run) as t:
        t.add_router('r1')
        t.add_router('r2')
        for n in ('src', 'relay', 'rx1', 'rx2'):
            t.add_host(n)
        up = UPSTREAM
        t.link('src', 'r1', delay_ms=10, loss_pct=LOSS_PCT if up else 0)
        t.link('relay', 'r1')
        t.link('relay', 'r2')
        t.link('r2', 'rx1')
        t.link('r2', 'rx2', loss_pct=0 if up else LOSS_PCT)
        t.build()
        t.route_hosts('relay', 'r2', ['rx1', 'rx2'])
        relay = t.run('relay', ['gst-launch-1.0', '-m', 'rmanprelay',
                                f'parent-address={GROUP_S}', f'parent-port={PORT_S}',
                                f'parent-iface={t.iface("relay", "r1")}',
                                f'address={GROUP_R}', f'port={PORT_R}',
                                f'multicast-iface={t.iface("relay", "r2")}', 'node=1', rate,
                                'stats-interval=250', *auth], log=logs['relay'], env=env)
        rx = {n: t.run(n, ['gst-launch-1.0', '-m', 'rmanpsrc', f'address={GROUP_R}',
                           f'port={PORT_R}', f'multicast-iface={t.iface(n)}', f'node={10 + i}',
                           'stats-interval=1000', *auth, '!', 'filesink',
                           f'location={out[n]}'],
                       log=logs[n], env=env) for i, n in enumerate(('rx1', 'rx2'))}
        t.wait_snooping()
        time.sleep(1.0)
        start = time.monotonic()
        src = t.run('src', ['gst-launch-1.0', '-m', 'filesrc', f'location={src_file}', '!',
                            'rmanpsink', f'address={GROUP_S}', f'port={PORT_S}',
                            f'multicast-iface={t.iface("src")}', rate, 'stats-interval=1000',
                            *auth],
                    log=logs['src'], env=env)
        try:
            src.wait(DONE_S)
            took = time.monotonic() - start
        except subprocess.TimeoutExpired:
            t.stop(src)
            took = None
        rc = {}
        for n, p in rx.items():
            try:
                rc[n] = p.wait(RX_EXIT_S)
            except subprocess.TimeoutExpired:
                t.stop(p)
                rc[n] = 'no EOS: stopped'
        rc['src'] = src.returncode
        t.stop(relay)
    return {'took': took, 'rc': rc, 'logs': logs, 'out': out, 'src_file': src_file,
            'keyed': bool(key)}


def evaluate(s):
    took, logs = s['took'], s['logs']
    want = sha256(s['src_file'])
    check(took is not None and s['rc']['src'] == 0,
          f'source finished (every byte ACKed) within {DONE_S} s '
          f'(took {took if took is None else round(took, 2)} s, exit {s["rc"]["src"]})')
    for n in ('rx1', 'rx2'):
        got = sha256(s['out'][n])
        size = os.path.getsize(s['out'][n]) if got else 0
        check(s['rc'][n] == 0, f'{n}: EOS and exit 0 (exit {s["rc"][n]})')
        check(got == want, f'{n}: sha256 of the received file equals the source\'s '
              f'({size} of {FILE_BYTES} bytes)')
    src = last_stats(logs['src'], 'rmanpsink-stats')
    relay = last_stats(logs['relay'], 'rmanprelay-stats')
    rxs = {n: last_stats(logs[n], 'rmanpsrc-stats') for n in ('rx1', 'rx2')}
    if took:
        print(f'# transfer: {FILE_BYTES} bytes in {took:.2f} s = '
              f'{FILE_BYTES * 8 / took / 1e3:.0f} kbit/s of payload; source rate at the end '
              f'{src.get("rate", 0) / 1e3:.0f} kbit/s, sent {src.get("sent", 0):.0f}, '
              f'retransmitted {src.get("retransmitted", 0):.0f}, '
              f'ack-timeouts {src.get("ack-timeouts", 0):.0f}')
    print('# relay: ' + ', '.join(f'{k} {relay.get(k, 0):.0f}' for k in (
        'forwarded', 'cache-hits', 'cache-misses', 'retransmitted', 'nacks-received',
        'nacks-sent', 'ci-received', 'ci-sent', 'gaps', 'overflows', 'queue-peak',
        'children', 'malformed')))
    for n, st in rxs.items():
        print(f'# {n}: ' + ', '.join(f'{k} {st.get(k, 0):.0f}' for k in (
            'bytes', 'gaps', 'nacks-sent', 'duplicates', 'ci-sent', 'acks-sent', 'malformed')))
    check(relay.get('children') == 2, f'relay: 2 children (got {relay.get("children")})')
    if s['keyed']:
        rej = {n: st.get('auth-rejected') for n, st in
               (('src', src), ('relay', relay), *rxs.items())}
        check(all(v == 0 for v in rej.values()), f'auth-key on: no node rejected a packet '
              f'(auth-rejected {rej})')
    if UPSTREAM:
        check(relay.get('nacks-sent', 0) > 0 and src.get('retransmitted', 0) > 0
              and relay.get('retransmitted', 0) > 0,
              f'relay NACKed up ({relay.get("nacks-sent", 0):.0f}), the source retransmitted '
              f'({src.get("retransmitted", 0):.0f}), the relay passed the repairs down '
              f'({relay.get("retransmitted", 0):.0f})')
        check(relay.get('gaps', 0) > 0 and relay.get('ci-sent', 0) > 0,
              f'relay: saw the gaps and sent CIs up ({relay.get("ci-sent", 0):.0f})')
        return
    check(relay.get('cache-hits', 0) > 0 and relay.get('retransmitted', 0) > 0,
          f'relay: repaired from its cache (cache-hits {relay.get("cache-hits", 0):.0f}, '
          f'retransmitted {relay.get("retransmitted", 0):.0f})')
    check(rxs['rx2'].get('nacks-sent', 0) > 0, 'rx2 (lossy branch) NACKed')


def main():
    return el.live_main('rmanp-up' if UPSTREAM else 'rmanp', lambda run: evaluate(session(run)),
                        needs_delayline=True)


if __name__ == '__main__':
    sys.exit(main())

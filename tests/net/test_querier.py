#!/usr/bin/python3
"""IGMP querier loss in a live ASMP session (suite 'net', needs root): issue 14's fault.

tx -- r (bridge, IGMPv3 snooping) -- fast, slow, idle; the port r->slow is a tbf of SLOW_RATE
bit/s (the target sits at MAX_BPS, below what it carries); `idle` runs no receiver and never
joins.
The bridge's timers are shortened for the test (query interval 2 s, membership interval 5 s
instead of 125/260 s), so its group table ages out within the session. At OFF_S after the
sender's start the bridge's querier is switched off (mcast_querier 0), at ON_S on again.
A sampler reads the bridge's table (bridge mdb) every SAMPLE_S; a sniffer on idle
(amcast_testbed/mcprobe.py, AF_PACKET: what the bridge puts on its port, joined or not) counts
the group's UDP frames before, during and after the loss.
Checks:
  - before OFF_S the table holds the group on the ports of fast, slow and tx (asmpsink joins to
    hear RTCP) and idle gets none of it (snooping works, and the test sees it);
  - with the querier off the receivers keep getting the stream: fast gets >= 99 % of what was
    sent from OFF_S to the end, its longest gap in arrivals stays below MAX_GAP_S; the group's
    entries leave the table within the membership interval (+ margin) of the last query;
  - the stream reaches idle while the querier is off (the bridge floods: printed, asserted,
    since it is what keeps the receivers fed); within RESNOOP_S of ON_S the members are back in
    the table and idle gets nothing again;
  - the target: back within 10 % of the 75th percentile of its 2 s means over the PRE_S
    before OFF_S (see test_clockstep.reference) within RECOVER_S of ON_S (the fault's end;
    issue 14), holding HOLD_S; printed, with its mean while the querier was off (not asserted:
    on a loaded host a stall halves ASMP now and then, and a 15 s mean then falls > 10 % below:
    474 of 536 kbit/s at load 8.7, both receivers' packets 0.3 s late);
  - clean exits, no namespace left.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.

Measured (2026-11-25, 5 runs of this version at load 0.9-3.6, 5 passed; 14 drafts with the
slow link holding the target at load 4-13, 11 passed, 3 failed on the session's own noise): the
entries went 3.8-6.2 s after the querier; 231-275 frames at idle in the loss's first 2.5 s, 0
before and after; members back in the table 0.4-1.3 s after its return; fast 100.0 %, longest
gap 0.03-0.30 s; the target within 10 % 0.1-0.4 s after the return (drafts 0.0-3.5 s; bound
10 s, issue 14's).
"""
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
from amcast_testbed.netns import Topology, find_delayline  # noqa: E402
import test_asmp_elements as el  # noqa: E402  (trace readers, check(), time weighting)
from test_clockstep import recovery, reference, HOLD_S  # noqa: E402  (the same "back within 10 %")

NODE = os.path.join(TOP, 'tools', 'testbed', 'amcast-node')
GROUP = '239.1.2.3'                 # amcast-node's default
SLOW_RATE = 600_000
DELAY_MS = 20
RTCP_MS = 500
# max-bitrate below the slow link's video capacity (~558 kbit/s): the target sits at the clamp.
# With the slow link holding it (max 1.5 Mbit/s, drafts of this test) the session's own noise
# on a loaded host (a stalled receiver reporting 2 x what it got, ASMP reading load jitter as
# competing traffic and overshooting into loss: the target halves, up to 10 s to recover)
# failed the +/-10 % yardstick in about 1 run in 6, fault or not (docs/security.md)
INIT_BPS, MIN_BPS, MAX_BPS = 300_000, 100_000, 400_000
# bridge timers, centiseconds (ip-link(8)): query 2 s, response 1 s, membership 2 x 2 + 1 = 5 s
# (RFC 3376 8.4: robustness x query interval + response interval)
BRIDGE = {'mcast_query_interval': 200, 'mcast_query_response_interval': 100,
          'mcast_membership_interval': 500, 'mcast_querier_interval': 450}
MEMBERSHIP_S = BRIDGE['mcast_membership_interval'] / 100
QUERY_S = BRIDGE['mcast_query_interval'] / 100
OFF_S, ON_S, END_S = 25, 40, 55     # seconds after the sender's start
# the pre-fault value: the 75th percentile of the 2 s means over [10 s, OFF_S) (the start-up
# is over by 10 s; see test_clockstep.reference for why an upper quantile)
PRE_S = 15
RECOVER_S = 10.0                    # issue 14
RESNOOP_S = 3.0                     # response interval 1 s + the hosts' report + sampling
# longest gap in fast's arrivals: a port left out of the table until its host's report comes is
# cut for up to the response interval (1 s); a loaded host stalls the session up to 0.3 s (seen
# at load 8.7, both receivers at once); 25 fps: a frame every 40 ms
MAX_GAP_S = 1.0
SAMPLE_S = 0.25
EARLY_S = 2.5                       # the loss's first seconds: no entry can have aged out yet
PRE_SNIFF_S = 5                     # idle's sniffer: [5 s, OFF_S - 0.5 s] before the loss
PROBE = os.path.join(TOP, 'tools', 'testbed', 'amcast_testbed', 'mcprobe.py')
MEMBERS = ['fast', 'slow', 'tx']    # the sender joins too: asmpsink hears RTCP on the group
check = el.check


class Sampler(threading.Thread):
    """Every SAMPLE_S: (wall time, the hosts whose ports hold GROUP in the bridge's table)."""

    def __init__(self, t):
        super().__init__(daemon=True)
        self.t, self.rows, self.stop = t, [], threading.Event()
        self.ports = {t.iface('r', n): n for n in ('tx', 'fast', 'slow', 'idle')}

    def sample(self):
        out = subprocess.run(['bridge', '-n', self.t.ns('r'), '-j', 'mdb', 'show'],
                             capture_output=True, text=True).stdout
        try:
            mdb = [e for d in json.loads(out or '[]') for e in d.get('mdb', [])]
        except ValueError:
            mdb = []
        members = sorted(self.ports.get(e.get('port'), e.get('port')) for e in mdb
                         if e.get('grp') == GROUP)
        self.rows.append((time.time(), members))

    def run(self):
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(SAMPLE_S)


def set_querier(t, on):
    subprocess.run(['ip', '-n', t.ns('r'), 'link', 'set', 'br0', 'type', 'bridge',
                    'mcast_querier', '1' if on else '0'], check=True)


def sniff(t, run, phase, seconds):
    """Count the group's UDP frames on idle's port for `seconds` (started now, not waited)."""
    return t.run('idle', [sys.executable, PROBE, 'sniff', GROUP, t.iface('idle'), f'{seconds:.2f}'],
                 log=os.path.join(run, f'sniff-{phase}.log'))


def sniffed(run, phase):
    try:
        with open(os.path.join(run, f'sniff-{phase}.log')) as f:
            return int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def session(run):
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env = dict(os.environ)
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    try:
        find_delayline()
        delay = DELAY_MS
    except RuntimeError:
        delay = 0
    common = ['--protocol', 'asmp', '--rtcp-interval', str(RTCP_MS), '--run', run]
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fast', 'slow', 'sender')}
    times = {}
    with Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow', 'idle'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=delay)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(SLOW_RATE, None))
        t.link('r', 'idle')
        t.build()
        args = [str(x) for kv in BRIDGE.items() for x in kv]
        subprocess.run(['ip', '-n', t.ns('r'), 'link', 'set', 'br0', 'type', 'bridge', *args],
                       check=True)
        rx = {n: t.run(n, [NODE, 'recv', '--name', n, '--iface', t.iface(n),
                           '--duration', END_S + 10] + common, log=logs[n], env=env)
              for n in ('fast', 'slow')}
        t.wait_snooping()
        time.sleep(1.0)
        sampler = Sampler(t)
        sampler.start()
        t0 = time.monotonic()
        times['start'] = time.time()
        tx = t.run('tx', [NODE, 'send', '--iface', t.iface('tx'), '--duration', END_S,
                          '--initial-bitrate', INIT_BPS, '--min-bitrate', MIN_BPS,
                          '--max-bitrate', MAX_BPS, '--no-ref'] + common,
                   log=logs['sender'], env=env)
        sniffers = []
        try:
            time.sleep(max(0.0, t0 + PRE_SNIFF_S - time.monotonic()))
            sniffers.append(sniff(t, run, 'pre', OFF_S - PRE_SNIFF_S - 0.5))
            time.sleep(max(0.0, t0 + OFF_S - time.monotonic()))
            times['off'] = time.time()
            set_querier(t, False)
            sniffers.append(sniff(t, run, 'off1', EARLY_S))
            time.sleep(max(0.0, t0 + OFF_S + EARLY_S - time.monotonic()))
            sniffers.append(sniff(t, run, 'off2', ON_S - OFF_S - EARLY_S))
            time.sleep(max(0.0, t0 + ON_S - time.monotonic()))
            times['on'] = time.time()
            set_querier(t, True)
            time.sleep(RESNOOP_S)
            sniffers.append(sniff(t, run, 'after', END_S - ON_S - RESNOOP_S - 1.0))
            rc = t.finish(tx, END_S - ON_S + 30)
        finally:
            sampler.stop.set()
            sampler.join(5)
            for p in sniffers:
                t.finish(p, 10)
        rcs = {'sender': rc}
        for n, p in rx.items():
            rcs[n] = t.finish(p, 30)
    return {'times': times, 'rc': rcs, 'samples': sampler.rows,
            'json': {n: el.last_json(logs[n]) for n in logs}}


def evaluate(run, s):
    start, off, on = s['times']['start'], s['times']['off'], s['times']['on']
    rows = s['samples']
    pre = [r for r in rows if start + 5 <= r[0] < off]
    check(bool(pre) and all(r[1] == MEMBERS for r in pre), f'before the querier goes: the '
          f'group on the ports of {MEMBERS} in every sample ({len(pre)} samples, '
          f'{sorted({tuple(r[1]) for r in pre})})')
    n_pre = sniffed(run, 'pre')
    check(n_pre == 0, f'idle gets none of the group while snooping works ({n_pre} frames)')
    # the table: the group's entries age out once the hosts stop reporting
    gone = next((r[0] for r in rows if off < r[0] < on and not r[1]), None)
    aged = gone - off if gone else float('nan')
    print(f'# querier off: the group left the bridge\'s table {aged:.1f} s after '
          f'(membership interval {MEMBERSHIP_S:.0f} s, last query <= {QUERY_S:.0f} s before)')
    # the last reports answer a query sent at most QUERY_S before the loss, within the response
    # interval (1 s): the entries go between MEMBERSHIP_S - QUERY_S and MEMBERSHIP_S + 1 s after
    # it; 2 s for the sampling and a loaded host
    check(gone is not None and MEMBERSHIP_S - QUERY_S - 0.5 <= aged <= MEMBERSHIP_S + 1 + 2,
          f'entries aged out one membership interval after the last report ({aged:.1f} s, '
          f'within [{MEMBERSHIP_S - QUERY_S - 0.5:.1f}, {MEMBERSHIP_S + 3:.0f}] s)')
    # flooding: what idle received while the querier was off, and after it came back
    early, late, after = sniffed(run, 'off1'), sniffed(run, 'off2'), sniffed(run, 'after')
    flood = (early or 0) + (late or 0)
    print(f'# idle (never joined) received {flood} packets while the querier was off ({early} '
          f'in its first {EARLY_S} s, while the table still held the group), {after} from '
          f'{RESNOOP_S:.0f} s after it came back to the end')
    check(early is not None and early > 50, f'the flood starts with the querier\'s loss, not when '
          f'the table empties ({early} frames in the first {EARLY_S} s)')
    check(flood is not None and flood > 100, f'the bridge floods the group while it knows no querier ({flood} packets '
          f'at idle)')
    check(after == 0, f'snooping again within {RESNOOP_S:.0f} s of the querier\'s return ({after} '
          f'packets at idle)')
    back = next((r[0] for r in rows if r[0] > on and r[1] == MEMBERS), None)
    print(f'# querier on: every member back in the table {back - on if back else float("nan"):.1f}'
          f' s after')
    check(back is not None and back - on <= RESNOOP_S, f'members back in the table within '
          f'{RESNOOP_S:.0f} s of the querier\'s return')
    # the receivers keep the stream
    sd = el.read_dump(os.path.join(run, 'sender', 'sd.txt'))
    sent = {i: v for i, v in sd.items() if v[0] >= off}
    for n in ('fast', 'slow'):
        rd = el.read_dump(os.path.join(run, f'rx-{n}', 'rd.txt'))
        got = sorted(rd[i][0] for i in sent if i in rd)
        gaps = [b - a for a, b in zip(got, got[1:])]
        gap = max(gaps, default=float('nan'))
        share = len(got) / len(sent) if sent else 0
        print(f'# {n}: {len(got)} of {len(sent)} packets sent from the querier\'s loss on '
              f'({100 * share:.1f} %), longest gap {gap:.3f} s')
        if n == 'fast':
            check(share >= 0.99 and gap < MAX_GAP_S, f'fast kept the stream: {100 * share:.1f} % '
                  f'(>= 99 %), longest gap {gap:.3f} s (< {MAX_GAP_S} s)')
    # the target
    rates = el.read_csv(os.path.join(run, 'sender', 'rate.csv'))
    pts = [(float(r['time_s']), float(r['target_bps'])) for r in rates]
    if not check(len(pts) > 20, f'sender wrote rate.csv ({len(pts)} rows)'):
        return

    def mean(a, b):
        tw = el.time_weighted(pts, a, b)
        return sum(v * d for v, d in tw) / sum(d for _, d in tw) if tw else float('nan')
    ref, during = reference(pts, off, PRE_S), mean(off, on)
    rec = recovery(pts, on, start + END_S, ref)
    print(f'# target: {ref:.0f} bit/s before the querier went (75th percentile of 2 s means), {during:.0f} '
          f'mean while it was off; '
          f'within 10 % (for {HOLD_S:.0f} s) {rec if rec is not None else float("nan"):.1f} s '
          f'after it came back')
    check(rec is not None and rec <= RECOVER_S, f'target back within 10 % of {ref:.0f} bit/s '
          f'within {RECOVER_S:.0f} s of the querier\'s return')
    for n in ('sender', 'fast', 'slow'):
        j = s['json'].get(n) or {}
        check(s['rc'][n] == 0 and j.get('errors', 1) == 0, f'{n} ran to the end without errors '
              f'(exit {s["rc"][n]}, errors {j.get("errors")})')


def main():
    return el.session_main('querier', session, evaluate)    # --evaluate RUN: re-check a kept run


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/python3
"""Faults in a live ASMP session (suite 'net', needs root): recovery times, measured and bounded.

tx -- r (bridge, IGMPv3 snooping) -- fast, slow; the port r->slow is a tbf of SLOW_RATE bit/s.
One sender (x264enc through asmpsink, tools/testbed/amcast-node), two receivers (asmpsrc).
  1. Receiver crash: at CRASH_S the slow receiver is killed (SIGKILL: no BYE, no EOS). The sender
     must stop counting it within the expiry bound (3 RTCP intervals + one for the next row),
     and its target, held at the slow link before, must be above 1.1 x SLOW_RATE for good within
     RECOVER_S of the crash (issue 14: back within 10 s).
  2. Sender restart: at RESTART_S the sender is killed (SIGKILL) and a new one started at once
     (new process, new SSRC, starting again from its initial bitrate). The fast receiver must get
     the new SSRC's packets within FIRST_PACKET_S, decode frames of it, and the new sender's
     target must be back within 10 % of the old one's before the kill within RESTART_RECOVER_S
     (the receivers measure the new SSRC afresh, lib/cc controller.c, but report the rate the
     path gave the old one until it is confirmed: ASMP's resume_s). The bytes the new sender
     sent per second are printed against the old one's, not asserted (x264's own ramp).
Issue 14's other faults have tests of their own: 50 % RTCP loss (test_rtcp_loss.py), a wall-clock
step (test_clockstep.py), the IGMP querier's loss (test_querier.py). Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.
"""
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
from amcast_testbed.netns import Topology, find_delayline  # noqa: E402
import test_asmp_elements as el  # noqa: E402  (trace readers and check())

NODE = os.path.join(TOP, 'tools', 'testbed', 'amcast-node')
SLOW_RATE = 600_000
DELAY_MS = 20
RTCP_MS = 500
INIT_BPS, MIN_BPS, MAX_BPS = 300_000, 100_000, 1_500_000
CRASH_S = 25               # slow receiver killed this long after the sender started
RESTART_S = 45             # sender killed and restarted
END_S = 70                 # second sender stops
RECOVER_S = 10.0           # issue 14: rate back within 10 % of its pre-fault value within 10 s
# A restarted sender starts again from its initial bitrate (300 kbit/s). Without resume_s the
# receivers' start-up climbed as fast as x264 followed the target: 5 runs (2026-11-24) took
# 11.4-13.7 s to reach 10 % of 1.5 Mbit/s, above issue 14's 10 s. With resume_s (lib/cc, 10 s)
# the receiver carries the rate the path gave the old SSRC into its reports on the new one.
RESTART_RECOVER_S = 10.0
FIRST_PACKET_S = 5.0       # the fast receiver hears the new sender within this
EXPIRY = (3 + 1) * RTCP_MS / 1000 * 1.5
check = el.check


def target_rows(run):
    rows = el.read_csv(os.path.join(run, 'rate.csv'))
    return [(float(r['time_s']), float(r['target_bps']), int(float(r['receivers'] or 0)))
            for r in rows]


def above_for_good(rows, t_from, level):
    """First time >= t_from from which every target is above level; None if never."""
    after = [(t, v) for t, v, _ in rows if t >= t_from]
    for i, (t, _) in enumerate(after):
        if all(v > level for _, v in after[i:]):
            return t
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
    common = ['--protocol', 'asmp', '--rtcp-interval', str(RTCP_MS)]
    send_args = ['--initial-bitrate', INIT_BPS, '--min-bitrate', MIN_BPS, '--max-bitrate',
                 MAX_BPS, '--no-ref'] + common
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fast', 'slow', 'sender1', 'sender2')}
    times = {}
    with Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=delay)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(SLOW_RATE, None))
        t.build()
        rx = {n: t.run(n, [NODE, 'recv', '--run', run, '--name', n, '--iface', t.iface(n),
                           '--duration', END_S + 10] + common, log=logs[n], env=env)
              for n in ('fast', 'slow')}
        t.wait_snooping()
        time.sleep(1.0)
        t0 = time.monotonic()
        times['start'] = time.time()
        tx1 = t.run('tx', [NODE, 'send', '--run', os.path.join(run, 's1'), '--iface',
                           t.iface('tx'), '--duration', END_S] + send_args,
                    log=logs['sender1'], env=env)
        time.sleep(max(0.0, t0 + CRASH_S - time.monotonic()))
        times['crash'] = time.time()
        rx['slow'].send_signal(signal.SIGKILL)     # our own process, by PID
        time.sleep(max(0.0, t0 + RESTART_S - time.monotonic()))
        times['restart'] = time.time()
        tx1.send_signal(signal.SIGKILL)
        tx1.wait(10)
        tx2 = t.run('tx', [NODE, 'send', '--run', os.path.join(run, 's2'), '--iface',
                           t.iface('tx'), '--duration', END_S - RESTART_S] + send_args,
                    log=logs['sender2'], env=env)
        rc2 = t.finish(tx2, END_S - RESTART_S + 30)
        rc_fast = t.finish(rx['fast'], 30)
        rx['slow'].wait(10)
    return {'times': times, 'rc_sender2': rc2, 'rc_fast': rc_fast,
            'json_fast': el.last_json(logs['fast'])}


def evaluate(run, s):
    crash, restart = s['times']['crash'], s['times']['restart']
    r1 = target_rows(os.path.join(run, 's1', 'sender'))
    r2 = target_rows(os.path.join(run, 's2', 'sender'))
    if not check(len(r1) > 10 and len(r2) > 5, f'both senders wrote rate.csv ({len(r1)}, '
                 f'{len(r2)} rows)'):
        return
    # 1. receiver crash
    before = [v for t, v, _ in r1 if crash - 10 <= t < crash]
    two = [k for t, _, k in r1 if crash - 10 <= t < crash]
    check(bool(two) and max(two) == 2, f'sender counted both receivers before the crash ({sorted(set(two))})')
    check(bool(before) and max(before) < 1.1 * SLOW_RATE,
          f'target held by the slow link before the crash (max {max(before or [0]):.0f} bit/s)')
    gone = [t for t, _, k in r1 if t > crash and k <= 1]
    check(bool(gone) and gone[0] - crash <= EXPIRY, f'crashed receiver dropped '
          f'{gone[0] - crash if gone else float("nan"):.1f} s after the crash (bound {EXPIRY:.1f} s)')
    rec = above_for_good([row for row in r1 if row[0] < restart], crash, 1.1 * SLOW_RATE)
    print(f'# receiver crash: target above {1.1 * SLOW_RATE:.0f} bit/s for good '
          f'{rec - crash if rec else float("nan"):.1f} s after it')
    check(rec is not None and rec - crash <= RECOVER_S,
          f'target freed within {RECOVER_S:.0f} s of the crash')
    # 2. sender restart
    pre = [v for t, v, _ in r1 if restart - 5 <= t < restart]
    pre_mean = sum(pre) / len(pre) if pre else float('nan')
    back = None
    for i, (t, _, _) in enumerate(r2):
        if all(abs(v - pre_mean) <= 0.1 * pre_mean for _, v, _ in r2[i:]):
            back = t
            break
    print(f'# sender restart: old target {pre_mean:.0f} bit/s; the new sender within 10 % of it '
          f'for good {back - restart if back else float("nan"):.1f} s after the restart')
    check(back is not None and back - restart <= RESTART_RECOVER_S,
          f'new sender back within 10 % of the old target within {RESTART_RECOVER_S:.0f} s')
    # what x264 made of it: the bytes sent per 1 s, against the old sender's (not asserted: the
    # encoder's ramp after a new target is its own)
    sd1 = el.read_dump(os.path.join(run, 's1', 'sender', 'sd.txt'))
    sd2 = el.read_dump(os.path.join(run, 's2', 'sender', 'sd.txt'))
    old_sent = 8 * sum(z for t, z in sd1.values() if restart - 5 <= t < restart) / 5
    sent_back = None
    for k in range(int(END_S - RESTART_S) - 1):
        a = restart + k
        if 8 * sum(z for t, z in sd2.values() if a <= t < a + 1) >= 0.9 * old_sent:
            sent_back = k + 1
            break
    print(f'# sender restart: the old sender sent {old_sent:.0f} bit/s; the new one sent 0.9 x '
          f'that in the 1 s ending {sent_back if sent_back else float("nan")} s after the restart')
    rd = el.read_dump(os.path.join(run, 'rx-fast', 'rd.txt'))
    got = sorted(rd[i][0] for i in sd2 if i in rd)
    first = got[0] - restart if got else float('nan')
    check(bool(got) and first <= FIRST_PACKET_S,
          f'fast receiver got the new sender\'s packets {first:.1f} s after the restart '
          f'({len(got)} of {len(sd2)})')
    j = s['json_fast'] or {}
    check(s['rc_fast'] == 0 and j.get('errors', 1) == 0, f'fast receiver ran to the end without '
          f'errors (exit {s["rc_fast"]}, errors {j.get("errors")})')
    frames = j.get('frames', 0)
    check(frames >= 25 * (END_S - 15), f'fast receiver decoded {frames} frames over both senders '
          f'(want >= {25 * (END_S - 15)})')
    check(s['rc_sender2'] == 0, f'second sender exited 0 (got {s["rc_sender2"]})')


def main():
    return el.live_main('faults', lambda run: evaluate(run, session(run)))


if __name__ == '__main__':
    sys.exit(main())

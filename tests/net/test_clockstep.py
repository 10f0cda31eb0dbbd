#!/usr/bin/python3
"""A receiver's wall clock steps while the session plays (suite 'net', needs root): issue 14.

tx -- r (bridge, IGMPv3 snooping) -- fast, slow; the port r->slow is a tbf of SLOW_RATE bit/s; the
target sits at MAX_BPS, below what it carries (see MAX_BPS). One sender (x264enc through asmpsink), two
receivers (asmpsrc) whose processes run with tests/net/clockstep.c preloaded: their wall clock
(CLOCK_REALTIME through clock_gettime, gettimeofday, time) steps as an NTP step would: at 25 s
after the sender's start the slow receiver's by +30 s and the fast one's by -30 s, at 45 s by
-60 s and +60 s, and the sender's own clock by +30 s (STEPS), and with it the NTP
field of its SRs (rtpsession reads the wall clock for each), which the receivers echo as LSR. The
namespaces share the kernel's clock, so the step is made in the processes; the shim writes a
line each time a process reads its clock after a step (rtpsession does at every RTCP interval).
Checks:
  - every process read its wall clock after each of its steps (the shim's lines in its log), and
    the receivers' traces (stats.csv) still move on without a jump;
  - per step: the 75th percentile of the target's 2 s means over the PRE_S before it (the
    pre-fault value, see reference()) and the first time from which every 2 s time-weighted
    mean of the target stays within 10 % of it for HOLD_S: within RECOVER_S of the step
    (issue 14: back within 10 % within 10 s); printed. Not "until the next step": under load a
    receiver stalls now and then and ASMP halves (seen 5.5 and 10 s after a step, 2026-11-25,
    load 5-9), which is the session's own noise, not the step's;
  - the slow receiver's RTT and queueing-delay estimates stay below 1 s after each step (a step
    read as one-way delay is tens of seconds of queue: with the offset read at every packet
    instead of once, the +30 s step put 30 s in queue_s, moved ASMP to its competing regime and
    the target fell from 490 to 177 kbit/s, back within 10 % only after 17.9 s);
  - both receivers decode video to the end, clean exits.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.

Measured (2026-11-25, 5 runs of this version at load 1.5-6, 5 passed): back within 10 % 0.1-0.6 s
after each step (bound 10 s, issue 14's; the target never left 400 kbit/s); RTT <= 0.06 s,
queue <= 0.001 s. 19 drafts with the slow link holding the target (load 4-13): 0.0-0.5 s in the
passing runs, 3 failures on the session's own noise (see MAX_BPS), none on a step.

Why nothing moves: the elements time everything on the monotonic system clock; the wall clock
enters as one offset taken once per process (gst/common/gstamnet.c gst_am_wall: the sender's
send-time stamps and the receiver's one-way delay), and RTCP's LSR/DLSR are an echo of the
sender's NTP field and a delay measured on the receiver's monotonic clock (rtpsession).
"""
import os
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
DELAY_MS = 20
RTCP_MS = 500
# max-bitrate below the slow link's video capacity (~558 kbit/s): the target sits at the clamp.
# With the slow link holding it (max 1.5 Mbit/s, drafts of this test) the session's own noise
# on a loaded host (a stalled receiver reporting 2 x what it got, ASMP reading load jitter as
# competing traffic and overshooting into loss: the target halves, up to 10 s to recover)
# failed the +/-10 % yardstick in about 1 run in 6, fault or not (docs/security.md)
INIT_BPS, MIN_BPS, MAX_BPS = 300_000, 100_000, 400_000
# (seconds after the sender's start, {process: step in s}): the receivers both ways, the sender
# with the second (its SRs' NTP field steps; lib/cc matches LSRs on the field as sent). 20 s
# apart: a step's 10 s bound plus the 4 s hold fit before the next, with room for the session's
# own dips (a run with the sender's step alone at 35 s failed on one: ASMP went to its competing
# regime 0.3 s *before* the receivers' step, load 13, and the dip filled both 10 s windows)
STEPS = ((25, {'slow': 30, 'fast': -30}), (45, {'slow': -60, 'fast': 60, 'sender': 30}))
END_S = 65                                  # sender duration
PRE_S = 20                                  # the pre-fault value: from this before a step
SMOOTH_S = 2.0                              # "the rate": target averaged over 4 RTCP intervals
RECOVER_S = 10.0                            # issue 14
HOLD_S = 4.0                                # "back" = within 10 % for this long (8 intervals)
LEAD_S = 4.0                                # receivers up, bridges snooping, before the sender
check = el.check


def shim_path():
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    return os.path.join(build, 'tests', 'net', 'libamclockstep.so')


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
    with Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=delay)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(SLOW_RATE, None))
        t.build()
        t0 = time.monotonic() + LEAD_S        # the sender's start, on the shared monotonic clock
        envs = {n: dict(env, LD_PRELOAD=shim_path(), AMCAST_CLOCKSTEP=','.join(
            f'{t0 + at:.3f}:{d[n]:+g}' for at, d in STEPS if n in d)) for n in logs}
        rx = {n: t.run(n, [NODE, 'recv', '--name', n, '--iface', t.iface(n),
                           '--duration', END_S + 10] + common, log=logs[n], env=envs[n])
              for n in ('fast', 'slow')}
        t.wait_snooping()
        time.sleep(max(0.0, t0 - time.monotonic()))
        start = time.time()
        tx = t.run('tx', [NODE, 'send', '--iface', t.iface('tx'), '--duration', END_S,
                          '--initial-bitrate', INIT_BPS, '--min-bitrate', MIN_BPS,
                          '--max-bitrate', MAX_BPS, '--no-ref'] + common,
                   log=logs['sender'], env=envs['sender'])
        rc = t.finish(tx, END_S + 30)
        rcs = {'sender': rc}
        for n, p in rx.items():
            rcs[n] = t.finish(p, 30)
    return {'start': start, 'rc': rcs, 'json': {n: el.last_json(logs[n]) for n in logs}}


def smoothed(points, t, width):
    """Time-weighted mean of the step function `points` over [t - width, t)."""
    tw = el.time_weighted(points, t - width, t)
    d = sum(x for _, x in tw)
    return sum(v * x for v, x in tw) / d if d > 0 else float('nan')


def reference(points, t_fault, pre_s=None):
    """The pre-fault value: the 75th percentile of the SMOOTH_S means ending at each row of the
    PRE_S before the fault. Not the mean, nor the median: on a loaded host a receiver stalls
    now and then, reports twice what it got in that interval (lib/cc recv_rate_cap) and ASMP
    halves for up to 10 s (seen at load 5-13: 10 s means of 444 and 391 of ~535 kbit/s). The
    dips only ever lower the rate, so an upper quantile is the steady rate they interrupt."""
    pre_s = pre_s or PRE_S
    ends = sorted({t for t, _ in points if t_fault - pre_s + SMOOTH_S <= t <= t_fault}
                  | {t_fault})
    means = sorted(smoothed(points, t, SMOOTH_S) for t in ends)
    return means[(3 * len(means)) // 4]


def recovery(points, t_fault, t_until, pre):
    """Seconds from t_fault to the first instant t from which every SMOOTH_S mean of the target
    ending in [t + SMOOTH_S, t + HOLD_S] (at each row and at both ends) is within 10 % of pre;
    None if there is none before t_until - HOLD_S. Windows start at the fault: what the target
    did before it is not the fault's."""
    ends = sorted({t for t, _ in points if t_fault + SMOOTH_S <= t <= t_until} | {t_until})
    good = [(t - SMOOTH_S, abs(smoothed(points, t, SMOOTH_S) - pre) <= 0.1 * pre) for t in ends]
    for i, (t, ok) in enumerate(good):
        if t + HOLD_S > t_until:
            break
        if ok and all(o for u, o in good[i:] if u <= t + HOLD_S - SMOOTH_S):
            return t - t_fault
    return None


def stats_rows(run, name):
    rows = el.read_csv(os.path.join(run, f'rx-{name}', 'stats.csv'))
    return [r for r in rows if r.get('time_s')]


def evaluate(run, s):
    for n in ('fast', 'slow', 'sender'):
        with open(os.path.join(run, f'{n}.log'), errors='replace') as f:
            seen = sum(1 for line in f if line.startswith('clockstep: '))
        mine = [d[n] for _, d in STEPS if n in d]
        check(seen == len(mine), f'{n} read its wall clock after each of its steps ({seen} of '
              f'{len(mine)} seen: {mine} s)')
        if n == 'sender':
            continue
        # its traces are stamped through the once-taken offset: they do not jump with the clock
        tt = [float(r['time_s']) for r in stats_rows(run, n)]
        gaps = [b - a for a, b in zip(tt, tt[1:])]
        check(bool(gaps) and 0 <= min(gaps) and max(gaps) < 5, f'{n}\'s stats.csv times '
              f'move on (gaps {min(gaps, default=0):.2f}-{max(gaps, default=0):.2f} s)')
    rows = el.read_csv(os.path.join(run, 'sender', 'rate.csv'))
    if not check(len(rows) > 20, f'sender wrote rate.csv ({len(rows)} rows)'):
        return
    pts = [(float(r['time_s']), float(r['target_bps'])) for r in rows]
    start = s['start']
    marks = [start + at for at, _ in STEPS] + [start + END_S]
    srows = stats_rows(run, 'slow')
    for k, (at, who) in enumerate(STEPS):
        ts, until = marks[k], marks[k + 1]
        pre = reference(pts, ts)
        rec = recovery(pts, ts, until, pre)
        lo = min((v for t, v in pts if ts <= t < until), default=float('nan'))
        what = ', '.join(f'{n} {d:+d} s' for n, d in who.items())
        print(f'# step {k + 1} at {at} s ({what}): pre-fault target {pre:.0f} bit/s, lowest after '
              f'{lo:.0f}; within 10 % (for {HOLD_S:.0f} s) {rec if rec is not None else float("nan"):.1f} s '
              f'after the step')
        check(rec is not None and rec <= RECOVER_S, f'step {k + 1}: target back within 10 % of '
              f'{pre:.0f} bit/s within {RECOVER_S:.0f} s')
        after = [r for r in srows if ts < float(r['time_s']) <= until]
        rtt = max((float(r['rtt_s'] or 0) for r in after), default=float('nan'))
        queue = max((float(r['queue_s'] or 0) for r in after), default=float('nan'))
        check(bool(after) and rtt < 1.0 and queue < 1.0, f'step {k + 1}: slow receiver\'s '
              f'RTT and queueing delay estimates stay below 1 s (max {rtt:.3f} s, {queue:.3f} s)')
    sent = (s['json'].get('sender') or {}).get('frames', 0)
    for n in ('fast', 'slow'):
        j = s['json'].get(n) or {}
        check(s['rc'][n] == 0 and j.get('errors', 1) == 0, f'{n} ran to the end without errors '
              f'(exit {s["rc"][n]}, errors {j.get("errors")})')
        want = 0.9 * sent if n == 'fast' else 0.5 * sent
        check(j.get('frames', 0) >= want, f'{n} decoded {j.get("frames", 0)} frames (want >= '
              f'{want:.0f} of {sent})')
    check(s['rc']['sender'] == 0, f'sender exited 0 (got {s["rc"]["sender"]})')


def main():
    if not os.path.exists(shim_path()) and os.geteuid() == 0:
        print(f'# skipped: {shim_path()} not built')
        print('# amtest: checks=0 failures=0')
        return 77

    return el.session_main('clockstep', session, evaluate)   # --evaluate RUN: re-check a kept run


if __name__ == '__main__':
    sys.exit(main())

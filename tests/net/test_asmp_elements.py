#!/usr/bin/python3
"""Live ASMP session through asmpsink/asmpsrc in network namespaces (suite 'net', needs root).

tx -- r (bridge, IGMPv3 snooping) -- fast1, fast2, slow; the port r->slow is a tbf bottleneck of
SLOW_RATE bit/s; the sender's link carries DELAY_MS each way when the delay line is built.
One sender (x264enc, live source, tools/testbed/amcast-node) and three receivers. Checks:
  - every receiver decodes video before anything is measured (IGMP snooping really forwards);
  - the target bitrate converges to what the bottleneck can carry as video: SLOW_RATE times
    the share of an Ethernet frame that is RTP payload (measured packet sizes, 42 B of
    Ethernet+IP+UDP and 12 B of RTP header). Over the WINDOW_S seconds before the leave its
    time-weighted mean is within [0.85, 1.02] x that capacity (margins from the measured spread,
    see the check), its 90th percentile at most one increment (one packet per RTT, eq. 13)
    above it, and the mean above the configured minimum;
  - the fast receivers follow the group rate: they get what was sent (their paths have no
    bottleneck) and at most 5 % more than the bottleneck lets through;
  - every receiver decodes a share of the frames sent while it was there;
  - when the slow receiver leaves (SIGINT: EOS, and asmpsrc says BYE), the sender drops it by
    its next RTCP packet (one interval, not the 3+1 of an expiry) and from then the target rises
    above SLOW_RATE for good within a bound derived from the RTCP interval, the packet size and
    the RTT (one packet per RTT per report): a BYE frees the rate at once, without lib/cc's
    expiry hold and ramp;
  - no bus errors, no SSRC collisions, clean exits, no namespace left.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.
"""
import csv
import json
import math
import os
import shutil
import statistics
import sys
import time
import traceback

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
from amcast_testbed.netns import Topology, leftover_namespaces, find_delayline  # noqa: E402
from amcast_testbed.analysis import node_summary as last_json  # noqa: E402  (el.last_json too)

NODE = os.path.join(TOP, 'tools', 'testbed', 'amcast-node')
RECEIVERS = ('fast1', 'fast2', 'slow')
SLOW_RATE = 600_000        # bit/s, tbf toward "slow"
DELAY_MS = 20              # one way, sender's link (RTT about 2 * DELAY_MS)
RTCP_MS = 500              # minimum RTCP interval given to both ends
INIT_BPS, MIN_BPS, MAX_BPS = 300_000, 100_000, 2_000_000
KEY_INT, FPS = 25, 25
LEAVE_S = 45               # the slow receiver leaves this long after the sender started
WINDOW_S = 15              # converged window: the WINDOW_S seconds before the leave
SEND_S = 65                # sender duration (the recovery is watched until then)
FIRST_FRAME_WAIT_S = 10    # a receiver must decode within this after the sender starts
ETH_IP_UDP = 14 + 20 + 8   # bytes a tbf on a veth counts beyond the RTP packet
RTP_HDR = 12
RTCP_JITTER = 1.5          # RFC 3550 randomises each interval up to 1.5x
BYE_SLACK_S = 0.5          # SIGINT to the BYE on the wire: the receiver's EOS on a loaded host

checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(('ok   ' if ok else 'FAIL ') + what, flush=True)
    return ok


def read_dump(path):
    """`TIME id N udp SIZE [FRAME TYPE]` -> {id: (time, size)} (first arrival of duplicates)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 5 and p[1] == 'id':
                out.setdefault(int(p[2]), (float(p[0]), int(p[4])))
    return out


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in csv.DictReader(f)]


def read_peer_log(path, key):
    """A peer script's JSON lines: the values of `key` in order, and the last 'result' ({})."""
    events, result = [], {}
    with open(path) as f:
        for line in f:
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if key in j:
                events.append(j[key])
            elif 'result' in j:
                result = j['result']
    return events, result


def log_has(path, text):
    try:
        with open(path, errors='replace') as f:
            return text in f.read()
    except FileNotFoundError:
        return False


def wait_first_frames(logs, procs, t_end):
    """True per receiver once its amcast-node logged a decoded frame."""
    seen = {n: False for n in RECEIVERS}
    while time.monotonic() < t_end and not all(seen.values()):
        for n in RECEIVERS:
            seen[n] = seen[n] or log_has(logs[n], 'first frame after')
            if procs[n].poll() is not None:
                t_end = 0
        time.sleep(0.2)
    return seen


def session(run):
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env = dict(os.environ)
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    try:
        find_delayline()
        delay = DELAY_MS
    except RuntimeError:
        print('# delay line not built: running without propagation delay')
        delay = 0
    common = ['--run', run, '--protocol', 'asmp', '--rtcp-interval', str(RTCP_MS)]
    logs = {n: os.path.join(run, f'{n}.log') for n in RECEIVERS + ('sender',)}
    times = {}
    with Topology() as t:
        t.add_router('r')
        t.add_host('tx')
        for n in RECEIVERS:
            t.add_host(n)
        t.link('tx', 'r', delay_ms=delay)
        t.link('r', 'fast1')
        t.link('r', 'fast2')
        t.link('r', 'slow', rate=(SLOW_RATE, None))
        t.build()
        procs = {n: t.run(n, [NODE, 'recv', '--name', n, '--iface', t.iface(n),
                              '--duration', SEND_S + 10] + common, log=logs[n], env=env)
                 for n in RECEIVERS}
        t.wait_snooping()
        time.sleep(1.0)
        times['start'] = time.time()
        t0 = time.monotonic()
        tx = t.run('tx', [NODE, 'send', '--iface', t.iface('tx'), '--duration', SEND_S,
                          '--initial-bitrate', INIT_BPS, '--min-bitrate', MIN_BPS,
                          '--max-bitrate', MAX_BPS, '--key-int', KEY_INT, '--fps', FPS,
                          '--no-ref'] + common, log=logs['sender'], env=env)
        seen = wait_first_frames(logs, procs, t0 + FIRST_FRAME_WAIT_S)
        ok = True
        for n in RECEIVERS:
            ok &= check(seen[n], f'{n} decodes video within {FIRST_FRAME_WAIT_S} s of the start')
        if not ok:
            for p in list(procs.values()) + [tx]:
                t.stop(p)
            return None
        time.sleep(max(0.0, t0 + LEAVE_S - time.monotonic()))
        times['leave'] = time.time()
        rc_slow = t.stop(procs['slow'])            # SIGINT: clean EOS, asmpsrc says BYE
        rc_tx = t.finish(tx, SEND_S - LEAVE_S + 30)
        rcs = {'sender': rc_tx, 'slow': rc_slow}
        for n in ('fast1', 'fast2'):
            rcs[n] = t.finish(procs[n], 20)
    return {'rc': rcs, 'times': times, 'delay_ms': delay,
            'json': {n: last_json(logs[n]) for n in logs}}


def in_window(sd, a, b):
    return {pid: v for pid, v in sd.items() if a <= v[0] < b}


def abs_time(rows, start):
    """rate.csv time_s as CLOCK_REALTIME seconds (accepts seconds since the sender's start)."""
    ts = [float(r['time_s']) for r in rows]
    off = 0.0 if ts and ts[0] > 1e9 else start
    return [x + off for x in ts]


def evaluate(run, s):
    for n, j in s['json'].items():
        check(j is not None, f'{n} printed its final JSON line')
        if j is None:
            continue
        check(s['rc'][n] == 0, f'{n} exited 0 (got {s["rc"][n]})')
        check(j['errors'] == 0 and j['ssrc_collisions'] == 0,
              f'{n}: errors={j["errors"]} ssrc_collisions={j["ssrc_collisions"]} (want 0, 0)')
    sd = read_dump(os.path.join(run, 'sender', 'sd.txt'))
    rates = read_csv(os.path.join(run, 'sender', 'rate.csv'))
    if not check(len(sd) > 0 and len(rates) > 0, f'sender traces: {len(sd)} packets in sd.txt, '
                 f'{len(rates)} rows in rate.csv'):
        return
    leave, start = s['times']['leave'], s['times']['start']
    w0, w1 = leave - WINDOW_S, leave
    tr = abs_time(rates, start)
    target = [float(r['target_bps']) for r in rates]
    win = [v for tt, v in zip(tr, target) if w0 <= tt < w1]
    sent_w = in_window(sd, w0, w1)
    if not check(len(win) > 0 and len(sent_w) > 0, 'sender active in the converged window'):
        return
    pkt = statistics.mean(size for _, size in sent_w.values())
    video_cap = SLOW_RATE * (pkt - RTP_HDR) / (pkt + ETH_IP_UDP)
    rtt = max(2 * s['delay_ms'] / 1000, 0.001) + 0.01     # propagation + 10 ms host/bridge
    step = 8 * pkt / rtt                                 # eq. 13: one packet per RTT per report
    tw = time_weighted([(tt, v) for tt, v in zip(tr, target)], w0, w1)
    mean = sum(v * d for v, d in tw) / sum(d for _, d in tw)
    p90 = weighted_quantile(tw, 0.9)
    print(f'# converged window: target mean {mean:.0f}, p90 {p90:.0f}, min {min(win):.0f}, '
          f'max {max(win):.0f} bit/s; mean RTP packet {pkt:.0f} B; video capacity of the '
          f'bottleneck {video_cap:.0f} bit/s; one packet per RTT {step:.0f} bit/s')
    # The DELAY regime probes up to the queue: 5 runs of this test (ASMP regimes, 2026-11-23)
    # gave a mean of 95-98 % of the capacity (531-546 kbit/s, sd 5.4 k); the bounds sit 3.4 sd
    # below and 7 sd above that spread, and 85 % is the use the controller must reach alone.
    check(0.85 * video_cap <= mean <= 1.02 * video_cap,
          f'target settles at the bottleneck\'s video capacity: time-weighted mean {mean:.0f} '
          f'within [0.85, 1.02] x {video_cap:.0f} bit/s')
    check(p90 <= video_cap + step, f'target stays there: 90th percentile {p90:.0f} <= capacity '
          f'+ one packet per RTT ({video_cap + step:.0f} bit/s)')
    check(mean > MIN_BPS, f'target above the configured minimum ({mean:.0f} > {MIN_BPS})')
    sent_bits = 8 * sum(size for _, size in sent_w.values())
    for n in RECEIVERS:
        rd = read_dump(os.path.join(run, f'rx-{n}', 'rd.txt'))
        got = sum(1 for pid in sent_w if pid in rd)
        share = got / len(sent_w)
        got_bits = 8 * sum(size for pid, (_, size) in sent_w.items() if pid in rd)
        print(f'# {n}: {got}/{len(sent_w)} packets of the window ({100 * share:.1f} %), '
              f'{got_bits / WINDOW_S:.0f} bit/s of RTP')
        if n != 'slow':
            # no bottleneck on this path: what was sent arrives (1 % for a loaded 2-core host)
            check(share >= 0.99, f'{n} received what the group was sent ({100 * share:.1f} %)')
            wire = (sent_bits + 8 * ETH_IP_UDP * len(sent_w)) / WINDOW_S
            # the same 5 runs: 581-600 kbit/s (sd 7 k) on the wire; the slow link's 100 ms tbf
            # queue absorbs a few % of probing, so 5 % over the link rate (5.8 sd) is the bound
            check(wire <= 1.05 * SLOW_RATE, f'{n} follows the group rate, which fits the slow '
                  f'link: {wire:.0f} bit/s on the wire <= 1.05 x {SLOW_RATE}')
    sent_frames = s['json']['sender']['frames'] if s['json']['sender'] else 0
    frames_before_leave = sent_frames * (leave - start) / SEND_S
    for n in RECEIVERS:
        j = s['json'][n] or {}
        # fast paths lose nothing: all but the frames before the first key frame decode;
        # the slow path loses while the rate settles: at least half of its frames
        want = sent_frames - KEY_INT if n != 'slow' else 0.5 * frames_before_leave
        check(j.get('frames', 0) >= want, f'{n} decoded {j.get("frames", 0)} frames '
              f'(want >= {want:.0f} of {sent_frames} sent)')
    # leave: the BYE, then growth of one packet per RTT per report
    interval = RTCP_MS / 1000 * RTCP_JITTER
    # rate.csv gets a row per sender RTCP packet: the BYE's drop shows in the next one, at most
    # one jittered interval after it arrived (an expiry comes the receiver timeout, 3 intervals,
    # after the receiver's last report, and then holds the rate: the rise bound fails)
    bye_bound = interval + BYE_SLACK_S
    nrx = [(tt, int(float(r['receivers']))) for tt, r in zip(tr, rates)
           if r.get('receivers') not in (None, '')]
    before = [k for tt, k in nrx if w0 <= tt < w1]
    dropped = [tt for tt, k in nrx if tt > leave and k < max(before or [0])]
    check(bool(before) and max(before) == 3, f'sender counted 3 receivers before the leave '
          f'(saw {sorted(set(before))})')
    if not check(bool(dropped) and dropped[0] - leave <= bye_bound,
                 f'slow receiver dropped {dropped[0] - leave if dropped else float("nan"):.1f} s '
                 f'after it left: its BYE (bound {bye_bound:.2f} s)'):
        return
    drop = dropped[0]
    # the rate while the slow receiver was there (the drop's own row is already freed)
    at_drop = [v for tt, v in zip(tr, target) if tt < drop]
    base = at_drop[-1] if at_drop else mean
    # a BYE frees the rate at once (no expiry hold or ramp): the target becomes the fast
    # receivers' reported rate, which climbs by at most one packet per RTT per report, so
    # `reports` reports, one jittered interval apart, and one interval more for the rate rows.
    # Measured with the BYE (4 runs, 2026-11-25, load 4-7 on 2 cores): dropped 0.1-0.5 s after
    # the leave; the target was above the link from the drop's own row on (0.0 s; 778-820
    # kbit/s: the fast receivers' reports already carried their rise), against bounds of
    # 2.2-3.0 s. Without the BYE the leave was an expiry and the hold and ramp took 2.4-2.5 s.
    reports = max(0, math.ceil((SLOW_RATE - base) / step)) + 1
    bound = (reports + 1) * interval
    print('# target around the leave (s from the drop: bit/s): ' + ', '.join(
        f'{tt - drop:+.2f}: {v:.0f}' for tt, v in zip(tr, target) if -1.5 <= tt - drop <= 3))
    after = [(tt, v) for tt, v in zip(tr, target) if tt >= drop]
    # the first time from which the target stays above the bottleneck rate to the end
    rec = None
    for i, (tt, v) in enumerate(after):
        if all(x > SLOW_RATE for _, x in after[i:]):
            rec = tt
            break
    check(rec is not None and rec - drop <= bound,
          f'target above {SLOW_RATE} bit/s for good {rec - drop if rec else float("nan"):.1f} s '
          f'after the drop (bound {bound:.1f} s: {reports + 1} reports from {base:.0f} bit/s)')


def time_weighted(points, a, b):
    """(value, seconds held) of a step function given as (time, value) rows, clipped to [a, b)."""
    out = []
    for i, (t, v) in enumerate(points):
        t_next = points[i + 1][0] if i + 1 < len(points) else b
        lo, hi = max(t, a), min(t_next, b)
        if hi > lo:
            out.append((v, hi - lo))
    return out


def weighted_quantile(tw, q):
    total = sum(d for _, d in tw)
    acc = 0.0
    for v, d in sorted(tw):
        acc += d
        if acc >= q * total:
            return v
    return tw[-1][0] if tw else float('nan')

def live_main(tag, body, needs_delayline=False, kept_hint=''):
    """The frame of a live test: skip (77) without root (or the delay line), a run directory,
    body(run) under a catch-all, the check that no namespace of ours is left, the summary line.
    The run directory is removed when every check passed, kept otherwise."""
    def skip(why):
        print(f'# skipped: {why}')
        print('# amtest: checks=0 failures=0')
        return 77
    if os.geteuid() != 0:
        return skip('needs root (network namespaces)')
    if needs_delayline:
        try:
            find_delayline()
        except RuntimeError as e:
            return skip(e)
    run = os.path.join(os.environ.get('TMPDIR', '/tmp'), f'amtest-{tag}-{os.getpid()}')
    os.makedirs(run)
    print(f'# run directory: {run}')
    prefix = f'amt{os.getpid()}-'     # netns.Topology's default prefix for this process
    try:
        body(run)
    except Exception:
        traceback.print_exc()
        check(False, 'the test ran to the end without an exception')
    finally:
        left = leftover_namespaces(prefix)
        check(not left, f'no namespace left behind ({left})')
    if failures:
        print(f'# kept for inspection: {run}{kept_hint.format(run=run)}')
    else:
        shutil.rmtree(run, ignore_errors=True)
    print(f'# amtest: checks={checks} failures={failures}')
    return 1 if failures else 0


def session_main(tag, session, evaluate, **kw):
    """live_main for a test that records what happened: session(run) returns it (None: nothing
    to judge), kept in RUN/session.json and judged by evaluate(run, s). `ARGV0 --evaluate RUN`
    judges a kept run directory again without running anything."""
    if len(sys.argv) == 3 and sys.argv[1] == '--evaluate':
        with open(os.path.join(sys.argv[2], 'session.json')) as f:
            evaluate(sys.argv[2], json.load(f))
        print(f'# amtest: checks={checks} failures={failures}')
        return 1 if failures else 0

    def body(run):
        s = session(run)
        if s is not None:
            with open(os.path.join(run, 'session.json'), 'w') as f:
                json.dump(s, f)
            evaluate(run, s)
    return live_main(tag, body, kept_hint=f' (re-check: {sys.argv[0]} --evaluate {{run}})', **kw)


if __name__ == '__main__':
    sys.exit(session_main('asmp', session, evaluate))

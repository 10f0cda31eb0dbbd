#!/usr/bin/python3
"""SRTP/SRTCP with a group key in a live session, attacked (suite 'net', needs root).

tx -- r (bridge, IGMPv3 snooping) -- fast, slow, bad, atk; the port r->slow is a tbf of
SLOW_RATE bit/s. The sender (x264enc through asmpsink) and two honest receivers (asmpsrc) hold
the session's group key (srtp-key, handed over by tools/testbed/amcast-node from the
environment); "bad" is an asmpsrc with another key; "atk" is this script in `attack` mode, the
attacker of tests/net/test_attacker.py (its sockets, its forged reports: imported, not copied),
which without the key sees only the cleartext headers (the SSRCs) of the group's RTCP and sends
to the group's RTCP port, from its own address:
  a. every 0.25 s an RR + ASMP report from a made-up SSRC claiming 1 kbit/s (plain RTCP);
  b. the same at 20/s in the name of the slow receiver's SSRC (plain RTCP);
  c. at 20/s the honest receivers' own SRTCP packets, replayed as captured on the wire;
  d. at 20/s reports claiming 1 kbit/s, in a made-up SSRC's and in the slow receiver's name,
     protected with another key (srtpenc): what a member of another group, or a stale key, sends.
The target is held by max-bitrate (MAX_BPS, below both paths): the run without attack sits at
MAX_BPS, which is the reference (the baseline window checks it). Checks:
  - in each attack phase the time-weighted mean target is within BAND of MAX_BPS and no 1 s mean
    falls below FLOOR_SHARE of it;
  - each attack is counted where SRTCP refuses it: the sender's srtp-rtcp-rejected rises by at
    least COUNT_SHARE of what the attacker sent in the phase, and nothing forged reaches lib/cc
    (rtcp-spoofed does not move: the source-address guard never sees a forged packet);
  - the receiver with the wrong key decodes nothing, rejects the stream (srtp-rtp-rejected),
    and is never counted by the sender (receivers <= 2 throughout, 2 after the attacks): its
    reports do not influence the rate;
  - the honest receivers decode >= 90 % of the frames; no bus errors; clean exits.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.

Measured (2026-11-25, 2 cores shared with other work, 9 runs, about 50 s each): every phase's
target at 100 % of the reference, srtp-rtcp-rejected equal to what was sent (22, 102, 102, 102),
rtcp-spoofed +0; the wrong key rejected 3709-3743 RTP packets and decoded nothing. Without the
key (amcast-node setting none, not committed) 9 of the 38 checks fail (docs/security.md).
"""
import json
import os
import re
import select
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
import test_attacker as ta  # noqa: E402  (the attacker: sockets, forged RTCP, group constants)
import test_asmp_elements as el  # noqa: E402  (trace readers, check(), time weighting)

NODE = os.path.join(TOP, 'tools', 'testbed', 'amcast-node')
GROUP, PORT = ta.GROUP, ta.PORT
SLOW_RATE = 800_000        # tbf toward "slow": above MAX_BPS plus the attacks' bits
DELAY_MS = 20
RTCP_MS = 500
INIT_BPS, MIN_BPS, MAX_BPS = 300_000, 100_000, 500_000
SEND_S = 41
# seconds after the sender started: the baseline (the target reaches MAX_BPS from INIT_BPS in
# about 5 s), then the four attacks, a quiet second between them (a counter's rise shows in the
# stats of the next RTCP packet, up to one interval later)
BASE = (9, 15)
PHASES = {'a': (15, 20), 'b': (21, 26), 'c': (27, 32), 'd': (33, 38)}
GAP = {'a': 0.25, 'b': 0.05, 'c': 0.05, 'd': 0.05}
# issue 14: the honest session's mean target within 10 % of the run without attack
BAND = 0.10
# no 1 s mean below this share of MAX_BPS: unprotected (test_attacker without its rules) a
# liar drags the target to min-bitrate (0.2 x) within a second; protected, its lowest 1 s mean
# was 0.92 x in 17 runs (session noise on a loaded host)
FLOOR_SHARE = 0.75
# srtpdec counts each forged packet it drops (what went in less what came out): the count is
# exact, the bad receiver's own rejected RRs only add to it. 10 % margin for datagrams a loaded
# host drops in a socket buffer before srtpdec sees them
COUNT_SHARE = 0.9
FIRST_FRAME_WAIT_S = 10
HONEST = ('fast', 'slow')


# ---------------------------------------------------------------- the attacker (namespace atk)

class Replayer(ta.Attacker):
    """test_attacker's attacker (its socket, its reports), plus what it does without the key:
    it keeps the honest members' SRTCP packets to replay them, and protects its reports with
    another key through srtpenc."""

    def __init__(self, a):
        super().__init__(a)
        self.captured = []          # honest SRTCP packets, as they were on the wire
        self.victim = None          # the slow receiver's SSRC (from its packets' clear header)
        self.sent = {k: 0 for k in PHASES}
        self.enc = None
        if a.wrong_key:
            import gi
            gi.require_version('Gst', '1.0')
            from gi.repository import Gst
            Gst.init(None)
            self.Gst = Gst
            self.enc = Gst.parse_launch(      # its RTCP pads by name: linking picks rtp_sink_0
                'appsrc name=in caps=application/x-rtcp format=time ! enc.rtcp_sink_0 '
                f'srtpenc name=enc key={a.wrong_key} enc.rtcp_src_0 ! appsink name=out sync=false')
            self.enc.set_state(Gst.State.PLAYING)

    def hear(self):
        while True:
            try:
                pkt, (src, _) = self.sock.recvfrom(2048)
            except BlockingIOError:
                return
            if src in self.a.honest.split(','):
                if len(self.captured) < 400:
                    self.captured.append(pkt)
                if src == self.a.victim_addr and len(pkt) >= 8:
                    self.victim = struct.unpack_from('!I', pkt, 4)[0]   # SSRC: in the clear

    def protect(self, pkt):
        """pkt as SRTCP under the wrong key (srtpenc keeps an SRTCP index per SSRC)."""
        Gst = self.Gst
        self.enc.get_by_name('in').emit('push-buffer', Gst.Buffer.new_wrapped(pkt))
        s = self.enc.get_by_name('out').emit('try-pull-sample', Gst.SECOND)
        if s is None:
            return None
        b = s.get_buffer()
        return b.extract_dup(0, b.get_size())

    def run(self):
        t0 = self.a.start
        times = {k: (t0 + a, t0 + b) for k, (a, b) in PHASES.items()}
        nxt, k = 0.0, 0
        while time.time() < times['d'][1]:
            self.hear()
            now = time.time()
            phase = next((p for p, (a, b) in times.items() if a <= now < b), None)
            if phase is None or now < nxt:
                select.select([self.sock], [], [], 0.002)
                continue
            nxt = max(nxt + GAP[phase], now - GAP[phase])
            k += 1
            if phase == 'a':
                pkt = self.lie(self.me)
            elif phase == 'b':
                if self.victim is None:
                    continue
                pkt = self.lie(self.victim)
            elif phase == 'c':
                if not self.captured:
                    continue
                pkt = self.captured[k % len(self.captured)]
            else:
                ssrc = self.victim if (k % 2 and self.victim is not None) else self.me
                pkt = self.protect(self.lie(ssrc))
                if pkt is None:
                    continue
            self.send(pkt)
            self.sent[phase] += 1
        if self.enc is not None:
            self.enc.set_state(self.Gst.State.NULL)
        print(json.dumps({'victim': f'{self.victim or 0:#010x}', 'captured': len(self.captured),
                          'sent': self.sent}), flush=True)


def attack_main(argv):
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument('--local', required=True, help='own address (multicast interface)')
    p.add_argument('--start', type=float, required=True, help='the sender\'s start, epoch s')
    p.add_argument('--honest', required=True, help='the honest receivers\' addresses, a,b')
    p.add_argument('--victim-addr', required=True, help='the slow receiver\'s address')
    p.add_argument('--wrong-key', required=True, help='phase d\'s key (not the group\'s)')
    Replayer(p.parse_args(argv)).run()
    return 0


# ---------------------------------------------------------------- the test (root namespace)

STAT_RE = re.compile(r'([a-z-]+)=\([a-z0-9]+\)([0-9.e+-]+)')


def read_stats(path):
    """The sender's asmpsink-stats messages (amcast-node --verbose): [(time, {counter: n})]."""
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            if 'asmpsink-stats' not in line:
                continue
            fields = {k: float(v) for k, v in STAT_RE.findall(line)}
            if 'time' in fields:
                out.append((fields['time'], fields))
    return out


def rise(stats, key, a, b):
    """How much a counter grew over [a, b + 1 s) (the stats of the next RTCP packet)."""
    before = [c.get(key, 0) for t, c in stats if t < a]
    upto = [c.get(key, 0) for t, c in stats if t < b + 1.0]
    return (upto[-1] if upto else 0) - (before[-1] if before else 0)


def session(run):
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env = dict(os.environ)
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    key, wrong = os.urandom(30).hex(), os.urandom(30).hex()
    env_key = dict(env, AMCAST_SRTP_KEY=key)
    env_bad = dict(env, AMCAST_SRTP_KEY=wrong)
    try:
        ta.find_delayline()
        delay = DELAY_MS
    except RuntimeError:
        delay = 0
    common = ['--run', run, '--protocol', 'asmp', '--rtcp-interval', str(RTCP_MS)]
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fast', 'slow', 'bad', 'sender', 'atk')}
    with ta.Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow', 'bad', 'atk'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=delay)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(SLOW_RATE, None))
        t.link('r', 'bad')
        t.link('r', 'atk')
        t.build()
        rx = {n: t.run(n, [NODE, 'recv', '--name', n, '--iface', t.iface(n), '--duration',
                           SEND_S + 6] + common, log=logs[n],
                       env=env_bad if n == 'bad' else env_key)
              for n in ('fast', 'slow', 'bad')}
        t.wait_snooping()
        time.sleep(1.0)
        start = time.time()
        t0 = time.monotonic()
        tx = t.run('tx', [NODE, 'send', '--iface', t.iface('tx'), '--duration', SEND_S,
                          '--initial-bitrate', INIT_BPS, '--min-bitrate', MIN_BPS,
                          '--max-bitrate', MAX_BPS, '--no-ref', '--verbose'] + common,
                   log=logs['sender'], env=env_key)
        # the attacker holds no key: its environment has none (phase d's key is another)
        atk = t.run('atk', [sys.executable, os.path.abspath(__file__), 'attack', '--local',
                            t.addr('atk'), '--start', f'{start:.3f}', '--honest',
                            f'{t.addr("fast")},{t.addr("slow")}', '--victim-addr',
                            t.addr('slow'), '--wrong-key', os.urandom(30).hex()],
                    log=logs['atk'], env={k: v for k, v in env.items()
                                          if k != 'AMCAST_SRTP_KEY'})
        seen = {n: False for n in HONEST}
        while time.monotonic() < t0 + FIRST_FRAME_WAIT_S and not all(seen.values()):
            for n in HONEST:
                seen[n] = seen[n] or el.log_has(logs[n], 'first frame after')
            time.sleep(0.2)
        for n in HONEST:
            el.check(seen[n], f'{n} decodes video within {FIRST_FRAME_WAIT_S} s of the start')
        rc_atk = t.finish(atk, SEND_S + 10)
        rc_tx = t.finish(tx, SEND_S + 30 - (time.monotonic() - t0))
        rcs = {'sender': rc_tx, 'atk': rc_atk}
        for n, p in rx.items():
            rcs[n] = t.finish(p, 30)
    return {'start': start, 'rc': rcs, 'json': {n: el.last_json(logs[n]) for n in logs},
            'stats': read_stats(logs['sender'])}


def evaluate(run, s):
    start = s['start']
    ja = s['json']['atk'] or {}
    check = el.check
    check(s['rc']['atk'] == 0 and bool(ja), f'attacker ran to the end (exit {s["rc"]["atk"]})')
    sent = ja.get('sent', {})
    print(f'# attacker: victim {ja.get("victim")}, {ja.get("captured")} SRTCP packets captured, '
          f'sent {sent}')
    check(ja.get('victim', '0x00000000') != '0x00000000' and ja.get('captured', 0) > 0,
          'the attacker saw the slow receiver\'s SSRC and captured honest SRTCP (else the '
          'attack had no teeth)')
    rows = el.read_csv(os.path.join(run, 'sender', 'rate.csv'))
    if not check(len(rows) > 20, f'sender rate.csv ({len(rows)} rows)'):
        return
    pts = [(tt, float(r['target_bps'])) for tt, r in zip(el.abs_time(rows, start), rows)]

    def mean(a, b):
        tw = el.time_weighted(pts, start + a, start + b)
        return sum(v * d for v, d in tw) / max(1e-9, sum(d for _, d in tw))

    ref = MAX_BPS
    base = mean(*BASE)
    print(f'# reference: max-bitrate {ref} bit/s (below both paths); baseline [{BASE[0]}, '
          f'{BASE[1]}) s mean {base:.0f}')
    check(abs(base - ref) <= BAND * ref, f'baseline at the reference ({base:.0f} within '
          f'{100 * BAND:.0f} % of {ref})')
    stats = s['stats']
    check(len(stats) > 20, f'sender stats messages ({len(stats)})')
    check(bool(stats) and all(c.get('srtp-rtcp-rejected') is not None for _, c in stats),
          'the sender\'s stats carry srtp-rtcp-rejected')
    what = {'a': 'plain RTCP, a made-up SSRC claiming 1 kbit/s',
            'b': 'plain RTCP in the slow receiver\'s name, 20/s',
            'c': 'honest SRTCP replayed, 20/s',
            'd': 'SRTCP under another key, 1 kbit/s claims, 20/s'}
    for p, (a, b) in PHASES.items():
        m = mean(a, b)
        lows = [mean(x, x + 1) for x in range(a, b)]
        rej = rise(stats, 'srtp-rtcp-rejected', start + a, start + b)
        spoofed = rise(stats, 'rtcp-spoofed', start + a, start + b)
        refused = {k: rise(stats, k, start + a, start + b) for k in
                   ('app-implausible', 'app-limited', 'app-damped', 'app-unproven')}
        print(f'# phase {p} [{a}, {b}) s, {what[p]}: target mean {m:.0f} = {100 * m / ref:.1f} % '
              f'of the reference, lowest 1 s mean {min(lows):.0f}; srtp-rtcp-rejected '
              f'+{rej:.0f} (sent {sent.get(p, 0)}), rtcp-spoofed +{spoofed:.0f}, lib/cc '
              + ', '.join(f'{k} +{v:.0f}' for k, v in refused.items()))
        check(abs(m - ref) <= BAND * ref, f'phase {p}: mean target within {100 * BAND:.0f} % of '
              f'the reference ({m:.0f} vs {ref})')
        check(min(lows) >= FLOOR_SHARE * ref, f'phase {p}: no 1 s mean below {FLOOR_SHARE} x '
              f'the reference ({min(lows):.0f})')
        check(sent.get(p, 0) > 0 and rej >= COUNT_SHARE * sent.get(p, 0),
              f'phase {p}: srtp-rtcp-rejected rose by {rej:.0f} (sent {sent.get(p, 0)})')
        check(spoofed == 0, f'phase {p}: nothing forged reached the source-address guard '
              f'(rtcp-spoofed +{spoofed:.0f})')
    counted = [c.get('receivers', 0) for _, c in stats]
    tail = [c.get('receivers', 0) for t, c in stats if t >= start + PHASES['d'][1] + 1]
    check(bool(counted) and max(counted) <= 2 and bool(tail) and min(tail) >= 2,
          f'the sender counts the two honest receivers, never the wrong key\'s (receivers '
          f'{sorted(set(counted))}, after the attacks {sorted(set(tail))})')
    frames = (s['json']['sender'] or {}).get('frames', 0)
    jb = s['json']['bad'] or {}
    print(f'# wrong key: decoded {jb.get("frames")} frames, srtp-rtp-rejected '
          f'{jb.get("srtp_rtp_rejected")}, srtp-rtcp-rejected {jb.get("srtp_rtcp_rejected")}')
    check(jb.get('frames', -1) == 0, f'the receiver with the wrong key decoded nothing '
          f'({jb.get("frames")} frames)')
    # the stream it got: SEND_S of x264 at >= MIN_BPS in 1200-byte packets, at least ~10/s
    check((jb.get('srtp_rtp_rejected') or 0) >= 10 * (SEND_S - 10),
          f'it rejected the stream ({jb.get("srtp_rtp_rejected")} RTP packets)')
    for n in ('sender', 'fast', 'slow', 'bad'):
        j = s['json'][n] or {}
        check(s['rc'][n] == 0 and j.get('errors', 1) == 0, f'{n} ran to the end without errors '
              f'(exit {s["rc"][n]}, errors {j.get("errors")})')
        check(j.get('srtp') is True, f'{n} ran with a key (srtp {j.get("srtp")})')
        if n in HONEST:
            check(j.get('frames', 0) >= 0.9 * frames, f'{n} decoded {j.get("frames", 0)} of '
                  f'{frames} frames (want >= 90 %)')


def main():
    def body(run):
        s = session(run)
        with open(os.path.join(run, 'session.json'), 'w') as f:
            json.dump(s, f)
        evaluate(run, s)
    return el.live_main('srtp', body, kept_hint=f' (re-check: {sys.argv[0]} --evaluate {{run}})')


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == 'attack':
        sys.exit(attack_main(sys.argv[2:]))
    if len(sys.argv) == 3 and sys.argv[1] == '--evaluate':    # re-check a kept run directory
        with open(os.path.join(sys.argv[2], 'session.json')) as f:
            evaluate(sys.argv[2], json.load(f))
        print(f'# amtest: checks={el.checks} failures={el.failures}')
        sys.exit(1 if el.failures else 0)
    sys.exit(main())

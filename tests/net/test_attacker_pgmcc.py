#!/usr/bin/python3
"""A live attacker against PGMCC (suite 'net', needs root): issue 14's containment, PGMCC's rules.

The topology, session and attacker plumbing of tests/net/test_attacker.py (imported: its
constants, its Attacker's RTCP socket, SR/receiver bookkeeping and proof of reception, its
stats reader), with the session on protocol=pgmcc: tx -- r (bridge, IGMPv3 snooping) -- fast,
slow, atk; the port r->slow is a tbf of SLOW_RATE bit/s; the target is held by max-bitrate
(MAX_BPS, below both paths: no honest receiver loses, PGMCC's window sits at the cap), the
reference test_attacker.py uses. The attacker is a member that proves reception: it joins the
group, receives the RTP stream (it runs lib/cc's PGMCC receiver over it, pgmcc.c, to echo true
send times and keep a true loss filter) and echoes the sender's SRs in a report block; it sends
to the group's RTCP port from its own address, as tests/cc/test_pgmcc_contain.c's forger does
at unit level (docs/pgmcc.md section 5):
  a. one-shot election claims: every A_GAP s a report (APP PGMC subtype 2) from a new SSRC
     claiming p 30 %, each SSRC once, and none of them ever acks. Without `elect_confirm` each
     report takes the acker's place at once and the sender, left without ACKs, stalls (W to
     one packet). Contained: every one is held (`app-held`) and none is named acker.
  b. the liar: one SSRC reporting p 30 % every B_GAP s until the sender names it acker, then
     ACKs (subtype 1) every ACK_GAP s whose bitmaps clear 3 of every 10 sequence numbers, with
     its true p (about 0) in them. Without `acker_loss_factor` it holds the window at its floor
     for as long as it acks. Contained: demoted after `acker_loss_time` (2 s) of acking
     (`acker-demoted`), the rate its halvings took given back, its later reports held for
     `acker_hold` (60 s).
Checks:
  - the attacker saw the sender's SRs, both honest receivers and the RTP stream (else it had no
    teeth), and in phase b was named acker and sent ACKs;
  - in each phase and the tail the time-weighted mean target within [1 - BAND, 1 + BAND] of the
    BASE window's mean before any attack; for phase b, where the liar takes the window for the
    2 s the check needs, either that or the liar demoted and its later reports held (issue 14:
    "unaffected, or the attacker rejected and counted"); no 1 s mean below FLOOR_SHARE of the
    baseline in phase a and the tail;
  - a: `app-held` rose by at least COUNT_SHARE of the reports sent, no new SSRC named acker;
  - b: `acker-demoted` rose, within DEMOTE_S of the liar's first ACK; its reports after the
    demotion held (at least COUNT_SHARE); the mean target from RECOVER_S after the demotion to
    the end of the phase back within BAND of the baseline;
  - sender and receivers run to the end without errors, both receivers decode video, and the
    sender counts both of them at the end.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root. `--only a` or `--only b`
runs one attack in the same session; `--consistent` makes phase b's liar state p 30 % in its
ACKs too (the uncontained case below: a measurement, its checks fail). `--evaluate RUN`
re-checks a kept run directory.

What is NOT contained (docs/security.md, docs/pgmcc.md section 5), and so not tested here: a
member whose forged p in its reports and ACKs matches its forged holes. From the feedback it is
an honest slow receiver, PGMCC follows it to the rate of the path it claims (unit level, p 30 %:
30-34 % of the target, never demoted). Nor a liar within the line (holes up to 2 x the larger
stated p + 1 %), nor the first election when nobody acks, nor an acker that stops acking (a
stall), nor a forged RTT (echo and hold), nor a liar back after its 60 s hold or many proven
SSRCs one after the other.

Measured (2026-11-29, 2 cores shared with other agents' live tests and compiles, load 8-11):
6 runs passed (one alone, then `tests/run-all BUILD --repeat 5 net-attacker-pgmcc`: 5/5), 68-69 s
each. Phase a: the target at 500 kbit/s throughout (100.0 % of the baseline), 16 of 16 one-shot
reports held, no new SSRC named acker. Phase b: the liar named acker 0.4-0.8 s after its first
report, demoted 2.2-2.4 s after its first ACK (acking 12-14 % of the phase), every later report
held (48-49 of them; app-held +51 to +64 in the phase), the target back at 500 kbit/s 2 s after
the demotion; phase mean 93.3-94.3 %, lowest 1 s mean 130-240 kbit/s. So phase b keeps the 10 %
band with 3-4 points to spare, and only because the phase is 18 s long and the demotion gives
back what the halvings took: the liar costs about 2.5 s at a quarter to a half of the target
(a shorter phase would miss the band; the test then passes on the demotion and the count,
issue 14's "or the attacker is rejected and counted"). Tail: 100.0 %.
Rules off (lib/cc's defaults elect_confirm and acker_loss_factor set to 0 in a scratch build,
not committed; one run): phase a 42.3 % of the baseline, 7 of the 16 one-shot SSRCs named acker
(each left the sender without ACKs: stalls, 1 s means at min-bitrate 100 kbit/s), app-held +0;
phase b 20.1 %, the liar acking 100 % of the phase, never demoted; tail 24.2 % (the window at
its floor regrows slowly): 10 of 24 checks failed. `--only b --consistent` (real build, one
run): phase b 28.4 %, the liar acking 95 % of the phase, not demoted; tail 25.4 % (silent from
48 s, the liar left a stall behind): not contained, as documented (unit level: 30-34 %).
"""
import json
import os
import select
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_attacker as ta  # noqa: E402  (topology constants, Attacker, stats, check)

el = ta.el
GROUP, PORT = ta.GROUP, ta.PORT
SEND_S = 56
BASE = (10, 18)
PHASES = {'a': (18, 26), 'b': (30, 48)}   # the gap: phase a's SSRCs expire (3 RTCP intervals)
TAIL = (48, 54)
A_GAP = 0.5                # phase a: one new SSRC per half second
B_GAP = 0.3                # phase b: the liar's reports (report_limit: 4 per RTCP interval)
ACK_GAP = 0.025            # the liar's ACKs while acker (the elements: one per 50 ms at most)
FORGED_P = 0.3
HOLES = (1, 4, 6)          # sequence numbers mod 10 the liar's bitmaps call lost: 30 %
DEMOTE_S = 6.0             # acker_loss_time (2 s of acking) + tenures cut short + RTCP delays
RECOVER_S = 2.0            # after the demotion, the target back within BAND
LIAR = 0x0BAD0001
FRESH = 0x0BAD2000
OFFSET_NS = time.time_ns() - time.monotonic_ns()   # CLOCK_REALTIME - CLOCK_MONOTONIC, as
#                                                    gst_am_wall: the elements' time line
# test_attacker's stats reader takes the counters it names in ta.COUNTERS when called; PGMCC's
# two and the acker (the stats' slowest-ssrc) are not among them
ta.COUNTERS = ta.COUNTERS + ('app-held', 'acker-demoted', 'slowest-ssrc')


# ---------------------------------------------------------------- the attacker (namespace atk)

def rtp_stamp(pkt):
    """(ssrc, extended seq, send time in Unix ns) of an RTP packet carrying the elements' two
    one-byte header extensions (gstamnet.h: id 1 NTP-64 send time, id 2 extseq); None if not."""
    if len(pkt) < 16 or pkt[0] >> 6 != 2 or not pkt[0] & 0x10:
        return None
    off = 12 + 4 * (pkt[0] & 0x0F)
    if len(pkt) < off + 4:
        return None
    prof, words = struct.unpack_from('!HH', pkt, off)
    off += 4
    end = min(off + 4 * words, len(pkt))
    ntp = ext = None
    while prof == 0xBEDE and off < end:
        if pkt[off] == 0:                   # padding
            off += 1
            continue
        i, n = pkt[off] >> 4, (pkt[off] & 0x0F) + 1
        if i == 15 or off + 1 + n > end:
            break
        if i == 1 and n == 8:
            ntp = struct.unpack_from('!Q', pkt, off + 1)[0]
        elif i == 2 and n == 4:
            ext = struct.unpack_from('!I', pkt, off + 1)[0]
        off += 1 + n
    if ntp is None or ext is None:
        return None
    unix_ns = ((ntp >> 32) - 2208988800) * 10**9 + ((ntp & 0xFFFFFFFF) * 10**9 >> 32)
    return struct.unpack_from('!I', pkt, 8)[0], ext, unix_ns


class Receiver:
    """lib/cc's PGMCC receiver (pgmcc.c, amcc_pgmcc_receiver_*): what an honest member would
    report, the feedback (docs/wire-formats.md "PGMCC") the attacker then falsifies."""
    A = 1 / 64                              # loss_filter

    def __init__(self):
        self.hi = None
        self.bitmap = self.received = self.unacked = self.packets = 0
        self.loss = 0.0
        self.hi_at = self.hi_ts = 0

    def on_rtp(self, now_ns, ext, ts_us):
        self.packets += 1
        if self.hi is not None:
            d = (ext - self.hi) & 0xFFFFFFFF
            d = d - (1 << 32) if d >= 1 << 31 else d
            if d == 0:
                return
            if d < 0:                       # late: fills a hole still in the bitmap
                age = -d - 1
                if age < 32 and not self.bitmap >> age & 1:
                    self.bitmap |= 1 << age
                    self.received += 1
                    self.unacked += 1
                return
            for _ in range(min(d - 1, 4096)):
                self.loss += self.A * (1 - self.loss)
            self.bitmap = 0 if d >= 33 else (
                ((self.bitmap << d) if d < 32 else 0) | (1 << (d - 1))) & 0xFFFFFFFF
        self.hi = ext
        self.loss -= self.A * self.loss
        self.hi_at, self.hi_ts = now_ns, ts_us
        self.received += 1
        self.unacked += 1

    def feedback(self, now_ns, loss=None):
        """The 16 bytes of a report (subtype 2), with `loss` instead of ours if given."""
        p = self.loss if loss is None else loss
        hold = min(max(0, now_ns - self.hi_at) // 1000, 600_000_000)
        return struct.pack('!BBHIII', 1, 0x80, round(min(1.0, p) * 65535), self.hi,
                           self.hi_ts, hold)

    def ack(self, now_ns, holes=(), loss=None):
        """The 24 bytes of an ACK (subtype 1): bit i of the bitmap is hi - 1 - i; the sequence
        numbers whose value mod 10 is in `holes` are claimed lost, and p is `loss` if given."""
        bm = self.bitmap
        for k in range(32):
            if (self.hi - 1 - k) % 10 in holes:
                bm &= ~(1 << k)
        self.unacked = 0
        return self.feedback(now_ns, loss) + struct.pack('!II', bm, self.received & 0xFFFFFFFF)


class Tap:
    """The attacker's RTCP socket, passing every datagram test_attacker's Attacker.hear reads to
    `seen` as well (the sender's PGMC subtype 0 names the acker; hear() does not read it)."""
    def __init__(self, sock, seen):
        self._sock, self._seen = sock, seen

    def recvfrom(self, n):
        pkt, addr = self._sock.recvfrom(n)
        self._seen(pkt, addr[0])
        return pkt, addr

    def __getattr__(self, name):
        return getattr(self._sock, name)


class PgmccAttacker(ta.Attacker):
    def __init__(self, a):
        super().__init__(a)
        self.sock = Tap(self.sock, self.tap)
        r = self.rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        r.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        r.bind(('', PORT))
        r.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                     socket.inet_aton(GROUP) + self.own)
        r.setblocking(False)
        self.rx = Receiver()
        self.me = LIAR
        self.acker = None           # the sender's last PGMC subtype 0
        self.named = []             # [(s after the start, acker ssrc)] at each change
        self.a_sent = self.a_named = 0
        self.b_reports = []         # s after the start of each of the liar's reports
        self.acks = 0
        self.first_ack = None

    def rel(self):
        return round(time.time() - self.a.start, 3)

    def tap(self, pkt, src):
        for pt, cnt, ssrc, body in ta.walk(pkt):
            if pt == 204 and cnt == 0 and body[:4] == b'PGMC' and len(body) == 12 \
                    and self.sender and src == self.sender[1]:
                flags, acker = body[5], struct.unpack_from('!I', body, 8)[0]
                acker = acker if flags & 0x80 else None
                if acker != self.acker:
                    self.acker = acker
                    self.named.append((self.rel(), acker))
                    self.a_named += acker is not None and acker & ~0xFFF == FRESH

    def hear_rtp(self):
        while True:
            try:
                pkt = self.rtp.recv(2048)
            except BlockingIOError:
                return
            st = rtp_stamp(pkt)
            if st and (not self.sender or st[0] == self.sender[0]):
                now = time.monotonic_ns()
                self.rx.on_rtp(now, st[1], ((st[2] - OFFSET_NS) // 1000) & 0xFFFFFFFF)

    def report(self, ssrc, loss):
        return self.proof(ssrc) + ta.app(ssrc, b'PGMC', 2,
                                         self.rx.feedback(time.monotonic_ns(), loss))

    def run(self):
        t0 = self.a.start
        times = {k: (t0 + a, t0 + b) for k, (a, b) in PHASES.items() if k in self.a.phases}
        end = max(b for _, b in times.values())
        nxt = {'a': 0.0, 'b': 0.0, 'ack': 0.0}
        while time.time() < end:
            self.hear()
            self.hear_rtp()
            now = time.time()
            phase = next((p for p, (a, b) in times.items() if a <= now < b), None)
            if phase and self.rx.hi is not None and self.sender and self.sr:
                if phase == 'a' and now >= nxt['a']:
                    nxt['a'] = now + A_GAP
                    self.send(self.report(FRESH + self.a_sent, FORGED_P))
                    self.a_sent += 1
                elif phase == 'b' and self.acker == self.me:
                    if now >= nxt['ack'] and self.rx.unacked:
                        nxt['ack'] = now + ACK_GAP
                        self.send(self.proof(self.me) + ta.app(
                            self.me, b'PGMC', 1, self.rx.ack(time.monotonic_ns(), HOLES,
                                                             self.a.consistent)))
                        self.acks += 1
                        self.first_ack = self.first_ack or self.rel()
                elif phase == 'b' and now >= nxt['b']:
                    nxt['b'] = now + B_GAP
                    self.send(self.report(self.me, FORGED_P))
                    self.b_reports.append(self.rel())
            select.select([self.sock, self.rtp], [], [], 0.002)
        print(json.dumps({'sender': self.sender[0] if self.sender else None,
                          'saw_sr': self.sr is not None,
                          'honest': {f'{s:#010x}': h['addr'] for s, h in self.honest.items()},
                          'rtp': self.rx.packets, 'true_p': round(self.rx.loss, 4),
                          'a_sent': self.a_sent, 'a_named': self.a_named,
                          'b_reports': self.b_reports, 'acks': self.acks,
                          'first_ack': self.first_ack, 'named': self.named}), flush=True)


def attack_main(argv):
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument('--local', required=True, help='own address (multicast interface)')
    p.add_argument('--start', type=float, required=True, help='the sender\'s start, epoch s')
    p.add_argument('--phases', default='ab', help='the attacks to run')
    p.add_argument('--consistent', type=float, help='phase b: this p in the ACKs, not the true')
    p.set_defaults(extra='')    # test_attacker's Attacker reads its phase f's addresses: none
    PgmccAttacker(p.parse_args(argv)).run()
    return 0


if __name__ == '__main__' and len(sys.argv) > 1 and sys.argv[1] == 'attack':
    sys.exit(attack_main(sys.argv[2:]))


# ---------------------------------------------------------------- the test (root namespace)

def session(run, phases, consistent=False):
    build = os.environ.get('AMCAST_BUILD', os.path.join(ta.TOP, 'build'))
    env = dict(os.environ)
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    try:
        ta.find_delayline()
        delay = ta.DELAY_MS
    except RuntimeError:
        delay = 0
    common = ['--run', run, '--protocol', 'pgmcc', '--rtcp-interval', str(ta.RTCP_MS)]
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fast', 'slow', 'sender', 'atk')}
    with ta.Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow', 'atk'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=delay)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(ta.SLOW_RATE, None))
        t.link('r', 'atk')
        t.build()
        rx = {n: t.run(n, [ta.NODE, 'recv', '--name', n, '--iface', t.iface(n),
                           '--duration', SEND_S + 10] + common, log=logs[n], env=env)
              for n in ('fast', 'slow')}
        t.wait_snooping()
        time.sleep(1.0)
        start = time.time()
        t0 = time.monotonic()
        tx = t.run('tx', [ta.NODE, 'send', '--iface', t.iface('tx'), '--duration', SEND_S,
                          '--initial-bitrate', ta.INIT_BPS, '--min-bitrate', ta.MIN_BPS,
                          '--max-bitrate', ta.MAX_BPS, '--no-ref', '--verbose'] + common,
                   log=logs['sender'], env=env)
        atk = t.run('atk', [sys.executable, os.path.abspath(__file__), 'attack', '--local',
                            t.addr('atk'), '--start', f'{start:.3f}', '--phases', phases]
                    + (['--consistent', str(FORGED_P)] if consistent else []), log=logs['atk'])
        seen = {n: False for n in rx}
        while time.monotonic() < t0 + ta.FIRST_FRAME_WAIT_S and not all(seen.values()):
            for n in rx:
                seen[n] = seen[n] or el.log_has(logs[n], 'first frame after')
            time.sleep(0.2)
        for n in rx:
            ta.check(seen[n], f'{n} decodes video within {ta.FIRST_FRAME_WAIT_S} s of the start')
        rcs = {'atk': t.finish(atk, SEND_S + 10)}
        rcs['sender'] = t.finish(tx, SEND_S + 30 - (time.monotonic() - t0))
        for n, p in rx.items():
            rcs[n] = t.finish(p, 30)
    return {'start': start, 'phases': phases, 'consistent': consistent, 'rc': rcs,
            'json': {n: el.last_json(logs[n]) for n in logs},
            'stats': ta.read_stats(logs['sender'])}


def evaluate(run, s):
    start = s['start']
    check = ta.check
    ja = s['json']['atk'] or {}
    check(s['rc']['atk'] == 0 and bool(ja), f'attacker ran to the end (exit {s["rc"]["atk"]})')
    check(ja.get('saw_sr') and len(ja.get('honest', {})) == 2 and ja.get('rtp', 0) > 500,
          f'attacker saw the sender\'s SRs ({ja.get("saw_sr")}), both honest receivers '
          f'({ja.get("honest")}) and the stream ({ja.get("rtp")} RTP packets, its true p '
          f'{ja.get("true_p")})')
    print(f'# acker named (s after the start, SSRC): '
          + ', '.join(f'{t:.2f} {a or 0:#010x}' for t, a in ja.get('named', [])))
    rows = el.read_csv(os.path.join(run, 'sender', 'rate.csv'))
    stats = s['stats']
    if not check(len(rows) > 20 and len(stats) > 20,
                 f'sender rate.csv ({len(rows)} rows) and stats ({len(stats)} messages)'):
        return
    pts = [(tt, float(r['target_bps'])) for tt, r in zip(el.abs_time(rows, start), rows)]

    def mean(a, b):
        tw = el.time_weighted(pts, start + a, start + b)
        return sum(v * d for v, d in tw) / max(1e-9, sum(d for _, d in tw))

    def acker_share(a, b, ssrcs):
        """The share of [a, b) the sender's stats name one of `ssrcs` the acker."""
        marks = [(t, c['slowest-ssrc']) for t, c in stats]
        tw = el.time_weighted(marks, start + a, start + b)
        return sum(d for v, d in tw if int(v) in ssrcs) / max(1e-9, sum(d for _, d in tw))

    base = mean(*BASE)
    print(f'# baseline [{BASE[0]}, {BASE[1]}) s: target mean {base:.0f} bit/s '
          f'(max-bitrate {ta.MAX_BPS})')
    check(base >= 0.9 * ta.MAX_BPS, f'baseline target at max-bitrate ({base:.0f} >= 0.9 x '
          f'{ta.MAX_BPS})')
    ph = dict(PHASES, tail=TAIL)
    m = {}
    for p, (a, b) in ph.items():
        m[p] = mean(a, b)
        lows = [mean(x, x + 1) for x in range(a, b)]
        rises = {k: ta.rise(stats, k, start + a, start + b)
                 for k in ('app-held', 'acker-demoted', 'app-limited', 'app-unproven')}
        liars = {LIAR} | {FRESH + k for k in range(ja.get('a_sent', 0))}
        print(f'# phase {p} [{a}, {b}) s: target mean {m[p]:.0f} = {100 * m[p] / base:.1f} % of '
              f'baseline, lowest 1 s mean {min(lows):.0f}, attacker acking '
              f'{100 * acker_share(a, b, liars):.0f} % of the time; counters '
              + ', '.join(f'{k} +{v:.0f}' for k, v in rises.items()))
        m[p + '_low'] = min(lows)
    within = {p: abs(m[p] - base) <= ta.BAND * base for p in ph}
    for p in ('a', 'tail'):
        if p == 'a' and 'a' not in s['phases']:
            continue
        check(within[p], f'phase {p}: mean target within {100 * ta.BAND:.0f} % of the baseline '
              f'({m[p]:.0f} vs {base:.0f})')
        check(m[p + '_low'] >= ta.FLOOR_SHARE * base, f'phase {p}: no 1 s mean below '
              f'{ta.FLOOR_SHARE} x baseline ({m[p + "_low"]:.0f})')
    if 'a' in s['phases']:
        a0, a1 = PHASES['a']
        held = ta.rise(stats, 'app-held', start + a0, start + a1)
        sent = ja.get('a_sent', 0)
        check(sent > 0 and held >= ta.COUNT_SHARE * sent, f'phase a: app-held rose by '
              f'{held:.0f} (one-shot reports sent {sent})')
        check(ja.get('a_named', 1) == 0, f'phase a: no one-shot SSRC named acker '
              f'({ja.get("a_named")} were)')
    if 'b' in s['phases']:
        b0, b1 = PHASES['b']
        first_ack = ja.get('first_ack')
        check(first_ack is not None and ja.get('acks', 0) > 0, f'phase b: the liar was named '
              f'acker and acked (first ACK at {first_ack} s, {ja.get("acks")} ACKs)')
        before = [c['acker-demoted'] for t, c in stats if t < start + b0]
        d0 = before[-1] if before else 0
        demoted = next((t - start for t, c in stats
                        if t >= start + b0 and c['acker-demoted'] > d0), None)
        check(demoted is not None and first_ack is not None
              and demoted - first_ack <= DEMOTE_S, f'phase b: acker-demoted rose, '
              f'{demoted - first_ack if demoted and first_ack else float("nan"):.1f} s after '
              f'the liar\'s first ACK (at most {DEMOTE_S} s)')
        d = b1 if demoted is None else demoted      # never demoted: nothing after it
        later = [t for t in ja.get('b_reports', []) if t >= d + 0.5]
        held = ta.rise(stats, 'app-held', start + d + 0.5, start + b1)
        counted = len(later) > 0 and held >= ta.COUNT_SHARE * len(later)
        check(counted, f'phase b: the liar\'s reports after its demotion held ({held:.0f} of '
              f'{len(later)})')
        check(within['b'] or counted, f'phase b: mean target within {100 * ta.BAND:.0f} % of '
              f'the baseline ({m["b"]:.0f} vs {base:.0f}), or the liar demoted and counted')
        back = mean(min(d + RECOVER_S, b1 - 1), b1)
        check(abs(back - base) <= ta.BAND * base, f'phase b: {RECOVER_S} s after the '
              f'demotion the target back ({back:.0f} vs {base:.0f})')
    end = [c['receivers'] for t, c in stats if t >= start + TAIL[0]]
    check(bool(end) and min(end) >= 2, f'the sender counts both honest receivers after the '
          f'attacks (receivers {sorted(set(end))})')
    frames = (s['json']['sender'] or {}).get('frames', 0)
    for n in ('sender', 'fast', 'slow'):
        j = s['json'][n] or {}
        check(s['rc'][n] == 0 and j.get('errors', 1) == 0, f'{n} ran to the end without errors '
              f'(exit {s["rc"][n]}, errors {j.get("errors")})')
        if n != 'sender':
            check(j.get('frames', 0) >= 0.9 * frames, f'{n} decoded {j.get("frames", 0)} of '
                  f'{frames} frames (want >= 90 %)')


def main(phases, consistent):
    return el.session_main('attacker-pgmcc', lambda run: session(run, phases, consistent),
                           evaluate)


if __name__ == '__main__':
    # --evaluate RUN: re-check a kept run directory (el.session_main); --only a / --only b: one attack; --consistent: phase b's liar states p 30 % in its ACKs too,
    # matching its holes: not contained (above), its checks fail; a measurement, not a test
    args = sys.argv[1:]
    consistent = '--consistent' in args
    args = [x for x in args if x != '--consistent']
    only = args[1] if len(args) == 2 and args[0] == '--only' else 'ab'
    sys.exit(main(only, consistent))

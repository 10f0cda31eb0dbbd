#!/usr/bin/python3
"""A live attacker on the receivers' LAN (suite 'net', needs root): issue 14's attacks rerun.

tx -- r (bridge, IGMPv3 snooping) -- fast, slow, atk; the port r->slow is a tbf of SLOW_RATE
bit/s. One sender (x264enc through asmpsink, tools/testbed/amcast-node), two honest receivers
(asmpsrc) and an attacker: this script in `attack` mode, plain sockets in the namespace `atk`.
It joins the group, reads the RTCP every member sees (the sender's SRs, the receivers' RRs and
ASMP reports, docs/wire-formats.md) and sends to the group's RTCP port, from its own address:
  a. every 0.25 s an RR + ASMP report from a made-up SSRC claiming 1 kbit/s, with the honest
     receivers' loss and RTT and a report block that echoes the last SR (it proves reception,
     as a member can);
  b. the same at 20/s in the name of the slowest honest receiver's SSRC;
  c. a flood of FLOOD_PPS compound reports/s in its own SSRC at the honest receivers' rate, and
     every tenth from a new SSRC (issue 14: random SSRCs stretched rtpsession's RTCP interval);
  d. malformed RTCP: truncated compounds, a bad version, lengths past the datagram, random
     bytes, ASMP reports truncated or with a zero rate;
  e. SRs from SR_COUNT new SSRCs (issue 14: 250 of them grew a receiver from 9 to 509 threads);
  f. MANY_PPS RR + SDES/s, each from a new SSRC that echoes no SR, from MANY_ADDRS addresses
     added to its interface in its namespace (fewer than max-ssrcs-per-host each: issue 14's
     random SSRCs from many hosts, which the per-host cap does not bound).
The target is held by max-bitrate (MAX_BPS, below both paths, also with the flood on the slow
link): a reference that the session's own noise on a loaded host does not move (the clock-step
and querier tests found a link-held target too noisy). Checks:
  - the attacker saw the sender's SRs and both honest receivers (else the attack had no teeth);
  - in each attack phase the time-weighted mean target is within [1 - BAND, 1 + BAND] of the
    mean over the BASE window before any attack, and no 1 s mean falls below FLOOR_SHARE of it
    (the attacks without containment drag it to min-bitrate);
  - each attack is counted where it is refused: a. app-implausible, b. rtcp-spoofed (the SSRC is
    bound to the honest receiver's address, gstamguard.c), c. app-limited and rtcp-host-full,
    d. rtcp-malformed + app-malformed, f. rtcp-unproven-full (the unproven-member budget,
    gstamguard.c); each by at least COUNT_SHARE of what was sent;
  - f. at the sender and at each receiver the budget dropped RTCP (rtcp-unproven-full), the
    RTCP interval rtpsession computes stayed below INTERVAL_MAX_S and so did every gap between
    the node's own RTCP packets (one stats message each) from the phase to the end of the tail;
    the sender counts both honest receivers through the phase;
  - e. each receiver's thread count grows by at most THREAD_GROWTH (asmpsrc's max-streams and
    the per-host cap of new SSRCs);
  - sender and receivers run to the end without errors, both receivers decode video and the
    sender still counts both of them at the end.
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root. `--only b` runs one attack
(or several: `--only cd`) in the same session.

Measured (2026-11-25, 2 cores shared with other agents, load 0.6-7): 17 runs passed, 64-67 s;
the target stayed at 500 kbit/s through every phase (one run: 97.6 % in phase b, a 1 s dip to
461 kbit/s); refused per run: a. 30/30 implausible, b. 102/102 spoofed, c. 850-859 of ~900
limited and 68-69 of 100 new SSRCs host-full, d. 202 of 202 malformed (RTCP or APP).
Without the protections (builds with the three lib/cc defaults set to 0, and/or
gst_am_cc_guard_pass returning TRUE; not committed): rules off, a. drags the target to
min-bitrate (phase mean 23 %, 1 s means at 100 kbit/s); guard and rules off, `--only b`:
phase mean 33 %, back at 500 kbit/s 12 s after the attack; guard off, rules on, `--only b`: the
spoofed reports are refused as implausible instead (102/102), the target does not move. The
flood at the honest rate does not move the target even with the rules off (only app-limited
stays 0): its check is the count, and the per-host cap that bounds rtpsession's member count.
Phase e (in the last 6 runs): 202 SRs dropped at the sender (rtcp-host-full), the receivers'
threads 9 -> 9 after phase c filled the per-host cap, 9 -> 23 with `--only e`; with the guard
off and no max-streams (asmpsrc), 9 -> 413.
Phase f (2026-11-29, 5 runs of the whole test and 1 `--only f`, load 10-15, all passed, 77-80
s): 772-786 of 788-802 new SSRCs dropped at the sender and at each receiver (the first 16 are
let in); the RTCP interval 0.50 s before, at most 1.01-1.05 s after; the longest a node went
without sending RTCP 0.61-0.66 s (sender), 0.99-1.17 s (receivers); target 100 %. With the
budget's default set to 0 (a build not committed), `--only f`: nothing dropped, the receivers'
Td as the sender computes it went from 0.50 s to 10 s 5 s into the phase, 32 s at the tail's
end and 34.5 s at the session's end, still rising; both receivers sent their last RTCP 0.1-0.9
s into the phase and were silent to the session's end (the gap check: 14.1 and 14.9 s); the
target did not move within the run (the sender's receiver timeout is 3 of those intervals).
"""
import json
import os
import random
import re
import select
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))

GROUP = '239.1.2.3'        # amcast-node's default group
PORT = 5004                # RTP; RTCP on PORT + 1
SLOW_RATE = 800_000        # tbf toward "slow": above MAX_BPS + the flood's bits
DELAY_MS = 20
RTCP_MS = 500
INIT_BPS, MIN_BPS, MAX_BPS = 300_000, 100_000, 500_000
SEND_S = 65
# phases, seconds after the sender started: the baseline, then the attacks, then a tail
BASE = (10, 18)
# a quiet second between phases: a counter's rise shows up to one RTCP interval later
PHASES = {'a': (18, 25), 'b': (26, 31), 'c': (32, 37), 'd': (38, 42), 'e': (43, 47),
          'f': (48, 56)}
TAIL = (57, 63)
FLOOD_PPS = 200
SR_COUNT = 200             # phase e: 50/s
MANY_ADDRS = 64            # phase f: the attacker's extra addresses, MANY_NET.1 ...
MANY_NET = '10.77.200'     # inside the testbed's 10.77/16 (the receivers' reverse path)
MANY_PPS = 100             # phase f: 800 new SSRCs, 12-13 per address (< 32 per host)
# phase f: the RTCP interval (rtcp-interval-s) at the sender and the receivers, and the longest
# a node goes without sending RTCP; unbounded, the new members stretch the interval to tens of
# seconds (issue 14: 1 s -> 40 s) and the receivers fall silent
INTERVAL_MAX_S = 5.0
# a receiver's thread growth in phase e: measured +14 with the phase alone (the per-host cap
# admits 32 new SSRCs, max-streams 8 streams), 0 after phase c has filled the cap; unprotected
# (issue 14) two threads per forged SR
THREAD_GROWTH = 40
BAND = 0.10                # issue 14: the mean target within 10 % of the run without attack
# no 1 s mean below this share of the baseline: unprotected, the liars reach min-bitrate (0.2 x)
# within a second; the protected session's lowest 1 s mean was 0.92 x in 17 runs
FLOOR_SHARE = 0.75
# each attack counted at least this share of what was sent (measured 0.94-1.0: the flood's first
# 4 reports per interval are taken; a loaded host may drop datagrams in a socket buffer)
COUNT_SHARE = 0.5
FIRST_FRAME_WAIT_S = 10


# ---------------------------------------------------------------- the attacker (namespace atk)

def rr(ssrc, about=None, lsr=0, dlsr=0, block=(0, 0, 0, 0)):
    """RR (PT 201) with one report block about `about`, or none."""
    if about is None:
        return struct.pack('!BBHI', 0x80, 201, 1, ssrc)
    frac, cum, hseq, jit = block
    return struct.pack('!BBHI', 0x81, 201, 7, ssrc) + struct.pack(
        '!IIIIII', about, (frac << 24) | (cum & 0xFFFFFF), hseq, jit, lsr, dlsr)


def asmp_report(ssrc, rate_bps, loss, rtt_s, seq, rate_field=None):
    """APP (PT 204) name ASMP subtype 1: the 28-byte report (docs/wire-formats.md)."""
    rate = max(1, round(rate_bps / 8)) if rate_field is None else rate_field
    body = struct.pack('!BBHIIIIiI', 1, 0, 0, rate, min(int(loss * 1e9), 10**9),
                       min(int(rtt_s * 1e6), 60_000_000), 1000, 0, seq & 0xFFFFFFFF)
    return app(ssrc, b'ASMP', 1, body)


def app(ssrc, name, subtype, body):
    return struct.pack('!BBHI', 0x80 | subtype, 204, 2 + len(body) // 4, ssrc) + name + body


def walk(pkt):
    """(pt, count, ssrc, body) of each packet of a compound; stops at the first bad header."""
    off = 0
    while off + 8 <= len(pkt):
        b0, pt, ln = struct.unpack_from('!BBH', pkt, off)
        end = off + 4 * (ln + 1)
        if b0 >> 6 != 2 or end > len(pkt):
            return
        yield pt, b0 & 0x1F, struct.unpack_from('!I', pkt, off + 4)[0], pkt[off + 8:end]
        off = end


class Attacker:
    def __init__(self, a):
        self.a = a
        self.own = socket.inet_aton(a.local)
        s = self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('', PORT + 1))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                     socket.inet_aton(GROUP) + self.own)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, self.own)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
        s.setblocking(False)
        self.sender = None          # (ssrc, address)
        self.sr = None              # (mid32, monotonic arrival)
        self.honest = {}            # ssrc -> {'addr', 'rate', 'loss', 'rtt', 'block'}
        self.me = 0x0BAD0001        # the made-up member
        self.fresh = 0x0BAD1000     # phase c's new SSRCs
        self.seq = 0
        self.sent = {k: 0 for k in PHASES}
        self.fresh_sent = 0
        self.many = []              # phase f: one socket per extra address
        extra = getattr(a, 'extra', '')  # subclasses' parsers (test_srtp's Replayer) lack it
        for addr in extra.split(',') if extra else []:
            m = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
            m.bind((addr, 0))
            m.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(addr))
            m.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
            m.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
            m.setblocking(False)
            self.many.append(m)
        self.many_ssrc = 0x0BAD8000
        self.rng = random.Random(14)

    def hear(self):
        while True:
            try:
                pkt, (src, _) = self.sock.recvfrom(2048)
            except BlockingIOError:
                return
            if src == self.a.local:
                continue
            for pt, cnt, ssrc, body in walk(pkt):
                if pt == 200 and len(body) >= 8:
                    self.sender = (ssrc, src)
                    ntp_hi, ntp_lo = struct.unpack_from('!II', body, 0)
                    self.sr = (((ntp_hi & 0xFFFF) << 16) | (ntp_lo >> 16), time.monotonic())
                elif pt == 201 and self.sender and src != self.sender[1]:
                    h = self.honest.setdefault(ssrc, {'addr': src, 'rate': 0, 'loss': 0,
                                                      'rtt': 0.04, 'block': (0, 0, 0, 0)})
                    for i in range(cnt):
                        if len(body) >= 24 * (i + 1):
                            about, fl, hseq, jit = struct.unpack_from('!IIII', body, 24 * i)
                            if about == self.sender[0]:
                                h['block'] = (fl >> 24, fl & 0xFFFFFF, hseq, jit)
                elif pt == 204 and body[:4] == b'ASMP' and cnt == 1 and len(body) == 32 \
                        and ssrc in self.honest:
                    _, _, _, rate, loss, rtt = struct.unpack_from('!BBHIII', body, 4)
                    h = self.honest[ssrc]
                    h['rate'], h['loss'] = 8 * rate, loss / 1e9
                    h['rtt'] = rtt / 1e6 if rtt else h['rtt']

    def proof(self, ssrc):
        """A report block about the sender that echoes its last SR, as a member's would."""
        if not (self.sender and self.sr):
            return rr(ssrc)
        low = min(self.honest.values(), key=lambda h: h['rate'] or 1e12, default=None)
        block = low['block'] if low else (0, 0, 0, 0)
        dlsr = int((time.monotonic() - self.sr[1]) * 65536)
        return rr(ssrc, self.sender[0], self.sr[0], dlsr, block)

    def slowest(self):
        rated = [(h['rate'], s) for s, h in self.honest.items() if h['rate'] > 0]
        return min(rated) if rated else (0, None)

    def lie(self, ssrc):
        """RR (with the proof) + a 1 kbit/s report with the honest receivers' loss and RTT."""
        hs = list(self.honest.values())
        loss = max((h['loss'] for h in hs), default=0.0)
        rtt = max((h['rtt'] for h in hs), default=0.04)
        self.seq += 1
        return self.proof(ssrc) + asmp_report(ssrc, 1000, loss, rtt, self.seq)

    def malformed(self, k):
        good = self.lie(self.me)
        kind = k % 6
        if kind == 0:                                   # truncated compound
            return good[:self.rng.randrange(5, len(good) - 1) | 1]
        if kind == 1:                                   # version 1
            return bytes([0x40 | (good[0] & 0x3F)]) + good[1:]
        if kind == 2:                                   # first length past the datagram
            return good[:2] + struct.pack('!H', 200) + good[4:]
        if kind == 3:                                   # random bytes
            return bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(4, 120)))
        self.seq += 1
        rep = asmp_report(self.me, 300_000, 0, 0.04, self.seq, rate_field=0 if kind == 5 else None)
        if kind == 4:                                   # ASMP report cut to 20 bytes
            rep = struct.pack('!BBHI', 0x81, 204, 7, self.me) + rep[8:32]
        return self.proof(self.me) + rep

    def send(self, pkt, sock=None):
        try:
            (sock or self.sock).sendto(pkt, (GROUP, PORT + 1))
        except OSError:
            pass                                       # a full socket buffer: the flood's limit

    def member(self, k):
        """Phase f: RR (no block) + SDES CNAME of a new SSRC from extra address k % n."""
        self.many_ssrc += 1
        cname = b'atk%d' % k
        item = bytes([1, len(cname)]) + cname
        chunk = struct.pack('!I', self.many_ssrc) + item + bytes(4 - len(item) % 4)
        sdes = struct.pack('!BBH', 0x81, 202, len(chunk) // 4) + chunk
        self.send(rr(self.many_ssrc) + sdes, self.many[k % len(self.many)])

    def run(self):
        t0 = self.a.start
        times = {k: (t0 + a, t0 + b) for k, (a, b) in PHASES.items()}
        gap = {'a': 0.25, 'b': 0.05, 'c': 1.0 / FLOOD_PPS, 'd': 0.02,
               'e': (PHASES['e'][1] - PHASES['e'][0]) / SR_COUNT, 'f': 1.0 / MANY_PPS}
        nxt = 0.0
        k = 0
        while time.time() < times['f'][1]:
            self.hear()
            now = time.time()
            phase = next((p for p, (a, b) in times.items() if a <= now < b
                          and p in self.a.phases), None)
            if phase is None or now < nxt:
                select.select([self.sock], [], [], 0.002)
                continue
            nxt = max(nxt + gap[phase], now - gap[phase])
            k += 1
            if phase == 'a':
                self.send(self.lie(self.me))
            elif phase == 'b':
                _, victim = self.slowest()
                if victim is None:
                    continue
                self.send(self.lie(victim))
            elif phase == 'c':
                if k % 10 == 0:                          # a well-framed packet of a new SSRC
                    self.fresh += 1
                    self.fresh_sent += 1
                    self.send(self.proof(self.fresh))
                    continue
                rate, _ = self.slowest()
                self.seq += 1
                self.send(self.proof(self.me) + asmp_report(self.me, rate or MAX_BPS, 0, 0.04,
                                                             self.seq))
            elif phase == 'd':
                self.send(self.malformed(k))
            elif phase == 'f':
                if not self.many:
                    continue
                self.member(self.sent['f'])
            else:                                        # an SR of a new sender
                self.fresh += 1
                ntp = time.time() + 2208988800
                self.send(struct.pack('!BBHIIIIII', 0x80, 200, 6, self.fresh, int(ntp),
                                      int(ntp % 1 * 2**32), k * 3600, k, k * 1000))
            self.sent[phase] += 1
        print(json.dumps({'sender': self.sender[0] if self.sender else None,
                          'saw_sr': self.sr is not None,
                          'honest': {f'{s:#010x}': h['addr'] for s, h in self.honest.items()},
                          'victim': f'{self.slowest()[1] or 0:#010x}',
                          'sent': self.sent, 'fresh_ssrcs': self.fresh_sent,
                          'many_addrs': len(self.many)}), flush=True)


def attack_main(argv):
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument('--local', required=True, help='own address (multicast interface)')
    p.add_argument('--start', type=float, required=True, help='the sender\'s start, epoch s')
    p.add_argument('--phases', default='abcdef', help='the attacks to run')
    p.add_argument('--extra', default='', help='phase f: the extra addresses, comma-separated')
    Attacker(p.parse_args(argv)).run()
    return 0


# ---------------------------------------------------------------- the test (root namespace)

if __name__ == '__main__' and len(sys.argv) > 1 and sys.argv[1] == 'attack':
    sys.exit(attack_main(sys.argv[2:]))

sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
from amcast_testbed.netns import Topology, find_delayline  # noqa: E402
import test_asmp_elements as el  # noqa: E402  (trace readers, check(), time weighting)

NODE = os.path.join(TOP, 'tools', 'testbed', 'amcast-node')
check = el.check
# the drop counters shown per phase, then the rest read from the stats
RISES = ('app-implausible', 'app-limited', 'app-damped', 'app-malformed', 'app-unproven',
         'rtcp-spoofed', 'rtcp-host-full', 'rtcp-unproven-full', 'rtcp-malformed')
COUNTERS = RISES + ('rtcp-received', 'receivers', 'rtcp-interval-s')


def read_stats(path, name='asmpsink-stats'):
    """A node's stats messages (amcast-node --verbose): [(time, {counter: n})]."""
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            if name not in line:
                continue
            fields = dict(re.findall(r'([a-z-]+)=\([a-z0-9]+\)([0-9.e+-]+)', line))
            if 'time' in fields:
                out.append((float(fields['time']), {k: float(fields.get(k, 'nan'))
                                                    for k in COUNTERS}))
    return out


def rise(stats, key, a, b):
    """How much a counter grew over [a, b + 1 s) (the stats of the next RTCP packet)."""
    before = [c[key] for t, c in stats if t < a]
    upto = [c[key] for t, c in stats if t < b + 1.0]
    return (upto[-1] if upto else 0) - (before[-1] if before else 0)


def thread_count(pid):
    """Threads of a receiver (`ip netns exec` execs amcast-node: the same PID); -1 if gone."""
    try:
        with open(f'/proc/{pid}/status') as f:
            return next(int(l.split()[1]) for l in f if l.startswith('Threads:'))
    except (OSError, StopIteration):
        return -1


def session(run, phases):
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env = dict(os.environ)
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    try:
        find_delayline()
        delay = DELAY_MS
    except RuntimeError:
        delay = 0
    common = ['--run', run, '--protocol', 'asmp', '--rtcp-interval', str(RTCP_MS)]
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fast', 'slow', 'sender', 'atk')}
    with Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fast', 'slow', 'atk'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=delay)
        t.link('r', 'fast')
        t.link('r', 'slow', rate=(SLOW_RATE, None))
        t.link('r', 'atk')
        t.build()
        rx = {n: t.run(n, [NODE, 'recv', '--name', n, '--iface', t.iface(n),
                           '--duration', SEND_S + 10, '--verbose'] + common, log=logs[n],
                       env=env)
              for n in ('fast', 'slow')}
        extra = [f'{MANY_NET}.{i + 1}' for i in range(MANY_ADDRS if 'f' in phases else 0)]
        for addr in extra:             # inside the attacker's namespace, gone with it
            t.exec('atk', ['ip', 'addr', 'add', addr + '/16', 'dev', t.iface('atk')])
        t.wait_snooping()
        time.sleep(1.0)
        start = time.time()
        t0 = time.monotonic()
        tx = t.run('tx', [NODE, 'send', '--iface', t.iface('tx'), '--duration', SEND_S,
                          '--initial-bitrate', INIT_BPS, '--min-bitrate', MIN_BPS,
                          '--max-bitrate', MAX_BPS, '--no-ref', '--verbose'] + common,
                   log=logs['sender'], env=env)
        atk = t.run('atk', [sys.executable, os.path.abspath(__file__), 'attack', '--local',
                            t.addr('atk'), '--start', f'{start:.3f}', '--phases', phases,
                            '--extra', ','.join(extra)],
                   log=logs['atk'])
        seen = {n: False for n in rx}
        while time.monotonic() < t0 + FIRST_FRAME_WAIT_S and not all(seen.values()):
            for n in rx:
                seen[n] = seen[n] or el.log_has(logs[n], 'first frame after')
            time.sleep(0.2)
        for n in rx:
            check(seen[n], f'{n} decodes video within {FIRST_FRAME_WAIT_S} s of the start')
        threads = {}
        for when, at in (('before', PHASES['e'][0] - 0.5), ('after', PHASES['e'][1] + 1.5)):
            time.sleep(max(0.0, t0 + at - time.monotonic()))
            threads[when] = {n: thread_count(p.pid) for n, p in rx.items()}
        rc_atk = t.finish(atk, SEND_S + 10)
        rc_tx = t.finish(tx, SEND_S + 30 - (time.monotonic() - t0))
        rcs = {'sender': rc_tx, 'atk': rc_atk}
        for n, p in rx.items():
            rcs[n] = t.finish(p, 30)
    return {'start': start, 'phases': phases, 'rc': rcs, 'threads': threads,
            'json': {n: el.last_json(logs[n]) for n in logs},
            'stats': read_stats(logs['sender']),
            'rx_stats': {n: read_stats(logs[n], 'asmpsrc-stats') for n in rx}}


def evaluate(run, s):
    start = s['start']
    ja = s['json']['atk'] or {}
    check(s['rc']['atk'] == 0 and bool(ja), f'attacker ran to the end (exit {s["rc"]["atk"]})')
    check(ja.get('saw_sr') and len(ja.get('honest', {})) == 2,
          f'attacker saw the sender\'s SRs ({ja.get("saw_sr")}) and both honest receivers '
          f'({ja.get("honest")}); victim {ja.get("victim")}')
    sent = ja.get('sent', {})
    print(f'# attacker sent {sent} (+{ja.get("fresh_ssrcs")} packets from new SSRCs)')
    rows = el.read_csv(os.path.join(run, 'sender', 'rate.csv'))
    if not check(len(rows) > 20, f'sender rate.csv ({len(rows)} rows)'):
        return
    tr = el.abs_time(rows, start)
    pts = [(tt, float(r['target_bps'])) for tt, r in zip(tr, rows)]

    def mean(a, b):
        tw = el.time_weighted(pts, start + a, start + b)
        return sum(v * d for v, d in tw) / max(1e-9, sum(d for _, d in tw))

    base = mean(*BASE)
    print(f'# baseline [{BASE[0]}, {BASE[1]}) s: target mean {base:.0f} bit/s '
          f'(max-bitrate {MAX_BPS})')
    check(base >= 0.9 * MAX_BPS, f'baseline target at max-bitrate ({base:.0f} >= 0.9 x {MAX_BPS})')
    stats = s['stats']
    check(len(stats) > 20, f'sender stats messages ({len(stats)})')
    what = {'a': ('low-rate liar, made-up SSRC', ['app-implausible']),
            'b': ('liar in the honest SSRC\'s name', ['rtcp-spoofed']),
            'c': (f'flood, {FLOOD_PPS}/s', ['app-limited']),
            'd': ('malformed RTCP', ['rtcp-malformed', 'app-malformed']),
            'e': (f'SRs of {SR_COUNT} new SSRCs', []),
            'f': (f'new SSRCs from {MANY_ADDRS} addresses, {MANY_PPS}/s',
                  ['rtcp-unproven-full'])}
    for p, (a, b) in list(PHASES.items()) + [('tail', TAIL)]:
        m = mean(a, b)
        lows = [mean(x, x + 1) for x in range(a, b)]
        rises = {k: rise(stats, k, start + a, start + b) for k in RISES}
        name = what[p][0] if p in what else 'after the attacks'
        print(f'# phase {p} [{a}, {b}) s, {name}: target mean {m:.0f} = '
              f'{100 * m / base:.1f} % of baseline, lowest 1 s mean {min(lows):.0f}; counters '
              + ', '.join(f'{k} +{v:.0f}' for k, v in rises.items() if v))
        check(abs(m - base) <= BAND * base, f'phase {p}: mean target within {100 * BAND:.0f} % '
              f'of the baseline ({m:.0f} vs {base:.0f})')
        check(min(lows) >= FLOOR_SHARE * base, f'phase {p}: no 1 s mean below '
              f'{FLOOR_SHARE} x baseline ({min(lows):.0f})')
        if p in what and p in s['phases'] and what[p][1]:
            got = sum(rises[k] for k in what[p][1])
            check(got >= COUNT_SHARE * sent.get(p, 0) and got > 0, f'phase {p}: '
                  f'{" + ".join(what[p][1])} rose by {got:.0f} (sent {sent.get(p, 0)})')
    th = s['threads']
    print(f'# receivers\' threads before / after phase e: {th["before"]} / {th["after"]}')
    for n in th['before']:
        b, a = th['before'][n], th['after'][n]
        check(b > 0 and a > 0 and a - b <= THREAD_GROWTH, f'phase e: {n}\'s threads {b} -> {a} '
              f'(at most +{THREAD_GROWTH})')
    if 'c' in s['phases']:
        c0, c1 = PHASES['c']
        host_full = rise(stats, 'rtcp-host-full', start + c0, start + c1)
        check(host_full > 0, f'phase c: new SSRCs past the per-host cap dropped '
              f'(rtcp-host-full +{host_full:.0f} of {ja.get("fresh_ssrcs")})')
    if 'f' in s['phases']:
        evaluate_many(s, stats, sent.get('f', 0), ja.get('many_addrs'))
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


def evaluate_many(s, stats, sent, addrs):
    """Phase f: the budget dropped the new members at every node, the RTCP interval stayed short
    and the sender kept hearing both honest receivers."""
    start, (f0, f1) = s['start'], PHASES['f']
    check(addrs == MANY_ADDRS, f'phase f: the attacker sent from {addrs} extra addresses')
    nodes = {'sender': stats}
    nodes.update(s['rx_stats'])
    for n, st in nodes.items():
        before = [c['rtcp-interval-s'] for t, c in st if start + BASE[0] <= t < start + f0]
        after = [c['rtcp-interval-s'] for t, c in st if start + f0 <= t < start + TAIL[1]]
        sent_at = [start + f0] + [t for t, c in st if start + f0 <= t < start + TAIL[1]]
        gap = max(b - a for a, b in zip(sent_at, sent_at[1:] + [start + TAIL[1]]))
        dropped = rise(st, 'rtcp-unproven-full', start + f0, start + f1)
        print(f'# phase f at {n}: rtcp-unproven-full +{dropped:.0f} of {sent}; RTCP interval '
              f'{max(before, default=float("nan")):.2f} s before, at most '
              f'{max(after, default=float("nan")):.2f} s from the phase to the end; longest '
              f'without sending RTCP {gap:.2f} s')
        check(gap <= INTERVAL_MAX_S, f'phase f: {n} sent RTCP at least every {INTERVAL_MAX_S} s '
              f'(longest gap {gap:.2f} s)')
        if n != 'sender':
            check(dropped >= COUNT_SHARE * sent and dropped > 0, f'phase f: {n}\'s '
                  f'rtcp-unproven-full rose by {dropped:.0f} (sent {sent})')
        check(bool(after) and max(after) <= INTERVAL_MAX_S, f'phase f: {n}\'s RTCP interval '
              f'at most {INTERVAL_MAX_S} s (max {max(after, default=float("nan")):.2f} s)')
    during = [c['receivers'] for t, c in stats if start + f0 + 1 <= t < start + f1 + 1]
    check(bool(during) and min(during) >= 2, f'phase f: the sender counts both honest receivers '
          f'throughout (receivers {sorted(set(during))})')


def main(phases):
    return el.session_main('attacker', lambda run: session(run, phases), evaluate)


if __name__ == '__main__':
    # --evaluate RUN: re-check a kept run directory (el.session_main); --only PHASES (e.g. --only b): run only those attacks (to see one alone, e.g. on a build
    # with a protection turned off); the rest of the session is the same
    only = sys.argv[2] if len(sys.argv) == 3 and sys.argv[1] == '--only' else 'abcdef'
    sys.exit(main(only))

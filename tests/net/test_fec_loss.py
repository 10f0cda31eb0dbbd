#!/usr/bin/python3
"""FEC under random loss (suite 'net', needs root): issue 15 item 2.

tx -- r (bridge, IGMPv3 snooping) -- fec, plain; each receiver's link drops LOSS_PCT % of the
frames toward it at random (the delay line's drop stage, seeded). One sender (x264enc through
asmpsink fec=auto, SMPTE 2022-1 FEC on group 239.1.2.4), two receivers: `fec` joins the FEC group
(asmpsrc fec=true), `plain` does not. SEND_S seconds. Checks, EvalVid-style (a frame is lost when
any of its packets is missing from the receiver's rd.txt, which asmpsrc writes after recovery):
  - the plain receiver lost at least MIN_PLAIN_LOST frames (the link really loses);
  - the FEC receiver counted recovered packets (fec-recovered >= MIN_RECOVERED) and lost at most
    FEC_LOST_RATIO x the frames the plain one lost;
  - the sender sent parity (auto switched FEC on) and both receivers decoded frames.
Every node holds srtp-key, a random group key made for the run (AMCAST_SRTP_KEY when set; set
empty: none), as ./amcast demo does: rebuilt packets must pass authentication (they are the
originals byte for byte) and the parity its tag; checked that the FEC receiver rejected no RTP
packet and no parity packet (srtp-rtp-rejected, srtp-fec-rejected 0).
Prints `# amtest: checks=N failures=M`; exit 77 (skip) when not root.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'testbed'))
sys.path.insert(0, HERE)
from amcast_testbed.netns import Topology, find_delayline  # noqa: E402
import test_asmp_elements as el  # noqa: E402  (trace readers, check(), live_main())

NODE = os.path.join(TOP, 'tools', 'testbed', 'amcast-node')
PORT = 5004
RTCP_MS = 500
LOSS_PCT = 3
SEND_S = 25
MIN_PLAIN_LOST = 10         # 3 % of ~1500 packets spread over ~625 frames: ~40 expected
MIN_RECOVERED = 10
FEC_LOST_RATIO = 0.5        # FEC is on after the first reports (~1-2 s): most losses later
check = el.check


def session(run):
    build = os.environ.get('AMCAST_BUILD', os.path.join(TOP, 'build'))
    env = dict(os.environ)
    env.setdefault('GST_PLUGIN_PATH', os.path.join(build, 'gst'))
    env['AMCAST_SRTP_KEY'] = os.environ.get('AMCAST_SRTP_KEY', os.urandom(30).hex())
    find_delayline()
    common = ['--run', run, '--protocol', 'asmp', '--rtcp-interval', str(RTCP_MS),
              '--port', str(PORT)]
    logs = {n: os.path.join(run, f'{n}.log') for n in ('fec', 'plain', 'sender')}
    with Topology() as t:
        t.add_router('r')
        for n in ('tx', 'fec', 'plain'):
            t.add_host(n)
        t.link('tx', 'r', delay_ms=10)
        t.link('r', 'fec', loss_pct=(LOSS_PCT, 0))
        t.link('r', 'plain', loss_pct=(LOSS_PCT, 0))
        t.build()
        rx = {n: t.run(n, [NODE, 'recv', '--name', n, '--iface', t.iface(n),
                           '--duration', SEND_S + 10] + (['--fec'] if n == 'fec' else [])
                       + common, log=logs[n], env=env)
              for n in ('fec', 'plain')}
        t.wait_snooping()
        time.sleep(1.0)
        tx = t.run('tx', [NODE, 'send', '--iface', t.iface('tx'), '--duration', SEND_S,
                          '--initial-bitrate', 500000, '--min-bitrate', 200000,
                          '--max-bitrate', 1000000, '--no-ref', '--fec', 'auto'] + common,
                   log=logs['sender'], env=env)
        rc = t.finish(tx, SEND_S + 30)
        for p in rx.values():
            t.finish(p, 30)
    return {'rc': rc, 'json': {n: el.last_json(logs[n]) for n in logs},
            'keyed': bool(env['AMCAST_SRTP_KEY'])}


def frames_lost(run, name):
    """Frames with a packet missing from rx-NAME/rd.txt, of the frames in sender/sd.txt."""
    frame_of = {}
    with open(os.path.join(run, 'sender', 'sd.txt')) as f:
        for line in f:
            p = line.split()
            if len(p) >= 6 and p[1] == 'id':
                frame_of[int(p[2])] = int(p[5])
    got = el.read_dump(os.path.join(run, f'rx-{name}', 'rd.txt'))
    missing = {fr for i, fr in frame_of.items() if i not in got}
    return len(missing), len(set(frame_of.values())), sum(1 for i in frame_of if i not in got)


def evaluate(run, s):
    snd = s['json'].get('sender') or {}
    fec = s['json'].get('fec') or {}
    plain = s['json'].get('plain') or {}
    check(s['rc'] == 0, f'sender exited 0 (got {s["rc"]})')
    check(snd.get('fec_packets_sent', 0) > 0, f'the sender sent parity '
          f'({snd.get("fec_packets_sent")} packets, matrix {snd.get("fec_columns")} x '
          f'{snd.get("fec_rows")})')
    lf, frames, pf = frames_lost(run, 'fec')
    lp, _, pp = frames_lost(run, 'plain')
    rec = fec.get('fec_recovered', 0)
    print(f'# {LOSS_PCT} % random loss: FEC receiver lost {lf} of {frames} frames ({pf} packets '
          f'after recovery, {rec} recovered); plain receiver lost {lp} frames ({pp} packets); '
          f'parity {snd.get("fec_bytes_sent", 0)} of {snd.get("bytes_sent", 0)} media bytes')
    check(lp >= MIN_PLAIN_LOST, f'the plain receiver lost {lp} >= {MIN_PLAIN_LOST} frames')
    check(rec >= MIN_RECOVERED, f'the FEC receiver recovered {rec} >= {MIN_RECOVERED} packets')
    check(lf <= FEC_LOST_RATIO * lp, f'FEC receiver lost {lf} <= {FEC_LOST_RATIO} x {lp} frames')
    check(fec.get('frames', 0) > 0 and plain.get('frames', 0) > 0, 'both receivers decoded')
    if s['keyed']:
        rej = (fec.get('srtp_rtp_rejected'), fec.get('srtp_fec_rejected'))
        check(rej == (0, 0), f'srtp-key on: the FEC receiver rejected no RTP and no parity '
              f'packet (srtp-rtp-rejected, srtp-fec-rejected: {rej})')


def main():
    return el.live_main('fecloss', lambda run: evaluate(run, session(run)), needs_delayline=True)


if __name__ == '__main__':
    sys.exit(main())

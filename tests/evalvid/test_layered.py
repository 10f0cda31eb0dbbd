#!/usr/bin/python3
"""evalvid-run on layered (AVMRC) runs. Part 1: hand-made traces (no video), every expected value
worked out by hand in the comments. Part 2: a VP8 clip with three temporal layers encoded at test
time (libvpx's 0 2 1 2 pattern, as tests/net/avmrc_peer.py sends it), received at each level and
with a lost layer-0 frame: what each level displays decodes exactly into the loss-free pictures.

The hand-made run: 3 layers, 13 frames at 10 fps, frame i sent at 100 + 0.1 i, layer of frame i
0 2 1 2 0 2 1 2 0 2 1 2 0 (frame 0 a key frame of 2 packets, the others 1 packet); every packet
arrives 10 ms after it is sent. Receiver r starts with 1 layer, adds layer 1 at 100.33 (its
first packet after that: frame 6, 100.61), adds layer 2 at 100.93 (first: frame 11, 101.11),
drops it at 101.15, and loses frame 8 (layer 0)."""
import json, os, shutil, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evtest as T  # noqa: E402
from evtest import check, near  # noqa: E402

LAYER = [0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0]
CHANGES = [(100.33, 1, 2), (100.93, 2, 3), (101.15, 3, 2)]


def pkts():
    """(send time, id, size, frame, type, layer)."""
    out = []
    for i, L in enumerate(LAYER):
        n = 2 if i == 0 else 1
        for k in range(n):
            out.append((100 + 0.1 * i + 0.005 * k, 100 * i + k, 500, i, 'I' if i == 0 else 'P', L))
    return out


def make_run(run):
    os.makedirs(os.path.join(run, 'sender'))
    with open(os.path.join(run, 'sender', 'sd.txt'), 'w') as f:
        for t, pid, size, i, typ, L in pkts():
            f.write(f'{t:.6f} id {pid} udp {size} {i} {typ} layer {L}\n')
    rx = os.path.join(run, 'rx-r')
    os.makedirs(rx)
    with open(os.path.join(rx, 'rd.txt'), 'w') as f:
        for t, pid, size, i, _typ, L in pkts():
            held = L == 0 or (L == 1 and t > 100.33) or (L == 2 and 100.93 < t < 101.15)
            if held and i != 8:
                f.write(f'{t + 0.01:.6f} id {pid} udp {size} layer {L}\n')
    with open(os.path.join(rx, 'layers.csv'), 'w') as f:
        f.write('time_s,from,to\n' + ''.join(f'{t},{a},{b}\n' for t, a, b in CHANGES))


def hand_made(build, tmp):
    import evalvid_layered as EL
    # on_periods: an add straight after another (before any packet of the first added layer
    # came) still opens that layer at its first packet; a drop closes it
    per, lat = EL.on_periods([(1.0, 1, 2), (1.001, 2, 3), (8.0, 3, 1)], [[0.5], [5.0], [6.0]], 3, 0.5, 10.0)
    check(per == [[(0.5, 10.0)], [(5.0, 8.0)], [(6.0, 8.0)]], f'on_periods: {per}')
    check(lat == [4.0, 6.0 - 1.001, None], f'join latency: first packet of the top layer added - add: {lat}')

    # clean: the key frame decoded and no expected frame of the same or a lower layer lost since;
    # refs_not_held: after a frame of a layer 1..L-1 of the base-layer period not decoded
    fr = [{'frame': i, 'layer': L, 'type': 'I' if i in (0, 8) else 'P', 'expected': e}
          for i, (L, e) in enumerate(zip([0, 2, 1, 2, 0, 2, 1, 2, 0, 2], [1, 0, 0, 1, 1, 1, 1, 1, 1, 1]))]
    dec = {0, 1, 3, 4, 5, 7, 8, 9}        # 2 not held, 6 (layer 1) lost
    check(EL.clean_frames(fr, dec) == {0, 1, 3, 4, 5, 8, 9}, f'clean_frames: {EL.clean_frames(fr, dec)}')
    check(EL.refs_not_held(fr, dec) == {3, 7}, f'refs_not_held: {EL.refs_not_held(fr, dec)}')
    # a frame cut at the run's end (partly received, not expected) breaks the chain too
    fr2 = [{'frame': 0, 'layer': 0, 'type': 'I', 'expected': 1},
           {'frame': 1, 'layer': 0, 'type': 'P', 'expected': 0, 'cut': True},
           {'frame': 2, 'layer': 2, 'type': 'P', 'expected': 1}]
    check(EL.clean_frames(fr2, {0, 2}) == {0}, f'a partly received frame: {EL.clean_frames(fr2, {0, 2})}')

    # a lost packet arrives (if at all) with the larger delay of its received neighbours in send
    # order: layer-1 packet 2.5 between layer-0 packets 2.0 (delay 0.05) and 3.0 (0.4) is due at
    # 2.9, after the drop at 2.7: not lost (the median delay, 0.175, would put it at 2.675)
    sd = [{'t': t, 'id': i, 'size': 100, 'frame': i, 'type': 'P', 'layer': L}
          for i, (t, L) in enumerate([(0, 0), (0.5, 1), (1, 0), (1.5, 1), (2, 0), (2.5, 1), (3, 0)])]
    sd[0]['type'] = 'I'
    delay = {0: 0.05, 1: 0.3, 2: 0.05, 3: 0.3, 4: 0.05, 6: 0.4}
    rd = {i: (sd[i]['t'] + d, 100, sd[i]['layer']) for i, d in delay.items()}
    net = EL.evaluate_network(sd, EL.frame_table(sd), rd, [(0.2, 1, 2), (2.7, 2, 1)], 2)
    check((net['layers'][1]['packets_expected'], net['layers'][1]['packets_lost']) == (2, 0),
          f'neighbour delay: the packet due after the drop is not lost ({net["layers"][1]})')
    check(not net['frames'][5]['expected'] and net['frames'][3]['expected'],
          'frame 5 (that packet) is not expected, frame 3 (layer 1, held) is')

    # cut at the end: frame 1's first packet is the receiver's last (1.1), its second is due at
    # 1.5 + 0.1 (its neighbour's delay), after it
    sd = [{'t': 0.0, 'id': 0, 'size': 100, 'frame': 0, 'type': 'I', 'layer': 0},
          {'t': 1.0, 'id': 1, 'size': 100, 'frame': 1, 'type': 'P', 'layer': 0},
          {'t': 1.5, 'id': 2, 'size': 100, 'frame': 1, 'type': 'P', 'layer': 0}]
    net = EL.evaluate_network(sd, EL.frame_table(sd), {0: (0.1, 100, 0), 1: (1.1, 100, 0)}, [], 1)
    f1 = net['frames'][1]
    check(f1['cut'] and not f1['expected'] and not f1['complete'] and not net['frames'][0]['cut'],
          f'a frame cut at the end: {f1}')

    run = os.path.join(tmp, 'hand')
    make_run(run)
    check(EL.is_layered(run), 'an sd.txt with a layer column is a layered run')
    r = T.run([T.tool(build, 'evalvid-run'), '--no-plots', run], ok=False)
    if not check(r.returncode == 0, f'evalvid-run on the hand-made run exits 0: {r.stderr[-2000:]}'):
        return
    rep = os.path.join(run, 'report')
    fr = T.read_csv(os.path.join(rep, 'r.frames.csv'))
    # expected: layer 0 always; layer 1 from 100.61 (frames 6, 10); layer 2 from 101.11 to 101.15
    # (frame 11); frame 2 (100.2) and frame 9 (100.91 < 100.93) were sent before their layer came
    check([x['frame'] for x in fr if x['expected'] == '1'] == ['0', '4', '6', '8', '10', '11', '12'],
          'expected frames 0 4 6 8 10 11 12')
    # shown: the newest complete frame; target: the newest expected; frozen: slots 8 and 9 (frame
    # 8 lost; slot 9's frame is of layer 2, not held then, so slot 9 still waits for frame 8)
    check([x['shown'] for x in fr] == ['0', '0', '0', '0', '4', '4', '6', '6', '6', '6', '10', '11', '12'],
          f'shown slot by slot: {[x["shown"] for x in fr]}')
    check([x['frame'] for x in fr if x['frozen'] == '1'] == ['8', '9'], 'frozen slots 8 and 9 only')
    check([x['status'] for x in fr][:4] == ['ok', 'not-held', 'not-held', 'not-held'], 'status column')
    check([x['level'] for x in fr] == ['1'] * 4 + ['2'] * 6 + ['3', '3', '2'],
          f'level at each frame\'s arrival: {[x["level"] for x in fr]}')
    # clean (references intact): 0, 4, 6; after the lost layer-0 frame 8 nothing until a key frame
    check([x['frame'] for x in fr if x['clean'] == '1'] == ['0', '4', '6'], 'clean frames 0 4 6')
    lay = T.read_csv(os.path.join(rep, 'r.layers.csv'))
    # layer 0: 5 packets, 1 lost (20 %); layer 1: 3 sent while r was there, 2 held, none lost;
    # layer 2: 6 sent, 1 held (frame 11)
    got = [(x['packets_sent'], x['packets_expected'], x['packets_received'], x['packets_lost']) for x in lay]
    check(got == [('5', '5', '4', '1'), ('3', '2', '2', '0'), ('6', '1', '1', '0')], f'per-layer counts {got}')
    near(float(lay[0]['loss_pct']), 20.0, 1e-9, 'layer 0 loss %')
    lv = {x['level']: x for x in T.read_csv(os.path.join(rep, 'r.levels.csv'))}
    # level 1: frames 0-3 (arriving before the add at 100.33: 4 slots, 0.4 s), 1 expected and
    # shown: 2.5 fps against 4/13 x 10; level 2: 4-9 and 12 (7 slots), 4 expected (4 6 8 12),
    # 3 shown, 2 frozen; level 3: 10, 11
    check((lv['1']['slots'], lv['1']['expected_frames'], lv['1']['displayed_frames'], lv['1']['frozen_slots'])
          == ('4', '1', '1', '0'), 'level 1 row')
    near(float(lv['1']['fps_displayed']), 1 / 0.4, 1e-9, 'level 1 fps displayed')
    near(float(lv['1']['fps_nominal']), 10 * 4 / 13, 1e-9, 'level 1 fps nominal (4 of 13 frames)')
    check((lv['2']['slots'], lv['2']['expected_frames'], lv['2']['displayed_frames'], lv['2']['frozen_slots'])
          == ('7', '4', '3', '2'), 'level 2 row')
    check((lv['3']['slots'], lv['3']['expected_frames'], lv['3']['displayed_frames'], lv['3']['frozen_slots'])
          == ('2', '2', '2', '0'), 'level 3 row')
    near(float(lv['3']['fps_nominal']), 10.0, 1e-9, 'level 3 fps nominal (every frame)')
    ch = T.read_csv(os.path.join(rep, 'r.changes.csv'))
    # join latency 100.61 - 100.33 and 101.11 - 100.93; both frozen slots (at 100.81 and 100.91)
    # are within the window of all three changes, nearest to the one at 100.93
    near(float(ch[0]['join_latency_ms']), 280, 1e-6, 'join latency of layer 1')
    near(float(ch[1]['join_latency_ms']), 180, 1e-6, 'join latency of layer 2')
    check(ch[2]['join_latency_ms'] == '', 'no join latency for a drop')
    check([(x['frozen_slots'], x['frozen_by_loss']) for x in ch] == [('0', '0'), ('2', '2'), ('0', '0')],
          'frozen slots counted at the nearest change, by loss')
    near(float(ch[1]['freeze_max_s']), 0.2, 1e-9, 'longest freeze at the change: 2 slots')
    # rate.csv, 1 s bins from the first sent packet (100.0), 500-byte packets (4000 bits): sent 11 in [100, 101) (frames
    # 0-9, frame 0 two) and 3 after; received (arrival times) 4 (frame 0 twice, 4, 6) and 3
    # (10, 11, 12)
    rt = T.read_csv(os.path.join(rep, 'r.rate.csv'))
    check([(float(x['sent_bps']), float(x['recv_bps'])) for x in rt] ==
          [(11 * 4000, 4 * 4000), (3 * 4000, 3 * 4000)] and [x['time_s'] for x in rt] == ['0.0', '1.0'],
          f'rate.csv bins {rt}')
    rc = T.read_csv(os.path.join(rep, 'receivers.csv'))[0]
    check((rc['slots_frozen'], rc['freezes'], rc['slots_frozen_at_changes'], rc['level_final'],
           rc['layer_adds'], rc['layer_drops'], rc['frames_expected'], rc['frames_lost'])
          == ('2.0', '1.0', '2.0', '2.0', '2.0', '1.0', '7.0', '1.0'), 'receivers.csv layered columns')
    near(float(rc['packet_loss_pct']), 100 / 8, 1e-9, 'packet loss over the layers held (1 of 8)')
    check(rc['loss_pct_layers'] == '20.00/0.00/0.00', 'loss per layer column')
    check('level' in r.stdout and '1->2 280' in r.stdout, 'the table on stdout has the layered rows')
    md = open(os.path.join(rep, 'report.md')).read()
    check('## Layers' in md and '| 100.93' not in md and '| 0.93 | 2 | 3 | 180 | 2 | 2 | 200 |' in md,
          'report.md has the change table (times from the first sent packet)')
    # rd with an id the sender never sent: an error naming the file and line
    with open(os.path.join(run, 'rx-r', 'rd.txt'), 'a') as f:
        f.write('101.5 id 999999 udp 500 layer 0\n')
    r = T.run([T.tool(build, 'evalvid-run'), '--no-plots', run], ok=False)
    check(r.returncode != 0 and 'rd.txt:8' in r.stderr, f'unknown id: error with file:line ({r.stderr[-300:]})')


def ivf_files(tmp):
    """read_ivf checks the file against itself: made here, 3 frames of 5, 0 and 7 bytes; then the
    same cut inside a frame, inside a frame header and at a frame boundary, a bad signature, a
    header length past the file and a frame size past it: each a ValueError naming the file."""
    from evalvid_layered_run import read_ivf
    frames = [b'abcde', b'', b'0123456']

    def ivf(name, body=None, sig=b'DKIF', hl=32, count=len(frames)):
        path = os.path.join(tmp, name)
        data = sig + struct.pack('<HH4sHHIIII', 0, hl, b'VP80', 160, 120, 30, 1, count, 0)
        data += b''.join(struct.pack('<IQ', len(b), i) + b for i, b in enumerate(frames)) \
            if body is None else body
        with open(path, 'wb') as f:
            f.write(data)
        return path, data

    good, data = ivf('good.ivf')
    check(read_ivf(good) == (160, 120, 30, 1, frames), 'IVF: 3 frames read back with the header')
    check(read_ivf(ivf('nocount.ivf', count=0)[0])[4] == frames, 'IVF: frame count 0 (not given)')

    def bad(path, want, what):
        try:
            read_ivf(path)
            check(False, f'IVF {what}: accepted (wanted "{want}")')
        except ValueError as e:
            check(want in str(e) and path in str(e), f'IVF {what}: {e}')
    for cut, want, what in ((len(data) - 3, 'truncated: frame 2 at byte', 'cut inside a frame'),
                            (32 + 17 + 12 + 5, 'truncated: frame 2\'s header', 'cut inside a '
                             'frame header'),
                            (32 + 17 + 12, 'says 3 frames, the file holds 2 (truncated)',
                             'cut at a frame boundary'),
                            (20, 'the header alone is 32', 'cut inside the file header')):
        path = os.path.join(tmp, 'cut.ivf')
        with open(path, 'wb') as f:
            f.write(data[:cut])
        bad(path, want, what)
    bad(ivf('sig.ivf', sig=b'RIFF')[0], "signature b'RIFF', not DKIF", 'bad signature')
    bad(ivf('hl.ivf', hl=4096)[0], 'header length 4096', 'header length past the file')
    bad(ivf('hl16.ivf', hl=16)[0], 'header length 16', 'header length below 32')
    bad(ivf('huge.ivf', body=struct.pack('<IQ', 0xFFFFFFFF, 0) + b'xyz')[0],
        'frame 0 at byte 32 has 4294967295 bytes, the file 3', 'a frame size past the file')


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'build')
    sys.path.insert(0, os.path.join(build, 'tools', 'evalvid'))
    tmp = tempfile.mkdtemp(prefix='evl-')
    try:
        ivf_files(tmp)
        hand_made(build, tmp)
        if '--no-video' not in sys.argv:
            import test_layered_video
            test_layered_video.video(build, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == '__main__':
    sys.exit(main())

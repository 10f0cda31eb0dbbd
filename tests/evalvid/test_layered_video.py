"""Part 2 of test_layered.py: a VP8 clip with three temporal layers (libvpx's 0 2 1 2 pattern with
tests/net/avmrc_peer.py's layer flags; 160x120, 40 frames at 30 fps, key frames 0 and 20), one
packet per frame sent at 100 + i/30 and received 10 ms later. Receivers: at each fixed level
(l1, l2, l3), l3 losing frame 8 (layer 0), and one going from 1 to 3 layers before frame 10 and
back to 1 before frame 30 (sw), one adding two layers between frames 10 and 11 (jump)."""
import os, struct

import evtest as T
from evtest import check, near

N, FPS, W, H = 40, 30, 160, 120
PATTERN = [0, 2, 1, 2]
FLAGS = ('<no-ref-golden+no-upd-golden+no-upd-alt,'
         'no-ref-golden+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy,'
         'no-ref-golden+no-upd-last+no-upd-alt,'
         'no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy>')


def encode(snd):
    """ref.yuv, ref.json and sent.ivf; returns [(bytes, key)] per frame."""
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstApp', '1.0')
    from gi.repository import GObject, Gst, GstApp  # noqa: F401
    Gst.init(None)

    def arr(xs):
        a = GObject.ValueArray.new(len(xs))
        for x in xs:
            v = GObject.Value()
            v.init(GObject.TYPE_INT)
            v.set_int(x)
            a.append(v)
        return a
    p = Gst.parse_launch(
        f'videotestsrc num-buffers={N} pattern=ball ! video/x-raw,format=I420,width={W},height={H},'
        f'framerate={FPS}/1 ! tee name=t ! queue ! filesink location={snd}/ref.yuv '
        't. ! queue ! vp8enc name=enc deadline=1 cpu-used=8 threads=1 end-usage=cbr '
        'target-bitrate=300000 keyframe-max-dist=20 error-resilient=default ! appsink name=out sync=false')
    enc = p.get_by_name('enc')
    enc.set_property('temporal-scalability-number-layers', 3)
    enc.set_property('temporal-scalability-periodicity', 4)
    enc.set_property('temporal-scalability-layer-id', arr(PATTERN))
    enc.set_property('temporal-scalability-rate-decimator', arr([4, 2, 1]))
    enc.set_property('temporal-scalability-target-bitrate', arr([75000, 150000, 300000]))
    Gst.util_set_object_arg(enc, 'temporal-scalability-layer-flags', FLAGS)
    Gst.util_set_object_arg(enc, 'temporal-scalability-layer-sync-flags', '<false,true,true,false>')
    out = p.get_by_name('out')
    p.set_state(Gst.State.PLAYING)
    frames = []
    while True:
        s = out.try_pull_sample(10 * Gst.SECOND)
        if s is None:
            break
        b = s.get_buffer()
        ok, m = b.map(Gst.MapFlags.READ)
        frames.append((bytes(m.data), not b.has_flags(Gst.BufferFlags.DELTA_UNIT)))
        b.unmap(m)
    p.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    with open(os.path.join(snd, 'sent.ivf'), 'wb') as f:
        f.write(b'DKIF' + struct.pack('<HH4sHHIIII', 0, 32, b'VP80', W, H, FPS, 1, len(frames), 0))
        for i, (b, _k) in enumerate(frames):
            f.write(struct.pack('<IQ', len(b), i) + b)
    with open(os.path.join(snd, 'ref.json'), 'w') as f:
        f.write(f'{{"width": {W}, "height": {H}, "fps_n": {FPS}, "fps_d": 1, "format": "I420", '
                f'"frames": {N}}}')
    return frames


def make_run(run):
    snd = os.path.join(run, 'sender')
    os.makedirs(snd)
    frames = encode(snd)
    g = [100 + i / FPS for i in range(N)]
    with open(os.path.join(snd, 'sd.txt'), 'w') as f:
        for i, (b, key) in enumerate(frames):
            f.write(f'{g[i]:.6f} id {i} udp {len(b) + 12} {i} {"I" if key else "P"} layer {PATTERN[i % 4]}\n')
    half = 0.5 / FPS
    rxs = {'l1': ([], lambda i, t: 1, ()), 'l2': ([(99.0, 1, 2)], lambda i, t: 2, ()),
           'l3': ([(99.0, 1, 3)], lambda i, t: 3, ()), 'lost': ([(99.0, 1, 3)], lambda i, t: 3, (8,)),
           'sw': ([(g[9] + 0.01 + half, 1, 3), (g[29] + 0.01 + half, 3, 1)],
                  lambda i, t: 3 if 9 < i < 30 else 1, ()),
           # two layers added at once after frame 10 (layer 1): frame 11 (layer 2) references
           # frame 10, which this receiver never had
           'jump': ([(g[10] + 0.01 + half, 1, 3)], lambda i, t: 3 if i > 10 else 1, ())}
    for name, (changes, level, lose) in rxs.items():
        d = os.path.join(run, f'rx-{name}')
        os.makedirs(d)
        with open(os.path.join(d, 'rd.txt'), 'w') as f:
            for i, (b, _k) in enumerate(frames):
                L = PATTERN[i % 4]
                if L < level(i, g[i]) and i not in lose:
                    f.write(f'{g[i] + 0.01:.6f} id {i} udp {len(b) + 12} layer {L}\n')
        with open(os.path.join(d, 'layers.csv'), 'w') as f:
            f.write('time_s,from,to\n' + ''.join(f'{t:.6f},{a},{b}\n' for t, a, b in changes))
    return frames


def video(build, tmp):
    run = os.path.join(tmp, 'video')
    frames = make_run(run)
    check(len(frames) == N and frames[0][1] and frames[20][1] and not any(k for _b, k in frames[1:20]),
          f'the clip: {len(frames)} frames, key frames 0 and 20')
    r = T.run([T.tool(build, 'evalvid-run'), '--no-plots', run], ok=False)
    if not check(r.returncode == 0, f'evalvid-run on the VP8 run exits 0: {r.stderr[-2000:]}'):
        return
    rep = os.path.join(run, 'report')
    rc = {x['receiver']: x for x in T.read_csv(os.path.join(rep, 'receivers.csv'))}
    enc = T.read_csv(os.path.join(rep, 'encoded.psnr.csv'))
    for name, k, shown in (('l1', 1, 10), ('l2', 2, 20), ('l3', 3, 40)):
        lv = T.read_csv(os.path.join(rep, f'{name}.levels.csv'))
        check(len(lv) == 1 and lv[0]['level'] == str(k), f'{name}: held {k} layers all along')
        x = lv[0]
        # level k shows layers < k: 10, 20, 40 of the 40 frames, each exactly the loss-free picture
        check((x['expected_frames'], x['displayed_frames'], x['identical_frames'], x['decode_errors'],
               x['frozen_slots']) == (str(shown), str(shown), str(shown), '0', '0'),
              f'{name}: {shown} frames displayed, all identical to the loss-free decode, none frozen: {x}')
        near(float(x['fps_displayed']), FPS * shown / N, 1e-6, f'{name}: fps displayed')
        near(float(x['fps_nominal']), FPS * shown / N, 1e-6, f'{name}: fps nominal')
        fr = T.read_csv(os.path.join(rep, f'{name}.frames.csv'))
        ps = T.read_csv(os.path.join(rep, f'{name}.psnr.csv'))
        # a slot showing its own frame has the encoded stream's MSE for it; a repeat differs
        own = [i for i in range(N) if fr[i]['shown'] == str(i)]
        check(len(ps) == N and len(own) == shown and all(ps[i]['mse_y'] == enc[i]['mse_y'] for i in own),
              f'{name}: displayed frames have the encoded stream\'s per-frame MSE')
        check(all(ps[i]['mse_y'] != enc[i]['mse_y'] for i in range(N) if i not in own),
              f'{name}: repeated slots do not')
    near(float(rc['l3']['psnr_mean_db_y']), sum(float(e['psnr_y']) for e in enc) / N, 1e-2,
         'l3: PSNR = the encoded stream\'s')
    check(float(rc['l1']['psnr_mean_db_y']) < float(rc['l3']['psnr_mean_db_y']),
          'l1 (7.5 fps, repeats) scores below l3')
    lost = rc['lost']
    # frame 8 lost: slot 8 frozen (frame 7 stays); frames 9-19 decode from a wrong reference
    # (impaired by the loss, not decoding errors); from key frame 20 on identical again
    check((lost['slots_frozen'], lost['frames_decode_errors']) == ('1.0', '0.0'),
          f'lost: 1 frozen slot, no decoding error ({lost["slots_frozen"]}, {lost["frames_decode_errors"]})')
    fr = T.read_csv(os.path.join(rep, 'lost.frames.csv'))
    check([x['frame'] for x in fr if x['frozen'] == '1'] == ['8'], 'lost: slot 8 frozen')
    check(all(x['clean'] == '0' for x in fr[9:20]) and all(x['identical'] == '1' for x in fr[20:]) and
          all(x['identical'] == '1' for x in fr[:8]), 'lost: 9-19 not clean, 0-7 and 20-39 identical')
    check(0 < float(lost['frames_impaired_by_loss']) <= 11, f'lost: impaired {lost["frames_impaired_by_loss"]}')
    sw = rc['sw']
    fr = T.read_csv(os.path.join(rep, 'sw.frames.csv'))
    # 1 layer for frames 0-9 and 30-39 (frames 0 4 8 and 32 36 shown), 3 for 10-29 (every frame):
    # the add and the drop change the frame rate and freeze nothing
    check([x['frame'] for x in fr if x['shown'] == x['frame']] ==
          [str(i) for i in [0, 4, 8] + list(range(10, 30)) + [32, 36]], 'sw: frames displayed')
    check((sw['slots_frozen'], sw['frames_decode_errors'], sw['frames_identical'], sw['layer_changes'])
          == ('0.0', '0.0', '25.0', '2.0'), f'sw: no freeze, no decoding error, 25 identical frames')
    lv = {x['level']: x for x in T.read_csv(os.path.join(rep, 'sw.levels.csv'))}
    check((lv['1']['slots'], lv['1']['displayed_frames'], lv['3']['slots'], lv['3']['displayed_frames'])
          == ('20', '5', '20', '20'), 'sw: 20 slots at each level, 5 and 20 frames displayed')
    j = rc['jump']
    fr = T.read_csv(os.path.join(rep, 'jump.frames.csv'))
    # frames 0 4 8 at one layer, every frame from 11 on; frame 11 is the only one that may differ
    # from the loss-free picture, and if it does it is for its reference not held (frame 10)
    check([x['frame'] for x in fr if x['shown'] == x['frame']] == [str(i) for i in [0, 4, 8] + list(range(11, 40))],
          'jump: frames displayed')
    check(j['frames_decode_errors'] == '0.0' and j['frames_impaired_by_loss'] == '0.0' and
          float(j['frames_refs_not_held']) + float(j['frames_identical']) == 32 and
          all(x['identical'] == '1' for x in fr[12:]),
          f'jump: no decoding error, frame 11 at most impaired by its reference not held '
          f'({j["frames_refs_not_held"]}, {j["frames_identical"]} identical)')

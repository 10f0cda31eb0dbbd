#!/usr/bin/python3
"""Video tests of the evalvid reconstruction: a clip encoded at test time (176x144, 75 frames,
key frame every 25), known losses and delays injected into the receiver dumps; checks what each
receiver displayed against the real decode, frame by frame, and the whole-run report."""
import json, os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evtest as T  # noqa: E402
from evtest import check, near  # noqa: E402
import mkrun  # noqa: E402

W, H, N, FPS, KEYINT = 176, 144, 75, 25, 25
FB = W * H * 3 // 2
LOST = 30                      # a P frame in the second GOP (key frames 0, 25, 50)
LATE = (40, 41, 42)            # + 160 ms on top of the 20 ms base delay, play-out delay 150 ms
PD_MS = 150
EXTRA = 0.160


def rebuild(build, run, rx, out, pd=None, csv=None):
    cmd = [T.tool(build, 'evalvid-rebuild'), '--sd', f'{run}/sender/sd.txt', '--h264', f'{run}/sender/sent.h264',
           '--ref-json', f'{run}/sender/ref.json', '-o', out]
    if rx:
        cmd += ['--rd', f'{run}/rx-{rx}/rd.txt']
    if pd is not None:
        cmd += ['--playout-delay', pd]
    if csv:
        cmd += ['--frames-csv', csv]
    T.run(cmd)
    return T.frames_of(out, FB)


def psnr_y(build, ref, dist, out):
    T.run([T.tool(build, 'psnr'), '-s', f'{W}x{H}', '-o', out, ref, dist])
    return [float(r['psnr_y']) for r in T.read_csv(out)]


def main(build):
    tmp = tempfile.mkdtemp(prefix='evalvid-video-')
    try:
        run = os.path.join(tmp, 'run')
        mkrun.make_run(build, run, W, H, N, FPS, KEYINT, receivers={
            'clean': {},
            'loss': {'lose': {LOST}},
            'idr': {'lose': {KEYINT}},
            'hdr': {'lose_hdr': {LOST}},
            'hdr0': {'lose_hdr': {0}},
            'late': {'extra_delay': {f: EXTRA for f in LATE}, 'duplicate': {5}, 'reorder': True},
        })
        ref = f'{run}/sender/ref.yuv'

        # the lossless rebuild is exactly FFmpeg's own decode of the stream: alignment is right
        ll = rebuild(build, run, None, f'{tmp}/ll.yuv')
        T.run(['ffmpeg', '-v', 'error', '-i', f'{run}/sender/sent.h264', '-f', 'rawvideo', f'{tmp}/ff.yuv'])
        check(ll == T.frames_of(f'{tmp}/ff.yuv', FB), 'lossless rebuild == ffmpeg decode')
        check(len(ll) == N, f'rebuilt video has {N} frames')
        clean = rebuild(build, run, 'clean', f'{tmp}/clean.yuv')
        check(clean == ll, 'a receiver without loss displays the lossless decode')
        p_clean = psnr_y(build, ref, f'{tmp}/clean.yuv', f'{tmp}/clean.csv')

        # one lost packet of P frame 30: frame loss, freeze at its slot, errors until frame 50
        r = T.run([T.tool(build, 'evalvid-frames'), '--sd', f'{run}/sender/sd.txt', '--rd', f'{run}/rx-loss/rd.txt',
                   '--summary', f'{tmp}/loss.sum.csv'])
        s = T.read_csv(f'{tmp}/loss.sum.csv')[0]
        check(s['frames_lost'] == '1' and s['frames_lost_P'] == '1' and s['frames_lost_I'] == '0',
              f'one P frame lost: {s}')
        check(s['packets_lost'] == '1', 'one packet lost')
        near(float(s['frame_loss_pct']), 100 / N, 1e-3, 'frame loss %')
        loss = rebuild(build, run, 'loss', f'{tmp}/loss.yuv', csv=f'{tmp}/loss.frames.csv')
        check(len(loss) == N, 'loss: as many frames as sent')
        p_loss = psnr_y(build, ref, f'{tmp}/loss.yuv', f'{tmp}/loss.csv')
        check(all(loss[i] == clean[i] for i in range(LOST)), 'frames before the loss are unaffected')
        check(all(p_loss[i] == p_clean[i] for i in range(LOST)), 'PSNR before the loss unchanged')
        check(loss[LOST] == clean[LOST - 1], 'the lost frame\'s slot repeats the previous frame')
        check(all(p_loss[i] < p_clean[i] for i in range(LOST, 50)),
              'PSNR lower from the loss until the next key frame: ' +
              ' '.join(f'{p_loss[i]:.1f}/{p_clean[i]:.1f}' for i in range(LOST, 50)))
        check(all(loss[i] == clean[i] for i in range(50, N)), 'the key frame at 50 ends the error')
        fr = T.read_csv(f'{tmp}/loss.frames.csv')
        check(fr[LOST]['status'] == 'lost' and fr[LOST]['shown'] == str(LOST - 1), 'frames.csv: lost, shows 29')
        check(all(fr[i]['decoded'] == '1' for i in range(LOST + 1, N)), 'frames after the loss decode')

        # a lost key frame: the whole GOP suffers (the decoder has no reference), the next key frame heals
        idr = rebuild(build, run, 'idr', f'{tmp}/idr.yuv', csv=f'{tmp}/idr.frames.csv')
        p_idr = psnr_y(build, ref, f'{tmp}/idr.yuv', f'{tmp}/idr.csv')
        fr = T.read_csv(f'{tmp}/idr.frames.csv')
        check(fr[KEYINT]['type'] == 'I' and fr[KEYINT]['status'] == 'lost', 'frame 25 is a lost key frame')
        check(all(idr[i] == clean[i] for i in range(KEYINT)) and all(idr[i] == clean[i] for i in range(2 * KEYINT, N)),
              'key-frame loss: frames outside its GOP unaffected')
        check(all(p_idr[i] < p_clean[i] for i in range(KEYINT, 2 * KEYINT)), 'key-frame loss: the whole GOP is worse')

        # lost header-only packets (SPS/PPS/SEI/AUD): the frame is complete and decodes with the
        # parameter sets the decoder has; at frame 0 it has none, so nothing shows until key frame 25
        hdr = rebuild(build, run, 'hdr', f'{tmp}/hdr.yuv', csv=f'{tmp}/hdr.frames.csv')
        fr = T.read_csv(f'{tmp}/hdr.frames.csv')
        check(fr[LOST]['status'] == 'ok' and fr[LOST]['hdr_lost'] == '1', 'header loss: frame complete, hdr_lost')
        check(hdr == clean, 'header loss after the first key frame changes no picture')
        hdr0 = rebuild(build, run, 'hdr0', f'{tmp}/hdr0.yuv', csv=f'{tmp}/hdr0.frames.csv')
        fr = T.read_csv(f'{tmp}/hdr0.frames.csv')
        check(fr[0]['status'] == 'ok' and fr[0]['decoded'] == '0' and fr[0]['shown'] == '-1',
              'frame 0 without its parameter sets does not decode')
        black = bytes([16]) * (W * H) + bytes([128]) * (W * H // 2)
        check(all(hdr0[i] == black for i in range(KEYINT)) and all(hdr0[i] == clean[i] for i in range(KEYINT, N)),
              'black until the next key frame brings parameter sets, then the clean pictures')

        # the SPS and PPS in header packets of their own (rtph264pay config-interval=-1): losing
        # frame 0's delimiter-sized packet keeps the parameter sets that arrived, so frame 0
        # decodes; losing every header packet still leaves the decoder without them
        run2 = os.path.join(tmp, 'run2')
        mkrun.make_run(build, run2, W, H, N, FPS, KEYINT, param_sets=True, receivers={
            'small0': {'lose_small_hdr': {0}}, 'hdr0': {'lose_hdr': {0}}})
        ps = rebuild(build, run2, 'small0', f'{tmp}/small0.yuv', csv=f'{tmp}/small0.frames.csv')
        fr = T.read_csv(f'{tmp}/small0.frames.csv')
        check(fr[0]['hdr_lost'] == '1' and fr[0]['decoded'] == '1' and fr[0]['shown'] == '0',
              'a lost delimiter packet does not drop the parameter sets that arrived')
        check(ps == clean, 'with the SPS/PPS packets received, every picture is the clean one')
        ps0 = rebuild(build, run2, 'hdr0', f'{tmp}/ps0.yuv')
        check(all(ps0[i] == black for i in range(KEYINT)), 'every header packet lost: black until key frame 25')

        # play-out schedule with 150 ms: 40 late and shown at slot 41, 41 at 42, 42 never shown
        late = rebuild(build, run, 'late', f'{tmp}/late.yuv', pd=PD_MS, csv=f'{tmp}/late.frames.csv')
        fr = T.read_csv(f'{tmp}/late.frames.csv')
        check([fr[i]['status'] for i in (39, 40, 41, 42, 43)] == ['ok', 'late', 'late', 'late', 'ok'],
              'statuses around the delayed frames')
        check([fr[i]['shown'] for i in (39, 40, 41, 42, 43)] == ['39', '39', '40', '41', '43'],
              'shown: freeze, late frame replaces it on arrival, 42 overtaken by 43')
        check(late[40] == clean[39] and late[41] == clean[40] and late[42] == clean[41] and late[43] == clean[43],
              'displayed pictures follow the schedule')
        check(all(late[i] == clean[i] for i in range(N) if i not in LATE), 'other slots unaffected')
        s = T.run([T.tool(build, 'evalvid-frames'), '--sd', f'{run}/sender/sd.txt', '--rd', f'{run}/rx-late/rd.txt',
                   '--playout-delay', PD_MS, '--summary', f'{tmp}/late.sum.csv'])
        s = T.read_csv(f'{tmp}/late.sum.csv')[0]
        check(s['frames_late'] == '3' and s['frames_never_shown'] == '1' and s['frames_lost'] == '0',
              f'late summary {s["frames_late"]} {s["frames_never_shown"]}')
        pk5 = sum(1 for l in open(f'{run}/sender/sd.txt') if l.split()[5] == '5')
        check(s['duplicates'] == str(pk5), 'duplicates counted, not as extra packets')
        # packet j of a frame leaves j * 0.1 ms after its first: frame delay = base + extra + (k - 1) * 0.1 ms
        npk = {}
        for l in open(f'{run}/sender/sd.txt'):
            npk[int(l.split()[5])] = npk.get(int(l.split()[5]), 0) + 1
        kl = max(npk[f] for f in LATE)
        near(float(s['delay_max_s']), mkrun.BASE_DELAY + EXTRA + (kl - 1) * 1e-4, 1e-5, 'max delay')
        # eq. 4 telescopes: CJ_k = delay_k - delay_0
        near(float(s['cumjitter_max_s']), EXTRA + (kl - 1) * 1e-4 - (npk[0] - 1) * 1e-4, 1e-5,
             'max cumulative jitter (eq. 4)')
        # no play-out limit: every frame is shown at its own slot, even the late ones
        nolimit = rebuild(build, run, 'late', f'{tmp}/late2.yuv')
        check(nolimit == clean, 'without play-out delay, delay alone changes nothing')

        # 10-bit stream (High 10): the decode path keeps the depth and the alignment
        r10 = os.path.join(tmp, 'r10', 'sender')
        os.makedirs(r10)
        T.run(['ffmpeg', '-v', 'error', '-f', 'lavfi', '-i', f'testsrc2=size={W}x{H}:rate={FPS}', '-frames:v', '20',
               '-pix_fmt', 'yuv420p10le', '-c:v', 'libx264', '-profile:v', 'high10', '-bf', '0', '-g', '10',
               '-crf', '30', '-f', 'h264', f'{r10}/sent.h264'])
        with open(f'{r10}/ref.json', 'w') as f:
            json.dump({'width': W, 'height': H, 'format': 'I420_10LE'}, f)
        mkrun.make_sd(build, r10, FPS)
        T.run([T.tool(build, 'evalvid-rebuild'), '--sd', f'{r10}/sd.txt', '--h264', f'{r10}/sent.h264',
               '--ref-json', f'{r10}/ref.json', '-o', f'{tmp}/ll10.yuv'])
        T.run(['ffmpeg', '-v', 'error', '-i', f'{r10}/sent.h264', '-f', 'rawvideo', '-pix_fmt', 'yuv420p10le',
               f'{tmp}/ff10.yuv'])
        check(T.frames_of(f'{tmp}/ll10.yuv', 2 * FB) == T.frames_of(f'{tmp}/ff10.yuv', 2 * FB) and
              os.path.getsize(f'{tmp}/ll10.yuv') == 20 * 2 * FB, '10-bit lossless rebuild == ffmpeg decode')

        # the whole run: 3 receivers, one competing flow, bottleneck from meta.json
        os.makedirs(f'{run}/flows')
        with open(f'{run}/flows/tcp.csv', 'w') as f:
            f.write('time_s,bytes\n' + ''.join(f'{t},{25000}\n' for t in range(3)))   # 200 kbit/s
        with open(f'{run}/meta.json', 'w') as f:
            json.dump({'scenario': 'test', 'protocol': 'asmp', 'bottleneck_bps': 1000000}, f)
        r = T.run([T.tool(build, 'evalvid-run'), '--playout-delay', PD_MS, run], ok=False)
        check(r.returncode == 0, f'evalvid-run exit {r.returncode}: {r.stderr[-500:]}')
        print(r.stdout)
        for name in ('clean', 'loss', 'late'):
            check(any(l.startswith(name + ' ') for l in r.stdout.splitlines()), f'stdout row for {name}')
        check('[evalvid-run]' in r.stderr, 'progress on stderr')
        rep = f'{run}/report'
        for p in ('report.md', 'receivers.csv', 'fairness.csv', 'rate.png', 'psnr.png', 'mos.png', 'delay.png',
                  'cumjitter.png', 'loss.frames.csv', 'loss.psnr.csv', 'loss.rate.csv'):
            check(os.path.isfile(f'{rep}/{p}'), f'report/{p} written')
        check(not os.path.exists(f'{rep}/work'), 'scratch videos removed')
        rows = {x['receiver']: x for x in T.read_csv(f'{rep}/receivers.csv')}
        near(float(rows['loss']['frame_loss_pct']), 100 / N, 1e-3, 'report: frame loss of "loss"')
        near(float(rows['loss']['psnr_mean_db_y']), sum(p_loss) / N, 1e-3, 'report: mean PSNR of "loss"')
        check(float(rows['late']['frames_late']) == 3, 'report: late frames with --playout-delay')
        check(float(rows['clean']['freezes']) == 0 and float(rows['clean']['freeze_max_s']) == 0,
              'report: no freeze on the clean receiver')
        lf = rows['loss']
        check(float(lf['freezes']) >= 1 and 0 < float(lf['freeze_p95_s']) <= float(lf['freeze_max_s'])
              <= float(lf['frozen_s']), f'report: the lost frame froze the picture ({lf["freezes"]} '
              f'freezes, max {lf["freeze_max_s"]} s, total {lf["frozen_s"]} s)')
        sdl = [l.split() for l in open(f'{run}/sender/sd.txt')]
        span = float(sdl[-1][0]) - float(sdl[0][0])
        near(float(rows['clean']['throughput_bps']), 8 * sum(int(l[4]) for l in sdl) / span, 1.0,
             'throughput of a lossless receiver = sent bytes over the send span')
        thr = [float(rows[n]['throughput_bps']) for n in sorted(rows)] + [200000.0]
        jain = sum(thr) ** 2 / (len(thr) * sum(x * x for x in thr))
        fair = {x['name']: x for x in T.read_csv(f'{rep}/fairness.csv')}
        near(float(fair['all']['throughput_bps']), jain, 1e-3, "Jain's index")
        near(float(fair['tcp']['fair_share_pct']), 100 * 200000 / (1000000 / 2), 1e-3, 'flow share of fair bandwidth')
        near(float(rows['clean']['fair_share_pct']), 100 * float(rows['clean']['throughput_bps']) / 500000, 1e-2,
             'receiver share of fair bandwidth')
        # the testbed's per-path fair shares (meta.json fair_share) take precedence
        with open(f'{run}/meta.json', 'w') as f:
            json.dump({'fair_share': {'receivers': {'clean': {'fair_share_bps': 100000}},
                                      'flows': {'tcp': {'fair_share_bps': 400000}}}}, f)
        r = T.run([T.tool(build, 'evalvid-run'), '--no-plots', run], ok=False)
        check(r.returncode == 0, 'evalvid-run with meta fair_share')
        rows = {x['receiver']: x for x in T.read_csv(f'{rep}/receivers.csv')}
        fair = {x['name']: x for x in T.read_csv(f'{rep}/fairness.csv')}
        near(float(rows['clean']['fair_share_pct']), 100 * float(rows['clean']['throughput_bps']) / 100000, 1e-2,
             'receiver share from meta fair_share')
        near(float(fair['tcp']['fair_share_pct']), 50.0, 1e-3, 'flow share from meta fair_share')
        check(rows['loss']['fair_share_pct'] == '', 'no fair share without a bottleneck for that receiver')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))

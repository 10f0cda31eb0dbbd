#!/usr/bin/python3
"""evalvid-run on a simulcast (ASSP) run directory built at test time: two streams of one clip
(88x72 and 176x144, 75 frames, key frame every 25), receivers that switch from stream 0 to
stream 1 at frame 25. Checks what each receiver displayed slot by slot against an independent
decode (FFmpeg) of each stream scaled to the display size, the stream column, the time on each
stream, frame loss and freezes after a switch (also when the switch's key frame is lost), the fallback without switches.csv, and that a
single-stream run's table has no stream column."""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evtest as T  # noqa: E402
from evtest import check, near  # noqa: E402
import mkrun  # noqa: E402

SIZES = ((88, 72), (176, 144))
N, FPS, KEYINT, SW = 75, 25, 25, 25    # the switch to stream 1 at its key frame 25
JOIN, LEAVE = 20, 29                   # stream 1 joined ahead from frame 20, stream 0 left after 29
LOST = 30                              # a P frame of stream 1 lost by receiver 'loss'
FB = SIZES[1][0] * SIZES[1][1] * 3 // 2


def make_simulcast(build, run):
    snd = os.path.join(run, 'sender')
    pkts = []
    for k, (w, h) in enumerate(SIZES):
        d = os.path.join(snd, f'stream{k}')
        mkrun.make_video(d, w, h, N, FPS, KEYINT)
        mkrun.SSRC = 0x1000 + k             # one SSRC per stream, as asspsimulcast's sinks
        pkts.append(mkrun.make_sd(build, d, FPS))
        if k == len(SIZES) - 1:             # the display reference: the top stream's source
            os.replace(os.path.join(d, 'ref.yuv'), os.path.join(snd, 'ref.yuv'))
            os.replace(os.path.join(d, 'ref.json'), os.path.join(snd, 'ref.json'))
        else:
            os.remove(os.path.join(d, 'ref.yuv'))
            os.remove(os.path.join(d, 'ref.json'))
    with open(os.path.join(run, 'meta.json'), 'w') as f:
        json.dump({'scenario': 'test', 'protocol': 'assp', 'streams': [
            {'width': w, 'height': h, 'min_bps': 0, 'max_bps': 0} for w, h in SIZES]}, f)
    t_sw = next(p[0] for p in pkts[1] if p[3] == SW) + mkrun.BASE_DELAY
    for name, lose, switches in (('sw', (), True), ('loss', {LOST}, True), ('nosw', (), False),
                                 ('keylost', {SW}, True)):
        rx = os.path.join(run, f'rx-{name}')
        mkrun.make_rd(os.path.join(rx, 'stream0', 'rd.txt'), [p for p in pkts[0] if p[3] <= LEAVE])
        mkrun.make_rd(os.path.join(rx, 'stream1', 'rd.txt'), [p for p in pkts[1] if p[3] >= JOIN],
                      lose=lose)
        if switches:
            with open(os.path.join(rx, 'switches.csv'), 'w') as f:
                f.write(f'time_s,from,to,decided_s,gap_s\n{t_sw:.6f},0,1,{t_sw - 0.3:.6f},0.3\n')


def expected_display(tmp, run):
    """Stream k decoded by FFmpeg, scaled to the display size by videoscale (bilinear)."""
    out = []
    for k, (w, h) in enumerate(SIZES):
        raw, big = f'{tmp}/s{k}.yuv', f'{tmp}/s{k}.big.yuv'
        T.run(['ffmpeg', '-v', 'error', '-i', f'{run}/sender/stream{k}/sent.h264', '-f', 'rawvideo',
               '-pix_fmt', 'yuv420p', raw])
        if (w, h) == SIZES[-1]:
            shutil.copyfile(raw, big)
        else:
            T.run(['gst-launch-1.0', '-q', 'filesrc', f'location={raw}', '!', 'rawvideoparse',
                   f'width={w}', f'height={h}', 'format=i420', f'framerate={FPS}/1', '!',
                   'videoscale', 'method=bilinear', '!',
                   f'video/x-raw,width={SIZES[-1][0]},height={SIZES[-1][1]}', '!', 'filesink',
                   f'location={big}'])
        out.append(T.frames_of(big, FB))
    return out


def main(build):
    tmp = tempfile.mkdtemp(prefix='evalvid-simulcast-')
    try:
        run = os.path.join(tmp, 'run')
        make_simulcast(build, run)
        r = T.run([T.tool(build, 'evalvid-run'), '--keep-video', '--no-plots', run])
        rep = os.path.join(run, 'report')
        exp = expected_display(tmp, run)
        check(len(exp[0]) == N and len(exp[1]) == N, 'each stream decodes to 75 frames')

        sw = T.frames_of(f'{rep}/work/sw.yuv', FB)
        check(len(sw) == N, f'sw displayed {len(sw)} frames')
        check(sw[:SW] == exp[0][:SW], 'sw: slots 0-24 are stream 0 scaled to 176x144')
        check(sw[SW:] == exp[1][SW:], 'sw: slots 25-74 are stream 1 (from its key frame on)')
        fr = {n: T.read_csv(f'{rep}/{n}.frames.csv') for n in ('sw', 'loss', 'nosw', 'keylost')}
        check([x['stream'] for x in fr['sw']] == ['0'] * SW + ['1'] * (N - SW),
              'sw: stream column 0 until the switch frame, then 1')
        check(all(x['shown'] == x['frame'] for x in fr['sw']), 'sw: no frozen slot')
        rows = {x['receiver']: x for x in T.read_csv(f'{rep}/receivers.csv')}
        s = rows['sw']
        check(s['stream_final'] == '1.0' and s['switches'] == '1.0', f'sw: final stream 1, 1 switch ({s["stream_final"]}, {s["switches"]})')
        near(float(s['time_on_stream0_s']), SW / FPS, 1e-9, 'sw: s on stream 0')
        near(float(s['time_on_stream1_s']), (N - SW) / FPS, 1e-9, 'sw: s on stream 1')
        check(s['frames_lost'] == '0.0' and s['slots_frozen'] == '0.0', 'sw: nothing lost, nothing frozen')
        p = [float(x['psnr_y']) for x in T.read_csv(f'{rep}/sw.psnr.csv')]
        e0 = [float(x['psnr_y']) for x in T.read_csv(f'{rep}/encoded0.psnr.csv')]
        e1 = [float(x['psnr_y']) for x in T.read_csv(f'{rep}/encoded1.psnr.csv')]
        check(p[:SW] == e0[:SW] and p[SW:] == e1[SW:],
              'sw: per-frame PSNR = the encoded stream 0 before the switch, stream 1 after')
        check(sum(e0) / N < sum(e1) / N - 3, f'scaled-up stream 0 is worse than stream 1 '
              f'({sum(e0) / N:.2f} vs {sum(e1) / N:.2f} dB)')

        lo = T.frames_of(f'{rep}/work/loss.yuv', FB)
        lr = rows['loss']
        check(lr['frames_lost'] == '1.0' and lr['frames_lost_P'] == '1.0',
              f'loss: one P frame lost ({lr["frames_lost"]})')
        check(fr['loss'][LOST]['status'] == 'lost' and fr['loss'][LOST]['stream'] == '1',
              'loss: frame 30 lost on stream 1')
        check(lo[LOST] == lo[LOST - 1] and lo[:LOST] == sw[:LOST],
              'loss: slot 30 repeats slot 29, before it the same as sw')
        check(int(float(lr['slots_frozen'])) >= 1 and float(lr['freezes']) >= 1,
              f'loss: a freeze counted ({lr["slots_frozen"]} slots, {lr["freezes"]} freezes)')

        # the switch's key frame lost: stream 1 shows nothing decodable until its next key frame
        # (50); the display keeps stream 0's last picture (slot 24) meanwhile
        kl = T.frames_of(f'{rep}/work/keylost.yuv', FB)
        check(kl[:SW] == exp[0][:SW] and all(x == exp[0][SW - 1] for x in kl[SW:2 * KEYINT]),
              'keylost: slots 25-49 repeat stream 0\'s slot 24')
        check(kl[2 * KEYINT:] == exp[1][2 * KEYINT:], 'keylost: stream 1 from its key frame 50 on')
        kr = rows['keylost']
        near(float(kr['freeze_max_s']), KEYINT / FPS, 1e-6, 'keylost: one freeze of 25 slots')
        ns = [x['stream'] for x in fr['nosw']]
        check(ns == ['0'] * JOIN + ['1'] * (N - JOIN),
              'nosw (no switches.csv): the highest stream that delivered the frame (1 from 20)')
        check(' stream ' in r.stdout.splitlines()[1] and 'per stream: PSNR-Y 0:' in r.stdout,
              'the table has the stream column and the per-stream encoded PSNR')

        # a single-stream run's table is unchanged: no stream column
        one = os.path.join(tmp, 'one')
        mkrun.SSRC = 0x1234ABCD
        mkrun.make_run(build, one, receivers={'a': {}})
        r1 = T.run([T.tool(build, 'evalvid-run'), '--no-plots', one])
        check('stream' not in r1.stdout and 'switches' not in open(f'{one}/report/receivers.csv').readline(),
              'single-stream run: no stream column')
        # a simulcast run without stream sizes in meta.json is refused clearly
        os.remove(os.path.join(run, 'meta.json'))
        r2 = T.run([T.tool(build, 'evalvid-run'), '--no-plots', run], ok=False)
        check(r2.returncode != 0 and 'stream sizes' in r2.stderr, f'no meta.json: {r2.stderr.strip()[-80:]}')
    except (RuntimeError, subprocess.SubprocessError, OSError) as e:
        check(False, f'exception: {e}')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))

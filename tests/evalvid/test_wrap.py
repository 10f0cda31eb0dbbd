#!/usr/bin/python3
"""The frame_num wrap of an intra-refresh stream in evalvid-rebuild's decode (issue 15): x264 with
intra-refresh=1 sends one IDR frame and then P frames whose frame_num wraps every 16 frames at
176x144 (log2_max_frame_num 4; frame_num 0 at frames 16, 32, 48, ...). libavcodec alone drops
the ~14 frames after a lost frame_num-0 frame as out of order; ev_decode puts lib/cc's h264fill
in front of it, as the receivers have gst's h264wrapfill, so every frame that arrived whole is
decoded, in both views (frozen and --conceal), whichever frames around it were lost too."""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evtest as T  # noqa: E402
from evtest import check  # noqa: E402
import mkrun  # noqa: E402

W, H, N, FPS, KEYINT = 176, 144, 100, 25, 25
FB = W * H * 3 // 2
CASES = {'wrap': {48}, 'before': {47, 48}, 'after': {48, 49}, 'other': {50}}


def rebuild(build, run, rx, out, conceal=False):
    cmd = [T.tool(build, 'evalvid-rebuild'), '--sd', f'{run}/sender/sd.txt', '--h264',
           f'{run}/sender/sent.h264', '--ref-json', f'{run}/sender/ref.json', '-o', out]
    if rx:
        cmd += ['--rd', f'{run}/rx-{rx}/rd.txt', '--frames-csv', f'{out}.csv']
    if conceal:
        cmd += ['--conceal']
    T.run(cmd)
    return T.read_csv(f'{out}.csv') if rx else T.frames_of(out, FB)


def main(build):
    tmp = tempfile.mkdtemp(prefix='evalvid-wrap-')
    try:
        run = os.path.join(tmp, 'run')
        mkrun.make_run(build, run, W, H, N, FPS, KEYINT, x264_params='intra-refresh=1',
                       receivers={k: {'lose': v} for k, v in CASES.items()})
        # the stream really wraps: one IDR frame only (sd.txt's frame types)
        key = {line.split()[5] for line in open(f'{run}/sender/sd.txt') if line.split()[6:7] == ['I']}
        check(key == {'0'}, f'I frames: {sorted(key)}')
        # without loss the filler changes nothing: the lossless rebuild is FFmpeg's decode
        ll = rebuild(build, run, None, f'{tmp}/ll.yuv')
        T.run(['ffmpeg', '-v', 'error', '-i', f'{run}/sender/sent.h264', '-f', 'rawvideo', f'{tmp}/ff.yuv'])
        check(ll == T.frames_of(f'{tmp}/ff.yuv', FB) and len(ll) == N, 'lossless rebuild == ffmpeg decode')
        for rx, lost in CASES.items():
            for conceal in (False, True):
                rows = rebuild(build, run, rx, f'{tmp}/{rx}{int(conceal)}.yuv', conceal)
                check(len(rows) == N, f'{rx}: {len(rows)} rows')
                dropped = [int(r['frame']) for r in rows
                           if r['status'] == 'ok' and r['decoded'] == '0']
                check(not dropped, f'{rx} (lost {sorted(lost)}, conceal={conceal}): frames that '
                      f'arrived whole and were not decoded: {dropped}')
                check(all(r['decoded'] == '0' for r in rows if int(r['frame']) in lost) or conceal,
                      f'{rx}: the lost frames count as not decoded')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))

#!/usr/bin/python3
"""The concealed view of evalvid-run (docs/evalvid.md, "Two views"): a clip encoded at test time
(176x144, 75 frames, key frame every 25, two slices per frame) sent in RTP packets of at most 300
bytes, so a P frame takes 2-3 packets and a key frame about 11; receivers lose one picture packet
of a P frame, one of a key frame, or every picture packet of a P frame. Checks that the damaged
frames are fed and concealed, that the concealed view lies between the frozen view and the
loss-free decode where something arrived and equals the frozen view where nothing did, that a
lossless receiver gets identical views, the receivers.csv columns, the table and report, the
bytes fed against the FFmpeg command line, and clear errors for truncated or missing input."""
import os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evtest as T  # noqa: E402
from evtest import check  # noqa: E402
import mkrun  # noqa: E402

W, H, N, FPS, KEYINT, MTU = 176, 144, 75, 25, 25, 300
FB = W * H * 3 // 2
P_LOST, I_LOST = 30, 25        # a P frame of the second GOP and that GOP's key frame
RECEIVERS = {
    'clean': {},
    'p': {'lose_pic': {P_LOST: [1]}},            # 2nd picture packet of P frame 30
    'i': {'lose_pic': {I_LOST: [3]}},            # 4th picture packet of key frame 25
    'pall': {'lose_pic': {P_LOST: [0, 1, 2, 3]}},  # every picture packet of P frame 30
    # the damaged P frame 120 ms or 160 ms late: on time or late for a 150 ms play-out delay
    'pon': {'lose_pic': {P_LOST: [1]}, 'extra_delay': {P_LOST: 0.120}},
    'plate': {'lose_pic': {P_LOST: [1]}, 'extra_delay': {P_LOST: 0.160}},
}


def rebuild(build, run, rx, out, conceal, extra=()):
    cmd = [T.tool(build, 'evalvid-rebuild'), '--sd', f'{run}/sender/sd.txt', '--h264', f'{run}/sender/sent.h264',
           '--ref-json', f'{run}/sender/ref.json', '-o', out, '--rd', f'{run}/rx-{rx}/rd.txt']
    T.run(cmd + (['--conceal'] if conceal else []) + list(extra))
    return T.frames_of(out, FB)


def col(path, key='psnr_y'):
    return [float(r[key]) for r in T.read_csv(path)]


def main(build):
    tmp = tempfile.mkdtemp(prefix='evalvid-conceal-')
    try:
        run = os.path.join(tmp, 'run')
        pkts = mkrun.make_run(build, run, W, H, N, FPS, KEYINT, receivers=RECEIVERS, mtu=MTU)
        npic = {}
        for p in pkts:
            if p[4] != 'H':
                npic[p[3]] = npic.get(p[3], 0) + 1
        check(npic[P_LOST] >= 2 and npic[I_LOST] >= 4, f'packets per frame: P {npic[P_LOST]}, I {npic[I_LOST]}')
        check(npic[P_LOST] <= 4, 'pall loses every picture packet of the P frame')

        r = T.run([T.tool(build, 'evalvid-run'), run], ok=False)
        check(r.returncode == 0, f'evalvid-run exit {r.returncode}: {r.stderr[-800:]}')
        print(r.stdout)
        rep = f'{run}/report'
        rows = {x['receiver']: x for x in T.read_csv(f'{rep}/receivers.csv')}
        enc = col(f'{rep}/encoded.psnr.csv')

        # lossless: both views are the loss-free decode
        c = rows['clean']
        check(c['psnr_ec_db'] == c['psnr_mean_db_y'] and c['ssim_ec'] == c['ssim_mean_y']
              and c['mos_ec'] == c['mos_mean'], f'clean: identical views {c["psnr_ec_db"]} {c["psnr_mean_db_y"]}')
        check(c['slots_concealed_ec'] == '0' and c['slots_impaired_ec'] == '0' and c['slots_impaired'] == '0'
              and c['slots_frozen_ec'] == '0' and c['frames_damaged_fed'] == '0', f'clean: nothing impaired {c}')
        check(col(f'{rep}/clean.psnr_ec.csv') == enc, 'clean: concealed PSNR per frame = encoded')

        # one packet of P frame 30 or of key frame 25 lost: the frame is fed damaged and concealed
        for rx, k in (('p', P_LOST), ('i', I_LOST)):
            fed = T.read_csv(f'{rep}/{rx}.ec.csv')
            check(fed[k]['fed'] == 'partial' and fed[k]['decoded'] == '1' and fed[k]['shown'] == str(k),
                  f'{rx}: frame {k} fed damaged, decoded, shown at its slot: {fed[k]}')
            check(int(fed[k]['cut_bytes']) > 0 and int(fed[k]['fed_bytes']) > 0, f'{rx}: part of frame {k} cut')
            check(all(fed[j]['fed'] == 'whole' for j in range(N) if j != k), f'{rx}: every other frame whole')
            fz, ec = col(f'{rep}/{rx}.psnr.csv'), col(f'{rep}/{rx}.psnr_ec.csv')
            check(fz[k] < ec[k] < enc[k], f'{rx}: damaged frame {k}: frozen {fz[k]:.2f} < concealed {ec[k]:.2f} '
                  f'< loss-free {enc[k]:.2f}')
            # until the next key frame the concealed view is never below the frozen one and stays
            # below the loss-free decode (errors propagate through the references)
            check(all(fz[j] <= ec[j] < enc[j] for j in range(k, 2 * KEYINT)),
                  f'{rx}: frames {k}..49 frozen <= concealed < loss-free: ' +
                  ' '.join(f'{fz[j]:.1f}/{ec[j]:.1f}/{enc[j]:.1f}' for j in range(k, 2 * KEYINT)))
            check(all(ec[j] == enc[j] for j in list(range(k)) + list(range(2 * KEYINT, N))),
                  f'{rx}: before the loss and from key frame 50 on the concealed view is the loss-free decode')
            x = rows[rx]
            check(float(x['psnr_ec_db']) > float(x['psnr_mean_db_y']) and float(x['ssim_ec']) > float(x['ssim_mean_y']),
                  f'{rx}: mean PSNR/SSIM concealed > frozen: {x["psnr_ec_db"]} {x["psnr_mean_db_y"]}')
            check(x['frames_damaged_fed'] == '1' and x['slots_concealed_ec'] == '1' and x['slots_frozen_ec'] == '0'
                  and x['freezes_ec'] == '0' and x['freeze_max_ec_s'] == '0.0',
                  f'{rx}: one slot concealed, none frozen: {x}')
            check(x['slots_impaired_ec'] == str(2 * KEYINT - k) and x['slots_impaired'] == str(2 * KEYINT - k),
                  f'{rx}: slots {k}..49 impaired in both views: {x["slots_impaired"]} {x["slots_impaired_ec"]}')
        # the lost key frame freezes the frozen view for more than its own slot (the decoder drops
        # the P frames that follow until it can decode again) and not the concealed view
        check(int(rows['i']['slots_frozen_decoded']) > 1 and rows['p']['slots_frozen_decoded'] == '1',
              f'frozen view after the decode: i {rows["i"]["slots_frozen_decoded"]}, p {rows["p"]["slots_frozen_decoded"]}')
        check(abs(float(rows['i']['freeze_max_decoded_s']) - int(rows['i']['slots_frozen_decoded']) / FPS) < 1e-4,
              f'i: longest freeze = its slots x 40 ms: {rows["i"]["freeze_max_decoded_s"]}')

        # nothing of P frame 30 arrived: nothing to conceal, the two views are the same video
        fed = T.read_csv(f'{rep}/pall.ec.csv')
        check(fed[P_LOST]['fed'] == 'none' and fed[P_LOST]['shown'] == str(P_LOST - 1), f'pall: frame 30 not fed')
        fzv = rebuild(build, run, 'pall', f'{tmp}/pall.yuv', False)
        ecv = rebuild(build, run, 'pall', f'{tmp}/pall.ec.yuv', True)
        check(fzv == ecv and len(ecv) == N, 'pall: concealed video == frozen video')
        x = rows['pall']
        check(x['psnr_ec_db'] == x['psnr_mean_db_y'] and x['slots_concealed_ec'] == '0' and x['slots_frozen_ec'] == '1'
              and x['freeze_max_ec_s'] == '0.04', f'pall: same numbers, one frozen slot: {x}')

        # play-out: a damaged frame is shown from the arrival of its last packet that arrived
        # (20 + 120 ms <= 150 ms: at its slot; 20 + 160 ms > 150 ms: slot 31 already has frame 31)
        for rx, shown in (('pon', P_LOST), ('plate', P_LOST - 1)):
            rebuild(build, run, rx, f'{tmp}/{rx}.yuv', True, ['--playout-delay', '150',
                                                              '--conceal-csv', f'{tmp}/{rx}.ec.csv'])
            fed = T.read_csv(f'{tmp}/{rx}.ec.csv')
            check(fed[P_LOST]['fed'] == 'partial' and fed[P_LOST]['shown'] == str(shown)
                  and fed[P_LOST + 1]['shown'] == str(P_LOST + 1),
                  f'{rx}: slot 30 shows {fed[P_LOST]["shown"]} (want {shown}), slot 31 {fed[P_LOST + 1]["shown"]}')

        # a lossless receiver through --conceal is the plain rebuild, byte for byte
        check(rebuild(build, run, 'clean', f'{tmp}/c1.yuv', False) == rebuild(build, run, 'clean', f'{tmp}/c2.yuv', True),
              'clean: --conceal changes nothing')

        # the bytes fed for the damaged P frame, decoded by the FFmpeg command line on one thread,
        # give the same pictures (the same decoder); every frame was fed, so counting is safe here
        ecp = rebuild(build, run, 'p', f'{tmp}/p.ec.yuv', True, ['--fed-h264', f'{tmp}/p.fed.h264'])
        T.run(['ffmpeg', '-v', 'quiet', '-threads', '1', '-i', f'{tmp}/p.fed.h264', '-f', 'rawvideo',
               '-pix_fmt', 'yuv420p', f'{tmp}/p.ff.yuv'])
        check(ecp == T.frames_of(f'{tmp}/p.ff.yuv', FB), 'p: concealed view == ffmpeg -threads 1 of the bytes fed')
        check(os.path.getsize(f'{tmp}/p.fed.h264') == os.path.getsize(f'{run}/sender/sent.h264') -
              int(T.read_csv(f'{rep}/p.ec.csv')[P_LOST]['cut_bytes']), 'p: bytes fed = stream - bytes cut')
        ecp2 = rebuild(build, run, 'p', f'{tmp}/p.ec2.yuv', True)
        check(ecp2 == ecp, 'p: the concealed view is reproducible')

        # the table and the report show both views; the PSNR plot exists
        lines = r.stdout.splitlines()
        check('PSNR-EC' in lines[1] and 'MOS-EC' in lines[1] and 'conc' in lines[1], 'table header has the concealed view')
        prow = next((l for l in lines if l.startswith('p ')), '')
        check(f'{float(rows["p"]["psnr_ec_db"]):.2f}' in prow.split('|')[-1], f'table row p shows PSNR-EC: {prow}')
        md = open(f'{rep}/report.md').read()
        check('## Two views' in md and '| p | ' in md, 'report.md has the two views table')
        check(os.path.getsize(f'{rep}/psnr.png') > 0, 'psnr.png written')

        # --no-conceal: no concealed columns filled
        r = T.run([T.tool(build, 'evalvid-run'), '--no-conceal', '--no-plots', run], ok=False)
        check(r.returncode == 0 and T.read_csv(f'{rep}/receivers.csv')[0]['psnr_ec_db'] == '',
              'evalvid-run --no-conceal leaves the concealed columns empty')

        # truncated or missing input: a clear error, no traceback
        bad = os.path.join(tmp, 'bad')
        shutil.copytree(run, bad, ignore=shutil.ignore_patterns('report'))
        data = open(f'{run}/sender/sent.h264', 'rb').read()
        with open(f'{bad}/sender/sent.h264', 'wb') as f:
            f.write(data[:len(data) // 2])
        r = T.run([T.tool(build, 'evalvid-run'), '--no-plots', bad], ok=False)
        check(r.returncode == 1 and 'access units' in r.stderr and 'Traceback' not in r.stderr,
              f'truncated sent.h264: {r.stderr[-300:]}')
        with open(f'{bad}/sender/sent.h264', 'wb') as f:
            f.write(data)
        ref = open(f'{run}/sender/ref.yuv', 'rb').read()
        with open(f'{bad}/sender/ref.yuv', 'wb') as f:
            f.write(ref[:len(ref) - FB // 2])
        r = T.run([T.tool(build, 'evalvid-run'), '--no-plots', bad], ok=False)
        check(r.returncode == 1 and 'ref.yuv' in r.stderr and 'Traceback' not in r.stderr,
              f'ref.yuv cut mid-frame: {r.stderr[-300:]}')
        r = T.run([T.tool(build, 'evalvid-rebuild'), '--conceal', '--sd', f'{run}/sender/sd.txt', '--rd',
                   f'{tmp}/missing/rd.txt', '--h264', f'{run}/sender/sent.h264', '--ref-json',
                   f'{run}/sender/ref.json', '-o', f'{tmp}/x.yuv'], ok=False)
        check(r.returncode != 0 and 'missing/rd.txt' in r.stderr, f'missing rd.txt: {r.stderr.strip()}')
        os.remove(f'{bad}/sender/sd.txt')
        r = T.run([T.tool(build, 'evalvid-run'), '--no-plots', bad], ok=False)
        check(r.returncode == 1 and 'sd.txt' in r.stderr and 'Traceback' not in r.stderr,
              f'missing sd.txt: {r.stderr[-300:]}')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))

#!/usr/bin/python3
"""Builds a small synthetic run directory (docs/run-directory.md) for the evalvid tests.

The video is generated and encoded at test time (FFmpeg: testsrc2, x264 baseline, key frame every
KEYINT frames, parameter sets repeated on key frames, several slices per frame). sd.txt splits each
access unit into RTP-sized packets sent at the frame rate; each receiver's rd.txt is derived from
it with the losses, extra delays, duplicates and reordering the test asks for.
"""
import json, os, subprocess, sys

RTP_MTU = 1200          # rtph264pay mtu of the sender pipeline (ELEMENTS.md)
RTP_HDR = 12
SSRC = 0x1234ABCD
BASE_T = 1700000000.0   # CLOCK_REALTIME-like send time of frame 0
BASE_DELAY = 0.020      # one-way delay of every packet, s


def sh(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_video(d, w, h, frames, fps, keyint, crf=30, x264_params=''):
    os.makedirs(d, exist_ok=True)
    ref = os.path.join(d, 'ref.yuv')
    sh('ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', f'testsrc2=size={w}x{h}:rate={fps}',
       '-frames:v', str(frames), '-pix_fmt', 'yuv420p', ref)
    sh('ffmpeg', '-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', f'{w}x{h}',
       '-r', str(fps), '-i', ref, '-c:v', 'libx264', '-profile:v', 'baseline', '-bf', '0',
       '-g', str(keyint), '-keyint_min', str(keyint), '-sc_threshold', '0', '-crf', str(crf),
       '-tune', 'zerolatency', '-threads', '2',
       '-x264-params', 'repeat-headers=1:slices=2' + (':' + x264_params if x264_params else ''),
       '-f', 'h264', os.path.join(d, 'sent.h264'))
    with open(os.path.join(d, 'ref.json'), 'w') as f:
        json.dump({'width': w, 'height': h, 'fps_n': fps, 'fps_d': 1, 'format': 'I420',
                   'frames': frames}, f)


def video_trace(build, sent):
    out = subprocess.run([os.path.join(build, 'tools/evalvid/evalvid-st'), '--h264', sent],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        n, t, size, _, _ = line.split('\t')
        rows.append((int(n), t, int(size)))
    return rows


def param_set_sizes(sent):
    """Sizes (start code excluded) of the first SPS and PPS NAL units of an Annex B stream."""
    data = open(sent, 'rb').read()
    starts = [i + 3 for i in range(len(data) - 3) if data[i:i + 3] == b'\x00\x00\x01']
    sizes = {}
    for k, a in enumerate(starts):
        end = starts[k + 1] - 3 if k + 1 < len(starts) else len(data)
        while end > a and data[end - 1] == 0:      # a 4-byte start code's leading zero
            end -= 1
        sizes.setdefault(data[a] & 0x1f, end - a)
    return [sizes[7], sizes[8]]


def make_sd(build, d, fps, hdr=True, mtu=RTP_MTU, param_sets=False):
    """Returns packets [(time, id, size, frame, type)] and writes sd.txt. With HDR, every frame
    starts with a header-only packet (type H, like the access-unit delimiter the real payloader
    sends), as asmpsink's trace labels it; with PARAM_SETS a key frame's SPS and PPS follow it in
    header packets of their own, as rtph264pay config-interval=-1 sends them."""
    pkts, seq = [], 1000
    ps = param_set_sizes(os.path.join(d, 'sent.h264')) if param_sets else []
    for n, t, size in video_trace(build, os.path.join(d, 'sent.h264')):
        k = max(1, -(-size // (mtu - RTP_HDR)))
        left = size
        if t == 'I':
            for m, nal in enumerate(ps):
                pkts.append((BASE_T + n / fps + m * 1e-5, (SSRC << 32) | seq, nal + RTP_HDR, n, 'H'))
                seq += 1
        for j in range(k + hdr):
            if hdr and j == 0:
                payload, typ = 2, 'H'
            else:
                payload = min(left, mtu - RTP_HDR) if j < k + hdr - 1 else left
                left -= payload
                typ = t
            pkts.append((BASE_T + n / fps + j * 1e-4, (SSRC << 32) | seq, payload + RTP_HDR, n, typ))
            seq += 1
    with open(os.path.join(d, 'sd.txt'), 'w') as f:
        for p in pkts:
            f.write(f'{p[0]:.6f} id {p[1]} udp {p[2]} {p[3]} {p[4]}\n')
    return pkts


def make_rd(path, pkts, lose=(), extra_delay=None, duplicate=(), reorder=False, lose_hdr=(), lose_pic=None,
            lose_small_hdr=()):
    """lose: frames whose last packet is lost; lose_hdr: frames whose header-only (H) packets are
    lost; lose_small_hdr: frames whose 2-byte (delimiter-like) header packet is lost; lose_pic: {frame: [j, ...]} picture packets j (0-based, in send order) lost; extra_delay: {frame: s}; duplicate: frames whose packets arrive twice; reorder: write the
    lines shuffled in pairs."""
    extra_delay = extra_delay or {}
    lines = []
    last, pic = {}, {}
    for i, p in enumerate(pkts):
        last[p[3]] = i
    lost_pic = set()
    for i, p in enumerate(pkts):
        if p[4] != 'H':
            j = pic.setdefault(p[3], 0)
            pic[p[3]] = j + 1
            if j in (lose_pic or {}).get(p[3], ()):
                lost_pic.add(i)
    for i, (t, pid, size, frame, _) in enumerate(pkts):
        if frame in lose and last[frame] == i:
            continue
        if frame in lose_hdr and pkts[i][4] == 'H':
            continue
        if frame in lose_small_hdr and pkts[i][4] == 'H' and size == 2 + RTP_HDR:
            continue
        if i in lost_pic:
            continue
        a = t + BASE_DELAY + extra_delay.get(frame, 0.0)
        lines.append((a, f'{a:.6f} id {pid} udp {size}\n'))
        if frame in duplicate:
            lines.append((a + 0.001, f'{a + 0.001:.6f} id {pid} udp {size}\n'))
    lines.sort()
    if reorder:
        for i in range(0, len(lines) - 1, 2):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.writelines(l for _, l in lines)


def make_run(build, run, w=176, h=144, frames=75, fps=25, keyint=25, receivers=None, mtu=RTP_MTU,
             param_sets=False, x264_params=''):
    """receivers: {name: make_rd kwargs}; mtu: RTP packet size limit; param_sets: key frames'
    SPS/PPS in header packets of their own; x264_params: more x264 options (a:b=c). Returns the
    sd packets."""
    snd = os.path.join(run, 'sender')
    make_video(snd, w, h, frames, fps, keyint, x264_params=x264_params)
    pkts = make_sd(build, snd, fps, mtu=mtu, param_sets=param_sets)
    for name, kw in (receivers or {}).items():
        make_rd(os.path.join(run, f'rx-{name}', 'rd.txt'), pkts, **kw)
    return pkts


if __name__ == '__main__':
    make_run(sys.argv[1], sys.argv[2], receivers={'a': {}, 'b': {'lose': {30}}})

"""evalvid-run's driver for layered (AVMRC) runs: the VP8 decode (vp8dec through GStreamer), the
video rebuilt slot by slot, psnr/mos, and the per-receiver CSVs (docs/evalvid.md "Layered
(AVMRC) runs"). What is expected, shown and frozen is decided in evalvid_layered.py."""
import csv, math, os, struct

from evalvid_layered import (at_changes, clean_frames, display, evaluate_network, frame_table,
                             level_at, level_fractions, per_level, fps_bins, read_changes, read_rd,
                             read_sd, refs_not_held, runs)


# ---- video: the sent VP8 frames and their decode -------------------------------------------

def read_ivf(path):
    """IVF -> (width, height, rate, scale, [frame bytes] in file order). The file is checked
    against itself: signature, header length, every frame's 12-byte header and size within the
    file, and the header's frame count (0: not given) against the frames it holds; a truncated
    or malformed file is a ValueError naming the file and what is wrong."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 32:
        raise ValueError(f'{path}: not an IVF file ({len(data)} bytes, the header alone is 32)')
    if data[:4] != b'DKIF':
        raise ValueError(f'{path}: not an IVF file (signature {data[:4]!r}, not DKIF)')
    hl = struct.unpack_from('<H', data, 6)[0]
    if not 32 <= hl <= len(data):
        raise ValueError(f'{path}: IVF header length {hl} (at least 32, at most the file\'s '
                         f'{len(data)} bytes)')
    w, h, rate, scale, count = struct.unpack_from('<HHIII', data, 12)
    out, o = [], hl
    while o < len(data):
        if o + 12 > len(data):
            raise ValueError(f'{path}: truncated: frame {len(out)}\'s header at byte {o} has '
                             f'{len(data) - o} of its 12 bytes')
        n = struct.unpack_from('<I', data, o)[0]
        if n > len(data) - o - 12:
            raise ValueError(f'{path}: truncated: frame {len(out)} at byte {o} has {n} bytes, '
                             f'the file {len(data) - o - 12} after its header')
        out.append(data[o + 12:o + 12 + n])
        o += 12 + n
    if count and count != len(out):
        raise ValueError(f'{path}: the IVF header says {count} frames, the file holds {len(out)}'
                         + (' (truncated)' if len(out) < count else ''))
    return w, h, rate, scale, out


def decode_vp8(feed, w, h, n, out_path):
    """Decodes feed = [(frame index, bytes)] in that order with vp8dec; out_path gets n slots of
    I420 w x h, slot j = the picture of frame j (zeros if it was not output). Outputs are mapped
    back by PTS (= index x 10 ms), never counted. Returns (decoded indices, decoder messages)."""
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstVideo', '1.0')
    gi.require_version('GstApp', '1.0')
    from gi.repository import Gst, GstApp, GstVideo  # noqa: F401  (GstApp: appsink's methods)
    Gst.init(None)
    ms10 = 10 * Gst.MSECOND
    pipe = Gst.parse_launch('appsrc name=src format=time ! vp8dec name=dec ! videoconvert ! '
                            'video/x-raw,format=I420 ! appsink name=sink sync=false')
    src, sink = pipe.get_by_name('src'), pipe.get_by_name('sink')
    src.set_property('caps', Gst.Caps.from_string(f'video/x-vp8,width={w},height={h},framerate=100/1'))
    fb = w * h * 3 // 2
    done, msgs = set(), 0
    with open(out_path, 'wb') as out:
        out.truncate(n * fb)

        def take(s):
            buf, info = s.get_buffer(), GstVideo.VideoInfo.new_from_caps(s.get_caps())
            j = int(round(buf.pts / ms10))
            ok, m = buf.map(Gst.MapFlags.READ)
            if not ok or not 0 <= j < n:
                return
            pic = bytearray()
            for pl, (pw, ph) in enumerate(((w, h), ((w + 1) // 2, (h + 1) // 2),
                                           ((w + 1) // 2, (h + 1) // 2))):
                o, st = info.offset[pl], info.stride[pl]
                for y in range(ph):
                    pic += m.data[o + y * st:o + y * st + pw]
            buf.unmap(m)
            out.seek(j * fb)
            out.write(bytes(pic[:fb]))
            done.add(j)

        pipe.set_state(Gst.State.PLAYING)
        for j, b in feed:
            buf = Gst.Buffer.new_wrapped(b)
            buf.pts, buf.duration = j * ms10, ms10
            src.emit('push-buffer', buf)
            while True:
                s = sink.try_pull_sample(0)
                if s is None:
                    break
                take(s)
        src.emit('end-of-stream')
        while not sink.is_eos():
            s = sink.try_pull_sample(5 * Gst.SECOND)
            if s is None:
                break
            take(s)
        bus = pipe.get_bus()
        while True:
            m = bus.pop_filtered(Gst.MessageType.ERROR | Gst.MessageType.WARNING)
            if m is None:
                break
            msgs += 1
        pipe.set_state(Gst.State.NULL)
    return done, msgs


# ---- evalvid-run's driver for a layered run ------------------------------------------------

NET_COLS = ['frame', 'layer', 'type', 'packets', 'packets_rx', 'send_s', 'arrival_s', 'delay_s',
            'jitter_s', 'cumjitter_s', 'level', 'expected', 'complete', 'decoded', 'identical', 'clean',
            'shown', 'target', 'frozen', 'status']


def _write(path, rows, cols):
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction='ignore')
        w.writeheader()
        for r in rows:
            w.writerow({c: ('' if r.get(c) is None else (int(r[c]) if isinstance(r[c], bool) else r[c]))
                        for c in cols})


def _net_columns(fr, rd, dups, lay, iv):
    """evalvid-run's per-receiver network columns over the receiver's window (lost: an expected
    frame that did not arrive whole; packets: those of the layers held)."""
    win = [r for r in fr if r['in_window']]
    exp = [r for r in win if r['expected']]
    lost = [r for r in exp if not r['complete']]
    out = {'frames': float(len(win)), 'frames_expected': float(len(exp)),
           'frames_lost': float(len(lost)),
           'frame_loss_pct': 100 * len(lost) / len(exp) if exp else None,
           'frames_late': 0.0, 'frames_hdr_lost': 0.0, 'frames_never_shown': None}
    for t in 'IPBH':
        out[f'frames_lost_{t}'] = float(sum(1 for r in lost if r['type'] == t))
    prev = None
    for r in fr:
        if r['complete']:
            r['delay_s'] = r['arrival_s'] - r['send_s']
            if prev is not None:
                r['jitter_s'] = (r['arrival_s'] - prev['arrival_s']) - (r['send_s'] - prev['send_s'])
            prev = r
    comp = [r for r in fr if r['complete']]
    for r in comp:          # eq. 4 telescopes to delay_k - delay_first
        r['cumjitter_s'] = r['delay_s'] - comp[0]['delay_s']
    d = [r['delay_s'] for r in comp]
    j = [abs(r['jitter_s']) for r in comp if r.get('jitter_s') is not None]
    out.update(delay_mean_s=sum(d) / len(d) if d else None, delay_min_s=min(d) if d else None,
               delay_max_s=max(d) if d else None, jitter_mean_abs_s=sum(j) / len(j) if j else None,
               cumjitter_max_s=max(r['cumjitter_s'] for r in comp) if comp else None,
               cumjitter_last_s=comp[-1]['cumjitter_s'] if comp else None)
    frz = runs(r['frozen'] for r in win)
    srt = sorted(frz)
    out.update(slots_frozen=float(sum(frz)), freezes=float(len(frz)),
               freeze_max_s=srt[-1] * iv if srt else 0.0,
               freeze_p95_s=srt[max(0, math.ceil(0.95 * len(srt)) - 1)] * iv if srt else 0.0,
               frozen_s=sum(frz) * iv)
    pk = sum(x['packets_expected'] for x in lay)
    pl = sum(x['packets_lost'] for x in lay)
    span = (win[-1]['send_s'] - win[0]['send_s']) if len(win) > 1 else 0
    out.update(packets=float(pk), packets_lost=float(pl),
               packet_loss_pct=100 * pl / pk if pk else None, duplicates=float(dups),
               throughput_bps=8 * sum(s for _, s, _ in rd.values()) / span if span > 0 else None)
    return out


def rate_bins(sd, rd, binw):
    """NAME.rate.csv: per bin of time since the first sent packet (as evalvid-frames writes it) the
    bits sent on every layer and those the receiver got, per second."""
    if not sd or binw <= 0:
        return []
    t0 = min(p['t'] for p in sd)
    sent, recv = {}, {}
    for p in sd:
        k = int((p['t'] - t0) // binw)
        sent[k] = sent.get(k, 0) + 8 * p['size']
    for at, size, _L in rd.values():
        k = int((at - t0) // binw)
        recv[k] = recv.get(k, 0) + 8 * size
    return [{'time_s': round(k * binw, 6), 'sent_bps': sent.get(k, 0) / binw,
             'recv_bps': recv.get(k, 0) / binw} for k in range(max(list(sent) + list(recv)) + 1)]


def _slice(src, dst, i0, i1, fb):
    with open(src, 'rb') as f, open(dst, 'wb') as o:
        f.seek(i0 * fb)
        o.write(f.read((i1 - i0 + 1) * fb))


def evaluate(a, runp, rep, work, meta, run, tool, parse_psnr_summary, parse_mos, log):
    """The layered counterpart of evalvid-run's per-receiver loop: (video, encoded quality,
    receiver rows, notes). run/tool/parse_*/log are evalvid-run's."""
    import json
    snd = os.path.join(runp, 'sender')
    sd = read_sd(os.path.join(snd, 'sd.txt'))
    notes = []
    frames = frame_table(sd)
    n = len(frames)
    if n <= max(p['frame'] for p in sd):
        notes.append(f'sender: frames {n}-{max(p["frame"] for p in sd)} not all sent (stopped): '
                     f'evaluated up to frame {n - 1}')
    nlayers = max([f['layer'] for f in frames] + [int((meta.get('layers') or {}).get('channels', 1)) - 1]) + 1
    ivf, ref, refjson = (os.path.join(snd, x) for x in ('sent.ivf', 'ref.yuv', 'ref.json'))
    video = all(os.path.isfile(p) for p in (ivf, ref, refjson))
    rows, enc_q = [], None
    g = [f['g'] for f in frames]
    fps = (n - 1) / (g[-1] - g[0]) if n > 1 and g[-1] > g[0] else 30.0
    if video:
        with open(refjson) as f:
            rj = json.load(f)
        fps = rj.get('fps_n', 30) / rj.get('fps_d', 1)
        w, h, _r, _s, sent = read_ivf(ivf)
        if len(sent) < n:
            raise ValueError(f'{ivf}: {len(sent)} frames, the sender dump has {n}')
        fb = w * h * 3 // 2
        geom = ['-s', f'{w}x{h}', '-f', 'I420']
        log(f'layered run: {nlayers} layers, {n} frames; decoding the stream as sent')
        enc = os.path.join(work, 'encoded.yuv')
        got, _m = decode_vp8([(j, sent[j]) for j in range(n)], w, h, n, enc)
        if len(got) < n:
            notes.append(f'the sent stream decodes into {len(got)} of {n} frames')
        q = parse_psnr_summary(run([tool('psnr'), '--common'] + geom + ['--ssim', '-o',
                               os.path.join(rep, 'encoded.psnr.csv'), ref, enc], 'psnr'))
        enc_q = q
        enc_q.update(parse_mos(run([tool('mos'), os.path.join(rep, 'encoded.psnr.csv')], 'mos')))
        with open(os.path.join(rep, 'encoded.psnr.csv'), newline='') as f:
            enc_rows = list(csv.DictReader(f))
    else:
        log(f'layered run: {nlayers} layers, {n} frames; no sent.ivf/ref.yuv/ref.json: traces only')
    frac = level_fractions(frames, nlayers)
    iv = 1 / fps
    ids = {p['id'] for p in sd}
    rxs = sorted(x for x in os.listdir(runp) if x.startswith('rx-') and
                 os.path.isfile(os.path.join(runp, x, 'rd.txt')))
    if not rxs:
        raise ValueError(f'{runp}: no rx-NAME/rd.txt')
    for k, rx in enumerate(rxs):
        name, dr = rx[3:], os.path.join(runp, rx)
        log(f'receiver {name} ({k + 1}/{len(rxs)}): layers, subscription, frames')
        rd, dups = read_rd(os.path.join(dr, 'rd.txt'), ids)
        changes = read_changes(os.path.join(dr, 'layers.csv'))
        if not os.path.isfile(os.path.join(dr, 'layers.csv')):
            notes.append(f'{name}: no layers.csv: level 1 assumed all along')
        net = evaluate_network(sd, frames, rd, changes, nlayers)
        if net is None:
            notes.append(f'{name}: received nothing')
            continue
        fr = net['frames']
        decoded, identical, psnr, msgs = set(), None, None, None
        row = {'receiver': name}
        if video:
            dec = os.path.join(work, f'{name}.dec.yuv')
            decoded, msgs = decode_vp8([(r['frame'], sent[r['frame']]) for r in fr
                                        if r['complete'] and r['in_window']], w, h, n, dec)
            identical = set()
            with open(dec, 'rb') as fd, open(enc, 'rb') as fe:
                for j in sorted(decoded):
                    fd.seek(j * fb)
                    fe.seek(j * fb)
                    if fd.read(fb) == fe.read(fb):
                        identical.add(j)
        else:
            decoded = {r['frame'] for r in fr if r['complete'] and r['in_window']}
        display(fr, decoded)
        clean, nohold = clean_frames(fr, decoded), refs_not_held(fr, decoded)
        for r in fr:
            r['decoded'] = r['frame'] in decoded if r['complete'] else None
            r['identical'] = (r['frame'] in identical) if identical is not None and r['frame'] in decoded else None
            r['clean'] = r['frame'] in clean if r['frame'] in decoded else None
            r['status'] = ('ok' if r['complete'] else 'lost' if r['expected'] else
                           'not-held' if r['in_window'] else 'outside')
        win = [r for r in fr if r['in_window']]
        i0, i1 = win[0]['frame'], win[-1]['frame']
        if video:
            dist, refw = os.path.join(work, f'{name}.yuv'), os.path.join(work, f'{name}.ref.yuv')
            black = bytes([16]) * (w * h) + bytes([128]) * (fb - w * h)
            with open(dec, 'rb') as fd, open(dist, 'wb') as o:
                for r in win:
                    if r['shown'] < 0:
                        o.write(black)
                    else:
                        fd.seek(r['shown'] * fb)
                        o.write(fd.read(fb))
            _slice(ref, refw, i0, i1, fb)
            pcsv = os.path.join(rep, f'{name}.psnr.csv')
            row.update(parse_psnr_summary(run([tool('psnr'), '--progress', '--common'] + geom + [
                '--ssim', '-o', pcsv, refw, dist], f'receiver {name}')))
            if row['psnr_frames'] < len(win):      # ref.yuv's writer stopped before the sender
                notes.append(f'{name}: ref.yuv ends before the window: PSNR/MOS over the first '
                             f'{int(row["psnr_frames"])} of {len(win)} slots')
            with open(pcsv, newline='') as f:
                pr = list(csv.DictReader(f))
            for x in pr:
                x['frame'] = str(int(x['frame']) + i0)
            _write(pcsv, pr, list(pr[0].keys()) if pr else ['frame'])
            psnr = {int(x['frame']): float(x['psnr_y']) for x in pr}
            ecsv = os.path.join(work, f'{name}.encoded.psnr.csv')
            _write(ecsv, enc_rows[i0:i1 + 1], list(enc_rows[0].keys()))
            row.update(parse_mos(run([tool('mos'), '--ref', ecsv, '--per-frame',
                                      os.path.join(rep, f'{name}.mos.csv'), pcsv], 'mos')))
            if not a.keep_video:
                for p in (dist, refw, dec):
                    os.remove(p)
        row.update(_net_columns(fr, rd, dups, net['layers'], iv))
        chg = at_changes(fr, changes, iv)
        t0 = frames[0]['g']
        ch_rows = [{'time_s': round(tc - t0, 3), 'from': frm, 'to': to,
                    'join_latency_ms': None if lat is None else round(1e3 * lat, 1), **c}
                   for (tc, frm, to), lat, c in zip(changes, net['join_latency_s'], chg)]
        lv = per_level(fr, nlayers, frac, fps, psnr, identical, clean, nohold)
        bins = fps_bins(fr, frac, fps, t0)
        at_ch = sum(c['frozen_slots'] for c in chg)
        row['slots_frozen_at_changes_by_loss'] = float(sum(c['frozen_by_loss'] for c in chg))
        row['slots_frozen_by_loss'] = float(sum(1 for r in fr if r['frozen'] and not fr[r['target']]['complete']))
        lats = [x for x in net['join_latency_s'] if x is not None]
        row.update(
            level_final=float(level_at(changes, net['t_last'])),
            level_mean=sum(x['level'] * x['slots'] for x in lv) / sum(x['slots'] for x in lv),
            layer_changes=float(len(changes)), layer_adds=float(sum(1 for c in changes if c[2] > c[1])),
            layer_drops=float(sum(1 for c in changes if c[2] < c[1])),
            slots_frozen_at_changes=float(at_ch), slots_frozen_elsewhere=row['slots_frozen'] - at_ch,
            freeze_max_at_changes_s=max([c['freeze_max_s'] for c in chg] + [0.0]),
            join_latency_mean_s=sum(lats) / len(lats) if lats else None,
            frames_displayed=float(sum(1 for r in win if r['shown'] == r['frame'])),
            frames_identical=float(len(identical)) if identical is not None else None,
            frames_clean=float(len(clean)),
            frames_refs_not_held=float(sum(1 for j in clean & nohold if j not in identical))
            if identical is not None else None,
            frames_decode_errors=float(sum(1 for j in clean - nohold if j not in identical))
            if identical is not None else None,
            frames_impaired_by_loss=float(sum(1 for j in decoded - clean if j not in identical))
            if identical is not None else None,
            frames_not_decoded=float(sum(1 for r in win if r['complete'] and r['frame'] not in decoded)),
            decoder_messages=float(msgs) if msgs is not None else None,
            loss_pct_layers='/'.join('-' if x['loss_pct'] is None else f'{x["loss_pct"]:.2f}'
                                     for x in net['layers']))
        for x in net['layers']:
            row[f'packets_lost_layer{x["layer"]}'] = float(x['packets_lost'])
            row[f'packets_expected_layer{x["layer"]}'] = float(x['packets_expected'])
        row['layered'] = {'layers': net['layers'], 'levels': lv, 'changes': ch_rows,
                          'delay_median_s': net['delay_median_s']}
        _write(os.path.join(rep, f'{name}.frames.csv'), fr, NET_COLS)
        _write(os.path.join(rep, f'{name}.layers.csv'), net['layers'],
               ['layer', 'packets_sent', 'packets_expected', 'packets_received', 'packets_lost',
                'loss_pct', 'bytes_received'])
        _write(os.path.join(rep, f'{name}.levels.csv'), lv,
               ['level', 'slots', 'time_s', 'expected_frames', 'displayed_frames', 'identical_frames',
                'clean_frames', 'refs_not_held', 'decode_errors', 'frozen_slots', 'fps_displayed',
                'fps_nominal', 'psnr_displayed_db', 'psnr_slots_db'])
        _write(os.path.join(rep, f'{name}.changes.csv'), ch_rows,
               ['time_s', 'from', 'to', 'join_latency_ms', 'frozen_slots', 'frozen_by_loss', 'freeze_max_s'])
        _write(os.path.join(rep, f'{name}.fps.csv'), bins,
               ['time_s', 'level', 'source_frames', 'expected_frames', 'displayed_frames', 'nominal_fps'])
        _write(os.path.join(rep, f'{name}.rate.csv'), rate_bins(sd, rd, a.bin),
               ['time_s', 'sent_bps', 'recv_bps'])
        rows.append(row)
    if video and not a.keep_video:
        os.remove(enc)
    return video, enc_q, rows, notes, {'fps': fps, 'fractions': frac, 'layers': nlayers}

"""evalvid-run for simulcast (ASSP) runs: what each receiver displayed across its stream switches.

A simulcast run (docs/run-directory.md) has sender/streamK/{sd.txt,sent.h264} per stream, one
sender/ref.{yuv,json} at the top stream's size (the display size) and per receiver
rx-NAME/streamK/rd.txt and rx-NAME/switches.csv. For each receiver:
  1. the stream shown at each frame slot: it starts on stream 0; a switch (switches.csv: time,
     from, to) takes effect at the frame of stream `to` whose packet arrived last at or before the
     switch time (asspsrc switches at the packet that starts that key frame); without
     switches.csv, the highest stream that delivered any packet of the slot's frame;
  2. every stream it showed is rebuilt EvalVid's way (evalvid-rebuild: the real decode of what
     arrived, a lost frame repeats the last shown picture) and scaled to the display size
     (GStreamer videoscale, bilinear, as a player would);
  3. slot i of the displayed video is slot i of the rebuilt stream shown then; it is compared
     with ref.yuv (psnr, mos) like a single-stream receiver, and the per-frame table, frame loss,
     freezes, delay and jitter are those of the frame shown at each slot.
Frame i of every stream is source frame i: one tee feeds the K encoders (amcast-node). This is
checked: if the streams' frame send times are offset by whole frames, slot i uses frame i + d of
that stream (d from the median send-time difference to the top stream) and a note says so.
"""
import csv, math, os, shutil, subprocess

NET_KEYS = ('frame', 'type', 'bytes', 'packets', 'packets_rx', 'send_s', 'arrival_s', 'delay_s',
            'jitter_s', 'cumjitter_s', 'slot_s', 'status', 'decoded', 'shown', 'hdr_lost')


def streams(runp):
    """[sender/streamK dirs] of a simulcast run, [] for a single-stream run."""
    out = []
    while os.path.isfile(os.path.join(runp, 'sender', f'stream{len(out)}', 'sd.txt')):
        out.append(os.path.join(runp, 'sender', f'stream{len(out)}'))
    return out if not os.path.isfile(os.path.join(runp, 'sender', 'sd.txt')) else []


def _read_csv(path):
    if not os.path.isfile(path):
        return []
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def _f(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float('nan')


def read_sd(path):
    """-> ({packet id: frame}, [first send time of frame i])."""
    ids, first = {}, {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 6 or p[1] != 'id':
                continue
            fr = int(p[5])
            ids[int(p[2])] = fr
            t = float(p[0])
            if fr not in first or t < first[fr]:
                first[fr] = t
    n = max(first) + 1 if first else 0
    return ids, [first.get(i, float('nan')) for i in range(n)]


def read_rd(path):
    """-> [(arrival time, packet id, size)] sorted by time."""
    rows = []
    if os.path.isfile(path):
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) >= 5 and p[1] == 'id':
                    rows.append((float(p[0]), int(p[2]), int(p[4])))
    rows.sort()
    return rows


def stream_sizes(meta, dirs, ref_w, ref_h):
    """(width, height) of each stream: meta.json 'streams', else the top one is ref.json's."""
    ms = meta.get('streams') or []
    if len(ms) == len(dirs):
        return [(int(s['width']), int(s['height'])) for s in ms]
    if len(dirs) == 1:
        return [(ref_w, ref_h)]
    raise ValueError('meta.json lists no stream sizes for this simulcast run')


def frame_offsets(send_times, fps):
    """Frames to add to a slot (the top stream's frame index) to get each stream's frame of the
    same source picture (0 when one tee feeds all encoders): minus the median send-time
    difference of equal indices, in frames."""
    top = send_times[-1]
    offs = []
    for st in send_times:
        d = sorted(a - b for a, b in zip(st, top) if not (math.isnan(a) or math.isnan(b)))
        offs.append(round(d[len(d) // 2] * fps) * -1 if d else 0)
    return offs


def schedule(switch_rows, rds, ids, offs, nslots):
    """Stream shown at each slot (see the module doc)."""
    if switch_rows is None:        # no switches.csv: the highest stream with a packet of the frame
        has = [set() for _ in rds]
        for k, rd in enumerate(rds):
            for _, pid, _ in rd:
                if pid in ids[k]:
                    has[k].add(ids[k][pid] - offs[k])
        cur, out = 0, []
        for i in range(nslots):
            got = [k for k in range(len(rds)) if i in has[k]]
            cur = max(got) if got else cur
            out.append(cur)
        return out, []
    starts = []                     # (slot, stream)
    for r in switch_rows:
        to, t = int(r['to']), _f(r['time_s'])
        before = [ids[to][pid] for at, pid, _ in rds[to] if at <= t + 0.005 and pid in ids[to]]
        after = [ids[to][pid] for at, pid, _ in rds[to] if at > t and pid in ids[to]]
        fr = before[-1] if before else (after[0] if after else None)
        if fr is not None:
            starts.append((fr - offs[to], to))
    out, cur, j = [], 0, 0
    starts.sort()
    for i in range(nslots):
        while j < len(starts) and starts[j][0] <= i:
            cur = starts[j][1]
            j += 1
        out.append(cur)
    return out, starts


def scale(src, dst, w, h, W, H, fps):
    """Raw I420 w x h -> W x H (GStreamer videoscale, bilinear)."""
    if (w, h) == (W, H):
        shutil.copyfile(src, dst)
        return
    cmd = ['gst-launch-1.0', '-q', 'filesrc', f'location={src}', '!', 'rawvideoparse',
           f'width={w}', f'height={h}', 'format=i420', f'framerate={fps}/1', '!', 'videoscale',
           'method=bilinear', '!', f'video/x-raw,width={W},height={H}', '!', 'filesink',
           f'location={dst}']
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.isfile(dst):
        raise RuntimeError(f'scaling {src} to {W}x{H} failed: {r.stderr.strip()}')


def compose(dst, srcs, sched, offs, fb, usable=None):
    """Slot i of dst = slot i + offs[k] of srcs[k] for k = sched[i] where usable[i] (default:
    every slot), else a repeat of the last slot written (black before the first)."""
    fh = {k: open(p, 'rb') for k, p in srcs.items()}
    last = bytes(fb)
    try:
        with open(dst, 'wb') as out:
            for i, k in enumerate(sched):
                if (usable is None or usable[i]) and k in fh:
                    fh[k].seek((i + offs[k]) * fb)
                    b = fh[k].read(fb)
                    last = b if len(b) == fb else last
                out.write(last)
    finally:
        for f in fh.values():
            f.close()


def freezes(frozen, iv):
    """Runs of frozen slots (ev_frames.c's definition): count, max, nearest-rank p95, total."""
    runs, run = [], 0
    for z in frozen + [False]:
        if z:
            run += 1
        elif run:
            runs.append(run)
            run = 0
    runs.sort()
    if not runs:
        return 0, 0.0, 0.0, 0.0
    return (len(runs), runs[-1] * iv, runs[max(0, math.ceil(0.95 * len(runs)) - 1)] * iv,
            sum(runs) * iv)


def net_row(rows, rds, sd_span, duplicates):
    """The per-receiver network columns (evalvid-frames' names) over the frames shown."""
    n = len(rows)
    lost = [r['status'] in ('lost', 'unsent') for r in rows]
    out = {'frames': float(n), 'frames_lost': float(sum(lost)),
           'frame_loss_pct': 100.0 * sum(lost) / n if n else None}
    for t in 'IPBH':
        out[f'frames_lost_{t}'] = float(sum(1 for r, l in zip(rows, lost) if l and r['type'] == t))
    out['frames_hdr_lost'] = float(sum(1 for r in rows if r['hdr_lost'] not in ('', '0')))
    out['frames_late'] = float(sum(1 for r in rows if r['status'] == 'late'))
    frozen = [int(_f(r['shown'])) != int(_f(r['frame'])) if r['shown'] != '' else True
              for r in rows]
    out['slots_frozen'] = float(sum(frozen))
    out['frames_never_shown'] = None
    ts = [_f(r['send_s']) for r in rows if not math.isnan(_f(r['send_s']))]
    iv = (ts[-1] - ts[0]) / (len(ts) - 1) if len(ts) > 1 else float('nan')
    fz = freezes(frozen, iv)
    out.update(freezes=float(fz[0]), freeze_max_s=fz[1], freeze_p95_s=fz[2], frozen_s=fz[3])
    d = [_f(r['delay_s']) for r in rows if not math.isnan(_f(r['delay_s']))]
    out.update(delay_mean_s=sum(d) / len(d) if d else None, delay_min_s=min(d) if d else None,
               delay_max_s=max(d) if d else None)
    j = [abs(_f(r['jitter_s'])) for r in rows if not math.isnan(_f(r['jitter_s']))]
    out['jitter_mean_abs_s'] = sum(j) / len(j) if j else None
    cj = [_f(r['cumjitter_s']) for r in rows if not math.isnan(_f(r['cumjitter_s']))]
    out.update(cumjitter_max_s=max(cj) if cj else None, cumjitter_last_s=cj[-1] if cj else None)
    pk = sum(int(_f(r['packets'])) for r in rows if r['packets'] != '')
    rx = sum(int(_f(r['packets_rx'])) for r in rows if r['packets_rx'] != '')
    out.update(packets=float(pk), packets_lost=float(pk - rx),
               packet_loss_pct=100.0 * (pk - rx) / pk if pk else None,
               duplicates=float(duplicates))
    nbytes = sum(size for rd in rds for _, _, size in rd)
    out['throughput_bps'] = 8 * nbytes / sd_span if sd_span > 0 else None
    return out


def sum_rates(paths, dst):
    """NAME.rate.csv of a receiver: the streams' recv_bps added bin by bin (the streams start
    within a frame of each other, so their bins coincide); sent_bps is the top stream's."""
    tabs = [_read_csv(p) for p in paths]
    tabs = [t for t in tabs if t]
    if not tabs:
        return
    n = max(len(t) for t in tabs)
    with open(dst, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['time_s', 'sent_bps', 'recv_bps'])
        for i in range(n):
            rows = [t[i] for t in tabs if i < len(t)]
            w.writerow([rows[0]['time_s'], tabs[-1][i]['sent_bps'] if i < len(tabs[-1]) else '',
                        sum(_f(r['recv_bps']) for r in rows)])


def evaluate(a, runp, rep, work, dirs, meta, run, tool, parse_psnr_summary, parse_mos, log):
    """The simulcast counterpart of evalvid-run's per-receiver loop: (video, encoded quality,
    receiver rows, notes). run/tool/parse_*/log are evalvid-run's."""
    snd = os.path.join(runp, 'sender')
    ref, refjson = os.path.join(snd, 'ref.yuv'), os.path.join(snd, 'ref.json')
    video = os.path.isfile(ref) and os.path.isfile(refjson) and all(
        os.path.isfile(os.path.join(d, 'sent.h264')) for d in dirs)
    notes, rows, enc_q = [], [], None
    pd = [] if a.playout_delay is None else ['--playout-delay', str(a.playout_delay)]
    fps = 25
    W = H = None
    if os.path.isfile(refjson):
        import json
        with open(refjson) as f:
            rj = json.load(f)
        W, H, fps = int(rj['width']), int(rj['height']), int(rj.get('fps_n', 25))
    if not video:
        log('no sent.h264/ref.yuv/ref.json for every stream: network metrics only')
    sizes = stream_sizes(meta, dirs, W, H) if W else None
    sds = [read_sd(os.path.join(d, 'sd.txt')) for d in dirs]
    ids = [s[0] for s in sds]
    offs = frame_offsets([s[1] for s in sds], fps)
    if any(offs):
        notes.append(f'stream frame numbers offset by {offs} frames from the top stream\'s '
                     '(aligned by send time)')
    nslots = min(len(s[1]) - max(0, o) for s, o in zip(sds, offs))
    if any(len(s[1]) != len(sds[-1][1]) for s in sds):
        notes.append('streams have different frame counts ' +
                     '/'.join(str(len(s[1])) for s in sds) + f': {nslots} slots evaluated')
    top_t = [t for t in sds[-1][1] if not math.isnan(t)]
    sd_span = top_t[-1] - top_t[0] if len(top_t) > 1 else 0
    geom = ['-s', f'{W}x{H}', '-f', 'I420'] if video else []
    fb = W * H * 3 // 2 if video else 0
    enc_scaled = {}
    if video:
        enc_q = {'streams': []}
        for k, d in enumerate(dirs):
            w, h = sizes[k]
            log(f'sender: stream {k} ({w}x{h}) decoded as sent, at {W}x{H}')
            e = os.path.join(work, f'encoded{k}.yuv')
            run([tool('evalvid-rebuild'), '--sd', os.path.join(d, 'sd.txt'), '--h264',
                 os.path.join(d, 'sent.h264'), '--size', f'{w}x{h}', '-o', e], f'stream {k}')
            es = os.path.join(work, f'encoded{k}.{W}x{H}.yuv')
            scale(e, es, w, h, W, H, fps)
            os.remove(e)
            enc_scaled[k] = es
            pcsv = os.path.join(rep, f'encoded{k}.psnr.csv')
            compose(os.path.join(work, 'enc.yuv'), {k: es}, [k] * nslots, offs, fb)
            q = parse_psnr_summary(run([tool('psnr'), '--common'] + geom + [
                '--ssim', '-o', pcsv, ref, os.path.join(work, 'enc.yuv')], 'psnr'))
            q['stream'] = k
            enc_q['streams'].append(q)
        enc_q.update({x: y for x, y in enc_q['streams'][-1].items() if x != 'stream'})
        shutil.copyfile(os.path.join(rep, f'encoded{len(dirs) - 1}.psnr.csv'),
                        os.path.join(rep, 'encoded.psnr.csv'))
        enc_q.update(parse_mos(run([tool('mos'), os.path.join(rep, 'encoded.psnr.csv')], 'mos')))
        if not a.keep_video:
            for es in enc_scaled.values():
                os.remove(es)
    rxs = sorted(x for x in os.listdir(runp) if x.startswith('rx-') and
                 os.path.isdir(os.path.join(runp, x)))
    if not rxs:
        raise ValueError(f'{runp}: no rx-NAME/')
    for i, rx in enumerate(rxs):
        name, dr = rx[3:], os.path.join(runp, rx)
        log(f'receiver {name} ({i + 1}/{len(rxs)}): streams shown')
        rds = [read_rd(os.path.join(dr, f'stream{k}', 'rd.txt')) for k in range(len(dirs))]
        swp = os.path.join(dr, 'switches.csv')
        sw = _read_csv(swp) if os.path.isfile(swp) else None
        sched, _starts = schedule(sw, rds, ids, offs, nslots)
        used = sorted(set(sched))
        tabs, dups, nodec = {}, 0, set()
        for k in used:
            d, rdp = dirs[k], os.path.join(dr, f'stream{k}', 'rd.txt')
            if not rds[k]:          # nothing arrived: an empty dump (every frame lost)
                os.makedirs(os.path.dirname(rdp), exist_ok=True)
                open(rdp, 'a').close()
            fcsv = os.path.join(work, f'{name}.s{k}.frames.csv')
            run([tool('evalvid-frames'), '--sd', os.path.join(d, 'sd.txt'), '--rd', rdp,
                 '--bin', str(a.bin), '--summary', os.path.join(work, f'{name}.s{k}.net.csv'),
                 '--rate', os.path.join(work, f'{name}.s{k}.rate.csv'), '-o', fcsv] + pd,
                f'receiver {name} stream {k}')
            dups += int(_f(_read_csv(os.path.join(work, f'{name}.s{k}.net.csv'))[0]
                           .get('duplicates', 0)))
            if video:
                w, h = sizes[k]
                log(f'receiver {name}: rebuilding stream {k} ({w}x{h}) as it arrived')
                y = os.path.join(work, f'{name}.s{k}.yuv')
                try:
                    run([tool('evalvid-rebuild'), '--progress', '--sd', os.path.join(d, 'sd.txt'),
                         '--rd', rdp, '--h264', os.path.join(d, 'sent.h264'), '--size',
                         f'{w}x{h}', '-o', y, '--frames-csv', fcsv] + pd,
                        f'receiver {name} stream {k}')
                except Exception as e:     # evalvid-run's Fail: nothing decodable arrived
                    log(f'receiver {name}: stream {k} not decodable ({str(e).splitlines()[-1]}): '
                        'its slots repeat the picture shown before')
                    notes.append(f'{name}: no decodable frame of stream {k} arrived; its '
                                 f'{sched.count(k)} slots repeat the picture shown before')
                    nodec.add(k)
                if k not in nodec:
                    scale(y, os.path.join(work, f'{name}.s{k}.scaled.yuv'), w, h, W, H, fps)
                    os.remove(y)
            tabs[k] = _read_csv(fcsv)
        # the frames shown, slot by slot (NAME.frames.csv gains the stream column): a slot shows
        # its stream's picture once that stream showed a frame of the current stretch (from its
        # switch on); before (its key frame lost or late) the previous picture stays
        shown_rows, usable, start, last_shown = [], [], 0, ''
        for slot, k in enumerate(sched):
            if slot and k != sched[slot - 1]:
                start = slot
            fi = slot + offs[k]
            r = dict(tabs[k][fi]) if fi < len(tabs[k]) else {c: '' for c in NET_KEYS}
            sh = int(_f(r['shown'])) if r.get('shown', '') not in ('', '-1') else None
            ok = k not in nodec and sh is not None and sh - offs[k] >= start
            usable.append(ok)
            if ok:
                last_shown = str(sh - offs[k])
            r.update(frame=str(slot), shown=last_shown, stream=str(k))
            shown_rows.append(r)
        with open(os.path.join(rep, f'{name}.frames.csv'), 'w', newline='') as f:
            w_ = csv.DictWriter(f, fieldnames=list(NET_KEYS) + ['stream'], extrasaction='ignore')
            w_.writeheader()
            w_.writerows(shown_rows)
        sum_rates([os.path.join(work, f'{name}.s{k}.rate.csv') for k in range(len(dirs))
                   if os.path.isfile(os.path.join(work, f'{name}.s{k}.rate.csv'))],
                  os.path.join(rep, f'{name}.rate.csv'))
        row = {'receiver': name}
        row.update(net_row(shown_rows, rds, sd_span, dups))
        on = [sched.count(k) / fps for k in range(len(dirs))]
        row.update(stream_final=float(sched[-1]) if sched else None,
                   switches=float(len(sw)) if sw is not None else float(
                       sum(1 for x, y in zip(sched, sched[1:]) if x != y)),
                   time_on_streams_s='/'.join(f'{x:.1f}' for x in on))
        for k in range(len(dirs)):
            row[f'time_on_stream{k}_s'] = on[k]
        if video:
            dist = os.path.join(work, f'{name}.yuv')
            compose(dist, {k: os.path.join(work, f'{name}.s{k}.scaled.yuv') for k in used
                           if k not in nodec}, sched, offs, fb, usable)
            if not a.keep_video:
                for k in set(used) - nodec:
                    os.remove(os.path.join(work, f'{name}.s{k}.scaled.yuv'))
            log(f'receiver {name}: PSNR/SSIM of {nslots} frames')
            pcsv = os.path.join(rep, f'{name}.psnr.csv')
            row.update(parse_psnr_summary(run([tool('psnr'), '--progress', '--common'] + geom +
                                              ['--ssim', '-o', pcsv, ref, dist], f'receiver {name}')))
            if row['psnr_frames'] != row['frames']:
                notes.append(f'{name}: ref.yuv has fewer frames than the streams: PSNR/MOS over '
                             f'the first {int(row["psnr_frames"])} of {int(row["frames"])} frames')
            row.update(parse_mos(run([tool('mos'), '--ref', os.path.join(rep, 'encoded.psnr.csv'),
                                      '--per-frame', os.path.join(rep, f'{name}.mos.csv'), pcsv],
                                     'mos')))
            if not a.keep_video:
                os.remove(dist)
        rows.append(row)
    return video, enc_q, rows, notes

"""Layered (AVMRC/RMRC/VMRC) runs for evalvid-run (docs/evalvid.md "Layered runs").

A layered run (docs/run-directory.md) has one sender/sd.txt with a layer column, VP8 video in
sender/sent.ivf (temporal layers: frame i belongs to one layer), and per receiver avmrcsrc's
rd.txt (a layer column too) and layers.csv (time_s,from,to). What a receiver displayed is built
EvalVid's way: a frame whose packets all arrived is decoded (vp8dec, frames fed in order with PTS
= frame index, outputs mapped back by PTS), every slot shows the newest decoded frame at or
before it. A frame of a layer the receiver did not hold is not shown and that is the frame-rate
change, not a freeze; a slot is frozen when a newer frame of the held layers should be on screen.
"""
import bisect, csv, math, os, statistics, struct

# Frozen slots whose time lies within this of a layer change (s, before/after) count at it.
CHANGE_WINDOW_S = (-0.5, 2.0)


def is_layered(runp):
    """True when sender/sd.txt's first packet line has a layer column (`... TYPE layer L`)."""
    p = os.path.join(runp, 'sender', 'sd.txt')
    if not os.path.isfile(p):
        return False
    with open(p) as f:
        for line in f:
            t = line.split()
            if t and not t[0].startswith('#'):
                return len(t) >= 9 and t[7] == 'layer'
    return False


def _lines(path):
    """(line number, fields) of a trace; a cut-off last line (no newline) is skipped."""
    with open(path) as f:
        data = f.read()
    rows = data.split('\n')
    if rows and rows[-1] == '':
        rows.pop()
    elif rows:
        rows.pop()                  # unterminated: the writer was stopped mid-line
    for n, line in enumerate(rows, 1):
        t = line.split()
        if t and not t[0].startswith('#'):
            yield n, t


def read_sd(path):
    """sd.txt of a layered sender: [{t, id, size, frame, type, layer}] in file order."""
    out, seen = [], set()
    for n, t in _lines(path):
        try:
            if len(t) < 9 or t[1] != 'id' or t[3] != 'udp' or t[7] != 'layer':
                raise ValueError
            p = {'t': float(t[0]), 'id': int(t[2]), 'size': int(t[4]), 'frame': int(t[5]),
                 'type': t[6], 'layer': int(t[8])}
        except ValueError:
            raise ValueError(f'{path}:{n}: not `TIME id N udp SIZE FRAME TYPE layer L`') from None
        if p['id'] in seen:
            raise ValueError(f'{path}:{n}: packet id {p["id"]} twice')
        seen.add(p['id'])
        out.append(p)
    return out


def read_rd(path, ids):
    """rd.txt with a layer column: ({id: (t, size, layer)} keeping the earliest copy, duplicates)."""
    out, dups = {}, 0
    if not os.path.isfile(path):
        return out, 0
    for n, t in _lines(path):
        try:
            if len(t) < 5 or t[1] != 'id' or t[3] != 'udp':
                raise ValueError
            at, pid, size = float(t[0]), int(t[2]), int(t[4])
            layer = int(t[6]) if len(t) >= 7 and t[5] == 'layer' else None
        except ValueError:
            raise ValueError(f'{path}:{n}: not `TIME id N udp SIZE [layer L]`') from None
        if pid not in ids:
            raise ValueError(f'{path}:{n}: packet id {pid} is not in the sender dump')
        if pid in out:
            dups += 1
            if at >= out[pid][0]:
                continue
        out[pid] = (at, size, layer)
    return out, dups


def read_changes(path):
    """layers.csv -> [(time_s, from, to)] sorted by time; [] without the file."""
    if not os.path.isfile(path):
        return []
    with open(path, newline='') as f:
        return sorted((float(r['time_s']), int(r['from']), int(r['to'])) for r in csv.DictReader(f))


def level_at(changes, t):
    """Layers held at time t: 1 from the start, then each change's `to`."""
    lv = 1
    for tc, _f, to in changes:
        if tc > t:
            break
        lv = to
    return lv


def frame_table(sd):
    """Per frame index 0..N-1: layer, type, packet ids, first send time. Every frame must appear,
    but for a few at the end (at most 2 % of them), where the frames end before the first missing."""
    fr = {}
    for p in sd:
        f = fr.setdefault(p['frame'], {'layer': p['layer'], 'type': p['type'], 'ids': [], 'g': p['t']})
        if p['layer'] != f['layer']:
            raise ValueError(f'frame {p["frame"]} has packets on layers {f["layer"]} and {p["layer"]}')
        f['ids'].append(p['id'])
        f['g'] = min(f['g'], p['t'])
        if p['type'] == 'I':
            f['type'] = 'I'
    n = max(fr) + 1 if fr else 0
    missing = [i for i in range(n) if i not in fr]
    if missing and missing[0] < n - max(2, n // 50):
        raise ValueError(f'sd.txt: frames {missing[:5]} have no packet')
    # frames numbered but never sent at the end (the sender stopped while a layer's pacer held
    # them): the evaluation ends before the first
    return [fr[i] for i in range(missing[0] if missing else n)]


def on_periods(changes, arrivals, nlayers, t_first, t_last):
    """When each layer was really held: layer 0 from the first packet to the last; layer L >= 1 from
    the first packet of L that arrived at or after the add that took it (the join latency is not
    counted against the receiver) to the drop that left it. arrivals[L]: sorted arrival times.
    Returns (periods[L] = [(start, end)], join latency per change (s, None for drops and joins
    that brought nothing))."""
    per = [[(t_first, t_last)]] + [[] for _ in range(1, nlayers)]
    lat = []
    open_at = [None] * nlayers
    for k, (tc, frm, to) in enumerate(changes):
        lat.append(None)
        for L in range(1, nlayers):
            if frm <= L < to:           # added
                a = arrivals[L]
                j = bisect.bisect_left(a, tc)
                start = a[j] if j < len(a) else None
                # the layer's first packet after the add, if it came before the layer was dropped
                drop = next((t for t, f2, t2 in changes[k + 1:] if t2 <= L < f2), t_last)
                if start is not None and start <= drop:
                    open_at[L] = start
                    if L == to - 1:
                        lat[-1] = start - tc
            elif to <= L < frm and open_at[L] is not None:     # dropped
                per[L].append((open_at[L], tc))
                open_at[L] = None
    for L in range(1, nlayers):
        if open_at[L] is not None:
            per[L].append((open_at[L], t_last))
    return per, lat


def _inside(periods, t):
    return any(s <= t <= e for s, e in periods)


def evaluate_network(sd, frames, rd, changes, nlayers):
    """Everything the traces alone tell about one receiver (no video): per packet its estimated
    arrival and whether it was expected, per frame expected/complete, per layer the counts."""
    sdi = {p['id']: p for p in sd}
    got = [(a, pid) for pid, (a, _s, _l) in rd.items()]
    if not got:
        return None
    delays = [a - sdi[pid]['t'] for a, pid in got]
    d = statistics.median(delays)
    t_first, t_last = min(a for a, _ in got), max(a for a, _ in got)
    arr = [[] for _ in range(nlayers)]
    for a, pid in got:
        arr[sdi[pid]['layer']].append(a)
    for a in arr:
        a.sort()
    per, lat = on_periods(changes, arr, nlayers, t_first, t_last)

    # a lost packet's arrival: its send time + the larger delay of the received packets sent
    # just before and after it (the queue it would have waited in), the median without them
    sent_rx = sorted((sdi[pid]['t'], a - sdi[pid]['t']) for a, pid in got)
    st = [x for x, _ in sent_rx]

    def est(p):
        if p['id'] in rd:
            return rd[p['id']][0]
        k = bisect.bisect_left(st, p['t'])
        near = [sent_rx[j][1] for j in (k - 1, k) if 0 <= j < len(st)]
        return p['t'] + (max(near) if near else d)

    lay = [{'layer': L, 'packets_sent': 0, 'packets_expected': 0, 'packets_received': 0,
            'packets_lost': 0, 'bytes_received': 0} for L in range(nlayers)]
    expected = {}
    for p in sd:
        a, L = est(p), p['layer']
        if t_first <= a <= t_last:
            lay[L]['packets_sent'] += 1
        e = _inside(per[L], a)
        expected[p['id']] = e
        if p['id'] in rd:
            lay[L]['packets_received'] += 1
            lay[L]['bytes_received'] += rd[p['id']][1]
        if e:
            lay[L]['packets_expected'] += 1
            lay[L]['packets_lost'] += p['id'] not in rd
    for x in lay:
        x['loss_pct'] = 100 * x['packets_lost'] / x['packets_expected'] if x['packets_expected'] else None
    fr = []
    for i, f in enumerate(frames):
        rx = [rd[pid][0] for pid in f['ids'] if pid in rd]
        fr.append({'frame': i, 'layer': f['layer'], 'type': f['type'], 'packets': len(f['ids']),
                   'packets_rx': len(rx), 'send_s': f['g'],
                   'arrival_s': max(rx) if len(rx) == len(f['ids']) else None,
                   'at': min(rx) if rx else min(est(sdi[pid]) for pid in f['ids']),   # first packet's
                   'expected': all(expected[pid] for pid in f['ids']),
                   'complete': len(rx) == len(f['ids'])})
    # the window: from the first packet to the last, and on to the next layer-0 frame after it
    # (the frames of upper layers between are slots that repeat the last picture: frame rate)
    t_end = min([r['at'] for r in fr if r['layer'] == 0 and r['at'] > t_last] + [math.inf])
    for r in fr:
        r['level'] = level_at(changes, r['at'])
        r['in_window'] = t_first <= r['at'] and (r['at'] <= t_last or r['at'] < t_end)
    return {'delay_median_s': d, 't_first': t_first, 't_last': t_last, 'periods': per,
            'join_latency_s': lat, 'layers': lay, 'frames': fr}


def display(fr, decoded):
    """Slot by slot over the receiver's window: shown (newest decoded frame <= slot, -1 none),
    target (newest expected frame <= slot), frozen (target newer than shown)."""
    shown = tgt = -1
    for r in fr:
        if not r['in_window']:
            r.update(shown=None, target=None, frozen=False)
            continue
        i = r['frame']
        if i in decoded:
            shown = i
        if r['expected']:
            tgt = i
        r.update(shown=shown, target=tgt, frozen=tgt > shown)


def clean_frames(fr, decoded):
    """Decoded frames whose references are intact: the last key frame at or before them was
    decoded and since then no frame the receiver should have had (expected) of their layer or a
    lower one was lost (temporal layers reference only their own and lower layers). Such a frame
    must decode into exactly the loss-free picture; one that does not is a decoding error."""
    out, key_ok, broken = set(), False, set()
    for r in fr:
        j, L = r['frame'], r['layer']
        if r['type'] == 'I':
            key_ok, broken = j in decoded, set()
        if j in decoded and key_ok and not any(x <= L for x in broken):
            out.add(j)
        if r['expected'] and j not in decoded:
            broken.add(L)
    return out


def refs_not_held(fr, decoded):
    """Decoded frames of layer L for which a frame of a layer 1..L-1 since the last layer-0 frame
    was not decoded, though not lost (its layer was not held yet, e.g. two layers added within a
    few frames, or the end of the run): with the encoder's pattern (tests/net/avmrc_peer.py) an
    upper-layer frame references the lower layers' frames of its base-layer period, so such a
    frame decodes from a reference the receiver does not have. Not counted as decoding errors."""
    out, gap = set(), set()
    for r in fr:
        j, L = r['frame'], r['layer']
        if L == 0:
            gap = set()
        elif j in decoded and any(0 < x < L for x in gap):
            out.add(j)
        if j not in decoded:
            gap.add(L)
    return out


def runs(flags):
    """Lengths of the runs of true flags."""
    out, cur = [], 0
    for z in list(flags) + [False]:
        if z:
            cur += 1
        elif cur:
            out.append(cur)
            cur = 0
    return out


def at_changes(fr, changes, iv):
    """Per change: frozen slots whose time lies within CHANGE_WINDOW_S of it (the nearest change
    when several), those of them whose due frame lost packets (the rest: a whole frame not
    decoded), and the longest run of them (s)."""
    per = [[] for _ in changes]
    lost = []
    for r in fr:
        if not r['frozen']:
            continue
        lost.append(r['frame']) if not fr[r['target']]['complete'] else None
        near = [(abs(r['at'] - tc), k) for k, (tc, _, _) in enumerate(changes)
                if CHANGE_WINDOW_S[0] <= r['at'] - tc <= CHANGE_WINDOW_S[1]]
        if near:
            per[min(near)[1]].append(r['frame'])
    out, lost = [], set(lost)
    for slots in per:
        s = set(slots)
        rr = runs(i in s for i in range(min(s), max(s) + 1)) if s else []
        out.append({'frozen_slots': len(slots), 'frozen_by_loss': len(s & lost),
                    'freeze_max_s': max(rr) * iv if rr else 0.0})
    return out


def fps_bins(fr, frac, fps, t0, binw=1.0):
    """Per bin of slot time: the level (mean over the bin's slots), source frames, frames the held
    layers carry (expected), frames displayed at their own slot, nominal fps for the level."""
    bins = {}
    for r in fr:
        if not r['in_window']:
            continue
        b = int((r['send_s'] - t0) // binw)
        x = bins.setdefault(b, {'n': 0, 'lv': 0, 'exp': 0, 'disp': 0})
        x['n'] += 1
        x['lv'] += r['level']
        x['exp'] += r['expected']
        x['disp'] += r['shown'] == r['frame']
    out = []
    for b in sorted(bins):
        x = bins[b]
        lv = x['lv'] / x['n']
        out.append({'time_s': b * binw, 'level': round(lv, 3), 'source_frames': x['n'],
                    'expected_frames': x['exp'], 'displayed_frames': x['disp'],
                    'nominal_fps': round(frac.get(round(lv), 0) * fps, 3)})
    return out


def level_fractions(frames, nlayers):
    """Share of the frames that levels 1..n carry (temporal layers: level k shows layers < k)."""
    n = len(frames) or 1
    return {k: sum(1 for f in frames if f['layer'] < k) / n for k in range(1, nlayers + 1)}


def per_level(fr, nlayers, frac, fps, psnr=None, identical=None, clean=(), nohold=()):
    """Per level k: slots at it, their time, expected/displayed frames, displayed frames identical
    to the loss-free decode, with intact references (clean), clean but not identical because a
    reference was of a layer not held (refs_not_held) and for no known reason (decode_errors), frozen slots, measured and nominal fps, mean luma PSNR of the displayed frames and
    of every slot."""
    out = []
    for k in range(1, nlayers + 1):
        rs = [r for r in fr if r['in_window'] and r['level'] == k]
        if not rs:
            continue
        disp = [r for r in rs if r['shown'] == r['frame']]
        t = len(rs) / fps
        row = {'level': k, 'slots': len(rs), 'time_s': t,
               'expected_frames': sum(r['expected'] for r in rs), 'displayed_frames': len(disp),
               'frozen_slots': sum(r['frozen'] for r in rs),
               'fps_displayed': len(disp) / t if t else None, 'fps_nominal': frac[k] * fps}
        if identical is not None:
            row['identical_frames'] = sum(1 for r in disp if r['frame'] in identical)
            row['clean_frames'] = sum(1 for r in disp if r['frame'] in clean)
            row['refs_not_held'] = sum(1 for r in disp if r['frame'] in clean and r['frame'] in nohold
                                       and r['frame'] not in identical)
            row['decode_errors'] = sum(1 for r in disp if r['frame'] in clean and r['frame'] not in nohold
                                       and r['frame'] not in identical)
        if psnr is not None:
            pd = [psnr[r['frame']] for r in disp if r['frame'] in psnr]
            pa = [psnr[r['frame']] for r in rs if r['frame'] in psnr]
            row['psnr_displayed_db'] = sum(pd) / len(pd) if pd else None
            row['psnr_slots_db'] = sum(pa) / len(pa) if pa else None
        out.append(row)
    return out


# ---- video: the sent VP8 frames and their decode -------------------------------------------

def read_ivf(path):
    """IVF -> (width, height, rate, scale, [frame bytes] in file order)."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 32 or data[:4] != b'DKIF':
        raise ValueError(f'{path}: not an IVF file')
    hl = struct.unpack_from('<H', data, 6)[0]
    w, h, rate, scale = struct.unpack_from('<HHII', data, 12)
    out, o = [], hl
    while o + 12 <= len(data):
        n = struct.unpack_from('<I', data, o)[0]
        if o + 12 + n > len(data):
            break                   # cut off: the writer was stopped
        out.append(data[o + 12:o + 12 + n])
        o += 12 + n
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
            row.update(parse_psnr_summary(run([tool('psnr'), '--progress'] + geom + [
                '--ssim', '-o', pcsv, refw, dist], f'receiver {name}')))
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
                'clean_frames', 'refs_not_held', 'decode_errors', 'frozen_slots', 'fps_displayed', 'fps_nominal', 'psnr_displayed_db', 'psnr_slots_db'])
        _write(os.path.join(rep, f'{name}.changes.csv'), ch_rows,
               ['time_s', 'from', 'to', 'join_latency_ms', 'frozen_slots', 'frozen_by_loss', 'freeze_max_s'])
        _write(os.path.join(rep, f'{name}.fps.csv'), bins,
               ['time_s', 'level', 'source_frames', 'expected_frames', 'displayed_frames', 'nominal_fps'])
        rows.append(row)
    if video and not a.keep_video:
        os.remove(enc)
    return video, enc_q, rows, notes, {'fps': fps, 'fractions': frac, 'layers': nlayers}

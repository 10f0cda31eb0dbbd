"""Layered (AVMRC/RMRC/VMRC) runs for evalvid-run (docs/evalvid.md "Layered runs").

A layered run (docs/run-directory.md) has one sender/sd.txt with a layer column, VP8 video in
sender/sent.ivf (temporal layers: frame i belongs to one layer), and per receiver avmrcsrc's
rd.txt (a layer column too) and layers.csv (time_s,from,to). What a receiver displayed is built
EvalVid's way: a frame whose packets all arrived is decoded (vp8dec, frames fed in order with PTS
= frame index, outputs mapped back by PTS), every slot shows the newest decoded frame at or
before it. A frame of a layer the receiver did not hold is not shown and that is the frame-rate
change, not a freeze; a slot is frozen when a newer frame of the held layers should be on screen.
This file decides that from the traces; evalvid_layered_run.py decodes and writes the report.
"""
import bisect, csv, math, os, statistics, sys

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
    """(line number, fields, cut) of a trace; cut: the last line has no newline (the writer may
    have been stopped mid-line: a caller skips it with a warning if it does not parse, as
    ev_trace.c does)."""
    with open(path) as f:
        data = f.read()
    rows = data.split('\n')
    cut_at = 0
    if rows and rows[-1] == '':
        rows.pop()
    elif rows:
        cut_at = len(rows)
    for n, line in enumerate(rows, 1):
        t = line.split()
        if t and not t[0].startswith('#'):
            yield n, t, n == cut_at


def _cut_line(path, n):
    print(f'{path}:{n}: warning: unterminated last line does not parse, ignored', file=sys.stderr)


def read_sd(path):
    """sd.txt of a layered sender: [{t, id, size, frame, type, layer}] in file order."""
    out, seen = [], set()
    for n, t, cut in _lines(path):
        try:
            if len(t) < 9 or t[1] != 'id' or t[3] != 'udp' or t[7] != 'layer':
                raise ValueError
            p = {'t': float(t[0]), 'id': int(t[2]), 'size': int(t[4]), 'frame': int(t[5]),
                 'type': t[6], 'layer': int(t[8])}
        except ValueError:
            if cut:
                _cut_line(path, n)
                break
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
    for n, t, cut in _lines(path):
        try:
            if len(t) < 5 or t[1] != 'id' or t[3] != 'udp':
                raise ValueError
            at, pid, size = float(t[0]), int(t[2]), int(t[4])
            layer = int(t[6]) if len(t) >= 7 and t[5] == 'layer' else None
        except ValueError:
            if cut:
                _cut_line(path, n)
                break
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
        try:
            return sorted((float(r['time_s']), int(r['from']), int(r['to']))
                          for r in csv.DictReader(f))
        except (KeyError, TypeError, ValueError):
            raise ValueError(f'{path}: not a `time_s,from,to` table') from None


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
                   'complete': len(rx) == len(f['ids']),
                   # partly received, the rest due after the receiver's last packet: cut at the end
                   'cut': bool(rx) and any(est(sdi[pid]) > t_last for pid in f['ids'] if pid not in rd)})
    # the window: from the first packet to the last, and on to the next layer-0 frame after it
    # (the frames of upper layers between are slots that repeat the last picture: frame rate)
    t_end = min([r['at'] for r in fr if r['layer'] == 0 and r['at'] > t_last] + [math.inf])
    inw = [i for i, r in enumerate(fr) if t_first <= r['at'] and (r['at'] <= t_last or r['at'] < t_end)]
    for i, r in enumerate(fr):
        r['level'] = level_at(changes, r['at'])
        r['in_window'] = bool(inw) and inw[0] <= i <= inw[-1]   # contiguous: one slot per frame
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
    decoded and since then no frame the receiver should have had (expected, or cut at the run's
    end) of their layer or a lower one was lost (temporal layers reference only their own and lower layers). Such a frame
    must decode into exactly the loss-free picture; one that does not is a decoding error."""
    out, key_ok, broken = set(), False, set()
    for r in fr:
        j, L = r['frame'], r['layer']
        if r['type'] == 'I':
            key_ok, broken = j in decoded, set()
        if j in decoded and key_ok and not any(x <= L for x in broken):
            out.add(j)
        # lost: expected, or cut at the end of the run (a layer's pacer behind another's: part
        # of it came before the receiver's last packet, the rest was due after)
        if (r['expected'] or r.get('cut')) and j not in decoded:
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
    reference was of a layer not held (refs_not_held) and for no known reason (decode_errors),
    frozen slots, measured and nominal fps, mean luma PSNR of the displayed frames and of every
    slot."""
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

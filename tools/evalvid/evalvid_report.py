"""Tables, plots and report.md for evalvid-run (reporting only; the numbers come from the C tools)."""
import csv, math, os


def _fmt(v, nd=2):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return '-'
    return f'{v:.{nd}f}' if isinstance(v, float) else str(v)


RX_COLS = ['receiver', 'frames', 'frames_lost', 'frame_loss_pct', 'frames_lost_I', 'frames_lost_P',
           'frames_lost_B', 'frames_lost_H', 'frames_hdr_lost', 'packets', 'packets_lost', 'packet_loss_pct', 'duplicates',
           'frames_late', 'frames_never_shown', 'slots_frozen', 'freezes', 'freeze_max_s',
           'freeze_p95_s', 'frozen_s', 'delay_mean_s', 'delay_min_s',
           'delay_max_s', 'jitter_mean_abs_s', 'cumjitter_max_s', 'cumjitter_last_s', 'throughput_bps',
           'fair_share_bps', 'fair_share_pct',
           'psnr_mean_db_y', 'psnr_mean_db_u', 'psnr_mean_db_v', 'psnr_mean_db_avg', 'psnr_mean_db_min',
           'psnr_mse_db_y', 'psnr_mse_db_avg', 'ssim_mean_y', 'ssim_mean_all',
           'mos_mean', 'mos5_pct', 'mos4_pct', 'mos3_pct', 'mos2_pct', 'mos1_pct', 'miv_worst_pct',
           # the second, concealed view (what arrived decoded with FFmpeg's error concealment) and
           # slots whose picture is not the loss-free decode of their frame, in both views
           'slots_frozen_decoded', 'freeze_max_decoded_s', 'slots_impaired', 'psnr_ec_db', 'psnr_ec_mse_db', 'ssim_ec', 'mos_ec', 'miv_ec_worst_pct',
           'frames_damaged_fed', 'slots_concealed_ec', 'slots_impaired_ec', 'slots_frozen_ec', 'freezes_ec',
           'freeze_max_ec_s', 'freeze_p95_ec_s']


def freeze_runs(shown, after_first=False):
    """Lengths (in slots) of the runs of slots that do not show their own frame (shown[k]: the
    frame slot k showed, -1 none yet); after_first: only those after the first slot that showed
    its own frame (the run before it is the start-up, e.g. a lost first key frame)."""
    runs, cur, started = [], 0, not after_first
    for k, s in enumerate(shown):
        if s == k:
            started = True
            if cur:
                runs.append(cur)
            cur = 0
        elif started:
            cur += 1
    return runs + ([cur] if cur else [])


# simulcast runs (evalvid_simulcast.py) add: the final stream, switches, time on each stream
SIM_COLS = ['stream_final', 'switches', 'time_on_streams_s']


# layered runs (evalvid_layered.py) add: the layers held, changes, freezes at changes, decoding
LAY_COLS = ['frames_expected', 'level_final', 'level_mean', 'layer_changes', 'layer_adds', 'layer_drops',
            'join_latency_mean_s', 'slots_frozen_by_loss', 'slots_frozen_at_changes', 'slots_frozen_at_changes_by_loss',
            'slots_frozen_elsewhere',
            'freeze_max_at_changes_s', 'frames_displayed', 'frames_identical', 'frames_clean',
            'frames_refs_not_held', 'frames_decode_errors', 'frames_impaired_by_loss',
            'frames_not_decoded', 'decoder_messages', 'loss_pct_layers']


def write_tables(rep, s):
    cols = RX_COLS + (SIM_COLS + sorted({k for r in s['receivers'] for k in r
                                         if k.startswith('time_on_stream') and k not in SIM_COLS})
                      if s.get('simulcast') else [])
    if s.get('layered'):
        cols = cols + LAY_COLS + sorted({k for r in s['receivers'] for k in r
                                         if k.startswith('packets_') and k.endswith(tuple('0123456789'))})
    with open(os.path.join(rep, 'receivers.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in s['receivers']:
            w.writerow(['' if r.get(c) is None else r.get(c) for c in cols])
    with open(os.path.join(rep, 'fairness.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['kind', 'name', 'throughput_bps', 'fair_share_bps', 'fair_share_pct'])
        for r in s['receivers']:
            w.writerow(['multicast-receiver', r['receiver'], r['throughput_bps'], r.get('fair_share_bps') or '',
                        _fmt(r.get('fair_share_pct'), 3)])
        for n, fl in s['flows'].items():
            w.writerow(['competing-flow', n, fl['throughput_bps'], fl.get('fair_share_bps') or '',
                        _fmt(fl.get('fair_share_pct'), 3)])
        fa = s['fairness']
        w.writerow(['jain-index', 'all', _fmt(fa['jain_all'], 4), '', _fmt(fa['jain_fair_share'], 4)])


def _read(path):
    if not os.path.isfile(path):
        return []
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float('nan')


def _rel(times, t0):
    """Times of a CSV relative to the first sent packet: absolute wall-clock times (the elements
    write CLOCK_REALTIME) are shifted by it, relative ones start at 0."""
    if not times:
        return times
    base = t0 if (t0 is not None and times[0] > 1e8) else times[0]
    return [t - base for t in times]


def write_plots(rep, runp, s):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    names = [r['receiver'] for r in s['receivers']]
    fr0 = _read(os.path.join(rep, f'{names[0]}.frames.csv')) if names else []
    t0 = min((_num(r['send_s']) for r in fr0 if r['send_s']), default=None)

    # rate over time: sender state, what each receiver got, competing flows
    fig, ax = plt.subplots(figsize=(9, 4))
    top = 0.0        # the y range follows what was sent and received, not the receivers' computed rates
    rates = [('sender', _read(os.path.join(runp, 'sender', 'rate.csv')))]
    k = 0
    while not rates[0][1] and os.path.isfile(os.path.join(runp, 'sender', f'stream{k}', 'rate.csv')):
        rates.append((f'stream {k}', _read(os.path.join(runp, 'sender', f'stream{k}', 'rate.csv'))))
        k += 1      # simulcast: each stream's target and sent rate
    for who, rate in rates:
        if not rate:
            continue
        t = _rel([_num(r['time_s']) for r in rate], t0)
        for key, label, ls in (('target_bps', f'{who} target', '-'), ('sent_bps', f'{who} sent', '--')):
            v = [_num(r[key]) / 1e3 for r in rate]
            ax.plot(t, v, label=label, ls=ls, lw=2 if ls == '-' else 1)
            top = max([top] + [x for x in v if x == x])
    for n in names:
        rr = _read(os.path.join(rep, f'{n}.rate.csv'))
        v = [_num(r['recv_bps']) / 1e3 for r in rr]
        ax.plot([_num(r['time_s']) for r in rr], v, label=f'{n} received')
        top = max([top] + v)
        st = _read(os.path.join(runp, f'rx-{n}', 'stats.csv'))
        if st:
            ax.plot(_rel([_num(r['time_s']) for r in st], t0), [_num(r['rate_bps']) / 1e3 for r in st], ls=':',
                    label=f'{n} computed rate')
    for n, fl in s['flows'].items():
        rows = fl['rows']
        if len(rows) > 1:
            ft = [_num(r['time_s']) for r in rows]
            dt = (ft[-1] - ft[0]) / (len(rows) - 1)
            v = [8 * _num(r['bytes']) / dt / 1e3 for r in rows]
            ax.plot(_rel(ft, t0), v, label=f'flow {n}', alpha=.7)
            top = max([top] + v)
    if top > 0:
        ax.set_ylim(0, 1.5 * top)
    ax.set_xlabel('time since the first sent packet (s)'); ax.set_ylabel('kbit/s'); ax.set_title('Rate over time')
    ax.grid(alpha=.3); ax.legend(fontsize=7)
    fig.tight_layout(); fig.savefig(os.path.join(rep, 'rate.png'), dpi=100); plt.close(fig)

    if s['video']:
        fig, ax = plt.subplots(figsize=(11, 4))
        enc = _read(os.path.join(rep, 'encoded.psnr.csv'))
        ax.plot([_num(r['frame']) for r in enc], [_num(r['psnr_y']) for r in enc], label='encoded (no network)',
                color='k', lw=.8)
        for n in names:
            p = _read(os.path.join(rep, f'{n}.psnr.csv'))
            line, = ax.plot([_num(r['frame']) for r in p], [_num(r['psnr_y']) for r in p], label=f'{n} (frozen)',
                            lw=.8)
            pe = _read(os.path.join(rep, f'{n}.psnr_ec.csv'))
            if pe:
                ax.plot([_num(r['frame']) for r in pe], [_num(r['psnr_y']) for r in pe], lw=.8, ls='--',
                        color=line.get_color(), label=f'{n} (concealed)')
            # freeze episodes of the frozen view: runs of slots that do not show their own frame
            fr = _read(os.path.join(rep, f'{n}.frames.csv'))
            first = True
            # (layered runs: the frozen column, as a frame of a layer not held is no freeze)
            for a, b in _runs([r['frozen'] == '1' if 'frozen' in r else int(r['frame']) != int(r['shown'])
                               for r in fr if r.get('shown')]):
                ax.axvspan(a - .5, b - .5, color=line.get_color(), alpha=.15, lw=0,
                           label=f'{n} freezes' if first else None)
                first = False
        for y in (20, 25, 31, 37):
            ax.axhline(y, color='grey', lw=.5, ls=':')
        ax.set_xlabel('frame'); ax.set_ylabel('PSNR Y (dB, cap 100)')
        ax.set_title('PSNR per frame: frozen view (solid, freezes shaded), concealed view (dashed)')
        ax.grid(alpha=.3); ax.legend(fontsize=7, loc='upper left', bbox_to_anchor=(1.01, 1))
        fig.tight_layout(); fig.savefig(os.path.join(rep, 'psnr.png'), dpi=100); plt.close(fig)

        fig, ax = plt.subplots(figsize=(7, 4))
        width = .8 / max(1, len(names))
        for i, r in enumerate(s['receivers']):
            ax.bar([c + i * width - .4 + width / 2 for c in range(1, 6)],
                   [r.get(f'mos{c}_pct') or 0 for c in range(1, 6)], width, label=r['receiver'])
        ax.set_xticks(range(1, 6)); ax.set_xticklabels(['1 bad', '2 poor', '3 fair', '4 good', '5 excellent'])
        ax.set_ylabel('% of frames'); ax.set_title('MOS distribution'); ax.legend(fontsize=7)
        fig.tight_layout(); fig.savefig(os.path.join(rep, 'mos.png'), dpi=100); plt.close(fig)

    if s.get('layered'):     # frame rate over time against what the held layers carry
        fig, ax = plt.subplots(figsize=(9, 4))
        for n in names:
            fp = _read(os.path.join(rep, f'{n}.fps.csv'))
            t = [_num(r['time_s']) for r in fp]
            line, = ax.plot(t, [_num(r['displayed_frames']) for r in fp], label=f'{n} displayed', lw=1)
            ax.step(t, [_num(r['nominal_fps']) for r in fp], where='post', ls=':', color=line.get_color(),
                    label=f'{n} nominal for its level')
        ax.set_xlabel('time since the first sent frame (s)'); ax.set_ylabel('frames per second')
        ax.set_title('Frames displayed per second and the rate of the layers held'); ax.grid(alpha=.3)
        ax.legend(fontsize=7)
        fig.tight_layout(); fig.savefig(os.path.join(rep, 'fps.png'), dpi=100); plt.close(fig)

    for key, fname, title, ylabel in (('delay_s', 'delay.png', 'End-to-end delay per frame', 'ms'),
                                      ('cumjitter_s', 'cumjitter.png', 'Cumulative jitter (eq. 4)', 'ms')):
        fig, ax = plt.subplots(figsize=(9, 4))
        for n in names:
            fr = _read(os.path.join(rep, f'{n}.frames.csv'))
            ax.plot([_num(r['frame']) for r in fr], [1e3 * _num(r[key]) for r in fr], label=n, lw=.8)
        if key == 'delay_s' and s['playout_delay_ms'] is not None:
            ax.axhline(s['playout_delay_ms'], color='r', ls='--', lw=.8, label='play-out delay')
        ax.set_xlabel('frame'); ax.set_ylabel(ylabel); ax.set_title(title); ax.grid(alpha=.3)
        ax.legend(fontsize=7)
        fig.tight_layout(); fig.savefig(os.path.join(rep, fname), dpi=100); plt.close(fig)


def _runs(flags):
    """[(start, end)) of the runs of true flags."""
    out, start = [], None
    for k, f in enumerate(flags + [False]):
        if f and start is None:
            start = k
        elif not f and start is not None:
            out.append((start, k))
            start = None
    return out


def _ms(v):
    return '-' if v is None or (isinstance(v, float) and math.isnan(v)) else f'{1e3 * v:.0f}'


def summary_table(s):
    hdr = (f'{"receiver":<10} {"frames":>6} {"loss%":>6} {"lostI/P":>8} {"late":>5} {"frozen":>6} '
           f'{"freeze ms":>11} '
           f'{"delay ms":>13} {"cumjit ms":>9} {"kbit/s":>8} {"fair%":>6} {"PSNR-Y":>7} {"SSIM":>6} '
           f'{"MOS":>5} {"miv%":>5} | {"PSNR-EC":>7} {"SSIM-EC":>7} {"MOS-EC":>6} {"conc":>4} {"frz-EC":>6}')
    sim = s.get('simulcast')
    if sim:     # simulcast: the stream each receiver ended on, switches, seconds on each stream
        hdr += f' {"stream":>6} {"sw":>3} {"s on each stream":>16}'
    lines = [f'evalvid-run: {s["run"]}  play-out delay: '
             f'{"none" if s["playout_delay_ms"] is None else str(s["playout_delay_ms"]) + " ms"}', hdr]
    if s['encoded']:
        e = s['encoded']
        lines.append(f'{"(encoded)":<10} {"":>6} {"":>6} {"":>8} {"":>5} {"":>6} {"":>11} {"":>13} {"":>9} '
                     f'{"":>8} {"":>6} '
                     f'{_fmt(e.get("psnr_mean_db_y")):>7} {_fmt(e.get("ssim_mean_y"), 3):>6} '
                     f'{_fmt(e.get("mos_mean")):>5} {"":>5} | {"":>7} {"":>7} {"":>6} {"":>4} {"":>6}')
    for r in s['receivers']:
        d = f'{_fmt(1e3 * r["delay_mean_s"] if r["delay_mean_s"] is not None else None, 0)}/' \
            f'{_fmt(1e3 * r["delay_max_s"] if r["delay_max_s"] is not None else None, 0)}'
        fz = f'{_ms(r.get("freeze_max_s"))}/{_ms(r.get("freeze_p95_s"))}'
        lines.append(
            f'{r["receiver"]:<10} {int(r["frames"]):>6} {_fmt(r["frame_loss_pct"]):>6} '
            f'{int(r["frames_lost_I"])}/{int(r["frames_lost_P"]):<4} {int(r["frames_late"]):>5} '
            f'{int(r["slots_frozen"]):>6} {fz:>11} {d:>13} {_fmt(1e3 * r["cumjitter_max_s"], 1):>9} '
            f'{_fmt(r["throughput_bps"] / 1e3, 0):>8} {_fmt(r.get("fair_share_pct"), 0):>6} '
            f'{_fmt(r.get("psnr_mean_db_y")):>7} {_fmt(r.get("ssim_mean_y"), 3):>6} '
            f'{_fmt(r.get("mos_mean")):>5} {_fmt(r.get("miv_worst_pct"), 0):>5} | '
            f'{_fmt(r.get("psnr_ec_db")):>7} {_fmt(r.get("ssim_ec"), 3):>7} {_fmt(r.get("mos_ec")):>6} '
            f'{_fmt(r.get("slots_concealed_ec"), 0):>4} {_fmt(r.get("slots_frozen_ec"), 0):>6}' + (
                f' {_fmt(r.get("stream_final"), 0):>6} {_fmt(r.get("switches"), 0):>3} '
                f'{r.get("time_on_streams_s") or "-":>16}' if sim else ''))
    if sim and s['encoded'] and s['encoded'].get('streams'):
        lines.append('encoded (no network) at the display size, per stream: PSNR-Y ' + ', '.join(
            f'{q["stream"]}: {_fmt(q.get("psnr_mean_db_y"))}' for q in s['encoded']['streams']))
    if s.get('layered'):
        lines += layered_tables(s)
    lines += [f'note: {n}' for n in s.get('notes', [])]
    fa = s['fairness']
    lines.append(f'Jain index (receivers + {len(s["flows"])} competing flows): {_fmt(fa["jain_all"], 3)}; '
                 f'over shares of the fair bandwidth: {_fmt(fa["jain_fair_share"], 3)}')
    return '\n'.join(lines)


def layered_tables(s):
    """Per receiver of a layered run: loss per layer, frames per level, each layer change."""
    ly = s['layered']
    L = ['', f'layered: {ly["layers"]} layers; level k shows ' + ', '.join(
        f'{k}: {100 * f:.1f} %' for k, f in ly['fractions'].items()) +
        f' of the frames ({ly["fps"]:g} fps source)']
    for r in s['receivers']:
        x = r.get('layered')
        if not x:
            continue
        L.append(f'{r["receiver"]}: final level {_fmt(r.get("level_final"), 0)}, mean '
                 f'{_fmt(r.get("level_mean"))}, {_fmt(r.get("layer_adds"), 0)} adds / '
                 f'{_fmt(r.get("layer_drops"), 0)} drops; frozen slots {_fmt(r.get("slots_frozen"), 0)} '
                 f'({_fmt(r.get("slots_frozen_at_changes"), 0)} at changes, '
                 f'{_fmt(r.get("slots_frozen_at_changes_by_loss"), 0)} of them by loss); decoding errors '
                 f'{_fmt(r.get("frames_decode_errors"), 0)}, frames impaired by a loss '
                 f'{_fmt(r.get("frames_impaired_by_loss"), 0)}, by a reference not held '
                 f'{_fmt(r.get("frames_refs_not_held"), 0)}')
        L.append(f'  {"layer":>5} {"sent":>7} {"held":>7} {"rx":>7} {"lost":>5} {"loss%":>6}')
        for y in x['layers']:
            L.append(f'  {y["layer"]:>5} {y["packets_sent"]:>7} {y["packets_expected"]:>7} '
                     f'{y["packets_received"]:>7} {y["packets_lost"]:>5} {_fmt(y["loss_pct"]):>6}')
        L.append(f'  {"level":>5} {"time s":>7} {"expect":>7} {"shown":>7} {"ident":>7} {"clean":>6} '
                 f'{"errors":>6} {"frozen":>6} {"fps":>6} {"nominal":>7} {"PSNR-Y":>7} {"slots":>7}')
        for y in x['levels']:
            L.append(f'  {y["level"]:>5} {y["time_s"]:>7.1f} {y["expected_frames"]:>7} '
                     f'{y["displayed_frames"]:>7} {_fmt(y.get("identical_frames"), 0):>7} '
                     f'{_fmt(y.get("clean_frames"), 0):>6} {_fmt(y.get("decode_errors"), 0):>6} '
                     f'{y["frozen_slots"]:>6} {_fmt(y["fps_displayed"], 1):>6} {_fmt(y["fps_nominal"], 1):>7} '
                     f'{_fmt(y.get("psnr_displayed_db")):>7} {_fmt(y.get("psnr_slots_db")):>7}')
        if x['changes']:
            L.append('  changes (s: from->to, join ms, frozen slots): ' + ', '.join(
                f'{c["time_s"]:.1f}: {c["from"]}->{c["to"]}'
                + (f' {c["join_latency_ms"]:.0f}' if c['join_latency_ms'] is not None else '')
                + f' {c["frozen_slots"]}' for c in x['changes']))
    return L


def layered_markdown(s):
    """report.md's section for a layered run."""
    ly = s['layered']
    L = ['## Layers', '', f'{ly["layers"]} cumulative layers; level k (layers 0..k-1 held) shows '
         + ', '.join(f'{k}: {100 * f:.1f} %' for k, f in ly['fractions'].items())
         + f' of the source frames ({ly["fps"]:g} fps). A frame of a layer not held is not a '
         'freeze; a slot is frozen when a newer frame of the held layers should be on screen. '
         '"held": packets sent while the receiver held their layer (from the first packet after '
         'the join to the drop); "identical": displayed frames equal to the loss-free decode; '
         '"clean": displayed frames whose references are intact (no loss in their layer or below '
         'since their key frame); "reference not held": clean frames, not identical, after a frame '
         'of a lower upper layer of their base-layer period that the receiver did not have (its '
         'layer not held yet); "decoding errors": the other clean frames that are not identical.', '']
    for r in s['receivers']:
        x = r.get('layered')
        if not x:
            continue
        L += [f'### {r["receiver"]}', '', '| layer | sent | held | received | lost | loss % |',
              '|---|---|---|---|---|---|']
        L += [f'| {y["layer"]} | {y["packets_sent"]} | {y["packets_expected"]} | {y["packets_received"]} '
              f'| {y["packets_lost"]} | {_fmt(y["loss_pct"])} |' for y in x['layers']]
        L += ['', '| level | time s | frames expected | displayed | identical | clean | reference not '
              'held | decoding errors | frozen slots | fps displayed | fps nominal | PSNR-Y displayed | '
              'PSNR-Y all slots |', '|' + '---|' * 13]
        L += [f'| {y["level"]} | {y["time_s"]:.1f} | {y["expected_frames"]} | {y["displayed_frames"]} | '
              f'{_fmt(y.get("identical_frames"), 0)} | {_fmt(y.get("clean_frames"), 0)} | '
              f'{_fmt(y.get("refs_not_held"), 0)} | {_fmt(y.get("decode_errors"), 0)} | {y["frozen_slots"]} | {_fmt(y["fps_displayed"], 1)} | '
              f'{_fmt(y["fps_nominal"], 1)} | {_fmt(y.get("psnr_displayed_db"))} | '
              f'{_fmt(y.get("psnr_slots_db"))} |' for y in x['levels']]
        if x['changes']:
            L += ['', '| time s | from | to | join latency ms | frozen slots | of them by loss | '
                  'longest freeze ms |', '|---|---|---|---|---|---|---|']
            L += [f'| {c["time_s"]:.2f} | {c["from"]} | {c["to"]} | {_fmt(c["join_latency_ms"], 0)} | '
                  f'{c["frozen_slots"]} | {c["frozen_by_loss"]} | {_ms(c["freeze_max_s"])} |'
                  for c in x['changes']]
        L.append('')
    return L


def write_markdown(rep, s):
    m = s['meta']
    L = ['# Evaluation report', '',
         f'Run: `{s["run"]}`  ',
         f'Scenario: {m.get("scenario", "-")}, protocol: {m.get("protocol", "-")}, '
         f'duration: {m.get("duration_s", "-")} s  ',
         f'Play-out delay: {"none" if s["playout_delay_ms"] is None else str(s["playout_delay_ms"]) + " ms"}', '',
         '## Per receiver', '', '```', summary_table(s), '```', '']
    L += [f'**Note:** {n}  ' for n in s.get('notes', [])] + ([''] if s.get('notes') else [])
    if s.get('layered'):
        L += layered_markdown(s)
    L += [
         'Columns: frame loss (a frame with any lost packet is lost), lost I/P frames, frames that '
         'arrived after their play-out slot, slots that did not show their own frame (freeze or '
         'black), end-to-end frame delay mean/max, maximum cumulative jitter (papers/002 eq. 4), '
         'received throughput, share of the fair bandwidth (bottleneck / flows on it), mean of the '
         'per-frame luma PSNR (dB, identical frames count 100 dB), mean luma SSIM, mean MOS '
         '(ITU-R table), worst 25-frame miv window; after `|` the concealed view: PSNR-Y, SSIM, MOS '
         'of what arrived decoded with error concealment (damaged frames too), slots that showed a '
         'concealed (partly received) frame, slots that did not show their own frame.', '']
    if s['video']:
        L += ['## Quality', '', '| receiver | PSNR Y mean dB | PSNR avg mean dB | PSNR Y of mean MSE | '
              'PSNR avg of mean MSE | min dB | SSIM Y | SSIM all | MOS | 5 % | 4 % | 3 % | 2 % | 1 % |',
              '|' + '---|' * 14]
        rows = ([dict(receiver='(encoded)', **s['encoded'])] if s['encoded'] else []) + s['receivers']
        for r in rows:
            L.append('| ' + ' | '.join([r['receiver']] + [_fmt(r.get(k), nd) for k, nd in (
                ('psnr_mean_db_y', 2), ('psnr_mean_db_avg', 2), ('psnr_mse_db_y', 2), ('psnr_mse_db_avg', 2),
                ('psnr_mean_db_min', 2), ('ssim_mean_y', 4), ('ssim_mean_all', 4), ('mos_mean', 2),
                ('mos5_pct', 1), ('mos4_pct', 1), ('mos3_pct', 1), ('mos2_pct', 1), ('mos1_pct', 1))]) + ' |')
        L += ['', '"Mean dB" is the mean of per-frame values (EvalVid); "of mean MSE" is what FFmpeg\'s '
              'psnr filter prints as its summary. The encoded row is the sent stream decoded without '
              'network: the loss of quality due to coding alone.', '']
    if s['video'] and any(r.get('psnr_ec_db') is not None for r in s['receivers']):
        L += ['## Two views: frozen (EvalVid) and concealed', '',
              'Frozen: a frame with any lost packet is lost and the last picture stays (EvalVid). '
              'Concealed: everything that arrived, damaged frames included, decoded by FFmpeg\'s H.264 '
              'decoder (avdec_h264) with its error concealment, as a receiver that passes damaged '
              'frames to its decoder would show it. Impaired: slots whose picture is not the loss-free '
              'decode of their own frame (repeat, concealment or propagated errors).', '',
              '| receiver | PSNR Y frozen | PSNR Y concealed | SSIM frozen | SSIM concealed | MOS frozen | '
              'MOS concealed | damaged frames fed | slots concealed | frozen slots (frozen / concealed) | '
              'impaired slots (frozen / concealed) | longest freeze ms (frozen / concealed) |', '|' + '---|' * 12]
        for r in s['receivers']:
            L.append(f'| {r["receiver"]} | {_fmt(r.get("psnr_mean_db_y"))} | {_fmt(r.get("psnr_ec_db"))} | '
                     f'{_fmt(r.get("ssim_mean_y"), 4)} | {_fmt(r.get("ssim_ec"), 4)} | {_fmt(r.get("mos_mean"))} | '
                     f'{_fmt(r.get("mos_ec"))} | {_fmt(r.get("frames_damaged_fed"), 0)} | '
                     f'{_fmt(r.get("slots_concealed_ec"), 0)} | {_fmt(r.get("slots_frozen_decoded"), 0)} / '
                     f'{_fmt(r.get("slots_frozen_ec"), 0)} | {_fmt(r.get("slots_impaired"), 0)} / '
                     f'{_fmt(r.get("slots_impaired_ec"), 0)} | {_ms(r.get("freeze_max_decoded_s"))} / '
                     f'{_ms(r.get("freeze_max_ec_s"))} |')
        L.append('')
    L += ['## Network', '', '| receiver | packets | lost | loss % | dup | delay mean ms | delay max ms | '
          'mean abs jitter ms | max cum. jitter ms | kbit/s |', '|' + '---|' * 10]
    for r in s['receivers']:
        L.append(f'| {r["receiver"]} | {int(r["packets"])} | {int(r["packets_lost"])} | '
                 f'{_fmt(r["packet_loss_pct"])} | {int(r["duplicates"])} | {_fmt(1e3 * r["delay_mean_s"], 1)} | '
                 f'{_fmt(1e3 * r["delay_max_s"], 1)} | {_fmt(1e3 * r["jitter_mean_abs_s"], 2)} | '
                 f'{_fmt(1e3 * r["cumjitter_max_s"], 1)} | {_fmt(r["throughput_bps"] / 1e3, 1)} |')
    fa = s['fairness']
    L += ['', '## Fairness', '',
          f'The multicast stream and {len(s["flows"])} competing flow(s). Jain\'s index over the '
          f'throughputs of the receivers and flows: {_fmt(fa["jain_all"], 4)}; over their shares of '
          f'their fair bandwidth: {_fmt(fa["jain_fair_share"], 4)}.', '']
    if s['flows']:
        L += ['| flow | kbit/s | fair share kbit/s | % of fair share |', '|---|---|---|---|']
        for n, fl in s['flows'].items():
            L.append(f'| {n} | {_fmt((fl["throughput_bps"] or 0) / 1e3, 1)} | '
                     f'{_fmt((fl.get("fair_share_bps") or float("nan")) / 1e3, 1)} | {_fmt(fl.get("fair_share_pct"), 1)} |')
        L.append('')
    L += ['## Plots', '']
    for p, t in (('rate.png', 'Rate over time'), ('psnr.png', 'PSNR per frame'), ('fps.png', 'Frame rate'),
                 ('mos.png', 'MOS distribution'),
                 ('delay.png', 'End-to-end delay'), ('cumjitter.png', 'Cumulative jitter')):
        if os.path.isfile(os.path.join(rep, p)):
            L.append(f'![{t}]({p})')
    L += ['', 'Tables: receivers.csv, fairness.csv, NAME.frames.csv (per frame: status, delay, jitter, '
          'shown frame), NAME.psnr.csv (per frame PSNR/MSE/SSIM), NAME.mos.csv (per frame MOS), '
          'NAME.ec.csv (concealed view: what was fed per frame, shown frame), NAME.psnr_ec.csv, NAME.mos_ec.csv, '
          'NAME.rate.csv, encoded.psnr.csv. '
          'Definitions: docs/evalvid.md.', '']
    with open(os.path.join(rep, 'report.md'), 'w') as f:
        f.write('\n'.join(L))

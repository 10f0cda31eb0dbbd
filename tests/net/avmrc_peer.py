#!/usr/bin/python3
"""One end of a live AVMRC session for tests/net/test_avmrc_elements.py (run inside a namespace).

  avmrc_peer.py send --iface IF --duration S [--run RUN]
      a moving picture with noise (320x240p30: the noise keeps the encoder at its targets) as VP8 with three temporal layers (7.5, 15, 30 fps;
      cumulative targets 150, 300, 600 kbit/s) into avmrclayers (239.1.3.1-3, ports 5100-5104);
      with --run, RUN/sender/ gets sd.txt (a layer column), sent.ivf, ref.yuv, ref.json for
      evalvid-run (tools/testbed/amcast_testbed/layertrace.py)
  avmrc_peer.py recv --iface IF --duration S [--trace DIR]
      avmrcsrc rates=150,300,600 ! rtpvp8depay ! vp8dec ! fakesink, counting decoded frames;
      with --trace, DIR gets avmrcsrc's rd.txt and layers.csv (time_s,from,to per change)

Prints one JSON line per layer change ({"layers": {...}}) and one at the end ({"result": {...}}).
"""
import argparse
import json
import os
import sys
import time

import gi
gi.require_version('Gst', '1.0')
from gi.repository import GLib, GObject, Gst  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools',
                                'testbed'))
from amcast_testbed.layertrace import LayersLog, SenderTrace  # noqa: E402

RATES = (150_000, 300_000, 600_000)         # cumulative, bit/s
# libvpx's 3-layer pattern 0 2 1 2: layer 0 uses and updates only the last frame, upper layers
# update nothing a lower layer uses, so 1, 2 or 3 layers decode alone (tests/gst/amvp8test.h)
FLAGS = ('<no-ref-golden+no-upd-golden+no-upd-alt,'
         'no-ref-golden+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy,'
         'no-ref-golden+no-upd-last+no-upd-alt,'
         'no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy>')


def int_array(xs):
    a = GObject.ValueArray.new(len(xs))
    for x in xs:
        v = GObject.Value()
        v.init(GObject.TYPE_INT)
        v.set_int(x)
        a.append(v)
    return a


def send_desc(a):
    c = 'video/x-raw,format=AYUV,width=320,height=240,framerate=30/1'
    return ('compositor name=mix max-threads=1 sink_1::alpha=0.3 ! videoconvert ! '
            'video/x-raw,format=I420 ! vp8enc name=enc deadline=1 cpu-used=8 threads=1 '
            'end-usage=cbr target-bitrate=600000 keyframe-max-dist=150 max-intra-bitrate=300 '
            'error-resilient=default ! '
            'rtpvp8pay name=pay picture-id-mode=2 mtu=1200 ! '
            f'avmrclayers name=tx layers=3 multicast-iface={a.iface} '
            f'videotestsrc is-live=true pattern=smpte75 horizontal-speed=3 ! {c} ! mix. '
            f'videotestsrc is-live=true pattern=snow ! {c} ! mix. ')


def recv_desc(a):
    trace = f' trace-dir={a.trace}' if a.trace else ''
    return (f'avmrcsrc name=rx layers=3 rates=150,300,600 multicast-iface={a.iface}{trace} ! '
            'rtpvp8depay ! vp8dec name=dec ! fakesink name=out sync=false')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('role', choices=('send', 'recv'))
    p.add_argument('--iface', required=True)
    p.add_argument('--duration', type=float, required=True)
    p.add_argument('--trace')
    p.add_argument('--run', help='send: write RUN/sender/ traces and video for evalvid-run')
    a = p.parse_args()
    Gst.init(None)
    pipe = Gst.parse_launch(send_desc(a) if a.role == 'send' else recv_desc(a))
    if a.role == 'send':
        enc = pipe.get_by_name('enc')
        enc.set_property('temporal-scalability-number-layers', 3)
        enc.set_property('temporal-scalability-periodicity', 4)
        enc.set_property('temporal-scalability-layer-id', int_array([0, 2, 1, 2]))
        enc.set_property('temporal-scalability-rate-decimator', int_array([4, 2, 1]))
        enc.set_property('temporal-scalability-target-bitrate', int_array(list(RATES)))
        Gst.util_set_object_arg(enc, 'temporal-scalability-layer-flags', FLAGS)
        Gst.util_set_object_arg(enc, 'temporal-scalability-layer-sync-flags',
                                '<false,true,true,false>')
    trace = layers_log = None
    if a.role == 'send' and a.run:
        pipe.set_state(Gst.State.READY)         # avmrclayers builds its layers' sinks here
        trace = SenderTrace(a.run, pipe.get_by_name('tx'), 3, pipe.get_by_name('pay'), enc)
    if a.role == 'recv' and a.trace:
        layers_log = LayersLog(a.trace)
    res = {'frames': 0, 'errors': 0, 'decode_warnings': 0, 'changes': 0}
    t0 = time.time()
    if a.role == 'recv':
        def count(_pad, _info):
            res['frames'] += 1
            return Gst.PadProbeReturn.OK
        pipe.get_by_name('out').get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER, count)
    loop = GLib.MainLoop()

    def on_msg(_bus, m):
        if m.type == Gst.MessageType.ERROR:
            res['errors'] += 1
            err, dbg = m.parse_error()
            print(json.dumps({'error': f'{err.message} ({dbg})'}), flush=True)
            loop.quit()
        elif m.type == Gst.MessageType.WARNING and m.src.get_name() == 'dec':
            res['decode_warnings'] += 1
        elif m.type == Gst.MessageType.ELEMENT:
            s = m.get_structure()
            if s.get_name() == 'avmrcsrc-layers':
                res['changes'] += 1
                if layers_log:
                    layers_log.change(s.get_value('from'), s.get_value('to'))
                print(json.dumps({'layers': {'t': round(time.time() - t0, 3),
                                             'from': s.get_value('from'),
                                             'to': s.get_value('to')}}), flush=True)
        return True
    bus = pipe.get_bus()
    bus.add_signal_watch()
    bus.connect('message', on_msg)
    pipe.set_state(Gst.State.PLAYING)
    GLib.timeout_add(int(a.duration * 1000), loop.quit)
    loop.run()
    name = 'rx' if a.role == 'recv' else 'tx'
    st = pipe.get_by_name(name).get_property('stats')
    res['stats'] = {st.nth_field_name(i): st.get_value(st.nth_field_name(i))
                    for i in range(st.n_fields())}
    res['t_end'] = round(time.time() - t0, 3)
    pipe.set_state(Gst.State.NULL)
    for t in (trace, layers_log):
        if t:
            t.close()
    print(json.dumps({'result': res}), flush=True)
    return 1 if res['errors'] else 0


if __name__ == '__main__':
    sys.exit(main())

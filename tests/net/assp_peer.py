#!/usr/bin/python3
"""One end of a live ASSP session for tests/net/test_assp_elements.py (run inside a namespace).

  assp_peer.py send --iface IF --duration S [--trace DIR]
      the testbed's composite picture (640x360p25) as three x264 streams (320x180, 480x270,
      640x360) into asspsimulcast with the paper's limits (100-200, 200-500, 600-1000 kbit/s)
  assp_peer.py recv --iface IF --duration S
      asspsrc ! rtph264depay ! avdec_h264 ! fakesink, counting decoded frames

Prints one JSON line per switch ({"switch": {...}}) and one at the end ({"result": {...}}).
"""
import argparse
import json
import os
import sys
import time

import gi
gi.require_version('Gst', '1.0')
from gi.repository import GLib, Gst  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tools', 'testbed'))
SIZES = ((320, 180), (480, 270), (640, 360))
ENC = ('x264enc tune=zerolatency speed-preset=ultrafast key-int-max=25 threads=1 ! '
       'video/x-h264,profile=baseline ! rtph264pay config-interval=-1 mtu=1200')


def source(w, h):
    # the testbed's picture (tools/testbed/amcast-node source_desc), one tee branch per stream
    c = f'video/x-raw,format=AYUV,width={w},height={h},framerate=25/1'
    return (f'compositor name=mix max-threads=1 sink_1::alpha=0.35 ! videoconvert ! '
            f'video/x-raw,format=I420,width={w},height={h},framerate=25/1 ! tee name=t '
            f'videotestsrc is-live=true pattern=smpte75 horizontal-speed=3 ! {c} ! mix. '
            f'videotestsrc is-live=true pattern=zone-plate kx2=10 ky2=10 kt=3 ! {c} ! mix. '
            f'videotestsrc is-live=true pattern=ball motion=wavy background-color=0 ! {c} ! mix. ')


def send_desc(a):
    d = source(*SIZES[-1])
    for j, (w, h) in enumerate(SIZES):
        d += (f't. ! queue max-size-buffers=3 leaky=downstream ! videoscale ! '
              f'video/x-raw,width={w},height={h} ! {ENC} ! s.sink_{j} ')
    trace = f' trace-dir={a.trace}' if a.trace else ''
    return d + f'asspsimulcast name=s multicast-iface={a.iface} rtcp-interval=500{trace}'


def recv_desc(a):
    return (f'asspsrc name=rx multicast-iface={a.iface} rtcp-interval=500 ! rtph264depay ! '
            f'avdec_h264 ! fakesink name=out sync=false')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('role', choices=('send', 'recv'))
    p.add_argument('--iface', required=True)
    p.add_argument('--duration', type=float, required=True)
    p.add_argument('--trace')
    a = p.parse_args()
    Gst.init(None)
    pipe = Gst.parse_launch(send_desc(a) if a.role == 'send' else recv_desc(a))
    res = {'frames': 0, 'errors': 0, 'switches': 0, 'stats': None}
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
        elif m.type == Gst.MessageType.ELEMENT:
            s = m.get_structure()
            if s.get_name() == 'asspsrc-switch':
                res['switches'] += 1
                print(json.dumps({'switch': {'t': round(time.time() - t0, 3),
                                             'from': s.get_value('from'),
                                             'to': s.get_value('to'),
                                             'gap_s': s.get_value('gap-s')}}), flush=True)
            elif s.get_name() == 'asmpsrc-stats' and s.has_field('stream'):
                res['stats'] = {k: s.get_value(k) for k in ('stream', 'share-bps', 'rate-bps',
                                                            'packets-lost', 'recv-bitrate',
                                                            'mode', 'congested', 'queue-s')}
                print(json.dumps({'stats': dict(res['stats'], t=round(time.time() - t0, 2))}),
                      flush=True)
        return True
    bus = pipe.get_bus()
    bus.add_signal_watch()
    bus.connect('message', on_msg)
    pipe.set_state(Gst.State.PLAYING)
    GLib.timeout_add(int(a.duration * 1000), loop.quit)
    loop.run()
    if a.role == 'recv':
        res['stream'] = pipe.get_by_name('rx').get_property('stream')
    pipe.set_state(Gst.State.NULL)
    print(json.dumps({'result': res}), flush=True)
    return 1 if res['errors'] else 0


if __name__ == '__main__':
    sys.exit(main())

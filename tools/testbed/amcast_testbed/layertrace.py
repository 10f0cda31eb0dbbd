"""Traces of a layered (AVMRC) session for tools/evalvid (docs/run-directory.md "Layered runs").

Used by the layered nodes (tools/testbed/amcast-layered-node, tests/net/avmrc_peer.py) inside
their GStreamer process:
  SenderTrace   RUN/sender/sd.txt: `TIME id N udp SIZE FRAME TYPE layer L`, one line per RTP
                packet as it enters layer L's udpsink inside avmrclayers (after the layer's SSRC,
                sequence number and stamp are set, so N and SIZE are what avmrcsrc's rd.txt
                shows); with video also sent.ivf (the VP8 frames as encoded, IVF), ref.yuv and
                ref.json (the raw frames the encoder took).
  LayersLog     RUN/rx-NAME/layers.csv: `time_s,from,to`, one row per avmrcsrc-layers message.
The receiver's rd.txt is avmrcsrc's own (trace-dir). Times are CLOCK_REALTIME seconds.
"""
import json
import os
import struct
import threading
import time

import gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst  # noqa: E402


class SenderTrace:
    """sd.txt (and with an encoder the video files) of one layered sender pipeline.

    `layers` is the avmrclayers element; `pay` the element whose src pad carries the RTP stream
    into it (frames are numbered there: a new RTP timestamp is a new frame); `enc` an optional
    vp8enc whose sink pad takes I420 frames (ref.yuv) and src pad gives the frames sent.ivf holds.
    """

    def __init__(self, run, layers, n_layers, pay, enc=None, fps=(30, 1)):
        self.dir = os.path.join(run, 'sender')
        os.makedirs(self.dir, exist_ok=True)
        self.lock = threading.Lock()
        self.sd = open(os.path.join(self.dir, 'sd.txt'), 'w', buffering=1 << 16)
        self.frame_of = {}              # RTP timestamp -> frame index
        self.next_frame = 0
        self.key = {}                   # frame index -> True for a key frame (from the encoder)
        self.enc_frames = 0
        self.ref_frames = 0
        self.size = None
        self.fps = fps
        # rtpvp8pay pushes a frame's packets as one buffer list
        pay.get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST,
                                            self._on_rtp_in)
        for i in range(n_layers):
            sink = layers.get_by_name(f'rtp_sink_{i}')
            if sink is None:
                raise RuntimeError(f'avmrclayers has no rtp_sink_{i}')
            sink.get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER, self._on_send, i)
        self.ivf = self.ref = None
        if enc is not None:
            self.ivf = open(os.path.join(self.dir, 'sent.ivf'), 'wb')
            self.ivf.write(b'\0' * 32)          # header written at close(), with the frame count
            self.ref = open(os.path.join(self.dir, 'ref.yuv'), 'wb')
            enc.get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER, self._on_raw)
            enc.get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER, self._on_encoded)

    def _on_rtp_in(self, _pad, info):
        if info.type & Gst.PadProbeType.BUFFER_LIST:
            bl = info.get_buffer_list()
            bufs = [bl.get(i) for i in range(bl.length())]
        else:
            bufs = [info.get_buffer()]
        for buf in bufs:
            ok, m = buf.map(Gst.MapFlags.READ)
            if not ok:
                continue
            ts = struct.unpack_from('>I', bytes(m.data[4:8]))[0] if m.size >= 12 else None
            buf.unmap(m)
            with self.lock:
                if ts is not None and ts not in self.frame_of:
                    self.frame_of[ts] = self.next_frame
                    self.next_frame += 1
        return Gst.PadProbeReturn.OK

    def _on_send(self, _pad, info, layer):
        now = time.time()
        buf = info.get_buffer()
        ok, m = buf.map(Gst.MapFlags.READ)
        if not ok:
            return Gst.PadProbeReturn.OK
        d = bytes(m.data[:12]) if m.size >= 12 else b''
        size = m.size
        buf.unmap(m)
        if len(d) < 12:
            return Gst.PadProbeReturn.OK
        seq, ts, ssrc = struct.unpack_from('>HII', d, 2)
        with self.lock:
            frame = self.frame_of.get(ts, -1)
            kind = 'I' if self.key.get(frame) else 'P'
            if frame >= 0:
                self.sd.write(f'{now:.6f} id {(ssrc << 32) | seq} udp {size} {frame} {kind} '
                              f'layer {layer}\n')
        return Gst.PadProbeReturn.OK

    def _on_raw(self, pad, info):
        if self.size is None:
            s = pad.get_current_caps().get_structure(0)
            self.size = (s.get_value('width'), s.get_value('height'))
        ok, m = info.get_buffer().map(Gst.MapFlags.READ)
        if ok:
            w, h = self.size
            n = w * h * 3 // 2              # I420 without padding (even sizes, width % 4 == 0)
            if m.size >= n:
                self.ref.write(bytes(m.data[:n]))
                self.ref_frames += 1
            info.get_buffer().unmap(m)
        return Gst.PadProbeReturn.OK

    def _on_encoded(self, _pad, info):
        buf = info.get_buffer()
        ok, m = buf.map(Gst.MapFlags.READ)
        if ok:
            with self.lock:
                i = self.enc_frames
                self.key[i] = not buf.has_flags(Gst.BufferFlags.DELTA_UNIT)
                self.enc_frames += 1
            self.ivf.write(struct.pack('<IQ', m.size, i) + bytes(m.data))
            buf.unmap(m)
        return Gst.PadProbeReturn.OK

    def close(self):
        with self.lock:
            self.sd.close()
            if self.ivf is None:
                return
            w, h = self.size or (0, 0)
            # IVF: time base 1/fps_n x fps_d, a frame's pts = its index
            self.ivf.seek(0)
            self.ivf.write(b'DKIF' + struct.pack('<HH4sHHIIII', 0, 32, b'VP80', w, h, self.fps[0],
                                                 self.fps[1], self.enc_frames, 0))
            self.ivf.close()
            self.ref.close()
            with open(os.path.join(self.dir, 'ref.json'), 'w') as f:
                json.dump({'width': w, 'height': h, 'fps_n': self.fps[0], 'fps_d': self.fps[1],
                           'format': 'I420', 'frames': self.ref_frames,
                           'frames_encoded': self.enc_frames}, f)


class LayersLog:
    """rx-NAME/layers.csv: time_s,from,to per layer change (level = layers held, 1 at the start)."""

    def __init__(self, rxdir):
        os.makedirs(rxdir, exist_ok=True)
        self.f = open(os.path.join(rxdir, 'layers.csv'), 'w', buffering=1)
        self.f.write('time_s,from,to\n')

    def change(self, frm, to, t=None):
        self.f.write(f'{time.time() if t is None else t:.6f},{frm},{to}\n')

    def close(self):
        self.f.close()

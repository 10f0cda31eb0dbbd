/* ev_decode.c - timestamp-aligned H.264 decoding through GStreamer. Each frame passes lib/cc's
 * h264fill first, as it passes gst's h264wrapfill on a receiver (tools/testbed/amcast-node):
 * when the frames not fed before it include frame_num 0 (an intra-refresh stream), a synthetic
 * frame_num-0 skip picture goes first, so libavcodec does not drop the next ~30 frames as out
 * of order (issue 15). It carries the timestamp of the last frame not fed, so its picture is
 * not taken for any fed frame. The frames not fed tell a wrap from a lost IDR frame. */
#include "ev_decode.h"

#include <amcc/h264fill.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Any fixed duration works: it only carries the frame index through the decoder. */
#define FRAME_DUR (GST_SECOND / 100)

typedef struct {
  const ev_yuv_geom *g;
  size_t n;
  const uint8_t *feed;
  bool *seen;
  uint8_t *buf;
  ev_picture_fn cb;
  void *user;
  long delivered;
  char *err; size_t errlen;
} sink_ctx;

/* Copies one decoded sample to the packed layout and hands it on; 0 ok, 1 abort, -1 error. */
static int take_sample(sink_ctx *c, GstSample *s)
{
  GstBuffer *b = gst_sample_get_buffer(s);
  GstVideoInfo vi;
  if (!b || !gst_video_info_from_caps(&vi, gst_sample_get_caps(s))) {
    snprintf(c->err, c->errlen, "decoder output without video caps"); return -1;
  }
  GstClockTime pts = GST_BUFFER_PTS(b);
  if (!GST_CLOCK_TIME_IS_VALID(pts)) { snprintf(c->err, c->errlen, "decoded picture without timestamp"); return -1; }
  size_t i = (size_t)((pts + FRAME_DUR / 2) / FRAME_DUR);
  if (i >= c->n || !c->feed[i] || c->seen[i]) return 0;   /* not one we pushed, or a repeat */
  GstVideoFrame vf;
  if (!gst_video_frame_map(&vf, &vi, b, GST_MAP_READ)) { snprintf(c->err, c->errlen, "cannot map decoded picture"); return -1; }
  const ev_yuv_geom *g = c->g;
  for (int p = 0; p < g->fmt->planes; p++) {
    const uint8_t *src = GST_VIDEO_FRAME_PLANE_DATA(&vf, p);
    int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&vf, p);
    size_t row = (size_t)g->pw[p] * g->bps;
    for (int y = 0; y < g->ph[p]; y++)
      memcpy(c->buf + g->off[p] + y * row, src + (size_t)y * stride, row);
  }
  gst_video_frame_unmap(&vf);
  c->seen[i] = true;
  c->delivered++;
  return c->cb(i, c->buf, c->user) ? 1 : 0;
}

static int bus_error(GstElement *pipe, char *err, size_t errlen)
{
  GstBus *bus = gst_element_get_bus(pipe);
  GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  gst_object_unref(bus);
  if (!m) return 0;
  GError *e = NULL; gchar *dbg = NULL;
  gst_message_parse_error(m, &e, &dbg);
  snprintf(err, errlen, "decoder pipeline: %s (%s)", e ? e->message : "error", dbg ? dbg : "");
  g_clear_error(&e); g_free(dbg); gst_message_unref(m);
  return -1;
}

long ev_decode_h264(const uint8_t *stream, const ev_au *au, size_t n, const uint8_t *feed,
                    const ev_chunk *given, int threads,
                    const ev_yuv_geom *g, ev_picture_fn cb, void *user, char *err, size_t errlen)
{
  err[0] = 0;
  gst_init(NULL, NULL);
  if (!g->fmt->alias) { snprintf(err, errlen, "format %s cannot be decoded to", g->fmt->name); return -1; }
  char desc[512];
  snprintf(desc, sizeof desc,
           "appsrc name=src format=time caps=video/x-h264,stream-format=byte-stream,alignment=au "
           "! h264parse ! avdec_h264 max-errors=-1 output-corrupt=true max-threads=%d ! videoconvert "
           "! video/x-raw,format=%s,width=%d,height=%d ! appsink name=sink sync=false max-buffers=16",
           threads, g->fmt->alias, g->w, g->h);
  GError *ge = NULL;
  GstElement *pipe = gst_parse_launch(desc, &ge);
  if (!pipe) {
    snprintf(err, errlen, "cannot build decoder (%s): is gstreamer1.0-libav installed?", ge ? ge->message : "?");
    g_clear_error(&ge); return -1;
  }
  g_clear_error(&ge);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipe), "src"), *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  sink_ctx c = { g, n, feed, calloc(n ? n : 1, 1), malloc(g->frame_bytes), cb, user, 0, err, errlen };
  long rc = -1;
  if (!c.seen || !c.buf) { snprintf(err, errlen, "out of memory"); goto out; }
  if (gst_element_set_state(pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    if (!bus_error(pipe, err, errlen)) snprintf(err, errlen, "decoder pipeline does not start");
    goto out;
  }
  amcc_h264fill fill;
  amcc_h264fill_init(&fill);
  long last_fed = -1;
  for (size_t i = 0; i < n; i++) {
    if (!feed[i]) continue;
    GstBuffer *b;
    if (feed[i] == EV_FEED_SLICES) {
      uint8_t *tmp = g_malloc(au[i].len ? au[i].len : 1);
      size_t len = ev_h264_slices_only(stream + au[i].off, au[i].len, tmp);
      b = gst_buffer_new_wrapped(tmp, len);
    } else if (feed[i] == EV_FEED_BYTES) {
      b = gst_buffer_new_memdup(given[i].data, given[i].len);
    } else {
      b = gst_buffer_new_memdup(stream + au[i].off, au[i].len);
    }
    GST_BUFFER_PTS(b) = GST_BUFFER_DTS(b) = (GstClockTime)i * FRAME_DUR;
    GST_BUFFER_DURATION(b) = FRAME_DUR;
    uint8_t syn[AMCC_H264FILL_MAX_BYTES];
    long sn = 0;
    GstMapInfo m;
    if (gst_buffer_map(b, &m, GST_MAP_READ)) {
      sn = amcc_h264fill_au(&fill, m.data, m.size, last_fed < 0 ? -1 : (long)i - last_fed - 1, syn, sizeof syn);
      gst_buffer_unmap(b, &m);
    }
    last_fed = (long)i;
    if (sn > 0) {
      size_t slot = n;   /* past the end: never a fed frame's */
      for (size_t j = i; j-- > 0;)
        if (!feed[j]) { slot = j; break; }
      GstBuffer *sb = gst_buffer_new_memdup(syn, (gsize)sn);
      GST_BUFFER_PTS(sb) = GST_BUFFER_DTS(sb) = (GstClockTime)slot * FRAME_DUR;
      GST_BUFFER_DURATION(sb) = FRAME_DUR;
      if (gst_app_src_push_buffer(GST_APP_SRC(src), sb) != GST_FLOW_OK) {
        gst_buffer_unref(b);
        if (!bus_error(pipe, err, errlen)) snprintf(err, errlen, "decoder refused frame %zu", i);
        goto out;
      }
    }
    if (gst_app_src_push_buffer(GST_APP_SRC(src), b) != GST_FLOW_OK) {
      if (!bus_error(pipe, err, errlen)) snprintf(err, errlen, "decoder refused frame %zu", i);
      goto out;
    }
    GstSample *s;
    while ((s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 0))) {
      int r = take_sample(&c, s);
      gst_sample_unref(s);
      if (r) goto out_r;
    }
    if (bus_error(pipe, err, errlen)) goto out;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  for (;;) {
    GstSample *s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 30 * GST_SECOND);
    if (!s) break;
    int r = take_sample(&c, s);
    gst_sample_unref(s);
    if (r) goto out_r;
  }
  if (bus_error(pipe, err, errlen)) goto out;
  if (!gst_app_sink_is_eos(GST_APP_SINK(sink))) { snprintf(err, errlen, "decoder stalled (no EOS after 30 s)"); goto out; }
  rc = c.delivered;
  goto out;
out_r:
  /* r < 0: message already in err; r > 0: the callback aborted */
  if (!err[0]) snprintf(err, errlen, "aborted");
out:
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(src); gst_object_unref(sink); gst_object_unref(pipe);
  free(c.seen); free(c.buf);
  return rc;
}

/* amvp8test.h - RTP VP8 with temporal layers, made by vp8enc + rtpvp8pay in the test itself (no
 * media is committed), and a reader of a packet's TID. Shared by test-avmrclayers.c and
 * test-avmrcsrc.c. */
#ifndef AMVP8TEST_H
#define AMVP8TEST_H
#include <gst/app/gstappsink.h>
#include "amgsttest.h"
#include "common/gstamlayers.h"

#define AMT_VP8_CAPS "application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96"

static inline GValueArray *
amt_int_array (guint n, const gint * v)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  GValueArray *a = g_value_array_new (n);
  GValue x = G_VALUE_INIT;
  guint i;

  g_value_init (&x, G_TYPE_INT);
  for (i = 0; i < n; i++) {
    g_value_set_int (&x, v[i]);
    g_value_array_append (a, &x);
  }
  G_GNUC_END_IGNORE_DEPRECATIONS;
  return a;
}

/* vp8enc's temporal layers, as libvpx's examples lay them out: layer 0 references and updates
 * only the last frame; upper layers reference lower ones and update nothing a lower layer uses,
 * so any 1..k layers decode alone. layers: 1, 2 or 3. */
static inline void
amt_vp8_set_layers (GstElement * enc, guint layers)
{
  static const gint ids2[] = { 0, 1 }, dec2[] = { 2, 1 }, br2[] = { 150000, 300000 };
  static const gint ids3[] = { 0, 2, 1, 2 }, dec3[] = { 4, 2, 1 },
      br3[] = { 150000, 300000, 600000 };
  const gint *ids = layers == 2 ? ids2 : ids3, *dec = layers == 2 ? dec2 : dec3,
      *br = layers == 2 ? br2 : br3;
  guint period = layers == 2 ? 2 : 4;
  GValueArray *a, *b, *c;

  if (layers < 2)
    return;
  a = amt_int_array (period, ids);
  b = amt_int_array (layers, dec);
  c = amt_int_array (layers, br);
  g_object_set (enc, "temporal-scalability-number-layers", layers,
      "temporal-scalability-periodicity", period, "temporal-scalability-layer-id", a,
      "temporal-scalability-rate-decimator", b, "temporal-scalability-target-bitrate", c, NULL);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_array_free (a);
  g_value_array_free (b);
  g_value_array_free (c);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  if (layers == 2) {
    gst_util_set_object_arg (G_OBJECT (enc), "temporal-scalability-layer-flags",
        "<no-ref-golden+no-upd-golden+no-upd-alt,"
        "no-ref-golden+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy>");
    gst_util_set_object_arg (G_OBJECT (enc), "temporal-scalability-layer-sync-flags",
        "<false,true>");
  } else {
    gst_util_set_object_arg (G_OBJECT (enc), "temporal-scalability-layer-flags",
        "<no-ref-golden+no-upd-golden+no-upd-alt,"
        "no-ref-golden+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy,"
        "no-ref-golden+no-upd-last+no-upd-alt,"
        "no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy>");
    gst_util_set_object_arg (G_OBJECT (enc), "temporal-scalability-layer-sync-flags",
        "<false,true,true,false>");
  }
}

/* `frames` frames of a moving picture as RTP VP8 packets (GstBuffer *, in send order) with
 * `layers` temporal layers; mtu small enough that frames span several packets. */
static inline GPtrArray *
amt_vp8_rtp (guint layers, guint frames)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,width=160,height=120,framerate=30/1 ! vp8enc name=e deadline=1 "
      "error-resilient=default target-bitrate=600000 keyframe-max-dist=1000 ! "
      "rtpvp8pay picture-id-mode=2 mtu=300 ! appsink name=s sync=false", frames);
  GstElement *p = gst_parse_launch (desc, NULL), *e, *s;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  GstSample *smp;

  g_free (desc);
  fail_unless (p != NULL);
  e = gst_bin_get_by_name (GST_BIN (p), "e");
  s = gst_bin_get_by_name (GST_BIN (p), "s");
  amt_vp8_set_layers (e, layers);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  while ((smp = gst_app_sink_pull_sample (GST_APP_SINK (s)))) {
    g_ptr_array_add (out, gst_buffer_ref (gst_sample_get_buffer (smp)));
    gst_sample_unref (smp);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (s);
  gst_object_unref (p);
  fail_unless (out->len > frames);
  return out;
}

/* The TID of an RTP VP8 packet (fails the test when it has none readable). */
static inline guint
amt_vp8_packet_tid (GstBuffer * b)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint tid = 99;

  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
  fail_unless_equals_int (gst_am_vp8_tid (gst_rtp_buffer_get_payload (&rtp),
          gst_rtp_buffer_get_payload_len (&rtp), &tid), GST_AM_VP8_OK);
  gst_rtp_buffer_unmap (&rtp);
  return tid;
}

static inline guint32
amt_rtp_ts (GstBuffer * b)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint32 ts;

  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
  ts = gst_rtp_buffer_get_timestamp (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  return ts;
}

#endif

/* test-asspsrc.c - asspsrc: the H.264 key-frame test the switch waits for, the output of the
 * stream received (one SSRC of its own, continuous sequence numbers, the RTP payload intact),
 * and bad `streams` settings. The switch itself is tested live (tests/net/test_assp_elements.py):
 * lib/cc decides it from seconds of measurements. Network: 127.0.0.1 only. */
#include "amgsttest.h"
#include "common/gstamnet.h"

GST_START_TEST (test_h264_key_start)
{
  static const guint8 idr[] = { 0x65, 0x88 }, sps[] = { 0x67, 0x42 }, p_slice[] = { 0x41, 0x9a };
  static const guint8 stap_sps[] = { 0x78, 0x00, 0x0a, 0x67, 0x42 };
  static const guint8 stap_p[] = { 0x78, 0x00, 0x0a, 0x41, 0x9a };
  static const guint8 fu_idr_start[] = { 0x7c, 0x85 }, fu_idr_mid[] = { 0x7c, 0x05 };
  static const guint8 fu_p_start[] = { 0x7c, 0x81 };

  fail_unless (gst_am_h264_key_start (idr, sizeof idr));
  fail_unless (gst_am_h264_key_start (sps, sizeof sps));
  fail_if (gst_am_h264_key_start (p_slice, sizeof p_slice));
  fail_unless (gst_am_h264_key_start (stap_sps, sizeof stap_sps));
  fail_if (gst_am_h264_key_start (stap_p, sizeof stap_p));
  fail_if (gst_am_h264_key_start (stap_sps, 3));          /* truncated: never read past */
  fail_unless (gst_am_h264_key_start (fu_idr_start, sizeof fu_idr_start));
  fail_if (gst_am_h264_key_start (fu_idr_mid, sizeof fu_idr_mid));
  fail_if (gst_am_h264_key_start (fu_p_start, sizeof fu_p_start));
  fail_if (gst_am_h264_key_start (fu_idr_start, 1));
  fail_if (gst_am_h264_key_start (idr, 0));
}
GST_END_TEST;

static GstBuffer *
rtp_packet (guint16 seq, guint32 ts, guint8 nal)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (200, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 *p;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, 0x0ABCDEF0);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  p = gst_rtp_buffer_get_payload (&rtp);
  memset (p, 0x33, 200);
  p[0] = nal;
  gst_rtp_buffer_unmap (&rtp);
  return b;
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, GAsyncQueue * q)
{
  g_async_queue_push (q, gst_buffer_ref (buf));
}

/* Stream 0's packets come out under asspsrc's own SSRC, in sequence, payload untouched. */
GST_START_TEST (test_output_of_stream0)
{
  gint p0 = amt_free_port_pair (), p1 = amt_free_port_pair (), i;
  gchar *desc = g_strdup_printf ("asspsrc name=s streams=127.0.0.1:%d,127.0.0.1:%d latency=0 "
      "! fakesink name=out sync=false signal-handoffs=true", p0, p1);
  GstElement *pipe = gst_parse_launch (desc, NULL), *el, *out;
  GAsyncQueue *q = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  guint32 out_ssrc = 0;
  guint16 prev = 0;
  guint stream = 9;
  GSocket *sock;
  GInetAddress *lo;
  GSocketAddress *to;

  g_free (desc);
  fail_unless (pipe != NULL, "asspsrc not found (GST_PLUGIN_PATH?)");
  el = gst_bin_get_by_name (GST_BIN (pipe), "s");
  out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_signal_connect (out, "handoff", G_CALLBACK (on_handoff), q);
  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  /* one socket, as a sender has (rtpsession drops an SSRC that changes its address) */
  sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, 0, NULL);
  lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  to = g_inet_socket_address_new (lo, p0);
  for (i = 0; i < 30; i++) {
    GstBuffer *b = rtp_packet ((guint16) (65520 + i), 1000 + 3600 * i, i == 0 ? 0x65 : 0x41);
    GstMapInfo map;
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    fail_unless (g_socket_send_to (sock, to, (const gchar *) map.data, map.size, NULL, NULL)
        == (gssize) map.size);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
    g_usleep (2000);
  }
  g_object_unref (to);
  g_object_unref (lo);
  g_object_unref (sock);
  for (i = 0; i < 20; i++) {
    GstBuffer *b = amt_wait_buffer (q);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (b != NULL, "no output buffer %d", i);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    if (i == 0)
      out_ssrc = gst_rtp_buffer_get_ssrc (&rtp);
    fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), out_ssrc);
    if (i > 0)
      fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), (guint16) (prev + 1));
    prev = gst_rtp_buffer_get_seq (&rtp);
    fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp), 200);
    fail_unless_equals_int (((guint8 *) gst_rtp_buffer_get_payload (&rtp))[1], 0x33);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
  g_object_get (el, "stream", &stream, NULL);
  fail_unless_equals_int (stream, 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (el);
  gst_object_unref (out);
  gst_object_unref (pipe);
  g_async_queue_unref (q);
}
GST_END_TEST;

static void
expect_ready_error (const gchar * streams, const gchar * want)
{
  GstElement *el = gst_element_factory_make ("asspsrc", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;

  gst_element_set_bus (el, bus);
  g_object_set (el, "streams", streams, NULL);
  fail_unless_equals_int (gst_element_set_state (el, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (dbg && strstr (dbg, want), "%s: %s", streams, dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_state (el, GST_STATE_NULL);
  gst_object_unref (el);
  gst_object_unref (bus);
}

GST_START_TEST (test_bad_streams)
{
  expect_ready_error ("239.1.2.3", "want address:port");
  expect_ready_error ("239.1.2.3:0", "want address:port");
  expect_ready_error ("239.1.2.3:5004,:5006", "want address:port");
  expect_ready_error ("239.1.2.3:50x4", "want address:port");
  expect_ready_error ("", "0 streams");
  expect_ready_error ("a:1,a:3,a:5,a:7,a:9,a:11,a:13,a:15,a:17", "9 streams");
}
GST_END_TEST;

static Suite *
asspsrc_suite (void)
{
  Suite *s = suite_create ("asspsrc");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_h264_key_start);
  tcase_add_test (tc, test_output_of_stream0);
  tcase_add_test (tc, test_bad_streams);
  return s;
}

GST_CHECK_MAIN (asspsrc);

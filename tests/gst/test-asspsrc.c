/* test-asspsrc.c - asspsrc: the H.264 key-frame test the switch waits for, the output of the
 * stream received (one SSRC of its own, continuous sequence numbers, the RTP payload intact),
 * EOS (it reaches the sink from the joined stream alone; the streams never joined are not
 * touched), bad `streams` settings, and the RTCP guard of the receiver it lends its streams
 * (asmpsrc's caps: the unproven-member budget). The switch itself is tested live (tests/net/test_assp_elements.py):
 * lib/cc decides it from seconds of measurements. Network: 127.0.0.1 only. */
#include "amgsttest.h"
#include "common/gstamnet.h"
#include "common/gstamguard.h"

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

/* A running asspsrc on 3 loopback streams, to a fakesink handing its buffers to `q`. */
typedef struct {
  GstElement *pipe, *src, *out;
  GAsyncQueue *q;
  gint port[3];
} AssppFixture;

static void
fixture_start (AssppFixture * f)
{
  gchar *desc;
  gint i;

  for (i = 0; i < 3; i++)
    f->port[i] = amt_free_port_pair ();
  desc = g_strdup_printf ("asspsrc name=s streams=127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d "
      "latency=0 ! fakesink name=out sync=false signal-handoffs=true", f->port[0], f->port[1],
      f->port[2]);
  f->pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (f->pipe != NULL, "asspsrc not found (GST_PLUGIN_PATH?)");
  f->src = gst_bin_get_by_name (GST_BIN (f->pipe), "s");
  f->out = gst_bin_get_by_name (GST_BIN (f->pipe), "out");
  f->q = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  g_signal_connect (f->out, "handoff", G_CALLBACK (on_handoff), f->q);
  fail_if (gst_element_set_state (f->pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
}

/* n packets of one sender (one socket: rtpsession drops an SSRC that changes its address) to
 * stream 0, an IDR first, 2 ms apart, sequence numbers from seq0 */
static void
send_stream0 (AssppFixture * f, guint16 seq0, gint n)
{
  GSocket *sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, 0, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *to = g_inet_socket_address_new (lo, f->port[0]);
  gint i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = rtp_packet ((guint16) (seq0 + i), 1000 + 3600 * i, i == 0 ? 0x65 : 0x41);
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
}

static void
fixture_stop (AssppFixture * f)
{
  fail_unless_equals_int (gst_element_set_state (f->pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (f->src);
  gst_object_unref (f->out);
  gst_object_unref (f->pipe);
  g_async_queue_unref (f->q);
}

/* Stream 0's packets come out under asspsrc's own SSRC, in sequence, payload untouched. */
GST_START_TEST (test_output_of_stream0)
{
  AssppFixture f;
  guint32 out_ssrc = 0;
  guint16 prev = 0;
  guint stream = 9;
  gint i;

  fixture_start (&f);
  send_stream0 (&f, 65520, 30);
  for (i = 0; i < 20; i++) {
    GstBuffer *b = amt_wait_buffer (f.q);
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
  g_object_get (f.src, "stream", &stream, NULL);
  fail_unless_equals_int (stream, 0);
  fixture_stop (&f);
}
GST_END_TEST;

/* Waits (bounded, 10 s: a guard against a hang) for EOS or an error on the pipeline's bus. */
static gboolean
wait_eos (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean eos = m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;

  if (m)
    gst_message_unref (m);
  gst_object_unref (bus);
  return eos;
}

/* The application stops the receiver (gst-launch -e, amcast-node): the EOS it sends the pipeline
 * reaches the sink, and the streams never joined (their sockets never opened) are not sent it
 * (an EOS into a udpsrc that was never started logs a g_object_unref critical, which gst-check
 * fails on). */
GST_START_TEST (test_eos_from_the_application)
{
  AssppFixture f;
  GstBuffer *b;

  fixture_start (&f);
  send_stream0 (&f, 100, 5);
  b = amt_wait_buffer (f.q);
  fail_unless (b != NULL, "stream 0 is not flowing");
  gst_buffer_unref (b);
  fail_unless (gst_element_send_event (f.pipe, gst_event_new_eos ()));
  fail_unless (wait_eos (f.pipe), "EOS did not reach the sink");
  fixture_stop (&f);
}
GST_END_TEST;

/* EOS out of the stream joined (sent into its asmpsrc, as from its source) reaches the sink: the
 * streams never joined, whose funnel inputs and RTCP sinks never see an EOS, do not hold it
 * back. */
GST_START_TEST (test_eos_from_the_joined_stream)
{
  AssppFixture f;
  GstElement *s0;
  GstBuffer *b;

  fixture_start (&f);
  send_stream0 (&f, 100, 5);
  b = amt_wait_buffer (f.q);
  fail_unless (b != NULL, "stream 0 is not flowing");
  gst_buffer_unref (b);
  s0 = gst_bin_get_by_name (GST_BIN (f.src), "stream_0");
  fail_unless (s0 != NULL);
  fail_unless (gst_element_send_event (s0, gst_event_new_eos ()));
  fail_unless (wait_eos (f.pipe), "EOS did not reach the sink");
  gst_object_unref (s0);
  fixture_stop (&f);
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

/* Stream 0's RTCP meets the guard of the receiver asspsrc lends it, with asmpsrc's default
 * caps: of 20 new peers that echo no SR, GST_AM_GUARD_MAX_UNPROVEN pass and the rest are
 * dropped and counted (rtcp-unproven-full, in the stream's asmpsrc-stats, posted with each RR
 * it sends: waited for, 10 s at most). */
GST_START_TEST (test_stream_guard)
{
  AssppFixture f;
  GstElement *s0;
  guint64 full = 0;
  guint i;

  fixture_start (&f);
  send_stream0 (&f, 100, 10);
  for (i = 0; i < 20; i++) {
    GstBuffer *b = amt_rtcp_rr (0x0f000000 + i, 0, 0, 0);
    amt_udp_send (b, f.port[0] + 1);
    gst_buffer_unref (b);
  }
  s0 = gst_bin_get_by_name (GST_BIN (f.src), "stream_0");
  fail_unless (s0 != NULL);
  for (i = 0; i < 100 && full < 20 - GST_AM_GUARD_MAX_UNPROVEN; i++) {
    GstStructure *st = NULL;
    g_usleep (100 * 1000);
    g_object_get (s0, "stats", &st, NULL);
    if (st)
      gst_structure_get_uint64 (st, "rtcp-unproven-full", &full);
    gst_structure_free (st);
  }
  fail_unless_equals_int (full, 20 - GST_AM_GUARD_MAX_UNPROVEN);
  gst_object_unref (s0);
  fixture_stop (&f);
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
  tcase_add_test (tc, test_eos_from_the_application);
  tcase_add_test (tc, test_eos_from_the_joined_stream);
  tcase_add_test (tc, test_bad_streams);
  tcase_add_test (tc, test_stream_guard);
  return s;
}

GST_CHECK_MAIN (asspsrc);

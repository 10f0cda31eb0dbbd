/* test-asspsimulcast.c - asspsimulcast with one GstHarness per stream and a GstTestClock as the
 * system clock: each stream's SR carries the stream table of the whole group (both streams'
 * limits, J on the first SR of a window) followed by the ASMP echo; a receiver's report on one
 * stream sets that stream's target within its limits and leaves the other alone; bad stream
 * layouts fail with a clear error. Network: 127.0.0.1 only. */
#include "amgsttest.h"
#include <amcc/asmp.h>
#include <amcc/assp.h>
#include "common/gstamcc.h"
#include "common/gstamnet.h"
#include <gst/video/video-event.h>

#define SSRC1 0x22334455u

typedef struct {
  GstTestClock *clock;
  GstElement *el, *s0, *s1;     /* the bin; its stream_0 / stream_1 asmpsinks */
  GstHarness *h0, *h1;
  GstBus *bus;
  GAsyncQueue *rtcp_out1, *rtcp_in1;
  gint port0, port1, rtp_out1;
  guint16 seq;
  guint32 last_lsr;
} Fixture;

static void
fixture_init (Fixture * f)
{
  GstPad *p;

  memset (f, 0, sizeof (*f));
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->port0 = amt_free_port_pair ();
  f->port1 = amt_free_port_pair ();
  fail_unless (f->port0 > 0 && f->port1 > 0 && f->port0 != f->port1);
  f->el = gst_element_factory_make ("asspsimulcast", NULL);
  fail_unless (f->el != NULL, "asspsimulcast not found (GST_PLUGIN_PATH?)");
  gst_object_ref_sink (f->el);
  g_object_set (f->el, "rtcp-interval", 100, NULL);
  f->bus = gst_bus_new ();
  gst_element_set_bus (f->el, f->bus);
  /* streams are set up in NULL state; the harness then takes the pads (and goes to READY) */
  p = gst_element_request_pad_simple (f->el, "sink_0");
  g_object_set (p, "address", "127.0.0.1", "port", f->port0, NULL);     /* 100-200 kbit/s */
  gst_object_unref (p);
  p = gst_element_request_pad_simple (f->el, "sink_1");
  g_object_set (p, "address", "127.0.0.1", "port", f->port1, "min-bitrate", 300000,
      "max-bitrate", 800000, NULL);
  gst_object_unref (p);
  f->s0 = gst_bin_get_by_name (GST_BIN (f->el), "stream_0");
  f->s1 = gst_bin_get_by_name (GST_BIN (f->el), "stream_1");
  fail_unless (f->s0 && f->s1);
  f->rtcp_out1 = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  f->rtcp_in1 = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  amt_probe_child_pad (f->s1, "rtpbin", "send_rtcp_src_0", f->rtcp_out1);
  amt_count_child_pad (f->s1, "rtp_sink", "sink", &f->rtp_out1);
  amt_probe_child_pad (f->s1, "rtcp_in_plain", "src", f->rtcp_in1);
  f->h0 = gst_harness_new_with_element (f->el, "sink_0", NULL);
  f->h1 = gst_harness_new_with_element (f->el, "sink_1", NULL);
  gst_harness_set_src_caps_str (f->h0, "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,ssrc=(uint)287454020");
  gst_harness_set_src_caps_str (f->h1, "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,ssrc=(uint)573785173");
  gst_harness_play (f->h0);
  gst_harness_play (f->h1);
}

static void
fixture_clear (Fixture * f)
{
  AmtBusCounts c = { 0 };

  amt_drain_bus (f->bus, "asmpsink-stats", &c);
  fail_unless_equals_int (c.errors, 0);
  fail_unless_equals_int (c.warnings, 0);
  gst_bus_set_flushing (f->bus, TRUE);
  gst_object_unref (f->s0);
  gst_object_unref (f->s1);
  gst_harness_teardown (f->h1);
  gst_harness_teardown (f->h0);
  gst_object_unref (f->el);
  gst_object_unref (f->bus);
  g_async_queue_unref (f->rtcp_out1);
  g_async_queue_unref (f->rtcp_in1);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
}

/* One RTP packet on stream 1, waited for until it left rtpbin. */
static void
push_rtp1 (Fixture * f)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (400, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, SSRC1);
  gst_rtp_buffer_set_seq (&rtp, f->seq);
  gst_rtp_buffer_set_timestamp (&rtp, f->seq * 3000);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  memset (gst_rtp_buffer_get_payload (&rtp), 0x41, 400);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (b) = f->seq * GST_SECOND / 30;
  f->seq++;
  fail_unless_equals_int (gst_harness_push (f->h1, b), GST_FLOW_OK);
  fail_unless (amt_wait_count (&f->rtp_out1, f->seq), "RTP did not leave rtpbin");
}

/* stream 1's next SR, and the table of its ASSP APP */
static void
next_table (Fixture * f, amcc_assp_table * t, size_t * echo_entries)
{
  GstBuffer *b;
  guint8 data[1500], subtype = 0;
  guint32 ssrc = 0;
  gsize len = 0;
  size_t used = 0, n = 16;
  amcc_asmp_echo_entry e[16];
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  guint64 ntp = 0;

  push_rtp1 (f);
  b = amt_crank_until (f->clock, f->rtcp_out1, 40);
  fail_unless (b != NULL, "no RTCP from stream 1");
  fail_unless_equals_int (amt_first_type (b), GST_RTCP_TYPE_SR);
  gst_rtcp_buffer_map (b, GST_MAP_READ, &rtcp);
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &p));
  gst_rtcp_packet_sr_get_sender_info (&p, NULL, &ntp, NULL, NULL, NULL);
  gst_rtcp_buffer_unmap (&rtcp);
  f->last_lsr = (guint32) (ntp >> 16);
  fail_unless (amt_find_app (b, AMCC_ASSP_APP_NAME, &subtype, &ssrc, data, sizeof data, &len));
  gst_buffer_unref (b);
  fail_unless_equals_int (subtype, AMCC_ASSP_SUBTYPE_TABLE);
  fail_unless_equals_int (ssrc, SSRC1);
  fail_unless_equals_int (amcc_assp_table_decode (data, len, t, &used), AMCC_OK);
  fail_unless_equals_int (amcc_asmp_echo_decode (data + used, len - used, e, &n), AMCC_OK);
  *echo_entries = n;
}

/* An RR from rx about stream 1 (its block echoes our last SR: the proof). */
static GstBuffer *
rr_on_stream1 (Fixture * f, guint32 rx)
{
  return amt_rtcp_rr (rx, SSRC1, f->seq, f->last_lsr);
}

/* sends b to stream 1's RTCP port and waits until stream 1 received it */
static void
send_to_stream1 (Fixture * f, GstBuffer * b)
{
  GstBuffer *seen;

  amt_udp_send (b, f->port1 + 1);
  gst_buffer_unref (b);
  seen = amt_wait_buffer (f->rtcp_in1);
  fail_unless (seen != NULL, "RTCP not received by stream 1");
  gst_buffer_unref (seen);
}

/* An RR about stream 1 + an ASMP report. */
static void
report_on_stream1 (Fixture * f, guint32 rx, gdouble rate_bps)
{
  GstBuffer *b = rr_on_stream1 (f, rx);
  amcc_asmp_report rep = { 0 };
  guint8 buf[64];
  gsize len = 0;

  rep.rate_bps = rate_bps;
  rep.rtt_s = 0.05;
  fail_unless_equals_int (amcc_asmp_report_encode (&rep, buf, sizeof buf, &len), AMCC_OK);
  fail_unless (gst_am_rtcp_append_app (b, AMCC_ASMP_SUBTYPE_REPORT, rx, AMCC_ASMP_APP_NAME,
          buf, len));
  send_to_stream1 (f, b);
}

static guint
target (GstElement * sink)
{
  guint t = 0;
  g_object_get (sink, "target-bitrate", &t, NULL);
  return t;
}

GST_START_TEST (test_table_and_per_stream_target)
{
  Fixture f;
  amcc_assp_table t;
  size_t echo = 99;
  gboolean seen_no_join = FALSE;
  gint k;

  fixture_init (&f);
  /* each stream starts at its lower limit */
  fail_unless_equals_int (target (f.s0), 100000);
  fail_unless_equals_int (target (f.s1), 300000);
  next_table (&f, &t, &echo);
  fail_unless_equals_int (t.count, 2);
  fail_unless_equals_int (t.stream, 1);
  fail_unless (t.join, "the first SR of a window carries J");
  fail_unless (t.s[0].low_bps == 100000 && t.s[0].high_bps == 200000);
  fail_unless (t.s[1].low_bps == 300000 && t.s[1].high_bps == 800000);
  fail_unless (t.s[1].avg_bps == 300000, "avg %f", t.s[1].avg_bps);
  fail_unless_equals_int (echo, 0);

  /* a receiver of stream 1 reports 450 kbit/s: stream 1 follows, stream 0 does not */
  report_on_stream1 (&f, 0xAABB0001, 450000);
  fail_unless_equals_int (target (f.s1), 450000);
  fail_unless_equals_int (target (f.s0), 100000);
  /* above the stream's upper limit: clamped there */
  report_on_stream1 (&f, 0xAABB0001, 5e6);
  fail_unless_equals_int (target (f.s1), 800000);

  /* the next SRs of the same window: no J; the receiver's RTT is echoed */
  for (k = 0; k < 5 && !seen_no_join; k++) {
    next_table (&f, &t, &echo);
    seen_no_join = !t.join;
  }
  fail_unless (seen_no_join, "J on every SR");
  fixture_clear (&f);
}
GST_END_TEST;

/* An RR + PLI (RFC 4585) asking stream 1's sender for a key frame. */
static void
pli_on_stream1 (Fixture * f, guint32 rx)
{
  GstBuffer *b = rr_on_stream1 (f, rx);

  fail_unless (gst_am_rtcp_add_pli (b, rx, SSRC1));
  send_to_stream1 (f, b);
}

/* force-key-unit events that reached the encoder's side of stream 1 so far */
static gint
key_events (Fixture * f)
{
  GstEvent *ev;
  gint n = 0;

  while ((ev = gst_harness_try_pull_upstream_event (f->h1))) {
    n += GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM
        && gst_video_event_is_force_key_unit (ev);
    gst_event_unref (ev);
  }
  return n;
}

/* The event leaves after the element counts the request: collect for up to 1 s until `want`
 * came, then once more (a second event would be counted, not missed) */
static gint
key_events_wait (Fixture * f, gint want)
{
  gint n = 0, k;

  for (k = 0; k < 100 && n < want; k++) {
    n += key_events (f);
    if (n < want)
      g_usleep (10000);
  }
  return n + key_events (f);
}

static guint64
pad_u64 (Fixture * f, const gchar * name)
{
  GstPad *p = gst_element_get_static_pad (f->el, "sink_1");
  guint64 v = 0;

  g_object_get (p, name, &v, NULL);
  gst_object_unref (p);
  return v;
}

/* Three receivers switching to stream 1 ask for a key frame within one key-interval: one
 * request reaches the encoder; a request after the interval reaches it again. */
GST_START_TEST (test_key_requests_aggregated)
{
  Fixture f;
  amcc_assp_table t;
  size_t echo;
  gint got = 0, k;

  fixture_init (&f);
  next_table (&f, &t, &echo);   /* stream 1 sends (rtpsession knows SSRC1 as ours) */
  key_events (&f);
  pli_on_stream1 (&f, 0xAABB0001);
  pli_on_stream1 (&f, 0xAABB0002);
  pli_on_stream1 (&f, 0xAABB0003);
  for (k = 0; k < 100 && pad_u64 (&f, "key-requests") < 3; k++)
    g_usleep (10000);
  got = key_events_wait (&f, 1);
  fail_unless_equals_int (pad_u64 (&f, "key-requests"), 3);
  fail_unless_equals_int (pad_u64 (&f, "key-forwarded"), 1);
  fail_unless_equals_int (got, 1);
  /* one key-interval (1 s default) later the next request passes */
  gst_test_clock_advance_time (f.clock, 1100 * GST_MSECOND);
  pli_on_stream1 (&f, 0xAABB0002);
  for (k = 0; k < 100 && pad_u64 (&f, "key-requests") < 4; k++)
    g_usleep (10000);
  fail_unless_equals_int (pad_u64 (&f, "key-forwarded"), 2);
  fail_unless_equals_int (key_events_wait (&f, 1), 1);
  fixture_clear (&f);
}
GST_END_TEST;

static gchar *
ready_error (GstElement * el)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;

  gst_element_set_bus (el, bus);
  fail_unless_equals_int (gst_element_set_state (el, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  g_clear_error (&err);
  gst_message_unref (m);
  gst_element_set_state (el, GST_STATE_NULL);
  gst_element_set_bus (el, NULL);
  gst_object_unref (bus);
  return dbg;
}

GST_START_TEST (test_bad_layouts)
{
  GstElement *el = gst_element_factory_make ("asspsimulcast", NULL);
  GstPad *p, *pads[AMCC_ASSP_MAX_STREAMS];
  gchar *dbg;
  gint i;

  /* no stream at all */
  dbg = ready_error (el);
  fail_unless (dbg && strstr (dbg, "no stream"), "%s", dbg);
  g_free (dbg);
  /* a hole: sink_1 without sink_0 */
  p = gst_element_request_pad_simple (el, "sink_1");
  fail_unless (p != NULL);
  g_object_set (p, "address", "127.0.0.1", "port", amt_free_port_pair (), NULL);
  dbg = ready_error (el);
  fail_unless (dbg && strstr (dbg, "sink_0 is missing"), "%s", dbg);
  g_free (dbg);
  gst_element_release_request_pad (el, p);
  gst_object_unref (p);
  /* limits upside down */
  p = gst_element_request_pad_simple (el, "sink_0");
  g_object_set (p, "address", "127.0.0.1", "port", amt_free_port_pair (), "min-bitrate",
      500000, "max-bitrate", 400000, NULL);
  dbg = ready_error (el);
  fail_unless (dbg && strstr (dbg, "min-bitrate"), "%s", dbg);
  g_free (dbg);
  /* a fourth pad has no default limits */
  gst_element_release_request_pad (el, p);
  gst_object_unref (p);
  for (i = 0; i < AMCC_ASSP_MAX_STREAMS; i++) {
    pads[i] = gst_element_request_pad_simple (el, "sink_%u");
    fail_unless (pads[i] != NULL);
    g_object_set (pads[i], "address", "127.0.0.1", "port", amt_free_port_pair (), NULL);
  }
  fail_unless (gst_element_request_pad_simple (el, "sink_%u") == NULL, "a ninth stream");
  dbg = ready_error (el);
  fail_unless (dbg && strstr (dbg, "sink_3"), "%s", dbg);
  g_free (dbg);
  for (i = 0; i < AMCC_ASSP_MAX_STREAMS; i++) {
    gst_element_release_request_pad (el, pads[i]);
    gst_object_unref (pads[i]);
  }
  gst_object_unref (el);
}
GST_END_TEST;

static Suite *
asspsimulcast_suite (void)
{
  Suite *s = suite_create ("asspsimulcast");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_table_and_per_stream_target);
  tcase_add_test (tc, test_bad_layouts);
  tcase_add_test (tc, test_key_requests_aggregated);
  return s;
}

GST_CHECK_MAIN (asspsimulcast);

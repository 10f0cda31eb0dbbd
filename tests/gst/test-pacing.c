/* test-pacing.c - asmpsink's pacer with GstHarness (RTP in) and a GstTestClock as the system
 * clock (the pacer's and rtpsession's clock): a 20 kB key frame's packets leave spaced by
 * amcc_pacing_interval at target x pacing-factor, pacing=false sends at once, max-pacing-delay
 * bounds each packet's wait, packets whose slots are within pacing-burst share a wakeup (a frame
 * that small leaves as one burst), sd.txt is written when a packet really leaves, and flush or a
 * state change while a packet waits does not deadlock. Network: 127.0.0.1 only. */
#include "amgsttest.h"
#include <amcc/pacing.h>
#include <glib/gstdio.h>

#define TARGET 500000           /* initial-bitrate: the target before any report */
#define PKT 1200                /* RTP packet size as pushed (rtph264pay mtu=1200) */
#define KEY_BYTES 20000         /* a key frame: 16 x 1200 + 800 */
/* RTCP far beyond the test's clock times, so every early clock id is the pacer's */
#define RTCP_MS 600000
#define FAR (10 * GST_SECOND)

typedef struct {
  GstTestClock *clock;
  GstElement *sink;
  GstHarness *h;
  GstBus *bus;
  GAsyncQueue *sent;            /* SentRec leaving rtpbin toward the udpsink */
  guint16 seq;
} Fixture;

typedef struct {
  GstClockTime t;
  gsize size;
} SentRec;

static GstPadProbeReturn
sent_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Fixture *f = data;
  SentRec *r = g_new (SentRec, 1);

  r->t = gst_clock_get_time (GST_CLOCK (f->clock));
  r->size = gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  g_async_queue_push (f->sent, r);
  return GST_PAD_PROBE_OK;
}

static void
fixture_init (Fixture * f, gboolean pacing, gdouble factor, guint max_delay_ms,
    gint burst_ms, const gchar * trace_dir)
{
  GstElement *udp;
  GstPad *pad;

  memset (f, 0, sizeof (*f));
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->sink = gst_element_factory_make ("asmpsink", NULL);
  fail_unless (f->sink != NULL, "asmpsink not found (GST_PLUGIN_PATH?)");
  gst_object_ref_sink (f->sink);
  g_object_set (f->sink, "address", "127.0.0.1", "port", amt_free_port_pair (),
      "rtcp-interval", RTCP_MS, "initial-bitrate", TARGET, "min-bitrate", 50000,
      "max-bitrate", 4000000, "pacing", pacing, "pacing-factor", factor,
      "max-pacing-delay", max_delay_ms, "trace-dir", trace_dir, NULL);
  if (burst_ms >= 0)            /* < 0: the element's default */
    g_object_set (f->sink, "pacing-burst", (guint) burst_ms, NULL);
  f->bus = gst_bus_new ();
  gst_element_set_bus (f->sink, f->bus);
  f->sent = g_async_queue_new_full (g_free);
  udp = gst_bin_get_by_name (GST_BIN (f->sink), "rtp_sink");
  pad = gst_element_get_static_pad (udp, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sent_probe, f, NULL);
  gst_object_unref (pad);
  gst_object_unref (udp);
  f->h = gst_harness_new_with_element (f->sink, "sink", NULL);
  gst_harness_set_src_caps_str (f->h, "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,ssrc=(uint)287454020");
  gst_harness_play (f->h);
}

static void
fixture_clear (Fixture * f)
{
  AmtBusCounts c = { 0 };

  amt_drain_bus (f->bus, "none", &c);
  fail_unless_equals_int (c.errors, 0);
  gst_bus_set_flushing (f->bus, TRUE);
  gst_harness_teardown (f->h);
  gst_object_unref (f->sink);
  gst_object_unref (f->bus);
  g_async_queue_unref (f->sent);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
}

/* A frame of `bytes` in PKT-byte RTP packets (H.264 FU-A), pushed as one buffer list as
 * rtph264pay does. Returns the number of packets. */
static guint
push_frame (Fixture * f, gsize bytes)
{
  GstBufferList *l = gst_buffer_list_new ();
  gsize left = bytes;
  guint n = 0;

  while (left > 0) {
    gsize size = MIN (left, PKT);
    GstBuffer *b = gst_rtp_buffer_new_allocate (size - 12, 0, 0);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint8 *p;

    gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_ssrc (&rtp, 0x11223344u);
    gst_rtp_buffer_set_seq (&rtp, f->seq++);
    gst_rtp_buffer_set_timestamp (&rtp, 90000);
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    p = gst_rtp_buffer_get_payload (&rtp);
    memset (p, 0x55, size - 12);
    p[0] = 28;                  /* FU-A */
    p[1] = (n == 0 ? 0x80 : 0) | (left == size ? 0x40 : 0) | 5;     /* IDR */
    gst_rtp_buffer_unmap (&rtp);
    GST_BUFFER_PTS (b) = 0;
    gst_buffer_list_add (l, b);
    left -= size;
    n++;
  }
  fail_unless_equals_int (gst_pad_push_list (f->h->srcpad, l), GST_FLOW_OK);
  return n;
}

static guint
push_key_frame (Fixture * f)
{
  return push_frame (f, KEY_BYTES);
}

/* Waits (bounded, real time) until the pacer has a clock id pending, then releases it. */
static GstClockTime
crank_pacer (Fixture * f)
{
  GstClockID id;
  GstClockTime t = GST_CLOCK_TIME_NONE;
  guint i;

  for (i = 0; i < 5000; i++) {
    if (gst_test_clock_peek_next_pending_id (f->clock, &id)) {
      t = gst_clock_id_get_time (id);
      gst_clock_id_unref (id);
      if (t < FAR)
        break;
    }
    g_usleep (1000);
  }
  fail_unless (t < FAR, "the pacer is not waiting");
  fail_unless (gst_test_clock_crank (f->clock));
  return t;
}

static SentRec *
next_sent (Fixture * f)
{
  SentRec *r = g_async_queue_timeout_pop (f->sent, 5 * G_USEC_PER_SEC);
  fail_unless (r != NULL, "packet not sent");
  return r;
}

/* no more packets leave without the clock moving */
static void
nothing_more (Fixture * f)
{
  SentRec *r = g_async_queue_timeout_pop (f->sent, 100 * 1000);
  fail_unless (r == NULL, "a packet left early");
  g_free (r);
}

static guint
lines_in (const gchar * path)
{
  gchar *text = NULL;
  guint n = 0;
  const gchar *c;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  for (c = text; *c; c++)
    n += *c == '\n';
  g_free (text);
  return n;
}

GST_START_TEST (test_key_frame_spaced)
{
  Fixture f;
  const gdouble factor = 1.5;
  gchar *dir = g_dir_make_tmp ("pacing-XXXXXX", NULL);
  gchar *sd = g_build_filename (dir, "sd.txt", NULL);
  GstClockTime expect = 0;
  guint n, i;
  SentRec *r;

  fixture_init (&f, TRUE, factor, 10000, 0, dir);
  n = push_key_frame (&f);
  fail_unless_equals_int (n, 17);
  /* the first packet leaves at once, the rest wait for the clock */
  r = next_sent (&f);
  fail_unless_equals_uint64 (r->t, 0);
  fail_unless_equals_int (r->size, PKT + 20);   /* + the two header extensions */
  g_free (r);
  nothing_more (&f);
  /* sd.txt has only the packet that left: it is written after pacing */
  fail_unless_equals_int (lines_in (sd), 1);
  for (i = 1; i < n; i++) {
    /* each packet leaves 8 * size(previous) / (factor * target) after the previous one */
    expect += amcc_pacing_interval (PKT, TARGET, factor);
    fail_unless_equals_uint64 (crank_pacer (&f), expect);
    r = next_sent (&f);
    fail_unless_equals_uint64 (r->t, expect);
    g_free (r);
  }
  nothing_more (&f);
  fail_unless_equals_int (lines_in (sd), n);
  /* the key frame took 8 * (KEY_BYTES - last packet) / (factor * target): 204.8 ms */
  fail_unless_equals_uint64 (expect,
      (guint64) (8.0 * (KEY_BYTES - 800) / (factor * TARGET) * GST_SECOND + 0.5));
  fixture_clear (&f);
  g_unlink (sd);
  g_remove (dir);
  g_free (sd);
  g_free (dir);
}
GST_END_TEST;

GST_START_TEST (test_pacing_off_sends_at_once)
{
  Fixture f;
  guint n, i;

  fixture_init (&f, FALSE, 1.5, 200, 0, NULL);
  n = push_key_frame (&f);
  for (i = 0; i < n; i++) {
    SentRec *r = next_sent (&f);        /* the clock never moves */
    fail_unless_equals_uint64 (r->t, 0);
    g_free (r);
  }
  nothing_more (&f);
  fixture_clear (&f);
}
GST_END_TEST;

GST_START_TEST (test_max_delay_bounds_wait)
{
  Fixture f;
  const GstClockTime max_delay = 50 * GST_MSECOND;
  const GstClockTime iv = amcc_pacing_interval (PKT, TARGET, 1.0);      /* 19.2 ms */
  guint n, i, waits = 0;
  GstClockTime last = 0;

  fixture_init (&f, TRUE, 1.0, max_delay / GST_MSECOND, 0, NULL);
  n = push_key_frame (&f);
  for (i = 0; i < n; i++) {
    /* all arrived at 0: packet i leaves at min(i x iv, max-pacing-delay) */
    GstClockTime expect = MIN (i * iv, max_delay);
    SentRec *r;
    if (expect > last) {
      fail_unless_equals_uint64 (crank_pacer (&f), expect);
      waits++;
    }
    r = next_sent (&f);
    fail_unless_equals_uint64 (r->t, expect);
    last = r->t;
    g_free (r);
  }
  nothing_more (&f);
  fail_unless_equals_int (waits, 3);    /* 19.2, 38.4, then 50 for the rest */
  fixture_clear (&f);
}
GST_END_TEST;

/* Packets whose slots are at most pacing-burst ahead share a wakeup: none leaves after its slot
 * or more than the burst before it, waits are more than the burst apart, so a frame needs fewer
 * wakeups than packets. burst_ms < 0: the element's default. */
static void
check_burst_batches (gdouble factor, gint burst_ms)
{
  Fixture f;
  const GstClockTime iv = amcc_pacing_interval (PKT, TARGET, factor);
  GstClockTime now = 0, burst;
  guint n, i, waits = 0, ms;

  fixture_init (&f, TRUE, factor, 10000, burst_ms, NULL);
  g_object_get (f.sink, "pacing-burst", &ms, NULL);
  burst = ms * GST_MSECOND;
  fail_unless (iv < burst, "the test needs packets closer than the burst");
  n = push_key_frame (&f);
  for (i = 0; i < n; i++) {
    GstClockTime sched = i * iv;        /* all packets before the last are PKT bytes */
    SentRec *r;
    if (sched > now + burst) {
      fail_unless_equals_uint64 (crank_pacer (&f), sched);
      now = sched;
      waits++;
    }
    r = next_sent (&f);
    fail_unless_equals_uint64 (r->t, now);
    fail_unless (r->t <= sched && r->t + burst >= sched);
    g_free (r);
  }
  nothing_more (&f);
  fail_unless (waits > 0);
  fail_unless (waits <= (n - 1) * iv / burst, "%u waits", waits);
  fixture_clear (&f);
}

GST_START_TEST (test_slot_batches_wakeups)
{
  check_burst_batches (6.0, -1);        /* 3.2 ms apart, the default (10 ms) */
}
GST_END_TEST;

GST_START_TEST (test_burst_batches_key_frame)
{
  check_burst_batches (1.5, 40);        /* 12.8 ms apart, 40 ms bursts */
}
GST_END_TEST;

/* A frame no larger than pacing-factor x target x pacing-burst leaves as one burst, with no
 * wakeup; with pacing-burst 0 each of its packets waits for its slot. */
GST_START_TEST (test_small_frame_one_burst)
{
  Fixture f;
  const gdouble factor = 1.5;
  const gsize bytes = 3 * PKT;          /* 3600 <= 1.5 x 62500 B/s x 40 ms = 3750 */
  guint n, i, ms;

  fixture_init (&f, TRUE, factor, 10000, 40, NULL);
  g_object_get (f.sink, "pacing-burst", &ms, NULL);
  fail_unless (bytes <= factor * TARGET / 8.0 * ms / 1000.0, "pacing-burst %u ms", ms);
  n = push_frame (&f, bytes);
  for (i = 0; i < n; i++) {
    SentRec *r = next_sent (&f);        /* the clock never moves */
    fail_unless_equals_uint64 (r->t, 0);
    g_free (r);
  }
  nothing_more (&f);
  fixture_clear (&f);

  fixture_init (&f, TRUE, factor, 10000, 0, NULL);
  n = push_frame (&f, bytes);
  g_free (next_sent (&f));
  nothing_more (&f);                    /* the second packet waits for its slot */
  for (i = 1; i < n; i++) {
    fail_unless_equals_uint64 (crank_pacer (&f), i * amcc_pacing_interval (PKT, TARGET, factor));
    g_free (next_sent (&f));
  }
  nothing_more (&f);
  fixture_clear (&f);
}
GST_END_TEST;

GST_START_TEST (test_flush_while_waiting)
{
  Fixture f;
  SentRec *r;
  guint n, got = 1;

  fixture_init (&f, TRUE, 1.0, 10000, 0, NULL);
  n = push_key_frame (&f);
  g_free (next_sent (&f));
  crank_pacer (&f);
  g_free (next_sent (&f));
  got++;
  /* packet 3 is waiting now: flush-start must wake it and return */
  fail_unless (gst_harness_push_event (f.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (f.h, gst_event_new_flush_stop (TRUE)));
  while ((r = g_async_queue_timeout_pop (f.sent, 100 * 1000))) {
    got++;
    g_free (r);
  }
  fail_unless (got < n, "the flush dropped nothing");
  /* after the flush the schedule starts afresh: the next packet leaves at once */
  gst_harness_set_src_caps_str (f.h, "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,ssrc=(uint)287454020");
  push_key_frame (&f);
  r = next_sent (&f);
  fail_unless_equals_uint64 (r->t, gst_clock_get_time (GST_CLOCK (f.clock)));
  g_free (r);
  /* and a state change while the next one waits does not deadlock either */
  fail_unless_equals_int (gst_element_set_state (f.sink, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (f.sink, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  fixture_clear (&f);
}
GST_END_TEST;

static Suite *
pacing_suite (void)
{
  Suite *s = suite_create ("pacing");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_key_frame_spaced);
  tcase_add_test (tc, test_pacing_off_sends_at_once);
  tcase_add_test (tc, test_max_delay_bounds_wait);
  tcase_add_test (tc, test_slot_batches_wakeups);
  tcase_add_test (tc, test_burst_batches_key_frame);
  tcase_add_test (tc, test_small_frame_one_burst);
  tcase_add_test (tc, test_flush_while_waiting);
  return s;
}

GST_CHECK_MAIN (pacing);

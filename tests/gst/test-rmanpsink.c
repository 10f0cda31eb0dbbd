/* test-rmanpsink.c - rmanpsink (RMANP source): the stream cut into data packets paced at Rm on the
 * test clock, FIN on the last, a NACKed packet retransmitted, EOS held until a child ACKs the
 * end, render held while the window is full (memory bounded by window-packets), malformed control
 * counted and ignored. The peer socket plays the child. Network: 127.0.0.1 only. */
#include "amrmanptest.h"

#define PKT 116                 /* packet-size: 16-byte header + 100 bytes */
#define PAY (PKT - AMCC_RMANP_DATA_HDR)
#define RM 92800                /* min-rate: one 116-byte packet every 10 ms */

typedef struct {
  GstTestClock *clock;
  GstHarness *h;
  GstElement *sink;
  GSocket *peer;
  gint port;                    /* the sink's local-port */
  gint eos_done;
  GThread *eos;
  guint8 raw[4096];
  struct amcc_rmanp_pkt k;
} Fx;

static void
setup (Fx * f, guint window)
{
  memset (f, 0, sizeof *f);
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->peer = amr_socket (0);
  f->sink = gst_element_factory_make ("rmanpsink", NULL);
  fail_unless (f->sink != NULL);
  g_object_set (f->sink, "address", "127.0.0.1", "port", amr_port (f->peer), "packet-size",
      PKT, "min-rate", RM, "window-packets", window, "stats-interval", 0, NULL);
  f->h = gst_harness_new_with_element (f->sink, "sink", NULL);
  gst_harness_set_src_caps_str (f->h, "application/octet-stream");
  gst_harness_play (f->h);
  g_object_get (f->sink, "local-port", &f->port, NULL);
  fail_unless (f->port > 0);
}

static void
teardown (Fx * f)
{
  gst_harness_teardown (f->h);          /* unblocks a waiting render or EOS */
  if (f->eos)
    g_thread_join (f->eos);
  g_object_unref (f->peer);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
}

static GstBuffer *
pattern (gsize n, guint salt)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, n, NULL);
  GstMapInfo m;
  gsize i;

  gst_buffer_map (b, &m, GST_MAP_WRITE);
  for (i = 0; i < n; i++)
    m.data[i] = (guint8) (i * 13 + salt);
  gst_buffer_unmap (b, &m);
  return b;
}

static gpointer
push_eos (gpointer data)
{
  Fx *f = data;
  gst_harness_push_event (f->h, gst_event_new_eos ());
  g_atomic_int_set (&f->eos_done, 1);
  return NULL;
}

GST_START_TEST (test_packetizes_paces_and_finishes_on_ack)
{
  Fx f;
  GstClockTime t0 = 0;
  guint i, j;

  setup (&f, 64);
  fail_unless_equals_int (gst_harness_push (f.h, pattern (1050, 0)), GST_FLOW_OK);
  amr_send_ctl (f.peer, f.port, AMCC_RMANP_ACK, 7, 0, 0);        /* the child registers */
  f.eos = g_thread_new ("eos", push_eos, &f);
  /* 1050 bytes = 10 full packets + 50 bytes, closed by EOS: 11 packets made */
  fail_unless_equals_uint64 (amr_stat_reaches (f.sink, "queued", 11), 11);
  for (i = 0; i <= 10; i++) {
    GstClockTime t;
    fail_unless (amr_wait (f.peer, f.clock, AMCC_RMANP_DATA, 3, f.raw, sizeof f.raw, &f.k,
            NULL), "packet %u not sent", i);
    t = gst_clock_get_time (GST_CLOCK (f.clock));
    if (i == 0)
      t0 = t;
    fail_unless_equals_int (f.k.seq, i);
    fail_unless_equals_int (f.k.value, RM);             /* sent at Rm: nothing ACKed yet */
    fail_unless_equals_int (f.k.flags, i == 10 ? AMCC_RMANP_F_FIN : 0);
    fail_unless_equals_int (f.k.len, i == 10 ? 50 : PAY);
    for (j = 0; j < f.k.len; j++)
      fail_unless_equals_int (f.k.payload[j], (guint8) ((i * PAY + j) * 13));
    /* paced at Rm: 116 bytes x 8 / 92 800 bit/s = 10 ms apart */
    fail_unless_equals_uint64 (t - t0, i * 10 * GST_MSECOND);
  }
  g_usleep (50000);
  fail_if (g_atomic_int_get (&f.eos_done), "EOS passed before any ACK of the end");

  /* a NACK of packet 3, after repair_holdoff (0.5 s): retransmitted, flagged */
  gst_test_clock_advance_time (f.clock, 600 * GST_MSECOND);
  amr_send_ctl (f.peer, f.port, AMCC_RMANP_NACK, 7, 3, 1);
  /* sent by the receive thread at once (no crank: the next timer is the ACK timeout) */
  fail_unless_equals_uint64 (amr_stat_reaches (f.sink, "retransmitted", 1), 1);
  fail_unless (amr_recv (f.peer, 2000, f.raw, sizeof f.raw, &f.k) > 0);
  fail_unless_equals_int (f.k.seq, 3);
  fail_unless_equals_int (f.k.flags, AMCC_RMANP_F_RETX);
  fail_unless_equals_int (f.k.payload[0], (guint8) (3 * PAY * 13));

  /* the child ACKs everything: EOS passes */
  amr_send_ctl (f.peer, f.port, AMCC_RMANP_ACK, 7, 11, 0);
  g_thread_join (f.eos);
  f.eos = NULL;
  fail_unless (g_atomic_int_get (&f.eos_done));
  fail_unless_equals_uint64 (amr_stat (f.sink, "sent"), 11);
  fail_unless_equals_uint64 (amr_stat (f.sink, "retransmitted"), 1);
  fail_unless_equals_uint64 (amr_stat (f.sink, "acked"), 11);
  fail_unless_equals_uint64 (amr_stat (f.sink, "children"), 1);
  fail_unless_equals_uint64 (amr_stat (f.sink, "bytes"), 1050);
  /* the rate rose by Is x Rm per packet ACKed: 92 800 + 11 x 0.005 x 92 800 = 97 904 */
  {
    GstStructure *st;
    gdouble rate;
    g_object_get (f.sink, "stats", &st, NULL);
    fail_unless (gst_structure_get_double (st, "rate", &rate));
    fail_unless (rate > 97903.9 && rate < 97904.1, "rate %f", rate);
    gst_structure_free (st);
  }
  teardown (&f);
}
GST_END_TEST;

static gpointer
push_1000 (gpointer data)
{
  Fx *f = data;
  gst_harness_push (f->h, pattern (1000, 1));
  g_atomic_int_set (&f->eos_done, 1);
  return NULL;
}

/* window-packets = 4: render takes 400 bytes, then waits for ACKs (memory bounded). */
GST_START_TEST (test_window_holds_render)
{
  Fx f;
  GThread *th;
  guint i, round;

  setup (&f, 4);
  amr_send_ctl (f.peer, f.port, AMCC_RMANP_ACK, 7, 0, 0);
  th = g_thread_new ("push", push_1000, &f);
  for (round = 1; round <= 2; round++) {
    fail_unless_equals_uint64 (amr_stat_reaches (f.sink, "bytes", 400 * round), 400 * round);
    g_usleep (50000);
    fail_unless_equals_uint64 (amr_stat (f.sink, "bytes"), 400 * round);
    fail_if (g_atomic_int_get (&f.eos_done), "render returned with a full window");
    for (i = 0; i < 4; i++) {
      fail_unless (amr_wait (f.peer, f.clock, AMCC_RMANP_DATA, 3, f.raw, sizeof f.raw, &f.k,
              NULL));
      fail_unless_equals_int (f.k.seq, (round - 1) * 4 + i);
    }
    amr_send_ctl (f.peer, f.port, AMCC_RMANP_ACK, 7, round * 4, 0);
  }
  g_thread_join (th);
  fail_unless (g_atomic_int_get (&f.eos_done));
  fail_unless_equals_uint64 (amr_stat (f.sink, "bytes"), 1000);
  teardown (&f);
}
GST_END_TEST;

GST_START_TEST (test_malformed_counted_and_ignored)
{
  Fx f;
  static const guint8 junk[3] = { 1, 4, 0 };
  guint8 ack[AMCC_RMANP_CTL_LEN];
  struct amcc_rmanp_pkt a = { .type = AMCC_RMANP_ACK, .node = 7, .seq = 0 };

  setup (&f, 64);
  amr_send (f.peer, f.port, junk, sizeof junk);                  /* truncated */
  fail_unless_equals_int (amcc_rmanp_encode (&a, ack, sizeof ack), AMCC_RMANP_CTL_LEN);
  ack[0] = 2;                                                     /* a version we do not know */
  amr_send (f.peer, f.port, ack, sizeof ack);
  amr_send_data (f.peer, f.port, 0, 0, 10);                       /* data: not for a source */
  fail_unless_equals_uint64 (amr_stat_reaches (f.sink, "malformed", 2), 2);
  fail_unless_equals_uint64 (amr_stat_reaches (f.sink, "ignored", 1), 1);
  fail_unless_equals_uint64 (amr_stat (f.sink, "children"), 0);
  /* and the session still works */
  fail_unless_equals_int (gst_harness_push (f.h, pattern (60, 2)), GST_FLOW_OK);
  amr_send_ctl (f.peer, f.port, AMCC_RMANP_ACK, 7, 0, 0);
  f.eos = g_thread_new ("eos", push_eos, &f);
  fail_unless_equals_uint64 (amr_stat_reaches (f.sink, "queued", 1), 1);
  fail_unless (amr_wait (f.peer, f.clock, AMCC_RMANP_DATA, 3, f.raw, sizeof f.raw, &f.k, NULL));
  fail_unless_equals_int (f.k.seq, 0);
  fail_unless_equals_int (f.k.flags, AMCC_RMANP_F_FIN);
  amr_send_ctl (f.peer, f.port, AMCC_RMANP_ACK, 7, 1, 0);
  g_thread_join (f.eos);
  f.eos = NULL;
  fail_unless (g_atomic_int_get (&f.eos_done));
  fail_unless_equals_uint64 (amr_stat (f.sink, "malformed"), 2);
  teardown (&f);
}
GST_END_TEST;

/* No child ever ACKs: stopping the pipeline still returns the EOS that waits. */
GST_START_TEST (test_stop_while_waiting)
{
  Fx f;

  setup (&f, 64);
  fail_unless_equals_int (gst_harness_push (f.h, pattern (10, 3)), GST_FLOW_OK);
  f.eos = g_thread_new ("eos", push_eos, &f);
  fail_unless_equals_uint64 (amr_stat_reaches (f.sink, "queued", 1), 1);
  g_usleep (20000);
  fail_if (g_atomic_int_get (&f.eos_done));
  teardown (&f);
  fail_unless (g_atomic_int_get (&f.eos_done));
}
GST_END_TEST;

static Suite *
rmanpsink_suite (void)
{
  Suite *s = suite_create ("rmanpsink");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_packetizes_paces_and_finishes_on_ack);
  tcase_add_test (tc, test_window_holds_render);
  tcase_add_test (tc, test_malformed_counted_and_ignored);
  tcase_add_test (tc, test_stop_while_waiting);
  return s;
}

GST_CHECK_MAIN (rmanpsink);

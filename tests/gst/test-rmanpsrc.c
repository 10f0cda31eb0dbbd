/* test-rmanpsrc.c - rmanpsrc (RMANP receiver): packets out of order and duplicated come out as the
 * stream in order, once; a gap is NACKed at once and again after nack_interval on the test
 * clock; EOS after the FIN's data; malformed and oversized packets counted and ignored. The
 * peer socket plays the parent. Network: 127.0.0.1 only. */
#include "amrmanptest.h"

#define PKT 116
#define PAY (PKT - AMCC_RMANP_DATA_HDR)

typedef struct {
  GstTestClock *clock;
  GstHarness *h;
  GstElement *src;
  GSocket *peer;
  gint port;
  guint8 raw[4096];
  struct amcc_rmanp_pkt k;
} Fx;

static void
setup (Fx * f)
{
  memset (f, 0, sizeof *f);
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->peer = amr_socket (0);
  f->port = amt_free_port_pair ();
  f->src = gst_element_factory_make ("rmanpsrc", NULL);
  fail_unless (f->src != NULL);
  g_object_set (f->src, "address", "127.0.0.1", "port", f->port, "node", 5, "linger", 0,
      "packet-size", PKT, "stats-interval", 0, NULL);
  f->h = gst_harness_new_with_element (f->src, NULL, "src");
  gst_harness_play (f->h);
}

static void
teardown (Fx * f)
{
  gst_harness_teardown (f->h);
  g_object_unref (f->peer);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
}

/* The next control packet of `type` from the receiver, skipping others (real time only). */
static gboolean
next_ctl (Fx * f, guint8 type)
{
  gint i;
  for (i = 0; i < 20; i++)
    if (amr_recv (f->peer, 2000, f->raw, sizeof f->raw, &f->k) > 0 && f->k.type == type)
      return TRUE;
  return FALSE;
}

/* Pulls `want` bytes of output and checks them against packets seq0.. in order. */
static void
expect_stream (Fx * f, guint32 seq0, gsize want)
{
  gsize got = 0;

  while (got < want) {
    GstBuffer *b = gst_harness_pull (f->h);
    GstMapInfo m;
    gsize i;

    fail_unless (b != NULL, "output stopped at %" G_GSIZE_FORMAT " bytes", got);
    gst_buffer_map (b, &m, GST_MAP_READ);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), got);
    for (i = 0; i < m.size; i++, got++) {
      guint32 seq = seq0 + (guint32) (got / PAY);
      fail_unless_equals_int (m.data[i], (guint8) (seq * 7 + got % PAY));
    }
    gst_buffer_unmap (b, &m);
    gst_buffer_unref (b);
  }
  fail_unless_equals_uint64 (got, want);
}

static void
expect_eos (Fx * f)
{
  gint i;
  for (i = 0; i < 10; i++) {
    GstEvent *e = gst_harness_pull_event (f->h);
    gboolean eos;
    fail_unless (e != NULL, "no EOS");
    eos = GST_EVENT_TYPE (e) == GST_EVENT_EOS;
    gst_event_unref (e);
    if (eos)
      return;
  }
  fail ("no EOS among the first 10 events");
}

GST_START_TEST (test_reorders_dedups_and_eoses_after_fin)
{
  Fx f;

  setup (&f);
  amr_send_data (f.peer, f.port, 2, 0, PAY);
  /* the gap 0..1 is NACKed at once, to where the data came from */
  fail_unless (next_ctl (&f, AMCC_RMANP_NACK));
  fail_unless_equals_int (f.k.node, 5);
  fail_unless_equals_int (f.k.seq, 0);
  fail_unless_equals_int (f.k.value, 2);
  amr_send_data (f.peer, f.port, 0, 0, PAY);
  amr_send_data (f.peer, f.port, 1, AMCC_RMANP_F_RETX, PAY);
  amr_send_data (f.peer, f.port, 1, AMCC_RMANP_F_RETX, PAY);    /* a duplicate */
  amr_send_data (f.peer, f.port, 3, AMCC_RMANP_F_FIN, 20);
  expect_stream (&f, 0, 3 * PAY + 20);
  expect_eos (&f);
  /* everything ACKed: every packet below 4 */
  do
    fail_unless (next_ctl (&f, AMCC_RMANP_ACK));
  while (f.k.seq != 4);
  fail_unless_equals_uint64 (amr_stat (f.src, "duplicates"), 1);
  fail_unless_equals_uint64 (amr_stat (f.src, "gaps"), 1);
  fail_unless_equals_uint64 (amr_stat (f.src, "bytes"), 3 * PAY + 20);
  fail_unless_equals_uint64 (amr_stat (f.src, "malformed"), 0);
  teardown (&f);
}
GST_END_TEST;

/* A missing packet is asked for again after nack_interval (1 s) of test-clock time. */
GST_START_TEST (test_nack_repeated_on_the_clock)
{
  Fx f;
  GstClockTime t0;

  setup (&f);
  t0 = gst_clock_get_time (GST_CLOCK (f.clock));
  amr_send_data (f.peer, f.port, 1, 0, PAY);
  fail_unless (next_ctl (&f, AMCC_RMANP_NACK));
  fail_unless_equals_int (f.k.seq, 0);
  fail_unless (amr_wait (f.peer, f.clock, AMCC_RMANP_NACK, 4, f.raw, sizeof f.raw, &f.k, NULL));
  fail_unless_equals_int (f.k.seq, 0);
  fail_unless_equals_int (f.k.value, 1);
  fail_unless_equals_uint64 (gst_clock_get_time (GST_CLOCK (f.clock)) - t0, GST_SECOND);
  fail_unless_equals_uint64 (amr_stat (f.src, "nacks-sent"), 2);
  amr_send_data (f.peer, f.port, 0, AMCC_RMANP_F_RETX, PAY);
  amr_send_data (f.peer, f.port, 2, AMCC_RMANP_F_FIN, PAY);
  expect_stream (&f, 0, 3 * PAY);
  expect_eos (&f);
  teardown (&f);
}
GST_END_TEST;

GST_START_TEST (test_malformed_counted_and_ignored)
{
  Fx f;
  static const guint8 junk[3] = { 1, 1, 0 };

  setup (&f);
  amr_send (f.peer, f.port, junk, sizeof junk);                  /* truncated */
  amr_send_data (f.peer, f.port, 0, 0, PAY + 1);                 /* larger than packet-size */
  amr_send_ctl (f.peer, f.port, AMCC_RMANP_ACK, 9, 3, 0);        /* control: not for us */
  fail_unless_equals_uint64 (amr_stat_reaches (f.src, "malformed", 2), 2);
  fail_unless_equals_uint64 (amr_stat_reaches (f.src, "ignored", 1), 1);
  amr_send_data (f.peer, f.port, 0, AMCC_RMANP_F_FIN, PAY);
  expect_stream (&f, 0, PAY);
  expect_eos (&f);
  fail_unless_equals_uint64 (amr_stat (f.src, "malformed"), 2);
  teardown (&f);
}
GST_END_TEST;

/* control-address set: control goes there, not to the sender of the data. */
GST_START_TEST (test_control_address)
{
  Fx f;
  GSocket *ctl = amr_socket (0);
  gchar *addr = g_strdup_printf ("127.0.0.1:%d", amr_port (ctl));
  GstHarness *h;

  memset (&f, 0, sizeof f);
  f.clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f.clock));
  f.peer = amr_socket (0);
  f.port = amt_free_port_pair ();
  f.src = gst_element_factory_make ("rmanpsrc", NULL);
  g_object_set (f.src, "address", "127.0.0.1", "port", f.port, "node", 6, "linger", 0,
      "packet-size", PKT, "stats-interval", 0, "control-address", addr, NULL);
  h = f.h = gst_harness_new_with_element (f.src, NULL, "src");
  gst_harness_play (h);
  /* the ACK that registers us goes out at start: the parent is known before any data */
  fail_unless (amr_recv (ctl, 2000, f.raw, sizeof f.raw, &f.k) > 0);
  fail_unless_equals_int (f.k.type, AMCC_RMANP_ACK);
  fail_unless_equals_int (f.k.node, 6);
  amr_send_data (f.peer, f.port, 0, AMCC_RMANP_F_FIN, 30);
  expect_stream (&f, 0, 30);
  do
    fail_unless (amr_recv (ctl, 2000, f.raw, sizeof f.raw, &f.k) > 0);
  while (f.k.type != AMCC_RMANP_ACK || f.k.seq != 1);
  fail_unless_equals_int (amr_recv (f.peer, 50, f.raw, sizeof f.raw, &f.k), 0);
  fail_unless_equals_uint64 (amr_stat (f.src, "up-unsent"), 0);
  expect_eos (&f);
  teardown (&f);
  g_object_unref (ctl);
  g_free (addr);
}
GST_END_TEST;

static Suite *
rmanpsrc_suite (void)
{
  Suite *s = suite_create ("rmanpsrc");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reorders_dedups_and_eoses_after_fin);
  tcase_add_test (tc, test_nack_repeated_on_the_clock);
  tcase_add_test (tc, test_malformed_counted_and_ignored);
  tcase_add_test (tc, test_control_address);
  return s;
}

GST_CHECK_MAIN (rmanpsrc);

/* test-rmanprelay.c - rmanprelay (RMANP active relay, no pads: driven through its states, not a
 * GstHarness): the parent's data forwarded on its group, a child's NACK repaired from the cache
 * (not passed up), the children's ACK aggregated up, malformed or misdirected packets counted
 * and ignored, memory constant under an adversarial flood. Two peer sockets play the parent and
 * the child. Network: 127.0.0.1 only. */
#include "amrmanptest.h"

#define PKT 116
#define PAY (PKT - AMCC_RMANP_DATA_HDR)
#define CACHE 16
#define QUEUE 4

typedef struct {
  GstTestClock *clock;
  GstElement *relay;
  GSocket *parent, *child;
  gint up_port, local_port;
  guint8 raw[4096];
  struct amcc_rmanp_pkt k;
} Fx;

static void
setup (Fx * f)
{
  memset (f, 0, sizeof *f);
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->parent = amr_socket (0);
  f->child = amr_socket (0);
  f->up_port = amt_free_port_pair ();
  f->relay = gst_element_factory_make ("rmanprelay", NULL);
  fail_unless (f->relay != NULL);
  g_object_set (f->relay, "parent-address", "127.0.0.1", "parent-port", f->up_port,
      "address", "127.0.0.1", "port", amr_port (f->child), "node", 1, "packet-size", PKT,
      "min-rate", 92800, "cache-packets", CACHE, "queue-packets", QUEUE, "stats-interval", 0,
      NULL);
  fail_unless_equals_int (gst_element_set_state (f->relay, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (f->relay, "local-port", &f->local_port, NULL);
  fail_unless (f->local_port > 0);
}

static void
teardown (Fx * f)
{
  fail_unless_equals_int (gst_element_set_state (f->relay, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (f->relay);
  g_object_unref (f->parent);
  g_object_unref (f->child);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
}

GST_START_TEST (test_forwards_repairs_and_aggregates)
{
  Fx f;
  guint32 i;
  guint nacks_up = 0;

  setup (&f);
  amr_send_ctl (f.child, f.local_port, AMCC_RMANP_ACK, 9, 0, 0);      /* the child registers */
  fail_unless_equals_uint64 (amr_stat_reaches (f.relay, "children", 1), 1);
  for (i = 0; i < 5; i++)
    amr_send_data (f.parent, f.up_port, i, 0, PAY);
  for (i = 0; i < 5; i++) {
    fail_unless (amr_wait (f.child, f.clock, AMCC_RMANP_DATA, 5, f.raw, sizeof f.raw, &f.k,
            NULL), "packet %u not forwarded", i);
    fail_unless_equals_int (f.k.seq, i);
    fail_unless_equals_int (f.k.flags, 0);
    fail_unless_equals_int (f.k.len, PAY);
    fail_unless_equals_int (f.k.payload[PAY - 1], (guint8) (i * 7 + PAY - 1));
  }
  /* the child lost packet 2: the relay repairs it from its cache */
  amr_send_ctl (f.child, f.local_port, AMCC_RMANP_NACK, 9, 2, 1);
  fail_unless (amr_wait (f.child, f.clock, AMCC_RMANP_DATA, 5, f.raw, sizeof f.raw, &f.k, NULL));
  fail_unless_equals_int (f.k.seq, 2);
  fail_unless (f.k.flags & AMCC_RMANP_F_RETX);
  fail_unless_equals_int (f.k.payload[0], (guint8) (2 * 7));
  fail_unless_equals_uint64 (amr_stat (f.relay, "cache-hits"), 1);
  fail_unless_equals_uint64 (amr_stat (f.relay, "retransmitted"), 1);
  /* the child has everything: its ACK goes up as the relay's (node 1); no NACK went up */
  amr_send_ctl (f.child, f.local_port, AMCC_RMANP_ACK, 9, 5, 0);
  do {
    fail_unless (amr_wait (f.parent, f.clock, AMCC_RMANP_ACK, 5, f.raw, sizeof f.raw, &f.k,
            NULL));
    fail_unless_equals_int (f.k.node, 1);
  } while (f.k.seq != 5);
  while (amr_recv (f.parent, 50, f.raw, sizeof f.raw, &f.k) > 0)
    nacks_up += f.k.type == AMCC_RMANP_NACK;
  fail_unless_equals_int (nacks_up, 0);
  fail_unless_equals_uint64 (amr_stat (f.relay, "nacks-sent"), 0);
  fail_unless_equals_uint64 (amr_stat (f.relay, "acked"), 5);
  fail_unless_equals_uint64 (amr_stat (f.relay, "forwarded"), 5);
  teardown (&f);
}
GST_END_TEST;

/* Junk on both sockets is counted; data from a child or control from the parent ignored; a flood
 * of arbitrary packets leaves the memory where it started and every queue within its size. */
GST_START_TEST (test_malformed_and_bounded_memory)
{
  Fx f;
  static const guint8 junk[3] = { 1, 1, 0 };
  guint8 bad[AMCC_RMANP_CTL_LEN];
  struct amcc_rmanp_pkt a = { .type = AMCC_RMANP_ACK, .node = 9 };
  guint64 mem0, mem1;
  GRand *rnd = g_rand_new_with_seed (13);
  gint i;

  setup (&f);
  g_object_get (f.relay, "memory", &mem0, NULL);
  fail_unless (mem0 > (guint64) CACHE * PAY);
  amr_send (f.parent, f.up_port, junk, sizeof junk);
  fail_unless_equals_int (amcc_rmanp_encode (&a, bad, sizeof bad), AMCC_RMANP_CTL_LEN);
  bad[0] = 9;
  amr_send (f.child, f.local_port, bad, sizeof bad);
  amr_send_data (f.child, f.local_port, 0, 0, 10);                   /* data from a child */
  amr_send_ctl (f.parent, f.up_port, AMCC_RMANP_ACK, 3, 0, 0);       /* control from the parent */
  fail_unless_equals_uint64 (amr_stat_reaches (f.relay, "malformed", 2), 2);
  fail_unless_equals_uint64 (amr_stat_reaches (f.relay, "ignored", 2), 2);

  amr_send_ctl (f.child, f.local_port, AMCC_RMANP_ACK, 9, 0, 0);
  for (i = 0; i < 3000; i++) {
    guint32 seq = g_rand_boolean (rnd) ? (guint32) g_rand_int_range (rnd, 0, 400)
        : g_rand_int (rnd);
    amr_send_data (f.parent, f.up_port, seq, (guint8) g_rand_int_range (rnd, 0, 8),
        (guint16) g_rand_int_range (rnd, 0, PAY + 1));
    if (i % 3 == 0) {
      guint8 type = (guint8) g_rand_int_range (rnd, AMCC_RMANP_CI, AMCC_RMANP_ACK + 1);
      amr_send_ctl (f.child, f.local_port, type, (guint32) g_rand_int_range (rnd, 0, 40),
          (guint32) g_rand_int_range (rnd, 0, 500),
          type == AMCC_RMANP_ACK ? 0 : (guint32) g_rand_int_range (rnd, 1, 1000));
    }
    if (i % 100 == 0)
      gst_test_clock_advance_time (f.clock, 50 * GST_MSECOND);
  }
  /* the up socket is read in order: once one more junk packet is counted, the flood has been
   * through (the kernel may drop some of it, and the marker, when the socket buffer is full) */
  for (i = 0; i < 100 && amr_stat (f.relay, "malformed") < 3; i++) {
    amr_send (f.parent, f.up_port, junk, sizeof junk);
    g_usleep (20000);
  }
  fail_unless (amr_stat (f.relay, "malformed") >= 3);
  g_object_get (f.relay, "memory", &mem1, NULL);
  fail_unless_equals_uint64 (mem1, mem0);
  fail_unless (amr_stat (f.relay, "cached") <= CACHE);
  fail_unless (amr_stat (f.relay, "queue-peak") <= QUEUE);
  fail_unless (amr_stat (f.relay, "repair-queued") <= 32);
  fail_unless (amr_stat (f.relay, "children") <= 16);
  /* the flood reached the role (forwarding may be held: its CIs throttle the relay, and the
   * test clock does not run) */
  fail_unless (amr_stat (f.relay, "gaps") > 0);
  fail_unless (amr_stat (f.relay, "ci-received") + amr_stat (f.relay, "nacks-received") > 0);
  g_rand_free (rnd);
  teardown (&f);
}
GST_END_TEST;

static Suite *
rmanprelay_suite (void)
{
  Suite *s = suite_create ("rmanprelay");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_forwards_repairs_and_aggregates);
  tcase_add_test (tc, test_malformed_and_bounded_memory);
  return s;
}

GST_CHECK_MAIN (rmanprelay);

/* test-auth.c - gstamauth.c's trailer and auth-key on the RMANP elements. The trailer: the right
 * key and label pass (out of order within the window, once each); another key, another label,
 * no tag, any one byte flipped, a replay and a counter older than the window are refused.
 * rmanpsrc keyed takes tagged data only and tags its control; rmanprelay keyed forwards with
 * its own tag and refuses a replayed NACK; rmanpsink -> rmanprelay -> rmanpsrc all keyed
 * deliver the stream (the EOS waits for the ACK, authenticated up both hops), and untagged or
 * foreign-keyed control at each is dropped and counted (auth-rejected), the roles' counters
 * unchanged. Network: 127.0.0.1 only; real clock. */
#include "amrmanptest.h"
#include "common/gstamauth.h"

#define KEY "00112233445566778899aabbccddeeff00112233445566778899aabbccdd"
#define KEY2 "ffeeddccbbaa99887766554433221100ffeeddccbbaa9988776655443322"
#define PKT 116
#define PAY (PKT - AMCC_RMANP_DATA_HDR)

static GstAmAuth *
auth (const gchar * hex, const gchar * label)
{
  GBytes *k = NULL;
  GstAmAuth *a;

  fail_unless (gst_am_auth_parse_key ("auth-key", hex, &k, NULL) && k);
  a = gst_am_auth_new (k, label);
  g_bytes_unref (k);
  return a;
}

static GstAmAuthResult
check (GstAmAuth * a, const guint8 * b, gsize n)
{
  gsize plain = 0;
  GstAmAuthResult r = gst_am_auth_check (a, b, n, &plain);

  if (r == GST_AM_AUTH_OK)
    fail_unless_equals_int (plain, n - GST_AM_AUTH_TRAILER);
  return r;
}

GST_START_TEST (test_trailer)
{
  GstAmAuth *tx = auth (KEY, "rmanp down"), *rx = auth (KEY, "rmanp down");
  GstAmAuth *other_key = auth (KEY2, "rmanp down"), *other_label = auth (KEY, "rmanp up");
  guint8 p[4][64], b[64];
  gsize n[4], i;
  GError *err = NULL;
  GBytes *k = NULL;

  for (i = 0; i < 4; i++) {
    memset (p[i], 'a' + (gint) i, 20);
    n[i] = gst_am_auth_protect (tx, p[i], 20);
    fail_unless_equals_int (n[i], 20 + GST_AM_AUTH_TRAILER);
  }
  fail_unless_equals_int (check (other_key, p[0], n[0]), GST_AM_AUTH_BAD_TAG);
  fail_unless_equals_int (check (other_label, p[0], n[0]), GST_AM_AUTH_BAD_TAG);
  fail_unless_equals_int (check (rx, p[0], 20), GST_AM_AUTH_BAD_TAG);   /* no tag */
  fail_unless_equals_int (check (rx, p[0], 10), GST_AM_AUTH_SHORT);
  for (i = 0; i < n[1]; i++) {  /* packet, sender id, counter or tag: one bit anywhere */
    memcpy (b, p[1], n[1]);
    b[i] ^= 0x01;
    fail_unless_equals_int (check (rx, b, n[1]), GST_AM_AUTH_BAD_TAG);
  }
  /* the right key: in any order within the window, each once */
  fail_unless_equals_int (check (rx, p[1], n[1]), GST_AM_AUTH_OK);
  fail_unless_equals_int (check (rx, p[0], n[0]), GST_AM_AUTH_OK);
  fail_unless_equals_int (check (rx, p[0], n[0]), GST_AM_AUTH_REPLAY);
  fail_unless_equals_int (check (rx, p[1], n[1]), GST_AM_AUTH_REPLAY);
  fail_unless_equals_int (check (rx, p[2], n[2]), GST_AM_AUTH_OK);
  fail_unless_equals_int (check (rx, p[2], n[2]), GST_AM_AUTH_REPLAY);
  /* a window later, p[3] (never seen) is too old */
  for (i = 0; i < GST_AM_AUTH_WINDOW; i++) {
    memset (b, 'x', 20);
    fail_unless_equals_int (check (rx, b, gst_am_auth_protect (tx, b, 20)), GST_AM_AUTH_OK);
  }
  fail_unless_equals_int (check (rx, p[3], n[3]), GST_AM_AUTH_REPLAY);
  /* the key itself: 60 hex digits */
  fail_if (gst_am_auth_parse_key ("auth-key", "0011", &k, &err));
  fail_unless (strstr (err->message, "auth-key") != NULL);
  g_clear_error (&err);
  fail_unless (gst_am_auth_parse_key ("auth-key", "", &k, NULL) && !k);
  gst_am_auth_free (tx);
  gst_am_auth_free (rx);
  gst_am_auth_free (other_key);
  gst_am_auth_free (other_label);
}
GST_END_TEST;

/* ---- elements ---- */

/* One data packet (payload as amr_send_data's), tagged by a when given; its bytes in out. */
static gsize
data_packet (GstAmAuth * a, guint32 seq, guint8 flags, guint8 * out)
{
  guint8 pay[PAY];
  struct amcc_rmanp_pkt k = { .type = AMCC_RMANP_DATA, .seq = seq, .value = 100000,
    .flags = flags, .payload = pay, .len = PAY };
  guint i;
  gint n;

  for (i = 0; i < PAY; i++)
    pay[i] = (guint8) (seq * 7 + i);
  n = amcc_rmanp_encode (&k, out, 4096);
  fail_unless_equals_int (n, PKT);
  return a ? gst_am_auth_protect (a, out, (gsize) n) : (gsize) n;
}

static gsize
ctl_packet (GstAmAuth * a, guint8 type, guint32 node, guint32 seq, guint32 value, guint8 * out)
{
  struct amcc_rmanp_pkt k = { .type = type, .node = node, .seq = seq, .value = value };

  fail_unless_equals_int (amcc_rmanp_encode (&k, out, 64), AMCC_RMANP_CTL_LEN);
  return a ? gst_am_auth_protect (a, out, AMCC_RMANP_CTL_LEN) : AMCC_RMANP_CTL_LEN;
}

/* The next datagram on s of `type` within 2 s, checked by a (the tag must verify) and decoded
 * into *k (raw keeps the bytes). */
static gboolean
recv_tagged (GSocket * s, GstAmAuth * a, guint8 type, guint8 * raw, struct amcc_rmanp_pkt *k)
{
  gint i;

  for (i = 0; i < 50; i++) {
    gssize n;
    gsize plain = 0;

    if (!g_socket_condition_timed_wait (s, G_IO_IN, 2 * G_USEC_PER_SEC, NULL, NULL))
      return FALSE;
    n = g_socket_receive (s, (gchar *) raw, 4096, NULL, NULL);
    fail_unless (n > 0);
    fail_unless_equals_int (gst_am_auth_check (a, raw, (gsize) n, &plain), GST_AM_AUTH_OK);
    fail_unless_equals_int (amcc_rmanp_decode (k, raw, plain), AMCC_OK);
    if (k->type == type)
      return TRUE;
  }
  return FALSE;
}

static GstBuffer *
pull_bytes (GstHarness * h, gsize want)
{
  GstBuffer *all = gst_buffer_new ();

  while (gst_buffer_get_size (all) < want) {
    GstBuffer *b = gst_harness_pull (h);
    fail_unless (b != NULL, "output stopped at %" G_GSIZE_FORMAT, gst_buffer_get_size (all));
    all = gst_buffer_append (all, b);
  }
  return all;
}

GST_START_TEST (test_rmanpsrc_auth)
{
  GstAmAuth *down = auth (KEY, "rmanp down"), *up = auth (KEY, "rmanp up");
  GstAmAuth *foreign = auth (KEY2, "rmanp down");
  GSocket *peer = amr_socket (0);
  gint port = amt_free_port_pair ();
  GstElement *src = gst_element_factory_make ("rmanpsrc", NULL);
  GstHarness *h;
  GstBuffer *out;
  guint8 raw[4096], rec[4096], b[4096];
  gsize rec_n, n;
  struct amcc_rmanp_pkt k;

  g_object_set (src, "address", "127.0.0.1", "port", port, "node", 5, "linger", 0,
      "packet-size", PKT, "stats-interval", 0, "auth-key", KEY, NULL);
  h = gst_harness_new_with_element (src, NULL, "src");
  gst_harness_play (h);
  rec_n = data_packet (down, 0, 0, rec);
  amr_send (peer, port, rec, rec_n);
  out = pull_bytes (h, PAY);
  gst_buffer_unref (out);
  /* its ACK is tagged under "rmanp up" (recv_tagged checks) */
  fail_unless (recv_tagged (peer, up, AMCC_RMANP_ACK, raw, &k));
  fail_unless_equals_int (k.node, 5);
  /* packet 1 untagged, under another key, with a flipped byte; packet 0 again */
  amr_send_data (peer, port, 1, 0, PAY);
  amr_send (peer, port, b, data_packet (foreign, 1, 0, b));
  n = data_packet (down, 1, 0, b);
  b[AMCC_RMANP_DATA_HDR + 3] ^= 0x80;
  amr_send (peer, port, b, n);
  amr_send (peer, port, rec, rec_n);
  fail_unless_equals_uint64 (amr_stat_reaches (src, "auth-rejected", 4), 4);
  fail_unless_equals_uint64 (amr_stat (src, "duplicates"), 0);
  fail_unless_equals_uint64 (amr_stat (src, "malformed"), 0);
  fail_unless_equals_uint64 (amr_stat (src, "bytes"), PAY);
  /* the real packet 1, with the FIN */
  amr_send (peer, port, b, data_packet (down, 1, AMCC_RMANP_F_FIN, b));
  out = pull_bytes (h, PAY);
  gst_buffer_unref (out);
  fail_unless_equals_uint64 (amr_stat (src, "bytes"), 2 * PAY);
  fail_unless_equals_uint64 (amr_stat (src, "auth-rejected"), 4);
  gst_harness_teardown (h);
  g_object_unref (peer);
  gst_am_auth_free (down);
  gst_am_auth_free (up);
  gst_am_auth_free (foreign);
}
GST_END_TEST;

GST_START_TEST (test_rmanprelay_auth)
{
  GstAmAuth *down = auth (KEY, "rmanp down"), *up = auth (KEY, "rmanp up");
  GstAmAuth *child_rx = auth (KEY, "rmanp down");
  GSocket *parent = amr_socket (0), *child = amr_socket (0);
  gint up_port = amt_free_port_pair (), local_port = 0;
  GstElement *relay = gst_element_factory_make ("rmanprelay", NULL);
  guint8 raw[4096], nack[64], b[4096];
  gsize nack_n;
  struct amcc_rmanp_pkt k;
  guint32 i;

  g_object_set (relay, "parent-address", "127.0.0.1", "parent-port", up_port,
      "address", "127.0.0.1", "port", amr_port (child), "node", 1, "packet-size", PKT,
      "min-rate", 92800, "stats-interval", 0, "auth-key", KEY, NULL);
  fail_unless_equals_int (gst_element_set_state (relay, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (relay, "local-port", &local_port, NULL);
  amr_send (child, local_port, b, ctl_packet (up, AMCC_RMANP_ACK, 9, 0, 0, b));
  fail_unless_equals_uint64 (amr_stat_reaches (relay, "children", 1), 1);
  for (i = 0; i < 3; i++)
    amr_send (parent, up_port, b, data_packet (down, i, 0, b));
  for (i = 0; i < 3; i++) {     /* forwarded with the relay's own tag */
    fail_unless (recv_tagged (child, child_rx, AMCC_RMANP_DATA, raw, &k));
    fail_unless_equals_int (k.seq, i);
  }
  /* a NACK for packet 1, then the same datagram again: repaired once, the replay counted */
  nack_n = ctl_packet (up, AMCC_RMANP_NACK, 9, 1, 1, nack);
  amr_send (child, local_port, nack, nack_n);
  fail_unless_equals_uint64 (amr_stat_reaches (relay, "nacks-received", 1), 1);
  amr_send (child, local_port, nack, nack_n);
  amr_send_ctl (child, local_port, AMCC_RMANP_NACK, 9, 2, 1);          /* untagged */
  fail_unless_equals_uint64 (amr_stat_reaches (relay, "auth-rejected", 2), 2);
  fail_unless_equals_uint64 (amr_stat (relay, "nacks-received"), 1);
  fail_unless_equals_uint64 (amr_stat (relay, "malformed"), 0);
  /* untagged data from the "parent" is neither forwarded nor counted by the role */
  amr_send_data (parent, up_port, 3, 0, PAY);
  fail_unless_equals_uint64 (amr_stat_reaches (relay, "auth-rejected", 3), 3);
  fail_unless_equals_uint64 (amr_stat (relay, "forwarded"), 3);
  fail_unless_equals_int (gst_element_set_state (relay, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (relay);
  g_object_unref (parent);
  g_object_unref (child);
  gst_am_auth_free (down);
  gst_am_auth_free (up);
  gst_am_auth_free (child_rx);
}
GST_END_TEST;

static gpointer
push_eos (gpointer h)
{
  gst_harness_push_event (h, gst_event_new_eos ());
  return NULL;
}

/* rmanpsink -> rmanprelay -> rmanpsrc, all with the key, then junk at each */
GST_START_TEST (test_tree_auth)
{
  gint up_port = amt_free_port_pair (), rx_port = amt_free_port_pair ();
  gint sink_port = 0, relay_port = 0;
  GstElement *sink = gst_element_factory_make ("rmanpsink", NULL);
  GstElement *relay = gst_element_factory_make ("rmanprelay", NULL);
  GstElement *src = gst_element_factory_make ("rmanpsrc", NULL);
  GstHarness *hs, *hr;
  GSocket *attacker = amr_socket (0);
  GstAmAuth *foreign = auth (KEY2, "rmanp up");
  GstBuffer *in = gst_buffer_new_allocate (NULL, 20 * PAY, NULL), *out;
  GThread *eos;
  guint8 b[64];

  g_object_set (sink, "address", "127.0.0.1", "port", up_port, "packet-size", PKT,
      "min-rate", 2000000, "stats-interval", 0, "auth-key", KEY, NULL);
  g_object_set (relay, "parent-address", "127.0.0.1", "parent-port", up_port,
      "address", "127.0.0.1", "port", rx_port, "node", 1, "packet-size", PKT,
      "min-rate", 2000000, "stats-interval", 0, "auth-key", KEY, NULL);
  g_object_set (src, "address", "127.0.0.1", "port", rx_port, "node", 5, "linger", 0,
      "packet-size", PKT, "stats-interval", 0, "auth-key", KEY, NULL);
  fail_unless_equals_int (gst_element_set_state (relay, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  hr = gst_harness_new_with_element (src, NULL, "src");
  gst_harness_play (hr);
  hs = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (hs, "application/octet-stream");
  gst_harness_play (hs);
  gst_buffer_memset (in, 0, 0x5a, 20 * PAY);
  fail_unless_equals_int (gst_harness_push (hs, gst_buffer_ref (in)), GST_FLOW_OK);
  eos = g_thread_new ("eos", push_eos, hs);
  out = pull_bytes (hr, 20 * PAY);
  fail_unless_equals_int (gst_buffer_memcmp (out, 0, (gconstpointer) "ZZZZ", 4), 0);
  fail_unless (gst_buffer_get_size (out) == 20 * PAY);
  gst_buffer_unref (out);
  g_thread_join (eos);          /* the sink's EOS came back: the ACK passed both hops */
  fail_unless_equals_uint64 (amr_stat (sink, "auth-rejected"), 0);
  fail_unless_equals_uint64 (amr_stat (relay, "auth-rejected"), 0);
  fail_unless_equals_uint64 (amr_stat (src, "auth-rejected"), 0);
  /* an outsider's NACKs at the sink and the relay, untagged or under another key */
  g_object_get (sink, "local-port", &sink_port, NULL);
  g_object_get (relay, "local-port", &relay_port, NULL);
  amr_send_ctl (attacker, sink_port, AMCC_RMANP_NACK, 1, 0, 20);
  amr_send (attacker, relay_port, b, ctl_packet (foreign, AMCC_RMANP_NACK, 5, 0, 20, b));
  amr_send_ctl (attacker, relay_port, AMCC_RMANP_CI, 5, 3, 20000);
  fail_unless_equals_uint64 (amr_stat_reaches (sink, "auth-rejected", 1), 1);
  fail_unless_equals_uint64 (amr_stat_reaches (relay, "auth-rejected", 2), 2);
  fail_unless_equals_uint64 (amr_stat (sink, "nacks-received"), 0);
  fail_unless_equals_uint64 (amr_stat (relay, "nacks-received"), 0);
  fail_unless_equals_uint64 (amr_stat (relay, "ci-received"), 0);
  gst_harness_teardown (hs);
  gst_harness_teardown (hr);
  fail_unless_equals_int (gst_element_set_state (relay, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (relay);
  gst_buffer_unref (in);
  g_object_unref (attacker);
  gst_am_auth_free (foreign);
}
GST_END_TEST;

static Suite *
auth_suite (void)
{
  Suite *s = suite_create ("auth");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_trailer);
  tcase_add_test (tc, test_rmanpsrc_auth);
  tcase_add_test (tc, test_rmanprelay_auth);
  tcase_add_test (tc, test_tree_auth);
  return s;
}

GST_CHECK_MAIN (auth);

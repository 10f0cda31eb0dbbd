/* test-avmrclayers.c - avmrclayers: the VP8 descriptor's TID, routing of every packet to its
 * layer's port with the layer's own SSRC and sequence numbers, the AVMRC stamp on every packet
 * (slots on a GstTestClock), and bad input counted, never sent. Network: 127.0.0.1 only (the
 * layers' "groups" are 127.0.0.1, .2, .3, ports P, P + 2, P + 4). Also avmrcsynth, the paper's
 * synthetic workload: channel rates and bursts. */
#include "amvp8test.h"
#include "common/gstamnet.h"

GST_START_TEST (test_vp8_tid)
{
  /* X I L T: 15-bit picture id, TL0PICIDX, TID 2 (Y set), then one VP8 byte */
  static const guint8 t2[] = { 0x90, 0xe0, 0x9f, 0x95, 0x00, 0xa0, 0x9d };
  static const guint8 t1_7bit[] = { 0x80, 0xa0, 0x15, 0x40, 0x9d };     /* 7-bit id, TID 1 */
  static const guint8 plain[] = { 0x10, 0x9d };                          /* no X: layer 0 */
  static const guint8 k_only[] = { 0x80, 0x10, 0xc3, 0x9d };            /* K without T */
  guint tid = 7;

  fail_unless_equals_int (gst_am_vp8_tid (t2, sizeof t2, &tid), GST_AM_VP8_OK);
  fail_unless_equals_int (tid, 2);
  fail_unless_equals_int (gst_am_vp8_tid (t1_7bit, sizeof t1_7bit, &tid), GST_AM_VP8_OK);
  fail_unless_equals_int (tid, 1);
  fail_unless_equals_int (gst_am_vp8_tid (plain, sizeof plain, &tid), GST_AM_VP8_OK);
  fail_unless_equals_int (tid, 0);
  fail_unless_equals_int (gst_am_vp8_tid (k_only, sizeof k_only, &tid), GST_AM_VP8_OK);
  fail_unless_equals_int (tid, 0);
  fail_unless (gst_am_vp8_frame_start (t2, sizeof t2));
  fail_if (gst_am_vp8_frame_start (t1_7bit, sizeof t1_7bit));    /* S = 0 */
  /* every cut of the descriptor short of its payload byte is truncated, never read past */
  for (gsize n = 0; n < sizeof t2; n++)
    fail_unless_equals_int (gst_am_vp8_tid (t2, n, &tid), GST_AM_VP8_TRUNCATED);
  for (gsize n = 0; n < sizeof t1_7bit; n++)
    fail_unless_equals_int (gst_am_vp8_tid (t1_7bit, n, &tid), GST_AM_VP8_TRUNCATED);
  fail_unless_equals_int (gst_am_vp8_tid (plain, 1, &tid), GST_AM_VP8_TRUNCATED);
}
GST_END_TEST;

GST_START_TEST (test_layer_address)
{
  gchar *a = gst_am_layer_address ("239.1.3.1", 2);
  fail_unless_equals_string (a, "239.1.3.3");
  g_free (a);
  fail_unless (gst_am_layer_address ("239.1.3.250", 6) == NULL);
  fail_unless (gst_am_layer_address ("ff02::1", 0) == NULL);
  fail_unless (gst_am_layer_address ("nonsense", 0) == NULL);
}
GST_END_TEST;

/* ---------------------------------------------------------------- the element */

typedef struct {
  gint port;
  GSocket *sock[3];
  GstElement *el;
  GstHarness *h;
} Fixture;

/* Three sockets on the layers' RTP addresses: 127.0.0.1 + i, port P + 2 i */
static void
bind_layers (Fixture * f)
{
  gint tries, i;

  for (tries = 0; tries < 50; tries++) {
    gboolean ok = TRUE;
    f->port = amt_free_port_pair ();
    for (i = 0; i < 3; i++) {
      gchar *a = g_strdup_printf ("127.0.0.%d", 1 + i);
      GInetAddress *lo = g_inet_address_new_from_string (a);
      GSocketAddress *sa = g_inet_socket_address_new (lo, f->port + 2 * i);
      g_free (a);
      f->sock[i] = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, 0, NULL);
      ok = ok && g_socket_bind (f->sock[i], sa, FALSE, NULL);
      g_socket_set_timeout (f->sock[i], 5);
      g_object_unref (sa);
      g_object_unref (lo);
    }
    if (ok)
      return;
    for (i = 0; i < 3; i++)
      g_clear_object (&f->sock[i]);
  }
  fail ("no free ports");
}

static void
fixture_start (Fixture * f, const gchar * caps, const gchar * extra)
{
  gchar *desc;

  bind_layers (f);
  desc = g_strdup_printf ("avmrclayers address=127.0.0.1 port=%d layers=3 %s", f->port,
      extra ? extra : "");
  f->el = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (f->el != NULL);
  f->h = gst_harness_new_with_element (f->el, "sink", NULL);
  gst_harness_set_src_caps_str (f->h, caps);
}

static void
fixture_stop (Fixture * f)
{
  gint i;

  gst_harness_teardown (f->h);
  gst_object_unref (f->el);
  for (i = 0; i < 3; i++)
    g_clear_object (&f->sock[i]);
}

/* One packet from layer i's socket (fails after 5 s). */
static GstBuffer *
recv_layer (Fixture * f, gint i)
{
  guint8 data[2048];
  GError *err = NULL;
  gssize n = g_socket_receive (f->sock[i], (gchar *) data, sizeof data, NULL, &err);

  fail_unless (n > 0, "layer %d: nothing received (%s)", i, err ? err->message : "");
  return gst_buffer_new_memdup (data, (gsize) n);
}

static GstStructure *
get_stats (GstElement * el)
{
  GstStructure *s = NULL;
  g_object_get (el, "stats", &s, NULL);
  fail_unless (s != NULL);
  return s;
}

static guint64
stat_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = G_MAXUINT64;
  fail_unless (gst_structure_get_uint64 (s, name, &v), "no %s", name);
  return v;
}

/* Every packet arrives on its TID's port, under the layer's SSRC, with the layer's consecutive
 * sequence numbers and a stamp naming the layer. */
GST_START_TEST (test_routing)
{
  Fixture f = { 0 };
  GPtrArray *in = amt_vp8_rtp (3, 24);
  guint want[3] = { 0 }, i, k;
  guint32 ssrc[3];
  GstStructure *st;

  fixture_start (&f, AMT_VP8_CAPS, "pacing=false");
  for (i = 0; i < in->len; i++) {
    GstBuffer *b = g_ptr_array_index (in, i);
    want[amt_vp8_packet_tid (b)]++;
    fail_unless_equals_int (gst_harness_push (f.h, gst_buffer_ref (b)), GST_FLOW_OK);
  }
  fail_unless (want[0] > 0 && want[1] > 0 && want[2] > 0);
  for (k = 0; k < 3; k++) {
    guint16 prev = 0;
    gint64 prev_time = 0;
    for (i = 0; i < want[k]; i++) {
      GstBuffer *b = recv_layer (&f, k);
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      amcc_avmrc_stamp s;
      fail_unless_equals_int (amt_vp8_packet_tid (b), k);
      fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
      fail_unless_equals_int (gst_am_avmrc_stamp_read (&rtp, &s), 1);
      fail_unless_equals_int (s.layer, k);
      fail_unless (s.send_time >= prev_time);
      prev_time = s.send_time;
      if (i == 0)
        ssrc[k] = gst_rtp_buffer_get_ssrc (&rtp);
      else {
        fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), ssrc[k]);
        fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), (guint16) (prev + 1));
      }
      prev = gst_rtp_buffer_get_seq (&rtp);
      gst_rtp_buffer_unmap (&rtp);
      gst_buffer_unref (b);
    }
  }
  fail_if (ssrc[0] == ssrc[1] || ssrc[1] == ssrc[2] || ssrc[0] == ssrc[2]);
  st = get_stats (f.el);
  for (k = 0; k < 3; k++) {
    gchar *name = g_strdup_printf ("packets-%u", k);
    fail_unless_equals_int (stat_u64 (st, name), want[k]);
    g_free (name);
  }
  gst_structure_free (st);
  fixture_stop (&f);
  g_ptr_array_unref (in);
}
GST_END_TEST;

/* Slots on the sender's clock (a GstTestClock as the system clock): slot = (t - start) / tau,
 * flagged every n-add-th slot, the send time the clock's. */
GST_START_TEST (test_slots)
{
  Fixture f = { 0 };
  GstTestClock *clock = GST_TEST_CLOCK (gst_test_clock_new_with_start_time (GST_SECOND));
  GPtrArray *in = amt_vp8_rtp (1, 12);
  guint i;

  gst_system_clock_set_default (GST_CLOCK (clock));
  fixture_start (&f, AMT_VP8_CAPS, "pacing=false slot-duration=100 n-add=4");
  /* slot 0 started at PAUSED, at 1 s; packet i is sent 150 ms x i later */
  for (i = 0; i < 8; i++) {
    GstBuffer *b;
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    amcc_avmrc_stamp s;
    guint slot = 150 * i / 100;
    gst_harness_push (f.h, gst_buffer_ref (g_ptr_array_index (in, i)));
    b = recv_layer (&f, 0);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_unless_equals_int (gst_am_avmrc_stamp_read (&rtp, &s), 1);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless_equals_int (s.slot, slot);
    fail_unless_equals_int (s.flagged, slot % 4 == 0);
    fail_unless_equals_int64 (s.send_time, GST_SECOND + 150 * GST_MSECOND * i);
    gst_buffer_unref (b);
    gst_test_clock_advance_time (clock, 150 * GST_MSECOND);
  }
  fixture_stop (&f);
  gst_system_clock_set_default (NULL);
  gst_object_unref (clock);
  g_ptr_array_unref (in);
}
GST_END_TEST;

static GstBuffer *
rtp_with_payload (const guint8 * payload, gsize len)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate ((guint) len, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  if (len)
    memcpy (gst_rtp_buffer_get_payload (&rtp), payload, len);
  gst_rtp_buffer_unmap (&rtp);
  return b;
}

/* Non-RTP, truncated descriptors, a TID past the layers, a non-VP8 stream: counted, none sent. */
GST_START_TEST (test_bad_input)
{
  static const guint8 junk[] = { 0x01, 0x02, 0x03 };
  static const guint8 cut[] = { 0x90, 0xe0, 0x9f };
  static const guint8 tid3[] = { 0x90, 0xa0, 0x15, 0xc0, 0x9d };
  static const guint8 ok[] = { 0x90, 0xa0, 0x15, 0x00, 0x9d };
  Fixture f = { 0 };
  GstStructure *st;
  GstBuffer *b;

  fixture_start (&f, AMT_VP8_CAPS, "pacing=false");
  gst_harness_push (f.h, gst_buffer_new_memdup (junk, sizeof junk));
  gst_harness_push (f.h, rtp_with_payload (cut, sizeof cut));
  gst_harness_push (f.h, rtp_with_payload (NULL, 0));
  gst_harness_push (f.h, rtp_with_payload (tid3, sizeof tid3));
  gst_harness_push (f.h, rtp_with_payload (ok, sizeof ok));    /* this one goes out */
  b = recv_layer (&f, 0);
  fail_unless_equals_int (amt_vp8_packet_tid (b), 0);
  gst_buffer_unref (b);
  /* a non-VP8 stream: dropped */
  gst_harness_set_src_caps_str (f.h,
      "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96");
  gst_harness_push (f.h, rtp_with_payload (ok, sizeof ok));
  st = get_stats (f.el);
  fail_unless_equals_int (stat_u64 (st, "not-rtp"), 1);
  fail_unless_equals_int (stat_u64 (st, "truncated"), 2);
  fail_unless_equals_int (stat_u64 (st, "tid-over"), 1);
  fail_unless_equals_int (stat_u64 (st, "not-vp8"), 1);
  fail_unless_equals_int (stat_u64 (st, "packets-0"), 1);
  fail_unless_equals_int (stat_u64 (st, "packets-1") + stat_u64 (st, "packets-2"), 0);
  gst_structure_free (st);
  fixture_stop (&f);
}
GST_END_TEST;

/* avmrcsynth: channel i carries B_(i+1) - B_i, as whole packets per period with the remainder
 * carried. channels=3 b1=80000 factor=1.5: 80, 40, 60 kbit/s = 1000, 500, 750 bytes per 100 ms;
 * 500-byte packets: burst 0 = 2, 1, 1 (250 carried), burst 1 = 2, 1, 2. */
GST_START_TEST (test_synth)
{
  GstElement *el = gst_element_factory_make ("avmrcsynth", NULL);
  GstHarness *h;
  static const guint want0[] = { 0, 0, 1, 2 }, want1[] = { 0, 0, 1, 2, 2 };
  guint i;
  guint16 seq = 0;

  fail_unless (el != NULL);
  {
    /* the channel is the 2-bit TID: a fifth channel cannot be asked for (it would be sent as 0) */
    GParamSpecUInt *ch = G_PARAM_SPEC_UINT (g_object_class_find_property (G_OBJECT_GET_CLASS (el),
            "channels"));
    guint n;
    g_object_get (el, "channels", &n, NULL);
    fail_unless_equals_int (ch->maximum, 4);
    fail_unless_equals_int (n, 4);
  }
  g_object_set (el, "channels", 3, "b1", 80000, "factor", 1.5, "period", 100, "packet-size",
      500, NULL);
  h = gst_harness_new_with_element (el, NULL, "src");
  gst_harness_play (h);
  for (i = 0; i < G_N_ELEMENTS (want0) + G_N_ELEMENTS (want1); i++) {
    gboolean in_b1 = i >= G_N_ELEMENTS (want0);
    GstBuffer *b;
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    if (i == 0 || i == G_N_ELEMENTS (want0))    /* the harness's test clock to the burst */
      fail_unless (gst_harness_crank_single_clock_wait (h));
    b = gst_harness_pull (h);
    fail_unless (b != NULL);
    fail_unless_equals_int (gst_buffer_get_size (b), 500);
    fail_unless_equals_int (amt_vp8_packet_tid (b),
        in_b1 ? want1[i - G_N_ELEMENTS (want0)] : want0[i]);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), in_b1 ? 100 * GST_MSECOND : 0);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_unless (gst_rtp_buffer_get_marker (&rtp));
    if (i > 0)
      fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), (guint16) (seq + 1));
    seq = gst_rtp_buffer_get_seq (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  gst_object_unref (el);
}
GST_END_TEST;

static Suite *
avmrclayers_suite (void)
{
  Suite *s = suite_create ("avmrclayers");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_vp8_tid);
  tcase_add_test (tc, test_layer_address);
  tcase_add_test (tc, test_routing);
  tcase_add_test (tc, test_slots);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_synth);
  return s;
}

GST_CHECK_MAIN (avmrclayers);

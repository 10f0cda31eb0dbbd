/* test-avmrcsrc.c - avmrcsrc's merge of the layers (gstamlayers.h): timestamp order, one SSRC,
 * continuous sequence numbers, the latency, incomplete and late frames dropped; vp8dec decodes
 * the merged stream of 1, 2 and 3 layers frame for frame as the full stream's decode; the element
 * outputs layer 0 rewritten, hands lib/cc every stamped packet and counts bad input. The layer
 * decisions themselves are lib/cc's (tests/cc/test_avmrc*.c) and are seen live
 * (tests/net/test_avmrc_elements.py). Network: 127.0.0.1 only. */
#include "amvp8test.h"
#include <glib/gstdio.h>
#include "common/gstamnet.h"

#define OUT_SSRC 0x5eed0001u

/* A VP8 RTP packet of one layer: its own SSRC (0x100 + layer), frame start / marker as given. */
static GstBuffer *
vp8_packet (guint layer, guint16 seq, guint32 ts, gboolean start, gboolean marker)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (8, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 *p;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, 0x100 + layer);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_marker (&rtp, marker);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  p = gst_rtp_buffer_get_payload (&rtp);
  memset (p, 0, 8);
  p[0] = 0x80 | (start ? 0x10 : 0);     /* X, S, partition 0 */
  p[1] = 0x20;                          /* T */
  p[2] = (guint8) (layer << 6);         /* TID */
  gst_rtp_buffer_unmap (&rtp);
  return b;
}

static void
check_out (GQueue * out, const guint32 * want_ts, guint n)
{
  guint i;
  guint16 seq0 = 0;

  fail_unless_equals_int (g_queue_get_length (out), n);
  for (i = 0; i < n; i++) {
    GstBuffer *b = g_queue_pop_head (out);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), OUT_SSRC);
    fail_unless_equals_int (gst_rtp_buffer_get_timestamp (&rtp), want_ts[i]);
    if (i == 0)
      seq0 = gst_rtp_buffer_get_seq (&rtp);
    else
      fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), (guint16) (seq0 + i));
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
}

/* Layers arriving out of step come out in timestamp order, seq continuous, one SSRC. The
 * timestamps wrap (0xFFFFFF00 .. 0x100) to check the ordering is modulo 2^32. */
GST_START_TEST (test_merge_order)
{
  GstAmMerge *m = gst_am_merge_new (OUT_SSRC, 50 * GST_MSECOND);
  GQueue out = G_QUEUE_INIT;
  const guint32 t0 = 0xFFFFFF00u;
  /* frames: t0 (L0, 2 packets), t0+3000 (L2), t0+6000 (L1, 2 packets), t0+9000 (L2) */
  const guint32 want[] = { t0, t0, t0 + 3000, t0 + 6000, t0 + 6000, t0 + 9000 };

  /* layer 2 ahead of the others, layer 1 last, each layer in its own order */
  gst_am_merge_push (m, vp8_packet (2, 500, t0 + 3000, TRUE, TRUE), 2, 0);
  gst_am_merge_push (m, vp8_packet (2, 501, t0 + 9000, TRUE, TRUE), 2, 1);
  gst_am_merge_push (m, vp8_packet (0, 70, t0, TRUE, FALSE), 0, 2);
  gst_am_merge_push (m, vp8_packet (0, 71, t0, FALSE, TRUE), 0, 3);
  gst_am_merge_push (m, vp8_packet (1, 9, t0 + 6000, TRUE, FALSE), 1, 4);
  gst_am_merge_push (m, vp8_packet (1, 10, t0 + 6000, FALSE, TRUE), 1, 5);
  /* nothing is due before its frame waited the latency */
  gst_am_merge_pop (m, 49 * GST_MSECOND, FALSE, &out);
  fail_unless_equals_int (g_queue_get_length (&out), 0);
  /* at 53 ms: frames whose last packet came at <= 3 ms, from the queue's head (t0, t0+3000) */
  gst_am_merge_pop (m, 50 * GST_MSECOND + 2, FALSE, &out);
  fail_unless_equals_int (g_queue_get_length (&out), 0);    /* t0's last packet came at 3 */
  gst_am_merge_pop (m, 50 * GST_MSECOND + 3, FALSE, &out);
  fail_unless_equals_int (g_queue_get_length (&out), 3);
  gst_am_merge_pop (m, GST_SECOND, FALSE, &out);
  check_out (&out, want, G_N_ELEMENTS (want));
  fail_unless_equals_int (gst_am_merge_stats (m)->frames_out, 4);
  fail_unless_equals_int (gst_am_merge_stats (m)->frames_incomplete, 0);
  gst_am_merge_free (m);
}
GST_END_TEST;

/* A frame with a gap or without its start or marker is dropped whole; a packet of a frame
 * older than one already out is dropped as late; the output stays continuous. */
GST_START_TEST (test_merge_incomplete_late)
{
  GstAmMerge *m = gst_am_merge_new (OUT_SSRC, 0);
  GQueue out = G_QUEUE_INIT;
  const guint32 want[] = { 1000, 4000, 4000 };

  gst_am_merge_push (m, vp8_packet (0, 1, 1000, TRUE, TRUE), 0, 0);
  gst_am_merge_push (m, vp8_packet (1, 1, 2000, TRUE, FALSE), 1, 0);    /* 2 lost: gap */
  gst_am_merge_push (m, vp8_packet (1, 3, 2000, FALSE, TRUE), 1, 0);
  gst_am_merge_push (m, vp8_packet (0, 2, 3000, FALSE, TRUE), 0, 0);    /* no start */
  gst_am_merge_push (m, vp8_packet (0, 3, 4000, TRUE, FALSE), 0, 0);
  gst_am_merge_push (m, vp8_packet (0, 4, 4000, FALSE, TRUE), 0, 0);
  gst_am_merge_push (m, vp8_packet (1, 4, 5000, TRUE, FALSE), 1, 0);    /* no marker */
  gst_am_merge_pop (m, 0, TRUE, &out);
  gst_am_merge_push (m, vp8_packet (0, 0, 500, TRUE, TRUE), 0, 0);      /* late */
  gst_am_merge_push (m, gst_buffer_new_allocate (NULL, 3, NULL), 0, 0); /* not RTP */
  gst_am_merge_pop (m, 0, TRUE, &out);
  check_out (&out, want, G_N_ELEMENTS (want));
  fail_unless_equals_int (gst_am_merge_stats (m)->frames_out, 2);
  fail_unless_equals_int (gst_am_merge_stats (m)->frames_incomplete, 3);
  fail_unless_equals_int (gst_am_merge_stats (m)->late, 1);
  fail_unless_equals_int (gst_am_merge_stats (m)->bad, 1);
  gst_am_merge_free (m);
}
GST_END_TEST;

/* ---------------------------------------------------------------- decoding */

/* Decodes RTP VP8 packets; returns the frames as their bytes keyed by RTP timestamp. */
static GHashTable *
decode (GQueue * packets, guint * frames)
{
  GstHarness *h = gst_harness_new_parse ("rtpvp8depay ! vp8dec");
  GHashTable *t = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_bytes_unref);
  GstBuffer *b;

  gst_harness_set_src_caps_str (h, AMT_VP8_CAPS);
  while ((b = g_queue_pop_head (packets))) {
    guint32 ts = amt_rtp_ts (b);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (ts, GST_SECOND, 90000);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  *frames = 0;
  while ((b = gst_harness_try_pull (h))) {
    GstMapInfo map;
    guint32 ts = (guint32) gst_util_uint64_scale (GST_BUFFER_PTS (b), 90000, GST_SECOND);
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    g_hash_table_insert (t, GUINT_TO_POINTER (ts), g_bytes_new (map.data, map.size));
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
    (*frames)++;
  }
  gst_harness_teardown (h);
  return t;
}

/* The stream of k of 3 layers, through the merge with the layers arriving out of step (each
 * layer's packets delayed by 20 ms x its number), decodes into exactly the frames of those
 * layers, each identical to the same frame decoded from the whole stream. */
GST_START_TEST (test_decode_levels)
{
  const guint frames = 40;
  GPtrArray *in = amt_vp8_rtp (3, frames);
  GQueue all = G_QUEUE_INIT;
  GHashTable *full;
  guint n_full, k, i;

  for (i = 0; i < in->len; i++)
    g_queue_push_tail (&all, gst_buffer_ref (g_ptr_array_index (in, i)));
  full = decode (&all, &n_full);
  fail_unless_equals_int (n_full, frames);
  for (k = 1; k <= 3; k++) {
    GstAmMerge *m = gst_am_merge_new (OUT_SSRC, 100 * GST_MSECOND);
    GQueue out = G_QUEUE_INIT;
    GHashTable *part;
    GHashTableIter it;
    gpointer key, val;
    guint n_part, want = 0;
    /* arrival of packet i of layer L: 33 ms per frame + 20 ms x L; pushed in arrival order */
    GArray *order = g_array_new (FALSE, FALSE, sizeof (gint64));
    guint32 ts0 = amt_rtp_ts (g_ptr_array_index (in, 0)), last_ts = ts0 - 1;

    for (i = 0; i < in->len; i++) {
      GstBuffer *b = g_ptr_array_index (in, i);
      guint tid = amt_vp8_packet_tid (b);
      gint64 at = (gint64) gst_util_uint64_scale (amt_rtp_ts (b) - ts0, GST_SECOND, 90000)
          + 20 * GST_MSECOND * tid;
      if (tid >= k)
        continue;
      if (amt_rtp_ts (b) != last_ts)
        want++;
      last_ts = amt_rtp_ts (b);
      g_array_append_val (order, at);
      g_array_append_val (order, i);
    }
    /* a stable sort on arrival time (pairs: time, index) */
    for (i = 2; i < order->len; i += 2) {
      guint j = i;
      while (j >= 2 && g_array_index (order, gint64, j - 2) > g_array_index (order, gint64, j)) {
        gint64 t0v = g_array_index (order, gint64, j), t1v = g_array_index (order, gint64, j + 1);
        g_array_index (order, gint64, j) = g_array_index (order, gint64, j - 2);
        g_array_index (order, gint64, j + 1) = g_array_index (order, gint64, j - 1);
        g_array_index (order, gint64, j - 2) = t0v;
        g_array_index (order, gint64, j - 1) = t1v;
        j -= 2;
      }
    }
    for (i = 0; i < order->len; i += 2) {
      gint64 at = g_array_index (order, gint64, i);
      GstBuffer *b = g_ptr_array_index (in, (guint) g_array_index (order, gint64, i + 1));
      guint tid = amt_vp8_packet_tid (b);
      gst_am_merge_push (m, gst_buffer_copy (b), tid, at);
      gst_am_merge_pop (m, at, FALSE, &out);
    }
    gst_am_merge_pop (m, 0, TRUE, &out);
    fail_unless_equals_int (gst_am_merge_stats (m)->late, 0);
    fail_unless_equals_int (gst_am_merge_stats (m)->frames_incomplete, 0);
    fail_unless_equals_int (gst_am_merge_stats (m)->frames_out, want);
    part = decode (&out, &n_part);
    /* pattern 0 2 1 2: 1 layer = every 4th frame, 2 = every 2nd, 3 = all */
    fail_unless_equals_int (want, k == 1 ? frames / 4 : k == 2 ? frames / 2 : frames);
    fail_unless_equals_int (n_part, want);
    g_hash_table_iter_init (&it, part);
    while (g_hash_table_iter_next (&it, &key, &val)) {
      GBytes *f = g_hash_table_lookup (full, key);
      fail_unless (f != NULL);
      fail_unless (g_bytes_equal (f, val), "%u layers: frame at %u differs", k,
          GPOINTER_TO_UINT (key));
    }
    g_hash_table_unref (part);
    g_array_free (order, TRUE);
    gst_am_merge_free (m);
  }
  g_hash_table_unref (full);
  g_ptr_array_unref (in);
}
GST_END_TEST;

/* ---------------------------------------------------------------- the element */

static void
stamp (GstBuffer ** b, guint layer, gint64 send_time)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  amcc_avmrc_stamp s = { .send_time = send_time, .slot = 1, .flagged = 0, .layer = layer };

  *b = gst_buffer_make_writable (*b);
  fail_unless (gst_rtp_buffer_map (*b, GST_MAP_READWRITE, &rtp));
  fail_unless (gst_am_avmrc_stamp_write (&rtp, &s));
  gst_rtp_buffer_unmap (&rtp);
}

static guint64
stat_u64 (GstElement * el, const gchar * name)
{
  GstStructure *s = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (el, "stats", &s, NULL);
  fail_unless (s && gst_structure_get_uint64 (s, name, &v), "no %s", name);
  gst_structure_free (s);
  return v;
}

/* Layer 0's stamped packets come out under the element's SSRC with continuous sequence numbers
 * in timestamp order; junk, an unstamped packet and a bad stamp are counted. */
GST_START_TEST (test_element_layer0)
{
  gint port = amt_free_port_pair ();
  gchar *dir = g_dir_make_tmp ("avmrcsrc-XXXXXX", NULL), *rd, *text = NULL, **lines;
  gchar *desc = g_strdup_printf ("avmrcsrc address=127.0.0.1 port=%d layers=3 latency=20 "
      "rates=150,300,600 trace-dir=%s", port, dir);
  GstElement *el = gst_parse_launch (desc, NULL);
  GstHarness *h;
  GPtrArray *in = amt_vp8_rtp (3, 16);
  guint i, sent = 0, got = 0;
  guint16 prev = 0;
  guint32 prev_ts = 0;
  guint subscribed = 0;
  static const guint8 junk[] = { 1, 2, 3 };

  g_free (desc);
  fail_unless (el != NULL);
  h = gst_harness_new_with_element (el, NULL, "src");
  gst_harness_play (h);
  g_object_get (el, "subscribed", &subscribed, NULL);
  fail_unless_equals_int (subscribed, 1);
  {
    GstBuffer *j = gst_buffer_new_memdup (junk, sizeof junk);
    amt_udp_send (j, port);
    gst_buffer_unref (j);
  }
  for (i = 0; i < in->len; i++) {
    GstBuffer *b = gst_buffer_ref (g_ptr_array_index (in, i));
    if (amt_vp8_packet_tid (b) != 0) {
      gst_buffer_unref (b);
      continue;
    }
    if (i != 1)                 /* packet 1 goes without a stamp */
      stamp (&b, 0, gst_am_now ());
    amt_udp_send (b, port);
    gst_buffer_unref (b);
    sent++;
    if (i + 1 < in->len && amt_rtp_ts (g_ptr_array_index (in, i + 1))
        != amt_rtp_ts (g_ptr_array_index (in, i)))
      g_usleep (30000);         /* a frame past the latency: the next arrival lets it out */
  }
  /* a bad stamp (version 2) */
  {
    GstBuffer *b = gst_buffer_copy (g_ptr_array_index (in, 0));
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint8 bad[AMCC_AVMRC_STAMP_LEN] = { 2 };
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READWRITE, &rtp));
    gst_rtp_buffer_add_extension_onebyte_header (&rtp, GST_AM_EXT_ID_AVMRC, bad, sizeof bad);
    gst_rtp_buffer_unmap (&rtp);
    amt_udp_send (b, port);
    gst_buffer_unref (b);
  }
  /* every packet sent is out (the last frame by the late bad-stamp packet's arrival) */
  for (i = 0; got < sent && i < 1000; ) {
    GstBuffer *b = gst_harness_try_pull (h);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    if (!b) {
      g_usleep (10000);
      i++;
      continue;
    }
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_if (gst_rtp_buffer_get_ssrc (&rtp) == 0x100);
    fail_unless_equals_int (amt_vp8_packet_tid (b), 0);
    if (got > 0) {
      fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), (guint16) (prev + 1));
      fail_unless ((gint32) (gst_rtp_buffer_get_timestamp (&rtp) - prev_ts) >= 0);
    }
    prev = gst_rtp_buffer_get_seq (&rtp);
    prev_ts = gst_rtp_buffer_get_timestamp (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
    got++;
  }
  fail_unless_equals_int (got, sent);
  fail_unless_equals_int (stat_u64 (el, "not-rtp"), 1);
  fail_unless_equals_int (stat_u64 (el, "stamps-missing-0"), 1);
  fail_unless_equals_int (stat_u64 (el, "stamps-bad-0"), 1);
  fail_unless_equals_int (stat_u64 (el, "packets-0"), sent + 1);
  gst_harness_teardown (h);
  gst_object_unref (el);
  /* rd.txt: one line per packet taken (junk excluded), with its layer */
  rd = g_build_filename (dir, "rd.txt", NULL);
  fail_unless (g_file_get_contents (rd, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), sent + 1 + 1);   /* + bad stamp, + "" */
  fail_unless (g_str_has_suffix (lines[0], " layer 0") && strstr (lines[0], " udp "));
  g_strfreev (lines);
  g_free (text);
  g_unlink (rd);
  g_rmdir (dir);
  g_free (rd);
  g_free (dir);
  g_ptr_array_unref (in);
}
GST_END_TEST;

GST_START_TEST (test_bad_rates)
{
  const gchar *bad[] = { "100,50,200", "100,200", "100,x,300", "0,1,2" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstElement *el = gst_element_factory_make ("avmrcsrc", NULL);
    g_object_set (el, "address", "127.0.0.1", "port", amt_free_port_pair (), "rates", bad[i],
        NULL);
    fail_unless_equals_int (gst_element_set_state (el, GST_STATE_READY),
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (el, GST_STATE_NULL);
    gst_object_unref (el);
  }
}
GST_END_TEST;

static Suite *
avmrcsrc_suite (void)
{
  Suite *s = suite_create ("avmrcsrc");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_merge_order);
  tcase_add_test (tc, test_merge_incomplete_late);
  tcase_add_test (tc, test_decode_levels);
  tcase_add_test (tc, test_element_layer0);
  tcase_add_test (tc, test_bad_rates);
  return s;
}

GST_CHECK_MAIN (avmrcsrc);

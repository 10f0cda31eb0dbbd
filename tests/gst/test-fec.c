/* test-fec.c - asmpsink fec=auto with GstHarness and a GstTestClock: no FEC packet while the
 * receivers report no loss; after a report of 3 % loss at 200 packet/s the encoder's share of
 * the target (the asmpsink-bitrate message, no encoder here) drops to 2/3 of it, and from the
 * second key frame on the matrix lib/cc chooses (4 x 4, a third of the packets:
 * tests/cc/test_fec.c) leaves, row FEC on port + 4 and column FEC on port + 2; when the loss is
 * gone it stops at the next key frame. asmpsrc fec=true rebuilds a packet dropped on the way
 * (lib/cc counts it lost: the loss before recovery), with srtp-key too (the rebuilt packet
 * authenticates); forged, replayed, altered or untagged parity and forged media are dropped
 * and counted, lib/cc's view unchanged. Network: 127.0.0.1 only. */
#include "amgsttest.h"
#include <glib/gstdio.h>
#include <amcc/asmp.h>
#include "common/gstamcc.h"
#include "common/gstamauth.h"
#include "common/gstamfec.h"

#define SENDER_SSRC 0x11223344u
#define RX_SSRC 0x55667788u

typedef struct {
  GstTestClock *clock;
  GstElement *sink;
  GstHarness *h;
  GstBus *bus;
  GAsyncQueue *rtcp_out, *rtcp_in;
  gint port;
  guint16 seq;
  gint rtp_out, fec_row, fec_col;
  guint32 last_lsr;
  gchar *dir;                   /* trace-dir */
} Fixture;

static void
fixture_init (Fixture * f)
{
  memset (f, 0, sizeof (*f));
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->port = amt_free_port_pair ();
  fail_unless (f->port > 0);
  f->sink = gst_element_factory_make ("asmpsink", NULL);
  fail_unless (f->sink != NULL, "asmpsink not found (GST_PLUGIN_PATH?)");
  gst_object_ref_sink (f->sink);
  g_object_set (f->sink, "address", "127.0.0.1", "port", f->port, "rtcp-interval", 100,
      "receiver-timeout", 60000, "initial-bitrate", 500000, "min-bitrate", 50000,
      "max-bitrate", 4000000, "pacing", FALSE, "fec-address", "127.0.0.1", NULL);
  f->dir = g_dir_make_tmp ("amfec-XXXXXX", NULL);
  fail_unless (f->dir != NULL);
  g_object_set (f->sink, "trace-dir", f->dir, NULL);
  gst_util_set_object_arg (G_OBJECT (f->sink), "fec", "auto");
  f->bus = gst_bus_new ();
  gst_element_set_bus (f->sink, f->bus);
  f->rtcp_out = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  f->rtcp_in = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  amt_probe_child_pad (f->sink, "rtpbin", "send_rtcp_src_0", f->rtcp_out);
  amt_count_child_pad (f->sink, "rtp_sink", "sink", &f->rtp_out);
  amt_probe_child_pad (f->sink, "rtcp_in_plain", "src", f->rtcp_in);
  f->h = gst_harness_new_with_element (f->sink, "sink", NULL);
  gst_harness_set_src_caps_str (f->h, "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,ssrc=(uint)287454020");
  gst_harness_play (f->h);
  /* the FEC udpsinks exist from NULL->READY on */
  amt_count_child_pad (f->sink, "fec_row_sink", "sink", &f->fec_row);
  amt_count_child_pad (f->sink, "fec_col_sink", "sink", &f->fec_col);
}

static void
fixture_clear (Fixture * f)
{
  AmtBusCounts c = { 0 };

  amt_drain_bus (f->bus, "asmpsink-stats", &c);
  fail_unless_equals_int (c.errors, 0);
  gst_bus_set_flushing (f->bus, TRUE);
  gst_harness_teardown (f->h);
  gst_object_unref (f->sink);
  gst_object_unref (f->bus);
  g_async_queue_unref (f->rtcp_out);
  g_async_queue_unref (f->rtcp_in);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
  for (const gchar * const *n = (const gchar *[]) { "sd.txt", "rate.csv", "fec.csv", NULL };
      *n; n++) {
    gchar *path = g_build_filename (f->dir, *n, NULL);
    g_remove (path);
    g_free (path);
  }
  g_rmdir (f->dir);
  g_free (f->dir);
}

/* n 400-byte RTP packets (H.264 single NALs, the first an IDR when key) */
static void
push_rtp (Fixture * f, guint n, gboolean key)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = gst_rtp_buffer_new_allocate (400, 0, 0);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint8 *p;

    gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_ssrc (&rtp, SENDER_SSRC);
    gst_rtp_buffer_set_seq (&rtp, f->seq);
    gst_rtp_buffer_set_timestamp (&rtp, f->seq * 3000);
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    p = gst_rtp_buffer_get_payload (&rtp);
    memset (p, 0x55, 400);
    p[0] = key && i == 0 ? 0x65 : 0x41;
    gst_rtp_buffer_unmap (&rtp);
    GST_BUFFER_PTS (b) = f->seq * GST_SECOND / 30;
    f->seq++;
    fail_unless_equals_int (gst_harness_push (f->h, b), GST_FLOW_OK);
  }
  fail_unless (amt_wait_count (&f->rtp_out, f->seq), "RTP did not leave");
}

/* 20 packets (200 packet/s at the 100 ms RTCP interval), then the next SR */
static void
next_sr (Fixture * f, gboolean key)
{
  GstBuffer *b;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  guint64 ntp = 0;

  push_rtp (f, 20, key);
  b = amt_crank_until (f->clock, f->rtcp_out, 20);
  fail_unless (b != NULL, "no RTCP from asmpsink");
  gst_rtcp_buffer_map (b, GST_MAP_READ, &rtcp);
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &p));
  if (gst_rtcp_packet_get_type (&p) == GST_RTCP_TYPE_SR) {
    gst_rtcp_packet_sr_get_sender_info (&p, NULL, &ntp, NULL, NULL, NULL);
    f->last_lsr = (guint32) (ntp >> 16);
  }
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (b);
}

/* An RR echoing the last SR + an ASMP report with this loss rate; waits until handled. */
static void
report (Fixture * f, gdouble loss)
{
  amcc_asmp_report rep = { 0 };
  guint8 app[64];
  gsize len;
  GstBuffer *b = gst_rtcp_buffer_new (1400), *seen;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;

  rep.rate_bps = 900000;
  rep.rtt_s = 0.05;
  rep.loss = loss;
  fail_unless_equals_int (amcc_asmp_report_encode (&rep, app, sizeof (app), &len), AMCC_OK);
  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt));
  gst_rtcp_packet_rr_set_ssrc (&pkt, RX_SSRC);
  gst_rtcp_packet_add_rb (&pkt, SENDER_SSRC, 0, 0, f->seq, 0, f->last_lsr, 0);
  gst_rtcp_buffer_unmap (&rtcp);
  fail_unless (gst_am_rtcp_append_app (b, AMCC_ASMP_SUBTYPE_REPORT, RX_SSRC,
          AMCC_ASMP_APP_NAME, app, len));
  amt_udp_send (b, f->port + 1);
  gst_buffer_unref (b);
  seen = amt_wait_buffer (f->rtcp_in);
  fail_unless (seen != NULL, "RTCP not received by asmpsink");
  gst_buffer_unref (seen);
}

static GstStructure *
stats (Fixture * f)
{
  GstStructure *s = NULL;
  g_object_get (f->sink, "stats", &s, NULL);
  fail_unless (s != NULL);
  return s;
}

/* the last asmpsink-bitrate message on the bus (what the encoder is to produce), 0 = none */
static guint
last_encoder_bitrate (Fixture * f)
{
  GstMessage *m;
  guint bps = 0;

  while ((m = gst_bus_pop_filtered (f->bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (s && gst_structure_has_name (s, "asmpsink-bitrate"))
      gst_structure_get_uint (s, "bitrate", &bps);
    gst_message_unref (m);
  }
  return bps;
}

GST_START_TEST (test_auto_fec_follows_reported_loss)
{
  Fixture f;
  GstStructure *st;
  guint i, target = 0, enc_bps, cols = 99, rows = 99, media = 0;
  gdouble overhead = -1, need = -1;

  fixture_init (&f);
  /* a receiver without loss: no FEC, the encoder gets the whole target */
  for (i = 0; i < 15; i++) {
    next_sr (&f, i % 5 == 0);
    report (&f, 0.0);
  }
  next_sr (&f, TRUE);
  push_rtp (&f, 40, TRUE);
  fail_unless_equals_int (f.fec_row + f.fec_col, 0);
  st = stats (&f);
  fail_unless (gst_structure_get_double (st, "fec-overhead", &overhead));
  fail_unless (gst_structure_get_uint (st, "media-bitrate", &media));
  fail_unless (gst_structure_get_uint (st, "target-bitrate", &target));
  gst_structure_free (st);
  fail_unless_equals_float (overhead, 0.0);
  fail_unless_equals_int (media, target);

  /* 3 % loss at 200 packet/s: 4 x 4 from the next key frame on, a third of the bytes */
  report (&f, 0.03);
  next_sr (&f, FALSE);
  report (&f, 0.03);
  enc_bps = last_encoder_bitrate (&f);
  g_object_get (f.sink, "target-bitrate", &target, NULL);
  fail_unless (enc_bps > 0, "no asmpsink-bitrate message");
  fail_unless (abs ((gint) enc_bps - (gint) (target * 2 / 3)) <= 1,
      "encoder %u, target %u", enc_bps, target);
  fail_unless_equals_int (f.fec_row + f.fec_col, 0);  /* no key frame yet */
  /* the first key frame gives the encoder its smaller share, parity starts at the second
   * (GST_AM_FEC_GROW_KEYS) */
  push_rtp (&f, 32, TRUE);
  fail_unless_equals_int (f.fec_row + f.fec_col, 0);
  push_rtp (&f, 32, TRUE);
  /* 32 media packets: 8 rows of 4 -> 8 row parity packets; 2 matrices of 4 x 4, whose 4
   * column parity packets leave spread over the next matrix (SMPTE 2022-1): the first 4 */
  fail_unless (amt_wait_count (&f.fec_row, 8), "row FEC: %d", f.fec_row);
  fail_unless (amt_wait_count (&f.fec_col, 4), "column FEC: %d", f.fec_col);
  fail_unless (f.fec_row <= 8 && f.fec_col <= 8, "%d, %d", f.fec_row, f.fec_col);
  next_sr (&f, FALSE);
  st = stats (&f);
  fail_unless (gst_structure_get_uint (st, "fec-columns", &cols));
  fail_unless (gst_structure_get_uint (st, "fec-rows", &rows));
  fail_unless (gst_structure_get_double (st, "fec-overhead", &overhead));
  fail_unless (gst_structure_get_double (st, "fec-need", &need));
  gst_structure_free (st);
  fail_unless_equals_int (cols, 4);
  fail_unless_equals_int (rows, 4);
  fail_unless (fabs (overhead - 1.0 / 3) < 1e-9);
  /* row FEC cannot bring 3 % to the target at 200 packet/s: the need is L = 1's, 0.5 */
  fail_unless_equals_float (need, 0.5);
  {
    gchar *path = g_build_filename (f.dir, "fec.csv", NULL), *text = NULL;
    fail_unless (g_file_get_contents (path, &text, NULL, NULL));
    fail_unless (g_str_has_prefix (text, "time_s,worst_loss,packet_rate,columns,rows,share,"
            "byte_share,need\n"), "%s", text);
    fail_unless (strstr (text, ",4,4,0.3333,") && strstr (text, ",0.5000\n"), "%s", text);
    g_free (text);
    g_free (path);
  }

  /* loss gone: FEC off again at the next key frame */
  for (i = 0; i < 40; i++) {
    report (&f, 0.0);
    next_sr (&f, FALSE);
  }
  push_rtp (&f, 1, TRUE);
  {
    gint row = f.fec_row, col = f.fec_col;
    push_rtp (&f, 32, FALSE);
    fail_unless_equals_int (f.fec_row, row);
    fail_unless_equals_int (f.fec_col, col);
  }
  fixture_clear (&f);
}
GST_END_TEST;

static GstPadProbeReturn
drop_tenth (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *n = data;
  return ++*n == 10 ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static guint64
src_stat (GstElement * src, const gchar * field)
{
  GstStructure *st = NULL;
  guint64 v = 0;

  g_object_get (src, "stats", &st, NULL);
  if (st) {
    gst_structure_get_uint64 (st, field, &v);
    gst_structure_free (st);
  }
  return v;
}

#define KEY "00112233445566778899aabbccddeeff00112233445566778899aabbccdd"
#define KEY2 "ffeeddccbbaa99887766554433221100ffeeddccbbaa9988776655443322"

/* asmpsink fec=fixed 4 x 0 into asmpsrc fec=true on loopback (real clock), both with srtp-key
 * `key` (NULL: none): the 10th media packet is dropped before its socket; the row parity packets
 * leaving are kept in `parity` */
typedef struct {
  gint port, dropped, plain;
  GstElement *sink, *pipe, *src;
  GstHarness *h;
  GAsyncQueue *parity;
} Pair;

static void
pair_start (Pair * p, const gchar * key, guint columns, gboolean drop)
{
  GstElement *e;
  GstPad *pad;

  memset (p, 0, sizeof *p);
  p->port = amt_free_port_pair ();
  fail_unless (p->port > 0);
  p->pipe = gst_parse_launch ("asmpsrc name=src fec=true fec-address=127.0.0.1 "
      "rtcp-interval=100 address=127.0.0.1 ! fakesink async=false", NULL);
  fail_unless (p->pipe != NULL);
  p->src = gst_bin_get_by_name (GST_BIN (p->pipe), "src");
  g_object_set (p->src, "port", p->port, "srtp-key", key, NULL);
  fail_unless (gst_element_set_state (p->pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  amt_count_child_pad (p->src, "rtp_in_plain", "src", &p->plain);

  p->sink = gst_element_factory_make ("asmpsink", NULL);
  g_object_set (p->sink, "address", "127.0.0.1", "port", p->port, "rtcp-interval", 100,
      "pacing", FALSE, "fec-address", "127.0.0.1", "fec-columns", columns, "fec-rows", 0,
      "srtp-key", key, NULL);
  gst_util_set_object_arg (G_OBJECT (p->sink), "fec", "fixed");
  p->h = gst_harness_new_with_element (p->sink, "sink", NULL);
  gst_harness_set_src_caps_str (p->h, "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,ssrc=(uint)287454020");
  gst_harness_play (p->h);
  e = gst_bin_get_by_name (GST_BIN (p->sink), "rtp_sink");
  pad = gst_element_get_static_pad (e, "sink");
  if (drop)
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, drop_tenth, &p->dropped, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
  p->parity = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  amt_probe_child_pad (p->sink, "fec_row_sink", "sink", p->parity);
}

/* n media packets, seq 1000.., gap_us apart; waits up to 3 s for the n / columns row parity
 * packets to arrive (stats are refreshed at every RTCP packet, 100 ms) */
static void
pair_send (Pair * p, guint n, guint columns, gulong gap_us)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = gst_rtp_buffer_new_allocate (300, 0, 0);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_ssrc (&rtp, SENDER_SSRC);
    gst_rtp_buffer_set_seq (&rtp, 1000 + i);
    gst_rtp_buffer_set_timestamp (&rtp, i * 3000);
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    memset (gst_rtp_buffer_get_payload (&rtp), 0x41, 300);
    gst_rtp_buffer_unmap (&rtp);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (p->h, b), GST_FLOW_OK);
    g_usleep (gap_us);
  }
  for (i = 0; i < 60 && src_stat (p->src, "fec-packets-received") < n / columns; i++)
    g_usleep (50000);
}

/* lib/cc's packets-received once two more stats (asmpsrc's regular RTCP) have come after
 * the last packet went in (they lag: up to 6 s) */
static guint64
received (Pair * p)
{
  gdouble t0 = 0, t = 0;
  GstStructure *st = NULL;
  gint i, fresh = 0;

  for (i = 0; i < 120 && fresh < 2; i++) {
    g_object_get (p->src, "stats", &st, NULL);
    if (st && gst_structure_get_double (st, "time", &t) && t != t0) {
      fresh += t0 != 0;
      t0 = t;
    }
    if (st)
      gst_structure_free (st);
    st = NULL;
    g_usleep (50000);
  }
  return src_stat (p->src, "packets-received");
}

static void
pair_stop (Pair * p)
{
  gst_harness_teardown (p->h);
  gst_element_set_state (p->pipe, GST_STATE_NULL);
  gst_object_unref (p->src);
  gst_object_unref (p->pipe);
  g_async_queue_unref (p->parity);
}

/* The receiver rebuilds the dropped packet from its row's parity and counts it; lib/cc
 * measures the loss before recovery: 39 packets, 1 lost. With srtp-key the rebuilt packet
 * passes authentication (it is the original byte for byte, its header extensions included):
 * 40 packets past srtpdec, none rejected. */
static void
recovers (const gchar * key)
{
  Pair p;

  pair_start (&p, key, 4, TRUE);
  pair_send (&p, 40, 4, 5000);
  fail_unless (p.dropped >= 10);
  fail_unless_equals_int (src_stat (p.src, "fec-packets-received"), 10);
  fail_unless_equals_int (src_stat (p.src, "fec-recovered"), 1);
  fail_unless_equals_int (src_stat (p.src, "srtp-rtp-rejected"), 0);
  fail_unless_equals_int (src_stat (p.src, "srtp-fec-rejected"), 0);
  fail_unless (amt_wait_count (&p.plain, 40), "%d packets past authentication", p.plain);
  fail_unless_equals_int (received (&p), 39);
  pair_stop (&p);
}

GST_START_TEST (test_receiver_recovers)
{
  recovers (NULL);
}
GST_END_TEST;

GST_START_TEST (test_receiver_recovers_srtp)
{
  recovers (KEY);
}
GST_END_TEST;

/* srtp-key on both: a captured row parity packet replayed, with one byte flipped, without its
 * trailer and tagged under another key is dropped before the decoder and counted
 * (srtp-fec-rejected); a forged media packet (unauthenticated, in the sender's SSRC, 5 ahead)
 * is dropped by srtpdec; lib/cc's view stays 39 packets received. */
GST_START_TEST (test_forged_fec_dropped)
{
  Pair p;
  GstBuffer *cap, *b;
  GstMapInfo m;
  GBytes *k2 = NULL;
  GstAmAuth *foreign;
  gint i;

  pair_start (&p, KEY, 4, TRUE);
  pair_send (&p, 40, 4, 5000);
  cap = g_async_queue_timeout_pop (p.parity, G_USEC_PER_SEC);
  fail_unless (cap != NULL);
  amt_udp_send (cap, p.port + GST_AM_FEC_ROW_PORT_OFFSET);            /* a replay */
  b = gst_buffer_copy_deep (cap);
  gst_buffer_map (b, &m, GST_MAP_READWRITE);
  m.data[20] ^= 0x01;
  gst_buffer_unmap (b, &m);
  amt_udp_send (b, p.port + GST_AM_FEC_ROW_PORT_OFFSET);              /* altered */
  gst_buffer_unref (b);
  b = gst_buffer_copy_region (cap, GST_BUFFER_COPY_ALL, 0,
      gst_buffer_get_size (cap) - GST_AM_AUTH_TRAILER);
  amt_udp_send (b, p.port + GST_AM_FEC_ROW_PORT_OFFSET);              /* untagged */
  fail_unless (gst_am_auth_parse_key ("k", KEY2, &k2, NULL));
  foreign = gst_am_auth_new (k2, "fec row");
  b = gst_am_auth_protect_buffer (foreign, b);
  amt_udp_send (b, p.port + GST_AM_FEC_ROW_PORT_OFFSET);              /* another key */
  gst_buffer_unref (b);
  b = gst_rtp_buffer_new_allocate (300, 0, 0);
  {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_ssrc (&rtp, SENDER_SSRC);
    gst_rtp_buffer_set_seq (&rtp, 1044);
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    gst_rtp_buffer_unmap (&rtp);
  }
  amt_udp_send (b, p.port);                                             /* forged media */
  gst_buffer_unref (b);
  for (i = 0; i < 40 && src_stat (p.src, "srtp-fec-rejected") < 4; i++)
    g_usleep (50000);
  fail_unless_equals_int (src_stat (p.src, "srtp-fec-rejected"), 4);
  fail_unless_equals_int (src_stat (p.src, "fec-packets-received"), 10);
  fail_unless_equals_int (src_stat (p.src, "srtp-rtp-rejected"), 1);
  fail_unless_equals_int (src_stat (p.src, "fec-recovered"), 1);
  fail_unless_equals_int (received (&p), 39);
  gst_buffer_unref (cap);
  gst_am_auth_free (foreign);
  g_bytes_unref (k2);
  pair_stop (&p);
}
GST_END_TEST;

/* srtp-key, 2 x 0, nothing lost, 400 packets 1 ms apart: the parity's socket thread often
 * overtakes the media's, so rows are rebuilt before their last packet is read; whichever copy
 * comes second is dropped before srtpdec (which would count it as a replay) and lib/cc counts
 * every packet once: 400 received, none lost, nothing rejected (on net-fec-loss, before the
 * copy and the original were compared at the decoder's output, 30-75 of ~1500 packets were
 * rejected as replays) */
GST_START_TEST (test_parity_overtaking_media)
{
  Pair p;

  pair_start (&p, KEY, 2, FALSE);
  pair_send (&p, 400, 2, 1000);
  fail_unless (amt_wait_count (&p.plain, 400), "%d packets past authentication", p.plain);
  fail_unless_equals_int (received (&p), 400);
  fail_unless_equals_int (src_stat (p.src, "srtp-rtp-rejected"), 0);
  fail_unless_equals_int (src_stat (p.src, "fec-recovered"), 0);
  g_printerr ("parity overtaking: %" G_GUINT64_FORMAT " of 400 rebuilt before they were read\n",
      src_stat (p.src, "fec-rebuilt-early"));
  pair_stop (&p);
}
GST_END_TEST;

static Suite *
fec_suite (void)
{
  Suite *s = suite_create ("fec");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_auto_fec_follows_reported_loss);
  tcase_add_test (tc, test_receiver_recovers);
  tcase_add_test (tc, test_receiver_recovers_srtp);
  tcase_add_test (tc, test_forged_fec_dropped);
  tcase_add_test (tc, test_parity_overtaking_media);
  return s;
}

GST_CHECK_MAIN (fec);

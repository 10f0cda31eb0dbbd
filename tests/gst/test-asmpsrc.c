/* test-asmpsrc.c - asmpsrc under GstHarness with a GstTestClock as the system clock: RTP and
 * the sender's SR + echo APP arrive over 127.0.0.1; the receiver's RRs carry its ASMP report
 * APP (content checked), echoes and losses are accounted, malformed APPs are counted and
 * ignored, a similar peer report suppresses ours, TFMCC mode sends TFMR reports, a receiver
 * that stops (READY or EOS) says BYE once, the RTCP interval lib/cc uses follows the session,
 * new peers that have not proven reception are dropped past max-unproven-members.
 * The test clock drives rtpsession's RTCP timer and the element's early-report timer; the
 * receiver's congestion-control state (lib/cc) runs on gst_am_now(), the wall clock, which no
 * test clock can advance: where a check depends on a wall-clock deadline, the test first lets
 * at least that much wall time pass (a lower bound, so it cannot fail by being slow). */
#include "amgsttest.h"
#include <amcc/asmp.h>
#include <amcc/tfmcc.h>
#include "common/gstamcc.h"
#include "common/gstamnet.h"

#define SENDER_SSRC 0x11223344u

typedef struct {
  GstTestClock *clock;
  GstElement *src;
  GstHarness *h;
  GstBus *bus;
  GAsyncQueue *rtcp_out, *rtcp_in, *rtp_in;
  gint port;
  guint collisions;
  guint16 seq;
  guint32 own_ssrc;
  guint32 last_lsr;             /* NTP middle 32 bits of the last SR send_sr sent */
  GSocket *peer;                /* rtcp-address's socket, when one was given: what leaves us */
} Fixture;

static void
on_collision (GstElement * rtpbin, guint session, guint ssrc, Fixture * f)
{
  f->collisions++;
}

/* rtcp_to: the element's rtcp-address (another loopback address, where f->peer listens),
 * NULL: the default (its own address, 127.0.0.1, where its RTCP loops back to itself);
 * max_unproven: its max-unproven-members. */
static void
fixture_init_full (Fixture * f, const gchar * protocol, const gchar * rtcp_to,
    guint max_unproven)
{
  GstElement *rtpbin;
  GObject *session = NULL;

  memset (f, 0, sizeof (*f));
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->port = amt_free_port_pair ();
  fail_unless (f->port > 0);
  f->src = gst_element_factory_make ("asmpsrc", NULL);
  fail_unless (f->src != NULL, "asmpsrc not found (GST_PLUGIN_PATH?)");
  gst_object_ref_sink (f->src);        /* ours; the harness takes its own ref */
  gst_util_set_object_arg (G_OBJECT (f->src), "protocol", protocol);
  g_object_set (f->src, "address", "127.0.0.1", "port", f->port, "rtcp-interval", 100,
      "max-unproven-members", max_unproven, NULL);
  if (rtcp_to) {
    GInetAddress *ia = g_inet_address_new_from_string (rtcp_to);
    GSocketAddress *sa = g_inet_socket_address_new (ia, f->port + 1);
    f->peer = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, 0, NULL);
    /* the element binds 0.0.0.0 on this port too (reuse): the exact address gets what is sent to it */
    fail_unless (g_socket_bind (f->peer, sa, TRUE, NULL));
    g_object_unref (sa);
    g_object_unref (ia);
    g_object_set (f->src, "rtcp-address", rtcp_to, NULL);
  }
  f->bus = gst_bus_new ();
  gst_element_set_bus (f->src, f->bus);
  f->rtcp_out = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  f->rtcp_in = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  f->rtp_in = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  amt_probe_child_pad (f->src, "rtpbin", "send_rtcp_src_0", f->rtcp_out);
  amt_probe_child_pad (f->src, "rtcp_in_plain", "src", f->rtcp_in);
  amt_probe_child_pad (f->src, "rtp_in_plain", "src", f->rtp_in);
  rtpbin = gst_bin_get_by_name (GST_BIN (f->src), "rtpbin");
  g_signal_connect (rtpbin, "on-ssrc-collision", G_CALLBACK (on_collision), f);
  g_signal_emit_by_name (rtpbin, "get-internal-session", 0, &session);
  g_object_get (session, "internal-ssrc", &f->own_ssrc, NULL);
  g_object_unref (session);
  gst_object_unref (rtpbin);
  f->h = gst_harness_new_with_element (f->src, NULL, "src");
  gst_harness_play (f->h);
}

static void
fixture_init (Fixture * f, const gchar * protocol)
{
  fixture_init_full (f, protocol, NULL, 16);
}

static void
fixture_clear (Fixture * f)
{
  AmtBusCounts c = { 0 };

  amt_drain_bus (f->bus, "asmpsrc-stats", &c);
  fail_unless_equals_int (c.errors, 0);
  fail_unless_equals_int (c.warnings, 0);
  fail_unless_equals_int (f->collisions, 0);
  fail_unless (c.named > 0, "no asmpsrc-stats message");
  /* drop messages posted from now on: they hold refs to the element */
  gst_bus_set_flushing (f->bus, TRUE);
  gst_harness_teardown (f->h);
  gst_object_unref (f->src);
  gst_object_unref (f->bus);
  g_async_queue_unref (f->rtcp_out);
  g_async_queue_unref (f->rtcp_in);
  g_async_queue_unref (f->rtp_in);
  g_clear_object (&f->peer);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
}

/* n RTP packets of 500 bytes as asmpsink sends them (send-time + extseq extensions);
 * skip: sequence numbers left out before the first one (a loss). */
static void
send_rtp (Fixture * f, guint n, guint skip)
{
  guint i;

  f->seq += skip;
  for (i = 0; i < n; i++) {
    GstBuffer *b = gst_rtp_buffer_new_allocate (488, 0, 0), *seen;
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

    gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_ssrc (&rtp, SENDER_SSRC);
    gst_rtp_buffer_set_seq (&rtp, f->seq);
    gst_rtp_buffer_set_timestamp (&rtp, f->seq * 3000);
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    memset (gst_rtp_buffer_get_payload (&rtp), 0x41, 488);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless (gst_am_rtp_stamp (&b, gst_am_now (), f->seq));
    amt_udp_send (b, f->port);
    gst_buffer_unref (b);
    seen = amt_wait_buffer (f->rtp_in);
    fail_unless (seen != NULL, "RTP not received");
    gst_buffer_unref (seen);
    f->seq++;
  }
}

/* The sender's SR, optionally with an APP (name, subtype, payload). */
static void
send_sr (Fixture * f, const gchar * app_name, guint8 subtype, const guint8 * app, gsize len)
{
  GstBuffer *b = gst_rtcp_buffer_new (1400), *seen;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  guint64 ntp = amcc_ntp64_from_unix (gst_am_wall (gst_am_now ()));

  f->last_lsr = amcc_ntp_mid32 (ntp);
  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SR, &pkt));
  gst_rtcp_packet_sr_set_sender_info (&pkt, SENDER_SSRC, ntp, f->seq * 3000, f->seq,
      f->seq * 500);
  gst_rtcp_buffer_unmap (&rtcp);
  if (app_name)
    fail_unless (gst_am_rtcp_append_app (b, subtype, SENDER_SSRC, app_name, app, len));
  amt_udp_send (b, f->port + 1);
  gst_buffer_unref (b);
  seen = amt_wait_buffer (f->rtcp_in);
  fail_unless (seen != NULL, "SR not received");
  gst_buffer_unref (seen);
}

/* A peer receiver's RR, its report block echoing the last SR (it has proven reception), +
 * SDES CNAME (as rtpsession sends them: it makes the peer an active member) + ASMP report. */
static void
send_peer_report (Fixture * f, guint32 ssrc, gdouble rate_bps)
{
  GstBuffer *b = gst_rtcp_buffer_new (1400), *seen;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  amcc_asmp_report rep = { 0 };
  guint8 buf[64];
  gsize len;

  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt));
  gst_rtcp_packet_rr_set_ssrc (&pkt, ssrc);
  fail_unless (gst_rtcp_packet_add_rb (&pkt, SENDER_SSRC, 0, 0, f->seq, 0, f->last_lsr, 0));
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SDES, &pkt));
  fail_unless (gst_rtcp_packet_sdes_add_item (&pkt, ssrc));
  fail_unless (gst_rtcp_packet_sdes_add_entry (&pkt, GST_RTCP_SDES_CNAME, 4,
          (const guint8 *) "peer"));
  gst_rtcp_buffer_unmap (&rtcp);
  rep.rate_bps = rate_bps;
  fail_unless_equals_int (amcc_asmp_report_encode (&rep, buf, sizeof (buf), &len), AMCC_OK);
  fail_unless (gst_am_rtcp_append_app (b, AMCC_ASMP_SUBTYPE_REPORT, ssrc, AMCC_ASMP_APP_NAME,
          buf, len));
  amt_udp_send (b, f->port + 1);
  gst_buffer_unref (b);
  seen = amt_wait_buffer (f->rtcp_in);
  fail_unless (seen != NULL);
  gst_buffer_unref (seen);
}

/* The next RR the receiver sends; *report decoded from its ASMP APP (FALSE if none). */
static gboolean
next_rr (Fixture * f, amcc_asmp_report * report)
{
  GstBuffer *b = amt_crank_until (f->clock, f->rtcp_out, 20);
  guint8 data[256], subtype;
  guint32 ssrc;
  gsize len;
  gboolean has;

  fail_unless (b != NULL, "no RTCP from asmpsrc");
  fail_unless_equals_int (amt_first_type (b), GST_RTCP_TYPE_RR);
  has = amt_find_app (b, AMCC_ASMP_APP_NAME, &subtype, &ssrc, data, sizeof (data), &len);
  if (has) {
    fail_unless_equals_int (subtype, AMCC_ASMP_SUBTYPE_REPORT);
    fail_unless_equals_int (ssrc, f->own_ssrc);
    fail_unless_equals_int (len, AMCC_ASMP_REPORT_LEN);
    fail_unless_equals_int (amcc_asmp_report_decode (data, len, report), AMCC_OK);
  }
  gst_buffer_unref (b);
  return has;
}

static GstStructure *
stats (Fixture * f)
{
  GstStructure *s = NULL;
  g_object_get (f->src, "stats", &s, NULL);
  fail_unless (s != NULL);
  return s;
}

static guint64
stat_u64 (GstStructure * s, const gchar * field)
{
  guint64 v = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s", field);
  return v;
}

GST_START_TEST (test_rr_carries_report_and_echo_is_used)
{
  Fixture f;
  amcc_asmp_report rep;
  amcc_asmp_echo_entry echo = { 0 };
  guint8 buf[64];
  gsize len;
  GstStructure *st;
  gint64 lost = -1;
  gboolean send_time = FALSE;

  fixture_init (&f, "asmp");
  send_rtp (&f, 30, 0);
  /* the sender echoes this receiver's RTT (eq. 9) in its SR */
  echo.ssrc = f.own_ssrc;
  echo.rtt = 40 * GST_MSECOND;
  fail_unless_equals_int (amcc_asmp_echo_encode (&echo, 1, buf, sizeof (buf), &len), AMCC_OK);
  send_sr (&f, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_ECHO, buf, len);
  fail_unless (next_rr (&f, &rep), "RR without the ASMP report");
  /* nothing lost, a positive rate, the RTT calibrated by the echo (eq. 10) */
  fail_unless (rep.rate_bps > 0);
  fail_unless (rep.loss == 0.0);
  fail_unless (rep.have_echo);
  fail_unless (rep.rtt_s > 0);

  /* 5 packets lost out of 35: counted (RFC 3550 A.3 cumulative) */
  send_rtp (&f, 10, 5);
  send_rtp (&f, 20, 0);
  fail_unless (next_rr (&f, &rep));
  st = stats (&f);
  fail_unless (gst_structure_get_int64 (st, "packets-lost", &lost));
  fail_unless_equals_int (lost, 5);
  fail_unless_equals_int (stat_u64 (st, "packets-received"), 60);
  fail_unless_equals_int (stat_u64 (st, "echoes-received"), 1);
  fail_unless (gst_structure_get_boolean (st, "have-send-time", &send_time) && send_time);
  fail_unless (stat_u64 (st, "reports-sent") >= 2);
  gst_structure_free (st);
  fixture_clear (&f);
}
GST_END_TEST;

GST_START_TEST (test_malformed_app_counted_and_ignored)
{
  Fixture f;
  amcc_asmp_report rep;
  amcc_asmp_echo_entry echo = { 0 };
  guint8 buf[64];
  gsize len;
  GstStructure *st;

  fixture_init (&f, "asmp");
  send_rtp (&f, 10, 0);
  /* echo whose entry count disagrees with its length */
  echo.ssrc = f.own_ssrc;
  echo.rtt = 40 * GST_MSECOND;
  fail_unless_equals_int (amcc_asmp_echo_encode (&echo, 1, buf, sizeof (buf), &len), AMCC_OK);
  buf[3] = 7;
  send_sr (&f, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_ECHO, buf, len);
  /* truncated echo: 4 bytes of header claiming one entry */
  buf[3] = 1;
  send_sr (&f, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_ECHO, buf, 4);
  /* a peer report of the wrong length */
  send_sr (&f, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_REPORT, buf, 8);
  send_rtp (&f, 10, 0);
  fail_unless (next_rr (&f, &rep), "the receiver stopped reporting");
  fail_unless (!rep.have_echo, "a malformed echo was used");
  st = stats (&f);
  fail_unless_equals_int (stat_u64 (st, "app-malformed"), 3);
  fail_unless_equals_int (stat_u64 (st, "echoes-received"), 0);
  gst_structure_free (st);
  fixture_clear (&f);
}
GST_END_TEST;

GST_START_TEST (test_similar_peer_report_suppresses)
{
  Fixture f;
  amcc_asmp_report rep;
  GstStructure *st;
  gboolean has;

  fixture_init (&f, "asmp");
  send_rtp (&f, 20, 0);
  send_sr (&f, NULL, 0, NULL, 0);
  fail_unless (next_rr (&f, &rep));
  /* new round (SR); a peer reports 1 % below our rate: within 2 %, ours is redundant */
  send_sr (&f, NULL, 0, NULL, 0);
  send_peer_report (&f, 0x0badcafe, rep.rate_bps * 0.99);
  send_rtp (&f, 5, 0);
  has = next_rr (&f, &rep);
  fail_if (has, "report sent although a similar peer report was heard");
  st = stats (&f);
  fail_unless_equals_int (stat_u64 (st, "reports-suppressed"), 1);
  gst_structure_free (st);
  /* next round, a peer far above us: we are the slowest and must report */
  send_sr (&f, NULL, 0, NULL, 0);
  send_peer_report (&f, 0x0badcafe, rep.rate_bps * 3);
  fail_unless (next_rr (&f, &rep), "slowest receiver suppressed");
  fixture_clear (&f);
}
GST_END_TEST;

/* TFMCC receiver reports only when its feedback timer fires (RFC 4654 4.5): none before it has
 * heard the sender's fields (no feedback round), one per round as a non-CLR receiver, and again
 * in the next round. */
#define TFMS_R_MAX_US 20000     /* R_max in our sender fields: round T = 6 R_max = 120 ms */

static gboolean
next_rtcp_has_tfmr (Fixture * f, struct amcc_tfmcc_report *r)
{
  GstBuffer *b = amt_crank_until (f->clock, f->rtcp_out, 20);
  guint8 data[256], subtype;
  guint32 ssrc = 0;
  gsize len = 0;
  gboolean found;

  fail_unless (b != NULL);
  found = amt_find_app (b, AMCC_TFMCC_APP_REPORT, &subtype, &ssrc, data, sizeof (data), &len);
  fail_if (amt_find_app (b, AMCC_ASMP_APP_NAME, &subtype, &ssrc, data, sizeof (data), &len));
  gst_buffer_unref (b);
  if (found) {
    fail_unless_equals_int (ssrc, f->own_ssrc);
    fail_unless (amcc_tfmcc_report_decode (r, data, len) >= 0);
  }
  return found;
}

/* The sender's SR with its TFMCC fields: starts feedback round fb_nr at the receiver, whose
 * timer is t = max(T (1 + ln x / ln N), 0) <= T, x drawn at random by the element. That timer
 * runs on the wall clock (gst_am_now), so a test clock cannot fire it: wait out T in real time
 * (the SR has been handled when send_sr returns: the element's probe comes before ours), then
 * every RTCP the receiver sends must carry the report until it has sent it. */
static void
send_tfms_and_wait_round_timer (Fixture * f, guint16 fb_nr)
{
  struct amcc_tfmcc_sender_info info;
  struct amcc_tfmcc_params p;
  guint8 payload[AMCC_TFMCC_SENDER_INFO_LEN];
  GstBuffer *stale;

  memset (&info, 0, sizeof (info));
  info.fb_nr = fb_nr;
  info.slowstart = TRUE;
  info.ts_us = (guint32) (gst_am_now () / 1000);
  info.r_max_us = TFMS_R_MAX_US;
  info.rate_bps = 500e3;
  fail_unless (amcc_tfmcc_sender_info_encode (&info, payload, sizeof (payload)) > 0);
  send_sr (f, AMCC_TFMCC_APP_SENDER, 0, payload, sizeof (payload));
  amcc_tfmcc_params_init (&p);
  g_usleep ((gulong) (p.round_rmax_factor * TFMS_R_MAX_US) + 1000);
  /* RTCP made before the timer was surely due (at most one, from an earlier crank) */
  while ((stale = g_async_queue_try_pop (f->rtcp_out)))
    gst_buffer_unref (stale);
}

GST_START_TEST (test_tfmcc_receiver_report)
{
  Fixture f;
  struct amcc_tfmcc_report r;
  guint i;
  gboolean found = FALSE;

  fixture_init (&f, "tfmcc");
  send_rtp (&f, 30, 0);
  for (i = 0; i < 3; i++)
    fail_if (next_rtcp_has_tfmr (&f, &r), "TFMR before any sender fields (no round)");
  send_tfms_and_wait_round_timer (&f, 7);
  /* the timer is due: the next RTCP has the report (a second one may have been under way
   * before the wait ended: the crank helper can run one RTCP ahead) */
  for (i = 0; i < 2 && !found; i++)
    found = next_rtcp_has_tfmr (&f, &r);
  fail_unless (found, "no TFMR report in the receiver's RTCP after the round's timer T");
  fail_unless_equals_int (r.fb_nr, 7);
  for (i = 0; i < 3; i++)
    fail_if (next_rtcp_has_tfmr (&f, &r), "a second TFMR in the same round (non-CLR)");
  send_tfms_and_wait_round_timer (&f, 8);
  for (i = 0, found = FALSE; i < 2 && !found; i++)
    found = next_rtcp_has_tfmr (&f, &r);
  fail_unless (found, "no TFMR in the next round after its timer T");
  fail_unless_equals_int (r.fb_nr, 8);
  fixture_clear (&f);
}
GST_END_TEST;

/* The next datagram that reached the rtcp-address socket within timeout_ms, NULL if none. */
static GstBuffer *
peer_next (Fixture * f, guint timeout_ms)
{
  gchar data[1500];
  gssize n;

  g_socket_set_timeout (f->peer, 0);
  if (!g_socket_condition_timed_wait (f->peer, G_IO_IN, (gint64) timeout_ms * 1000, NULL, NULL))
    return NULL;
  n = g_socket_receive (f->peer, data, sizeof (data), NULL, NULL);
  return n > 0 ? gst_buffer_new_memdup (data, n) : NULL;
}

/* A compound RTCP packet that ends with a BYE: the SSRC it says BYE for, 0 if it is none.
 * It must be valid RTCP, start with an RR from that SSRC and carry its SDES CNAME. */
static guint32
bye_ssrc (GstBuffer * b)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  GstRTCPType last = GST_RTCP_TYPE_INVALID;
  guint32 rr = 0, bye = 0, sdes = 0;
  gboolean more, cname = FALSE;

  fail_unless (gst_rtcp_buffer_validate (b), "RTCP that is not valid compound RTCP");
  gst_rtcp_buffer_map (b, GST_MAP_READ, &rtcp);
  for (more = gst_rtcp_buffer_get_first_packet (&rtcp, &pkt); more;
      more = gst_rtcp_packet_move_to_next (&pkt)) {
    last = gst_rtcp_packet_get_type (&pkt);
    if (last == GST_RTCP_TYPE_RR && !rr)
      rr = gst_rtcp_packet_rr_get_ssrc (&pkt);
    else if (last == GST_RTCP_TYPE_BYE) {
      fail_unless_equals_int (gst_rtcp_packet_bye_get_ssrc_count (&pkt), 1);
      bye = gst_rtcp_packet_bye_get_nth_ssrc (&pkt, 0);
    } else if (last == GST_RTCP_TYPE_SDES && gst_rtcp_packet_sdes_first_item (&pkt)) {
      GstRTCPSDESType type;
      guint8 len, *data;
      sdes = gst_rtcp_packet_sdes_get_ssrc (&pkt);
      cname = gst_rtcp_packet_sdes_first_entry (&pkt)
          && gst_rtcp_packet_sdes_get_entry (&pkt, &type, &len, &data)
          && type == GST_RTCP_SDES_CNAME && len > 0;
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);
  if (!bye)
    return 0;
  fail_unless_equals_int (last, GST_RTCP_TYPE_BYE);   /* RFC 3550 6.1: the BYE comes last */
  fail_unless_equals_int (rr, bye);
  fail_unless_equals_int (sdes, bye);
  fail_unless (cname, "BYE without the CNAME of its SSRC");
  return bye;
}

/* What reaches the peer within timeout_ms (until it has been quiet that long): BYEs counted,
 * the SSRC of the last in *ssrc; nothing may follow a BYE (it is the member's last word). */
static guint
peer_byes (Fixture * f, guint timeout_ms, guint32 * ssrc)
{
  GstBuffer *b;
  guint n = 0;

  while ((b = peer_next (f, timeout_ms))) {
    guint32 s = bye_ssrc (b);
    fail_if (n > 0, "RTCP after the BYE");
    if (s) {
      n++;
      *ssrc = s;
    }
    gst_buffer_unref (b);
  }
  return n;
}

/* A receiver that has reported, then stops: one BYE for the SSRC of its reports reaches the
 * address its RRs go to (the sender's), after the last RR, and none more when it goes on to
 * NULL. stop: GST_STATE_READY, or GST_STATE_VOID_PENDING for EOS sent to the element. */
static void
check_bye_at (GstState stop)
{
  Fixture f;
  amcc_asmp_report rep;
  guint32 ssrc = 0;

  fixture_init_full (&f, "asmp", "127.0.0.2", 16);
  send_rtp (&f, 20, 0);
  send_sr (&f, NULL, 0, NULL, 0);
  fail_unless (next_rr (&f, &rep), "the receiver sent no report");
  /* its RRs reach the peer too (the path the BYE must take): none is a BYE */
  fail_unless_equals_int (peer_byes (&f, 50, &ssrc), 0);
  if (stop == GST_STATE_VOID_PENDING)
    fail_unless (gst_element_send_event (f.src, gst_event_new_eos ()));
  else
    fail_unless (gst_element_set_state (f.src, stop) == GST_STATE_CHANGE_SUCCESS);
  /* a bounded wait for a packet sent at once, on a 2-core machine shared with other work */
  fail_unless_equals_int (peer_byes (&f, 2000, &ssrc), 1);
  fail_unless_equals_int (ssrc, f.own_ssrc);
  fail_unless (gst_element_set_state (f.src, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (peer_byes (&f, 200, &ssrc), 0);
  fixture_clear (&f);
}

GST_START_TEST (test_bye_when_stopped)
{
  check_bye_at (GST_STATE_READY);
}
GST_END_TEST;

GST_START_TEST (test_bye_at_eos)
{
  check_bye_at (GST_STATE_VOID_PENDING);
}
GST_END_TEST;

/* The RTCP interval lib/cc uses is rtpsession's, not the configured minimum: at 64 kbit/s of
 * RTP (the bandwidth set, rtpsession's floor) RTCP gets 5 %, 3200 bit/s; rtpsession counts one
 * or two active members (the sender; us), and with 1 sender > members / 4 there is no split:
 * Td = members x 8 x size / 3200 s for a mean packet between 56 B (the test's SRs, 28 B + 28 B
 * of UDP/IP) and 200 B (our RRs with SDES and the APP): in [0.14, 1.0] s, and whatever the
 * count, above the 0.1 s minimum the element was given (gst_am_rtcp_interval's arithmetic has
 * its own test in test-helpers). */
GST_START_TEST (test_rtcp_interval_reaches_cc)
{
  Fixture f;
  amcc_asmp_report rep;
  GstElement *rtpbin;
  GObject *session = NULL;
  GstStructure *st;
  gdouble iv = 0;
  guint i;

  fixture_init (&f, "asmp");
  rtpbin = gst_bin_get_by_name (GST_BIN (f.src), "rtpbin");
  g_signal_emit_by_name (rtpbin, "get-internal-session", 0, &session);
  g_object_set (session, "bandwidth", 64000.0, NULL);
  send_rtp (&f, 20, 0);
  for (i = 0; i < 3; i++) {
    send_sr (&f, NULL, 0, NULL, 0);
    next_rr (&f, &rep);
  }
  st = stats (&f);
  fail_unless (gst_structure_get_double (st, "rtcp-interval-s", &iv));
  fail_unless (iv >= 0.14 && iv <= 1.0, "lib/cc's RTCP interval %.3f s, not the session's", iv);
  gst_structure_free (st);
  /* 20 more receivers heard (within max-ssrcs-per-host, 32, and proven, so beyond
   * max-unproven-members, 16; their SDES makes them members): 21 or 22 members, 1 sender <=
   * members / 4, so the 20 or 21 receivers share 3/4 of it, 2400 bit/s: Td = receivers x 8 x
   * size / 2400 s, in [3.7, 14] s for the same sizes (the peers' RR + block + SDES + APP,
   * 8 + 24 + 16 + 12 + 28 + 28 B, are among them) */
  for (i = 0; i < 20; i++)
    send_peer_report (&f, 0x0b000000 + i, 400e3);
  send_sr (&f, NULL, 0, NULL, 0);
  next_rr (&f, &rep);
  st = stats (&f);
  fail_unless (gst_structure_get_double (st, "rtcp-interval-s", &iv));
  fail_unless (iv >= 3.7 && iv <= 14.0, "lib/cc's RTCP interval %.3f s with 21 members", iv);
  gst_structure_free (st);
  g_object_unref (session);
  gst_object_unref (rtpbin);
  fixture_clear (&f);
}
GST_END_TEST;

/* A peer's RR with no report block (it proves nothing) from `from`, then the sender's SR,
 * which always passes: once the SR is through, the element has judged the RR too. */
static void
send_unproven (Fixture * f, const gchar * from, guint32 ssrc)
{
  GstBuffer *b = amt_rtcp_rr (ssrc, 0, 0, 0);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;

  amt_udp_send_from (b, f->port + 1, from);
  gst_buffer_unref (b);
  b = gst_rtcp_buffer_new (100);
  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SR, &pkt));
  gst_rtcp_packet_sr_set_sender_info (&pkt, SENDER_SSRC, 0, 0, 0, 0);
  gst_rtcp_buffer_unmap (&rtcp);
  amt_udp_send (b, f->port + 1);
  gst_buffer_unref (b);
  amt_wait_marker (f->rtcp_in, SENDER_SSRC);
}

static guint64
unproven_full (Fixture * f)
{
  amcc_asmp_report rep;
  GstStructure *st;
  guint64 n;

  next_rr (f, &rep);            /* the stats property is refreshed at each RR */
  st = stats (f);
  n = stat_u64 (st, "rtcp-unproven-full");
  gst_structure_free (st);
  return n;
}

/* The unproven budget at a receiver (max-unproven-members, here 4; docs/security.md): peers
 * whose RTCP echoes none of the sender's SRs pass until 4 of them are live, from one address
 * or several, then further ones are dropped before rtpbin and counted (rtcp-unproven-full);
 * a peer whose report block echoes the sender's SR as it reached us still comes in; 30 s of
 * silence (the test clock: gst_am_now) frees the budget. The sender itself never counts. */
GST_START_TEST (test_unproven_budget)
{
  Fixture f;
  guint i;

  fixture_init_full (&f, "asmp", NULL, 4);
  send_rtp (&f, 20, 0);
  send_sr (&f, NULL, 0, NULL, 0);
  for (i = 0; i < 4; i++)
    send_unproven (&f, i % 2 ? "127.0.0.2" : "127.0.0.3", 0x0e000000 + i);
  send_unproven (&f, "127.0.0.4", 0x0e000010);
  fail_unless (amt_rtpbin_learns (f.src, 0x0e000003));
  fail_if (amt_rtpbin_knows (f.src, 0x0e000010));
  fail_unless_equals_int (unproven_full (&f), 1);
  /* a peer that has heard the sender's SR */
  send_sr (&f, NULL, 0, NULL, 0);
  send_peer_report (&f, 0x0badcafe, 400e3);
  fail_unless (amt_rtpbin_learns (f.src, 0x0badcafe));
  fail_unless_equals_int (unproven_full (&f), 1);
  /* 31 s of silence: room again */
  gst_test_clock_advance_time (f.clock, 31 * GST_SECOND);
  for (i = 0; i < 4; i++)
    send_unproven (&f, "127.0.0.4", 0x0e000020 + i);
  send_unproven (&f, "127.0.0.4", 0x0e000024);
  fail_unless (amt_rtpbin_learns (f.src, 0x0e000023));
  fail_if (amt_rtpbin_knows (f.src, 0x0e000024));
  fail_unless_equals_int (unproven_full (&f), 2);
  fixture_clear (&f);
}
GST_END_TEST;

static Suite *
asmpsrc_suite (void)
{
  Suite *s = suite_create ("asmpsrc");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rr_carries_report_and_echo_is_used);
  tcase_add_test (tc, test_malformed_app_counted_and_ignored);
  tcase_add_test (tc, test_similar_peer_report_suppresses);
  tcase_add_test (tc, test_tfmcc_receiver_report);
  tcase_add_test (tc, test_bye_when_stopped);
  tcase_add_test (tc, test_bye_at_eos);
  tcase_add_test (tc, test_rtcp_interval_reaches_cc);
  tcase_add_test (tc, test_unproven_budget);
  return s;
}

GST_CHECK_MAIN (asmpsrc);

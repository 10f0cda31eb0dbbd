/* test-asmpsink.c - asmpsink with GstHarness (RTP in) and a GstTestClock as the system clock
 * (rtpsession's RTCP timer): the SR carries the ASMP echo APP with the RTT computed from a
 * receiver's report block, receiver reports set the target, malformed RTCP/APP is counted and
 * ignored, the echo list stays within the RTCP MTU, lib/cc hears the receivers' RTCP interval,
 * new SSRCs that have not proven reception are dropped past max-unproven-members.
 * Network: 127.0.0.1 only. */
#include "amgsttest.h"
#include <math.h>
#include <amcc/asmp.h>
#include <amcc/tfmcc.h>
#include "common/gstamcc.h"
#include "common/gstamnet.h"

#define SENDER_SSRC 0x11223344u
#define MARKER_SSRC 0x0000F00Du      /* an RR with nothing in it, sent behind a packet the element may drop */

typedef struct {
  GstTestClock *clock;
  GstElement *sink;
  GstHarness *h;
  GstBus *bus;
  GAsyncQueue *rtcp_out, *rtcp_in;
  gint port;
  guint collisions, target_notifies;
  guint16 seq;
  gint rtp_out;                 /* RTP packets that have left rtpbin */
  guint32 last_lsr;             /* NTP middle 32 bits of the last SR next_sr returned */
} Fixture;

static void
on_collision (GstElement * rtpbin, guint session, guint ssrc, Fixture * f)
{
  f->collisions++;
}

static void
on_target (GObject * o, GParamSpec * p, Fixture * f)
{
  f->target_notifies++;
}

static void
fixture_init_full (Fixture * f, const gchar * protocol, guint rtcp_interval_ms,
    guint receiver_timeout_ms, guint max_ssrcs_per_host, guint max_unproven)
{
  GstElement *rtpbin;

  memset (f, 0, sizeof (*f));
  /* rtpsession schedules RTCP on the system clock: make it a test clock */
  f->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  gst_system_clock_set_default (GST_CLOCK (f->clock));
  f->port = amt_free_port_pair ();
  fail_unless (f->port > 0);
  f->sink = gst_element_factory_make ("asmpsink", NULL);
  fail_unless (f->sink != NULL, "asmpsink not found (GST_PLUGIN_PATH?)");
  gst_object_ref_sink (f->sink);        /* ours; the harness takes its own ref */
  gst_util_set_object_arg (G_OBJECT (f->sink), "protocol", protocol);
  g_object_set (f->sink, "address", "127.0.0.1", "port", f->port, "rtcp-interval",
      rtcp_interval_ms, "receiver-timeout", receiver_timeout_ms,
      "initial-bitrate", 500000, "min-bitrate", 50000, "max-bitrate", 4000000,
      "max-ssrcs-per-host", max_ssrcs_per_host, "max-unproven-members", max_unproven, NULL);
  f->bus = gst_bus_new ();
  gst_element_set_bus (f->sink, f->bus);
  f->rtcp_out = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  f->rtcp_in = g_async_queue_new_full ((GDestroyNotify) gst_buffer_unref);
  amt_probe_child_pad (f->sink, "rtpbin", "send_rtcp_src_0", f->rtcp_out);
  amt_count_child_pad (f->sink, "rtp_sink", "sink", &f->rtp_out);
  /* added after the element's own probe, so it fires once the element has seen the packet */
  amt_probe_child_pad (f->sink, "rtcp_in_plain", "src", f->rtcp_in);
  rtpbin = gst_bin_get_by_name (GST_BIN (f->sink), "rtpbin");
  g_signal_connect (rtpbin, "on-ssrc-collision", G_CALLBACK (on_collision), f);
  gst_object_unref (rtpbin);
  g_signal_connect (f->sink, "notify::target-bitrate", G_CALLBACK (on_target), f);
  f->h = gst_harness_new_with_element (f->sink, "sink", NULL);
  gst_harness_set_src_caps_str (f->h, "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,ssrc=(uint)287454020");
  gst_harness_play (f->h);
}

static void
fixture_init_iv (Fixture * f, const gchar * protocol, guint rtcp_interval_ms,
    guint receiver_timeout_ms)
{
  fixture_init_full (f, protocol, rtcp_interval_ms, receiver_timeout_ms, 32, 16);
}

static void
fixture_init (Fixture * f, const gchar * protocol)
{
  fixture_init_iv (f, protocol, 100, 60000);     /* receivers outlive the SRs a test cranks out */
}

static void
fixture_clear (Fixture * f)
{
  AmtBusCounts c = { 0 };

  amt_drain_bus (f->bus, "asmpsink-stats", &c);
  fail_unless_equals_int (c.errors, 0);
  fail_unless_equals_int (c.warnings, 0);
  fail_unless_equals_int (f->collisions, 0);
  fail_unless (c.named > 0, "no asmpsink-stats message");
  /* drop messages posted from now on: they hold refs to the element */
  gst_bus_set_flushing (f->bus, TRUE);
  gst_harness_teardown (f->h);
  gst_object_unref (f->sink);
  gst_object_unref (f->bus);
  g_async_queue_unref (f->rtcp_out);
  g_async_queue_unref (f->rtcp_in);
  gst_system_clock_set_default (NULL);
  gst_object_unref (f->clock);
}

/* A 400-byte RTP packet (H.264 single NAL: IDR when key) from SENDER_SSRC. */
static void
push_rtp (Fixture * f, gboolean key)
{
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
  p[0] = key ? 0x65 : 0x41;
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (b) = f->seq * GST_SECOND / 30;
  f->seq++;
  fail_unless_equals_int (gst_harness_push (f->h, b), GST_FLOW_OK);
  /* the pacer hands it to rtpbin from its own thread: wait until rtpsession has sent it, so that
   * it counts (at this test clock time) before the next crank */
  fail_unless (amt_wait_count (&f->rtp_out, f->seq), "RTP did not leave rtpbin");
}

/* Next RTCP packet the element sends: an SR. An RTP packet goes out first, at the time of the
 * previous RTCP, and rtpsession's next RTCP comes at most 1.5 / 1.21828 intervals after that
 * (forward reconsideration included), well within the 2 intervals after which rtpsession would
 * stop counting us as a sender (RFC 3550 6.3.8) and send an RR: anything but an SR is a bug. */
static GstBuffer *
next_sr (Fixture * f)
{
  GstBuffer *b;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  guint64 ntp = 0;

  push_rtp (f, FALSE);
  b = amt_crank_until (f->clock, f->rtcp_out, 20);
  fail_unless (b != NULL, "no RTCP from asmpsink");
  fail_unless_equals_int (amt_first_type (b), GST_RTCP_TYPE_SR);
  gst_rtcp_buffer_map (b, GST_MAP_READ, &rtcp);
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &p));
  gst_rtcp_packet_sr_get_sender_info (&p, NULL, &ntp, NULL, NULL, NULL);
  gst_rtcp_buffer_unmap (&rtcp);
  f->last_lsr = (guint32) (ntp >> 16);
  return b;
}

/* Sends a compound RTCP (RR from rx_ssrc [+ report block about the sender] [+ APP]) to the
 * element's RTCP port and waits until the element has handled it. */
static void
send_rr_from (Fixture * f, const gchar * from, guint32 rx_ssrc, gboolean block, guint32 lsr,
    guint32 dlsr, const gchar * app_name, guint8 subtype, const guint8 * app, gsize app_len,
    guint32 bye);

static void
send_rr (Fixture * f, guint32 rx_ssrc, gboolean block, guint32 lsr, guint32 dlsr,
    const gchar * app_name, guint8 subtype, const guint8 * app, gsize app_len)
{
  send_rr_from (f, NULL, rx_ssrc, block, lsr, dlsr, app_name, subtype, app, app_len, 0);
}

/* The same from the loopback address `from` (NULL: the default), with a BYE for `bye` after
 * the APP (0: none); waits until the element's RTCP socket has taken it (dropped or not). */
static void
send_rr_from (Fixture * f, const gchar * from, guint32 rx_ssrc, gboolean block, guint32 lsr,
    guint32 dlsr, const gchar * app_name, guint8 subtype, const guint8 * app, gsize app_len,
    guint32 bye)
{
  GstBuffer *b = gst_rtcp_buffer_new (1400), *seen;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;

  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt));
  gst_rtcp_packet_rr_set_ssrc (&pkt, rx_ssrc);
  if (block)                    /* LSR 0: the last SR we got, as a real receiver would */
    gst_rtcp_packet_add_rb (&pkt, SENDER_SSRC, 0, 0, f->seq, 0, lsr ? lsr : f->last_lsr, dlsr);
  gst_rtcp_buffer_unmap (&rtcp);
  if (app_name)
    fail_unless (gst_am_rtcp_append_app (b, subtype, rx_ssrc, app_name, app, app_len));
  if (bye) {
    gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
    fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_BYE, &pkt));
    fail_unless (gst_rtcp_packet_bye_add_ssrc (&pkt, bye));
    gst_rtcp_buffer_unmap (&rtcp);
  }
  amt_udp_send_from (b, f->port + 1, from);
  gst_buffer_unref (b);
  if (!from) {
    seen = amt_wait_buffer (f->rtcp_in);
    fail_unless (seen != NULL, "RTCP not received by asmpsink");
    gst_buffer_unref (seen);
    return;
  }
  /* the element may drop it, and then no later probe sees it: send a marker RR behind it and
   * wait for that */
  b = amt_rtcp_rr (MARKER_SSRC, 0, 0, 0);
  amt_udp_send (b, f->port + 1);
  gst_buffer_unref (b);
  amt_wait_marker (f->rtcp_in, MARKER_SSRC);
}

static GstStructure *
stats (Fixture * f)
{
  GstStructure *s = NULL;
  g_object_get (f->sink, "stats", &s, NULL);
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

GST_START_TEST (test_sr_carries_echo_and_report_sets_target)
{
  Fixture f;
  GstBuffer *sr;
  guint8 data[1500];
  gsize len;
  guint8 subtype;
  guint32 ssrc;
  amcc_asmp_echo_entry e[16];
  size_t n = 16, i, k;
  amcc_asmp_report rep = { 0 }, wire;
  guint8 rep_buf[64];
  gsize rep_len;
  guint target = 0;
  gboolean found = FALSE;
  GstStructure *st;

  fixture_init (&f, "asmp");
  push_rtp (&f, TRUE);
  /* first SR: the ASMP echo APP is there, from our SSRC, with no receivers yet */
  sr = next_sr (&f);
  fail_unless (amt_find_app (sr, AMCC_ASMP_APP_NAME, &subtype, &ssrc, data, sizeof (data), &len));
  fail_unless_equals_int (subtype, AMCC_ASMP_SUBTYPE_ECHO);
  fail_unless_equals_int (ssrc, SENDER_SSRC);
  fail_unless_equals_int (amcc_asmp_echo_decode (data, len, e, &n), AMCC_OK);
  fail_unless_equals_int (n, 0);
  gst_buffer_unref (sr);

  /* a receiver: report block with LSR = now - 300 ms and DLSR = 100 ms -> RTT = 200 ms plus
   * the time the packet takes to reach the element (eq. 9) */
  rep.rate_bps = 300000;
  rep.loss = 0.01;
  rep.rtt_s = 0.05;
  rep.jitter_s = 0.002;
  fail_unless_equals_int (amcc_asmp_report_encode (&rep, rep_buf, sizeof (rep_buf), &rep_len),
      AMCC_OK);
  fail_unless_equals_int (amcc_asmp_report_decode (rep_buf, rep_len, &wire), AMCC_OK);
  /* the receiver echoes that SR's NTP time 300 ms later (test clock), having held it 100 ms */
  gst_test_clock_advance_time (f.clock, 300 * GST_MSECOND);
  send_rr (&f, 0xAABBCCDD, TRUE, f.last_lsr,
      100 * 65536 / 1000 /* 100 ms in 1/65536 s, truncated */, AMCC_ASMP_APP_NAME,
      AMCC_ASMP_SUBTYPE_REPORT, rep_buf, rep_len);
  /* the target is the only receiver's rate (eq. 1), in bit/s as it went over the wire */
  g_object_get (f.sink, "target-bitrate", &target, NULL);
  fail_unless_equals_int (target, (guint) wire.rate_bps);
  fail_unless (f.target_notifies >= 1);

  /* the next SR echoes that receiver's RTT (one may have left while the clock advanced) */
  for (k = 0; k < 3 && !found; k++) {
    sr = next_sr (&f);
    n = 16;
    fail_unless (amt_find_app (sr, AMCC_ASMP_APP_NAME, &subtype, &ssrc, data, sizeof (data),
            &len));
    fail_unless_equals_int (amcc_asmp_echo_decode (data, len, e, &n), AMCC_OK);
    gst_buffer_unref (sr);
    for (i = 0; i < n; i++) {
      if (e[i].ssrc == 0xAABBCCDD) {
        gdouble rtt = e[i].rtt / 1e9;
        /* 300 - 100 ms = 200 ms, minus the DLSR truncation (< 16 us): the element takes eq. 9
         * on its own (test) clock from the time it sent the SR the LSR names */
        fail_unless (rtt > 0.2 - 0.0001 && rtt < 0.2 + 0.0001, "rtt %f", rtt);
        found = TRUE;
      }
    }
  }
  fail_unless (found, "receiver missing from the echo");

  st = stats (&f);
  fail_unless_equals_int (stat_u64 (st, "app-received"), 1);
  fail_unless_equals_int (stat_u64 (st, "app-malformed"), 0);
  fail_unless_equals_int (stat_u64 (st, "rtcp-malformed"), 0);
  gst_structure_free (st);
  fixture_clear (&f);
}
GST_END_TEST;

GST_START_TEST (test_malformed_app_counted_and_ignored)
{
  Fixture f;
  GstBuffer *sr, *junk;
  GstStructure *st;
  guint8 bad[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  guint8 rep_buf[64], trunc[64];
  gsize rep_len;
  amcc_asmp_report rep = { 0 };
  guint target_before = 0, target_after = 0;
  guint i;

  fixture_init (&f, "asmp");
  push_rtp (&f, TRUE);
  gst_buffer_unref (next_sr (&f));
  g_object_get (f.sink, "target-bitrate", &target_before, NULL);

  /* 1: ASMP report APP with a payload of the wrong length and version */
  send_rr (&f, 0x01010101, TRUE, 0, 0, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_REPORT, bad, 8);
  /* 2: a correct-length report whose version byte is wrong */
  rep.rate_bps = 100000;
  fail_unless_equals_int (amcc_asmp_report_encode (&rep, rep_buf, sizeof (rep_buf), &rep_len),
      AMCC_OK);
  rep_buf[0] ^= 0x7f;
  send_rr (&f, 0x02020202, TRUE, 0, 0, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_REPORT,
      rep_buf, rep_len);
  /* 3: ASMP APP with an unknown subtype */
  send_rr (&f, 0x03030303, TRUE, 0, 0, AMCC_ASMP_APP_NAME, 17, bad, 8);
  /* 4: another application's APP: ignored, not malformed */
  send_rr (&f, 0x04040404, TRUE, 0, 0, "XYZW", 0, bad, 8);
  /* 5: an RR whose length field claims more than was sent: invalid RTCP */
  memset (trunc, 0, sizeof (trunc));
  trunc[0] = 0x81;              /* V=2, RC=1 */
  trunc[1] = 201;
  trunc[3] = 20;                /* 84 bytes claimed, 32 sent */
  GST_WRITE_UINT32_BE (trunc + 4, 0x05050505);
  junk = gst_buffer_new_memdup (trunc, 32);
  amt_udp_send (junk, f.port + 1);
  gst_buffer_unref (junk);
  gst_buffer_unref (amt_wait_buffer (f.rtcp_in));
  /* 6: random bytes, many times */
  for (i = 0; i < 50; i++) {
    guint8 rnd[100];
    guint j, len = g_random_int_range (1, sizeof (rnd));
    for (j = 0; j < len; j++)
      rnd[j] = g_random_int_range (0, 256);
    rnd[0] = 0x80 | (rnd[0] & 0x3f);  /* look like RTCP v2 so it gets parsed */
    rnd[1] = 201;
    junk = gst_buffer_new_memdup (rnd, len);
    amt_udp_send (junk, f.port + 1);
    gst_buffer_unref (junk);
    gst_buffer_unref (amt_wait_buffer (f.rtcp_in));
  }

  /* still alive: SRs keep coming with our APP; the bad reports changed nothing */
  sr = next_sr (&f);
  gst_buffer_unref (sr);
  g_object_get (f.sink, "target-bitrate", &target_after, NULL);
  fail_unless_equals_int (target_after, target_before);
  st = stats (&f);
  fail_unless_equals_int (stat_u64 (st, "app-malformed"), 3);
  fail_unless_equals_int (stat_u64 (st, "app-received"), 3);
  /* the truncated RR and every random packet that failed validation */
  fail_unless (stat_u64 (st, "rtcp-malformed") >= 1);
  fail_unless (stat_u64 (st, "rtcp-received") == 5 + 50);
  fail_unless_equals_int (stat_u64 (st, "app-sent") > 0, TRUE);
  gst_structure_free (st);
  fixture_clear (&f);
}
GST_END_TEST;

GST_START_TEST (test_echo_bounded_by_rtcp_mtu)
{
  Fixture f;
  GstBuffer *sr;
  guint8 data[1500];
  gsize len;
  guint8 subtype;
  guint32 ssrc;
  amcc_asmp_echo_entry e[256];
  size_t n, i, total = 0;
  const guint receivers = 300;
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  guint rounds;

  /* receivers expire after receiver-timeout of the test clock's time, which every SR cranked
   * out advances by an RTCP interval: make it outlast the ten SRs below */
  /* 300 receivers from one host (loopback) that echo no SR of ours: no per-host cap, no
   * unproven budget (docs/security.md) */
  fixture_init_full (&f, "asmp", 1000, 600000, 0, 0);
  push_rtp (&f, TRUE);
  gst_buffer_unref (next_sr (&f));
  for (i = 0; i < receivers; i++)
    send_rr (&f, 0x10000000 + i, TRUE, gst_am_ntp_mid32 (gst_am_now () - 50 * GST_MSECOND),
        0, NULL, 0, NULL, 0);
  /* 300 echo entries (8 bytes each) cannot fit one RTCP packet of rtpsession's MTU (1400):
   * every SR stays within it, and round robin covers every receiver over a few SRs */
  for (rounds = 0; rounds < 10 && g_hash_table_size (seen) < receivers; rounds++) {
    sr = next_sr (&f);
    fail_unless (gst_buffer_get_size (sr) <= 1400, "RTCP %u bytes", (guint) gst_buffer_get_size (sr));
    n = G_N_ELEMENTS (e);
    fail_unless (amt_find_app (sr, AMCC_ASMP_APP_NAME, &subtype, &ssrc, data, sizeof (data), &len));
    fail_unless_equals_int (amcc_asmp_echo_decode (data, len, e, &n), AMCC_OK);
    fail_unless (n < receivers);
    for (i = 0; i < n; i++)
      g_hash_table_add (seen, GUINT_TO_POINTER (e[i].ssrc));
    total += n;
    gst_buffer_unref (sr);
  }
  fail_unless_equals_int (g_hash_table_size (seen), receivers);
  fail_unless (total >= receivers);
  g_hash_table_destroy (seen);
  fixture_clear (&f);
}
GST_END_TEST;

/* The algorithm runs on the system clock the test installed (GstTestClock): a receiver silent for
 * receiver-timeout of test-clock time is gone, however little real time passed, and a report
 * arriving before that keeps it. */
GST_START_TEST (test_receiver_timeout_on_test_clock)
{
  Fixture f;
  amcc_asmp_report rep = { 0 };
  guint8 rep_buf[64];
  gsize rep_len;
  GstClockTime t0;
  GstStructure *st;
  guint receivers = 99, rounds;

  fixture_init_iv (&f, "asmp", 100, 2000);
  push_rtp (&f, TRUE);
  gst_buffer_unref (next_sr (&f));
  rep.rate_bps = 300000;
  rep.rtt_s = 0.05;
  fail_unless_equals_int (amcc_asmp_report_encode (&rep, rep_buf, sizeof (rep_buf), &rep_len),
      AMCC_OK);
  send_rr (&f, 0xAABBCCDD, TRUE, 0, 0, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_REPORT, rep_buf,
      rep_len);
  t0 = gst_clock_get_time (GST_CLOCK (f.clock));
  gst_buffer_unref (next_sr (&f));      /* the stats property is refreshed at each SR */
  st = stats (&f);
  fail_unless (gst_structure_get_uint (st, "receivers", &receivers));
  fail_unless_equals_int (receivers, 1);
  gst_structure_free (st);
  /* 1.5 s of test-clock time later it is still there */
  for (rounds = 0; rounds < 100 && gst_clock_get_time (GST_CLOCK (f.clock)) < t0 + 1500 * GST_MSECOND;
      rounds++)
    gst_buffer_unref (next_sr (&f));
  st = stats (&f);
  fail_unless (gst_structure_get_uint (st, "receivers", &receivers));
  fail_unless_equals_int (receivers, 1);
  gst_structure_free (st);
  /* past 2 s it is gone */
  for (rounds = 0; rounds < 100 && gst_clock_get_time (GST_CLOCK (f.clock)) < t0 + 2100 * GST_MSECOND;
      rounds++)
    gst_buffer_unref (next_sr (&f));
  st = stats (&f);
  fail_unless (gst_structure_get_uint (st, "receivers", &receivers));
  fail_unless_equals_int (receivers, 0);
  gst_structure_free (st);
  fixture_clear (&f);
}
GST_END_TEST;

static guint64
report_app_block (Fixture * f, const gchar * from, guint32 ssrc, gdouble rate_bps, guint32 bye,
    gboolean block, guint32 lsr)
{
  amcc_asmp_report rep = { 0 };
  guint8 buf[64];
  gsize len;
  guint target = 0;

  rep.rate_bps = rate_bps;
  rep.rtt_s = 0.05;
  fail_unless_equals_int (amcc_asmp_report_encode (&rep, buf, sizeof (buf), &len), AMCC_OK);
  send_rr_from (f, from, ssrc, block, lsr, 0, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_REPORT, buf,
      len, bye);
  g_object_get (f->sink, "target-bitrate", &target, NULL);
  return target;
}

/* A report behind a report block that echoes the last SR (proof of reception). */
static guint64
report_app (Fixture * f, const gchar * from, guint32 ssrc, gdouble rate_bps, guint32 bye)
{
  return report_app_block (f, from, ssrc, rate_bps, bye, TRUE, 0);
}

/* issue 14's forgeries from a third host (here the loopback address 127.0.0.2): a report in the
 * honest receiver's name claiming 1 kbit/s, and a BYE for it behind a fake report of 20 Mbit/s,
 * are dropped and counted; the target stays the honest receiver's. A blind forger (127.0.0.3)
 * whose new SSRC never echoed one of our SRs is not counted either. A new SSRC from that host
 * is a receiver like any other (what binding cannot stop; docs/security.md). */
GST_START_TEST (test_forged_feedback_dropped)
{
  Fixture f;
  GstStructure *st;
  guint receivers = 0;

  fixture_init (&f, "asmp");
  push_rtp (&f, TRUE);
  gst_buffer_unref (next_sr (&f));
  fail_unless_equals_int (report_app (&f, "127.0.0.1", 0xAABBCCDD, 300000, 0), 300000);
  fail_unless_equals_int (report_app (&f, "127.0.0.2", 0xAABBCCDD, 1000, 0), 300000);
  fail_unless_equals_int (report_app (&f, "127.0.0.2", 0x66666666, 20e6, 0xAABBCCDD), 300000);
  /* a new SSRC that never echoed an SR (no block, or an LSR we never sent) does not count */
  fail_unless_equals_int (report_app_block (&f, "127.0.0.3", 0x77777777, 1000, 0, FALSE, 0),
      300000);
  fail_unless_equals_int (report_app_block (&f, "127.0.0.3", 0x77777777, 1000, 0, TRUE,
          f.last_lsr ^ 0x00ff00ff), 300000);
  gst_buffer_unref (next_sr (&f));
  st = stats (&f);
  fail_unless_equals_int (stat_u64 (st, "app-unproven"), 2);
  /* lib/cc's containment counters are published; these packets never reached it */
  fail_unless_equals_int (stat_u64 (st, "app-implausible"), 0);
  fail_unless_equals_int (stat_u64 (st, "app-limited"), 0);
  fail_unless_equals_int (stat_u64 (st, "app-damped"), 0);
  fail_unless_equals_int (stat_u64 (st, "rtcp-spoofed"), 2);
  fail_unless_equals_int (stat_u64 (st, "app-received"), 1);
  fail_unless (gst_structure_get_uint (st, "receivers", &receivers));
  fail_unless_equals_int (receivers, 1);
  gst_structure_free (st);
  /* the honest receiver goes on; the other host's own SSRC is heard */
  fail_unless_equals_int (report_app (&f, "127.0.0.1", 0xAABBCCDD, 400000, 0), 400000);
  fail_unless_equals_int (report_app (&f, "127.0.0.2", 0x66666666, 350000, 0), 350000);
  fixture_clear (&f);
}
GST_END_TEST;

static guint64
unproven_full (Fixture * f)
{
  GstStructure *st;
  guint64 n;

  gst_buffer_unref (next_sr (f));       /* the stats property is refreshed at each SR */
  st = stats (f);
  n = stat_u64 (st, "rtcp-unproven-full");
  gst_structure_free (st);
  return n;
}

/* RTCP from a new SSRC with no report block, from `from` (it may be dropped). */
static void
send_unproven (Fixture * f, const gchar * from, guint32 ssrc)
{
  send_rr_from (f, from, ssrc, FALSE, 0, 0, NULL, 0, NULL, 0, 0);
}

/* The unproven budget (max-unproven-members, here 4; docs/security.md): new SSRCs whose RTCP
 * echoes none of our SRs pass until 4 of them are live, from one address or several; then
 * further ones are dropped before rtpbin and counted (rtcp-unproven-full). A new receiver whose
 * report block echoes our last SR still comes in, and its report counts; an unproven member
 * that proves makes room; 30 s of silence (the test clock: gst_am_now) frees the budget. */
GST_START_TEST (test_unproven_budget)
{
  Fixture f;
  guint i;

  fixture_init_full (&f, "asmp", 100, 600000, 32, 4);
  push_rtp (&f, TRUE);
  gst_buffer_unref (next_sr (&f));
  /* send_rr_from's marker and three more: unproven, within the budget */
  send_rr (&f, MARKER_SSRC, FALSE, 0, 0, NULL, 0, NULL, 0);
  for (i = 0; i < 3; i++)
    send_unproven (&f, NULL, 0x0d000000 + i);
  fail_unless (amt_rtpbin_learns (f.sink, 0x0d000002));
  send_unproven (&f, "127.0.0.1", 0x0d000010);
  send_unproven (&f, "127.0.0.2", 0x0d000011);
  fail_if (amt_rtpbin_knows (f.sink, 0x0d000010) || amt_rtpbin_knows (f.sink, 0x0d000011));
  fail_unless_equals_int (unproven_full (&f), 2);
  /* a receiver that has heard us */
  fail_unless_equals_int (report_app (&f, "127.0.0.3", 0xAABBCCDD, 300000, 0), 300000);
  fail_unless (amt_rtpbin_learns (f.sink, 0xAABBCCDD));
  /* 0x0d000000 proves: room for one more */
  send_rr (&f, 0x0d000000, TRUE, 0, 0, NULL, 0, NULL, 0);
  send_unproven (&f, "127.0.0.2", 0x0d000012);
  send_unproven (&f, "127.0.0.2", 0x0d000013);
  fail_unless (amt_rtpbin_learns (f.sink, 0x0d000012));
  fail_if (amt_rtpbin_knows (f.sink, 0x0d000013));
  fail_unless_equals_int (unproven_full (&f), 3);
  /* 31 s of silence: the unproven are forgotten (the marker too, and it counts again) */
  gst_test_clock_advance_time (f.clock, 31 * GST_SECOND);
  for (i = 0; i < 3; i++)
    send_unproven (&f, "127.0.0.4", 0x0d000020 + i);
  send_unproven (&f, "127.0.0.4", 0x0d000023);
  fail_unless (amt_rtpbin_learns (f.sink, 0x0d000022));
  fail_if (amt_rtpbin_knows (f.sink, 0x0d000023));
  fail_unless_equals_int (unproven_full (&f), 4);
  fixture_clear (&f);
}
GST_END_TEST;

/* Pops every message; returns the SSRC of the last 'asmpsink-outlier' (0 = none). */
static guint
pop_outlier (Fixture * f)
{
  GstMessage *m;
  guint ssrc = 0;

  while ((m = gst_bus_pop (f->bus))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (s && gst_structure_has_name (s, "asmpsink-outlier"))
      fail_unless (gst_structure_get_uint (s, "ssrc", &ssrc));
    gst_message_unref (m);
  }
  return ssrc;
}

/* A member holding the group far below the others (here one claiming 20 kbit/s in its own
 * name, which binding cannot stop) is announced once on the bus after 10 RTCP intervals; the
 * application excludes it with the 'exclude-receiver' action signal, its reports are then
 * refused (app-excluded) and the target climbs back to the honest receiver's rate. */
GST_START_TEST (test_outlier_excluded)
{
  Fixture f;
  GstStructure *st;
  gboolean ok = FALSE;
  guint i, excluded = 0, outlier = 0, announced = 0, target = 0, floor = 0;

  fixture_init (&f, "asmp");
  push_rtp (&f, TRUE);
  gst_buffer_unref (next_sr (&f));
  for (i = 0; i < 14; i++) {
    report_app (&f, "127.0.0.1", 0xAABBCCDD, 300000, 0);
    report_app (&f, "127.0.0.2", 0x66666666, 20000, 0);
    gst_buffer_unref (next_sr (&f));
    if (pop_outlier (&f) == 0x66666666)
      announced++;
  }
  fail_unless_equals_int (announced, 1);
  st = stats (&f);
  fail_unless (gst_structure_get_uint (st, "outlier-ssrc", &outlier));
  fail_unless_equals_int (outlier, 0x66666666);
  gst_structure_free (st);
  g_object_get (f.sink, "target-bitrate", &target, "min-bitrate", &floor, NULL);
  fail_unless_equals_int (target, floor);       /* the liar rules */

  g_signal_emit_by_name (f.sink, "exclude-receiver", 0x66666666u, TRUE, &ok);
  fail_unless (ok);
  for (i = 0; i < 30; i++) {
    report_app (&f, "127.0.0.1", 0xAABBCCDD, 300000, 0);
    report_app (&f, "127.0.0.2", 0x66666666, 20000, 0);
    gst_buffer_unref (next_sr (&f));
  }
  g_object_get (f.sink, "target-bitrate", &target, NULL);
  fail_unless_equals_int (target, 300000);
  st = stats (&f);
  fail_unless (gst_structure_get_uint (st, "excluded", &excluded));
  fail_unless_equals_int (excluded, 1);
  fail_unless (gst_structure_get_uint (st, "outlier-ssrc", &outlier));
  fail_unless_equals_int (outlier, 0);
  fail_unless (stat_u64 (st, "app-excluded") >= 30);
  gst_structure_free (st);
  /* readmitted, it holds the group down again */
  g_signal_emit_by_name (f.sink, "exclude-receiver", 0x66666666u, FALSE, &ok);
  fail_unless (ok);
  fail_unless_equals_int (report_app (&f, "127.0.0.2", 0x66666666, 20000, 0), floor);
  fixture_clear (&f);
}
GST_END_TEST;

GST_START_TEST (test_tfmcc_sender_app)
{
  Fixture f;
  GstBuffer *sr;
  guint8 data[1500];
  gsize len;
  guint8 subtype;
  guint32 ssrc;
  struct amcc_tfmcc_sender_info info;

  fixture_init (&f, "tfmcc");
  push_rtp (&f, TRUE);
  sr = next_sr (&f);
  fail_unless (amt_find_app (sr, AMCC_TFMCC_APP_SENDER, &subtype, &ssrc, data, sizeof (data), &len));
  fail_unless_equals_int (ssrc, SENDER_SSRC);
  fail_unless_equals_int (len, AMCC_TFMCC_SENDER_INFO_LEN);
  fail_unless (amcc_tfmcc_sender_info_decode (&info, data, len) >= 0);
  fail_unless (info.rate_bps > 0);
  fail_unless (!amt_find_app (sr, AMCC_ASMP_APP_NAME, &subtype, &ssrc, data, sizeof (data), &len));
  gst_buffer_unref (sr);
  fixture_clear (&f);
}
GST_END_TEST;

/* TFMCC needs its sender fields more often than regular RTCP. With a 20 s RTCP interval the
 * next regular packet comes at least 20 s * 0.5 / 1.21828 = 8.2 s after the previous one
 * (RFC 3550 6.3.1 randomisation); the element's early requests (every R_max / 4, RFC 4585
 * rules: allowed once a regular packet has gone) bring the next sender APP much sooner. */
GST_START_TEST (test_tfmcc_early_rtcp)
{
  Fixture f;
  GstBuffer *b;
  guint8 data[1500];
  gsize len;
  guint8 subtype;
  guint32 ssrc;
  GstClockTime t1, t2;

  fixture_init_iv (&f, "tfmcc", 20000, 0);
  push_rtp (&f, TRUE);
  b = amt_crank_until (f.clock, f.rtcp_out, 400);
  fail_unless (b != NULL);
  t1 = gst_clock_get_time (GST_CLOCK (f.clock));
  gst_buffer_unref (b);
  push_rtp (&f, FALSE);
  b = amt_crank_until (f.clock, f.rtcp_out, 400);
  fail_unless (b != NULL);
  t2 = gst_clock_get_time (GST_CLOCK (f.clock));
  fail_unless (t2 - t1 < 8 * GST_SECOND, "next RTCP only after %" GST_TIME_FORMAT,
      GST_TIME_ARGS (t2 - t1));
  fail_unless (amt_find_app (b, AMCC_TFMCC_APP_SENDER, &subtype, &ssrc, data, sizeof (data), &len));
  gst_buffer_unref (b);
  fixture_clear (&f);
}
GST_END_TEST;

/* Bad settings fail the state change with an error that says what is wrong. */
GST_START_TEST (test_bad_settings_clear_error)
{
  GstElement *sink;
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;

  sink = gst_element_factory_make ("asmpsink", NULL);
  gst_element_set_bus (sink, bus);
  g_object_set (sink, "address", "127.0.0.1", "port", amt_free_port_pair (),
      "min-bitrate", 600000, "initial-bitrate", 500000, NULL);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (dbg && strstr (dbg, "min-bitrate") != NULL, "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_state (sink, GST_STATE_NULL);
  g_object_set (sink, "min-bitrate", 64000, "trace-dir", "/proc/self/no/such/dir", NULL);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (dbg && strstr (dbg, "/proc/self/no/such/dir") != NULL, "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (bus);
}
GST_END_TEST;

/* Both elements go up and down repeatedly (sockets, traces and lib/cc state are rebuilt). */
GST_START_TEST (test_state_cycles)
{
  gchar *dir = g_dir_make_tmp ("amcycle-XXXXXX", NULL);
  gint port = amt_free_port_pair (), i;
  GstElement *sink = gst_element_factory_make ("asmpsink", NULL);
  GstElement *src = gst_element_factory_make ("asmpsrc", NULL);
  gchar *sd, *rd;

  g_object_set (sink, "address", "127.0.0.1", "port", port, "trace-dir", dir, NULL);
  g_object_set (src, "address", "127.0.0.1", "port", amt_free_port_pair (), "trace-dir", dir,
      NULL);
  for (i = 0; i < 3; i++) {
    fail_unless (gst_element_set_state (sink, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_set_state (src, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_element_set_state (src, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  sd = g_build_filename (dir, "rate.csv", NULL);
  rd = g_build_filename (dir, "stats.csv", NULL);
  fail_unless (g_file_test (sd, G_FILE_TEST_EXISTS) && g_file_test (rd, G_FILE_TEST_EXISTS));
  gst_object_unref (sink);
  gst_object_unref (src);
  g_free (sd);
  g_free (rd);
  g_free (dir);                 /* the temporary files stay for inspection in /tmp */
}
GST_END_TEST;

/* An RR + SDES CNAME from ssrc, as rtpsession sends them (the SDES makes it a member), its
 * report block echoing our last SR (it has proven reception: no unproven budget for it). */
static void
send_member (Fixture * f, guint32 ssrc)
{
  GstBuffer *b = gst_rtcp_buffer_new (200), *seen;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;

  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt));
  gst_rtcp_packet_rr_set_ssrc (&pkt, ssrc);
  fail_unless (gst_rtcp_packet_add_rb (&pkt, SENDER_SSRC, 0, 0, f->seq, 0, f->last_lsr, 0));
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SDES, &pkt));
  fail_unless (gst_rtcp_packet_sdes_add_item (&pkt, ssrc));
  fail_unless (gst_rtcp_packet_sdes_add_entry (&pkt, GST_RTCP_SDES_CNAME, 4,
          (const guint8 *) "peer"));
  gst_rtcp_buffer_unmap (&rtcp);
  amt_udp_send (b, f->port + 1);
  gst_buffer_unref (b);
  seen = amt_wait_buffer (f->rtcp_in);
  fail_unless (seen != NULL, "RTCP not received by asmpsink");
  gst_buffer_unref (seen);
}

/* lib/cc hears the receivers' RTCP interval as rtpsession computes it, and with
 * receiver-timeout 0 its receiver timeout is 3 of them. At 64 kbit/s of RTP (the bandwidth
 * set) RTCP gets 3200 bit/s; 20 receivers and us: 1 sender <= 21 / 4, so the 20 receivers
 * share 3/4 of it, 300 B/s: Td = 20 x size / 300 s for a mean packet between 52 B (their RR +
 * SDES, 8 + 16 + 28 B; 24 B more with the block) and 250 B (our SRs with SDES and the echo): in
 * [3.4, 16.7] s, far above the 0.1 s minimum the element was given. They have proven
 * reception: all 20 pass, beyond max-unproven-members (16). */
GST_START_TEST (test_rtcp_interval_reaches_cc)
{
  Fixture f;
  GstElement *rtpbin;
  GObject *session = NULL;
  GstStructure *st;
  gdouble iv = 0, timeout = 0;
  guint i;

  fixture_init_iv (&f, "asmp", 100, 0);
  rtpbin = gst_bin_get_by_name (GST_BIN (f.sink), "rtpbin");
  g_signal_emit_by_name (rtpbin, "get-internal-session", 0, &session);
  g_object_set (session, "bandwidth", 64000.0, NULL);
  gst_buffer_unref (next_sr (&f));
  for (i = 0; i < 20; i++)
    send_member (&f, 0x0c000000 + i);
  gst_buffer_unref (next_sr (&f));
  st = stats (&f);
  fail_unless (gst_structure_get_double (st, "rtcp-interval-s", &iv));
  fail_unless (gst_structure_get_double (st, "receiver-timeout-s", &timeout));
  gst_structure_free (st);
  fail_unless (iv >= 3.4 && iv <= 16.7, "the receivers' RTCP interval %.3f s", iv);
  fail_unless (fabs (timeout - 3 * iv) < 1e-6, "lib/cc's receiver timeout %.3f s for a %.3f s "
      "interval", timeout, iv);
  g_object_unref (session);
  gst_object_unref (rtpbin);
  fixture_clear (&f);
}
GST_END_TEST;

static Suite *
asmpsink_suite (void)
{
  Suite *s = suite_create ("asmpsink");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sr_carries_echo_and_report_sets_target);
  tcase_add_test (tc, test_malformed_app_counted_and_ignored);
  tcase_add_test (tc, test_echo_bounded_by_rtcp_mtu);
  tcase_add_test (tc, test_receiver_timeout_on_test_clock);
  tcase_add_test (tc, test_forged_feedback_dropped);
  tcase_add_test (tc, test_unproven_budget);
  tcase_add_test (tc, test_outlier_excluded);
  tcase_add_test (tc, test_tfmcc_sender_app);
  tcase_add_test (tc, test_tfmcc_early_rtcp);
  tcase_add_test (tc, test_bad_settings_clear_error);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_rtcp_interval_reaches_cc);
  return s;
}

GST_CHECK_MAIN (asmpsink);

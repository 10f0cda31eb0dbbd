/* test-helpers.c - the element helpers in gst/common: frame typing from RTP payloads (H.264
 * RFC 6184, VP8 RFC 7741), sequence extension, NTP conversion, header-extension stamps, APP
 * appending within the RTCP MTU, a fuzzed RTCP walk, the SDP text, the trace line format,
 * rtpsession's RTCP interval and a receiver's BYE packet. */
#include "amgsttest.h"
#include <glib/gstdio.h>
#include "common/gstamcc.h"
#include "common/gstamguard.h"
#include <gst/net/gstnetaddressmeta.h>
#include "common/gstamnet.h"
#include "common/gstamsdp.h"
#include "common/gstamtrace.h"

/* A protocol blurb lists what the registry accepts: every single-stream protocol's name, in
 * "a, b or c" form between the caller's lead and tail. */
GST_START_TEST (test_enum_blurb)
{
  static const GEnumValue one[] = { {0, "A", "a"}, {0, NULL, NULL} };
  static const GEnumValue three[] = { {0, "A", "a"}, {1, "B", "b"}, {2, "C", "c"},
    {0, NULL, NULL} };
  GType t1 = g_enum_register_static ("AmtBlurbOne", one);
  GType t3 = g_enum_register_static ("AmtBlurbThree", three);
  const gchar *b = gst_am_enum_blurb (GST_TYPE_AM_PROTOCOL, "P: ", ".");
  gsize i, listed = 0;

  fail_unless_equals_string (gst_am_enum_blurb (t1, "x ", " y"), "x a y");
  fail_unless_equals_string (gst_am_enum_blurb (t3, "", ""), "a, b or c");
  /* the same text twice: one interned string */
  fail_unless (gst_am_enum_blurb (t3, "", "") == gst_am_enum_blurb (t3, "", ""));
  fail_unless (g_str_has_prefix (b, "P: ") && g_str_has_suffix (b, "."));
  for (i = 0; i < amcc_protocol_count (); i++) {
    const amcc_protocol *p = amcc_protocol_at (i);
    if (p->max_streams != 1 || p->max_layers)
      continue;
    fail_unless (strstr (b, p->name) != NULL, "%s missing from '%s'", p->name, b);
    listed++;
  }
  fail_unless (listed >= 3, "asmp, tfmcc and pgmcc at least: %s", b);     /* pgmcc was missed */
  fail_unless (strstr (b, "pgmcc") != NULL);
}
GST_END_TEST;

GST_START_TEST (test_h264_types)
{
  const guint8 idr[] = { 0x65, 0x88, 0x80 };
  const guint8 p_slice[] = { 0x41, 0xc0 };           /* first_mb 0, slice_type 0 (P) */
  const guint8 b_slice[] = { 0x41, 0xa0 };           /* slice_type 1 (B) */
  const guint8 p5[] = { 0x41, 0x98 };                /* slice_type 5 (P, all slices) */
  const guint8 i7[] = { 0x41, 0x88 };                /* slice_type 7 (I) */
  const guint8 sps[] = { 0x67, 0x42, 0xc0, 0x0d };
  const guint8 stap_ps[] = { 0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce };
  const guint8 stap_idr[] = { 0x78, 0, 2, 0x67, 0x42, 0, 2, 0x65, 0x88 };
  const guint8 stap_bad[] = { 0x78, 0, 200, 0x67 };  /* size beyond the packet */
  const guint8 fu_idr_start[] = { 0x7c, 0x85, 0x88 };
  const guint8 fu_cont[] = { 0x7c, 0x05, 0x11 };
  const guint8 fu_b_start[] = { 0x5c, 0x81, 0xa0 };
  /* first_mb_in_slice with 23 leading zero bits, then slice_type 1 (B); the RBSP
   * 00 00 01 00 00 00 80 needs two emulation-prevention bytes */
  const guint8 escaped[] = { 0x41, 0, 0, 3, 1, 0, 0, 3, 0, 0x80 };

  fail_unless_equals_int (gst_am_h264_payload_type (idr, sizeof (idr)), 'I');
  fail_unless_equals_int (gst_am_h264_payload_type (p_slice, sizeof (p_slice)), 'P');
  fail_unless_equals_int (gst_am_h264_payload_type (b_slice, sizeof (b_slice)), 'B');
  fail_unless_equals_int (gst_am_h264_payload_type (p5, sizeof (p5)), 'P');
  fail_unless_equals_int (gst_am_h264_payload_type (i7, sizeof (i7)), 'I');
  fail_unless_equals_int (gst_am_h264_payload_type (sps, sizeof (sps)), 'H');
  fail_unless_equals_int (gst_am_h264_payload_type (stap_ps, sizeof (stap_ps)), 'H');
  fail_unless_equals_int (gst_am_h264_payload_type (stap_idr, sizeof (stap_idr)), 'I');
  fail_unless_equals_int (gst_am_h264_payload_type (stap_bad, sizeof (stap_bad)), 0);
  fail_unless_equals_int (gst_am_h264_payload_type (fu_idr_start, sizeof (fu_idr_start)), 'I');
  fail_unless_equals_int (gst_am_h264_payload_type (fu_cont, sizeof (fu_cont)), 0);
  fail_unless_equals_int (gst_am_h264_payload_type (fu_b_start, sizeof (fu_b_start)), 'B');
  fail_unless_equals_int (gst_am_h264_payload_type (escaped, sizeof (escaped)), 'B');
  fail_unless_equals_int (gst_am_h264_payload_type (idr, 0), 0);
  fail_unless_equals_int (gst_am_h264_payload_type (fu_idr_start, 1), 0);
}
GST_END_TEST;

GST_START_TEST (test_vp8_types_and_framer)
{
  const guint8 key[] = { 0x10, 0x00, 0x9d };
  const guint8 inter[] = { 0x10, 0x01, 0x00 };
  const guint8 key_ext[] = { 0x90, 0x80, 0x81, 0x23, 0x00 };  /* X, I, 15-bit picture id */
  const guint8 cont[] = { 0x00, 0x55 };
  const guint8 trunc_ext[] = { 0x90, 0x80, 0x81 };
  GstAmFramer fr;
  guint64 frame = 99;

  fail_unless_equals_int (gst_am_vp8_payload_type (key, sizeof (key)), 'I');
  fail_unless_equals_int (gst_am_vp8_payload_type (inter, sizeof (inter)), 'P');
  fail_unless_equals_int (gst_am_vp8_payload_type (key_ext, sizeof (key_ext)), 'I');
  fail_unless_equals_int (gst_am_vp8_payload_type (cont, sizeof (cont)), 0);
  fail_unless_equals_int (gst_am_vp8_payload_type (trunc_ext, sizeof (trunc_ext)), 0);

  /* frames are numbered by RTP timestamp and marker bit; continuation packets take the frame's
   * type */
  gst_am_framer_init (&fr, GST_AM_CODEC_VP8);
  fail_unless_equals_int (gst_am_framer_packet (&fr, 1000, FALSE, key, sizeof (key), &frame), 'I');
  fail_unless_equals_int (frame, 0);
  fail_unless_equals_int (gst_am_framer_packet (&fr, 1000, FALSE, cont, sizeof (cont), &frame), 'I');
  fail_unless_equals_int (frame, 0);
  fail_unless_equals_int (gst_am_framer_packet (&fr, 4000, FALSE, inter, sizeof (inter), &frame), 'P');
  fail_unless_equals_int (frame, 1);
  fail_unless_equals_int (gst_am_framer_packet (&fr, 4000, TRUE, cont, sizeof (cont), &frame), 'P');
  fail_unless_equals_int (gst_am_framer_packet (&fr, 7000, FALSE, cont, sizeof (cont), &frame), 'H');
  fail_unless_equals_int (frame, 2);
  /* two access units with one timestamp (a loaded live source): the marker bit separates them */
  fail_unless_equals_int (gst_am_framer_packet (&fr, 7000, TRUE, inter, sizeof (inter), &frame), 'P');
  fail_unless_equals_int (frame, 2);
  fail_unless_equals_int (gst_am_framer_packet (&fr, 7000, TRUE, key, sizeof (key), &frame), 'I');
  fail_unless_equals_int (frame, 3);
}
GST_END_TEST;

GST_START_TEST (test_seq_extend_and_ntp)
{
  amcc_seq_ext s = { 0 };
  gint64 ns = G_GINT64_CONSTANT (1795334241734300901);

  fail_unless_equals_int (amcc_seq_ext_update (&s, 65534), 65534);
  fail_unless_equals_int (amcc_seq_ext_update (&s, 65535), 65535);
  fail_unless_equals_int (amcc_seq_ext_update (&s, 0), 65536);
  fail_unless_equals_int (amcc_seq_ext_update (&s, 65535), 65535);   /* reordered */
  fail_unless_equals_int (amcc_seq_ext_update (&s, 2), 65538);
  /* NTP era 0: 1970 is 2208988800 s after 1900 */
  fail_unless_equals_uint64 (amcc_ntp64_from_unix (0) >> 32, G_GUINT64_CONSTANT (2208988800));
  fail_unless (ABS (amcc_unix_from_ntp64 (amcc_ntp64_from_unix (ns)) - ns) <= 1);
  fail_unless_equals_int (gst_am_ntp_mid32 (ns), (guint32) (amcc_ntp64_from_unix (gst_am_wall (ns)) >> 16));
}
GST_END_TEST;

GST_START_TEST (test_rtp_stamp_roundtrip)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (100, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstAmRtpInfo info;
  gint64 now = G_GINT64_CONSTANT (86400123456789);   /* a day of system-clock time */

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, 0xdeadbeef);
  gst_rtp_buffer_set_seq (&rtp, 7);
  gst_rtp_buffer_set_timestamp (&rtp, 90000);
  gst_rtp_buffer_unmap (&rtp);
  fail_unless (gst_am_rtp_read (b, &info));
  fail_if (info.has_send_time || info.has_extseq);
  fail_unless (gst_am_rtp_stamp (&b, now, 65536 + 7));
  fail_unless (gst_am_rtp_read (b, &info));
  fail_unless (info.has_send_time && info.has_extseq);
  fail_unless_equals_int (info.ssrc, 0xdeadbeef);
  fail_unless_equals_int (info.seq, 7);
  fail_unless_equals_int (info.rtp_ts, 90000);
  fail_unless_equals_int (info.extseq, 65536 + 7);
  fail_unless (ABS (info.send_time_ns - now) <= 1);
  /* 12 header + 4 extension header + (1 + 8) + (1 + 4) padded to 16 + 100 payload */
  fail_unless_equals_int (info.size, 12 + 4 + 16 + 100);
  gst_buffer_unref (b);
  /* not RTP */
  b = gst_buffer_new_memdup ("\x00\x01\x02", 3);
  fail_if (gst_am_rtp_read (b, &info));
  gst_buffer_unref (b);
}
GST_END_TEST;

GST_START_TEST (test_app_append_respects_mtu)
{
  GstBuffer *b = gst_rtcp_buffer_new (100);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  guint8 data[128] = { 0 };

  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt));
  gst_rtcp_buffer_unmap (&rtcp);
  /* 100-byte MTU - 8 bytes of RR - 12 bytes of APP header */
  fail_unless_equals_int (gst_am_rtcp_app_room (b), 80);
  fail_if (gst_am_rtcp_append_app (b, 1, 1, "TEST", data, 84));
  fail_if (gst_am_rtcp_append_app (b, 1, 1, "TEST", data, 6));     /* not whole words */
  fail_unless (gst_rtcp_buffer_validate (b));
  fail_unless_equals_int (gst_buffer_get_size (b), 8);
  fail_unless (gst_am_rtcp_append_app (b, 1, 1, "TEST", data, 80));
  fail_unless_equals_int (gst_buffer_get_size (b), 100);
  fail_unless (gst_rtcp_buffer_validate (b));
  fail_unless_equals_int (gst_am_rtcp_app_room (b), 0);
  gst_buffer_unref (b);

  /* only compound packets that start with SR/RR get an APP */
  b = gst_rtcp_buffer_new (1400);
  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SDES, &pkt));
  gst_rtcp_buffer_unmap (&rtcp);
  fail_unless_equals_int (gst_am_rtcp_app_room (b), 0);
  fail_if (gst_am_rtcp_append_app (b, 1, 1, "TEST", data, 8));
  gst_buffer_unref (b);

  /* nor after a BYE: the BYE stays last */
  b = gst_rtcp_buffer_new (1400);
  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt));
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_BYE, &pkt));
  gst_rtcp_packet_bye_add_ssrc (&pkt, 5);
  gst_rtcp_buffer_unmap (&rtcp);
  fail_unless_equals_int (gst_am_rtcp_app_room (b), 0);
  fail_if (gst_am_rtcp_append_app (b, 1, 1, "TEST", data, 8));
  gst_buffer_unref (b);
}
GST_END_TEST;

typedef struct {
  guint srs, blocks, apps, byes;
} Seen;
static void v_sr (gpointer u, guint32 s) { ((Seen *) u)->srs++; }
static void v_rb (gpointer u, guint32 r, guint32 a, guint32 l, guint32 d) { ((Seen *) u)->blocks++; }
static void v_app (gpointer u, guint32 s, const gchar * n, guint8 st, const guint8 * d, gsize len)
{
  ((Seen *) u)->apps++;
  if (len)
    fail_unless (d != NULL);
}
static void v_bye (gpointer u, guint32 s) { ((Seen *) u)->byes++; }

GST_START_TEST (test_rtcp_walk_fuzz)
{
  static const GstAmRtcpVisitor v = { v_sr, v_rb, v_app, v_bye };
  GstBuffer *b = gst_rtcp_buffer_new (1400);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  guint8 app[16] = { 1, 2, 3, 4 };
  Seen seen = { 0 };
  GstMapInfo map;
  guint8 *orig;
  gsize len;
  guint i;
  GRand *rnd = g_rand_new_with_seed (1234);

  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SR, &pkt);
  gst_rtcp_packet_sr_set_sender_info (&pkt, 1, 2, 3, 4, 5);
  gst_rtcp_packet_add_rb (&pkt, 9, 0, 0, 0, 0, 0, 0);
  gst_rtcp_packet_add_rb (&pkt, 10, 0, 0, 0, 0, 0, 0);
  gst_rtcp_buffer_unmap (&rtcp);
  fail_unless (gst_am_rtcp_append_app (b, 2, 1, "ASMP", app, sizeof (app)));
  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_BYE, &pkt);
  gst_rtcp_packet_bye_add_ssrc (&pkt, 77);
  gst_rtcp_buffer_unmap (&rtcp);
  fail_unless (gst_am_rtcp_walk (b, &v, &seen));
  fail_unless_equals_int (seen.srs, 1);
  fail_unless_equals_int (seen.blocks, 2);
  fail_unless_equals_int (seen.byes, 1);
  fail_unless_equals_int (seen.apps, 1);

  gst_buffer_map (b, &map, GST_MAP_READ);
  len = map.size;
  orig = g_memdup2 (map.data, len);
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  /* truncations, bit flips and random lengths: the walk never reads out of bounds (run under
   * valgrind/ASan to see it) and never reports more than the buffer can hold */
  for (i = 0; i < 20000; i++) {
    guint8 *m = g_memdup2 (orig, len);
    gsize n = i < len ? i + 1 : (gsize) g_rand_int_range (rnd, 1, len + 1);
    guint flips = g_rand_int_range (rnd, 0, 4), j;
    for (j = 0; j < flips; j++)
      m[g_rand_int_range (rnd, 0, n)] ^= 1 << g_rand_int_range (rnd, 0, 8);
    b = gst_buffer_new_wrapped (m, n);
    memset (&seen, 0, sizeof (seen));
    if (gst_am_rtcp_walk (b, &v, &seen))
      fail_unless (seen.blocks * 24 + seen.apps * 12 + seen.byes * 4 <= n);
    gst_buffer_unref (b);
  }
  g_free (orig);
  g_rand_free (rnd);
}
GST_END_TEST;

GST_START_TEST (test_sdp_text)
{
  GstAmNetConfig net;
  GstCaps *caps = gst_caps_from_string ("application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96,packetization-mode=(string)1,ssrc=(uint)42");
  gchar *sdp;

  gst_am_net_config_init (&net);
  sdp = gst_am_sdp_text (caps, &net, 42);
  fail_unless (sdp != NULL);
  fail_unless (strstr (sdp, "c=IN IP4 239.1.2.3/1\r\n") != NULL, "%s", sdp);
  fail_unless (strstr (sdp, "m=video 5004 RTP/AVP 96\r\n") != NULL, "%s", sdp);
  fail_unless (strstr (sdp, "a=rtpmap:96 H264/90000\r\n") != NULL, "%s", sdp);
  fail_unless (strstr (sdp, "a=rtcp:5005\r\n") != NULL, "%s", sdp);
  fail_unless (strstr (sdp, "a=extmap:1 urn:ietf:params:rtp-hdrext:ntp-64\r\n") != NULL);
  fail_unless (strstr (sdp, "packetization-mode=1") != NULL, "%s", sdp);
  g_free (sdp);
  /* unicast: no TTL */
  g_free (net.address);
  net.address = g_strdup ("10.0.0.2");
  sdp = gst_am_sdp_text (caps, &net, 42);
  fail_unless (strstr (sdp, "c=IN IP4 10.0.0.2\r\n") != NULL, "%s", sdp);
  g_free (sdp);
  gst_am_net_config_clear (&net);
  gst_caps_unref (caps);
}
GST_END_TEST;

/* An RTCP compound from `from` (NULL: no address meta): an RR of `rr` (0: none), then SDES
 * chunks for `sdes` SSRCs numbered from `rr` (in SDES packets of 31), then a BYE of `bye` (0: none). */
static GstBuffer *
rtcp_from (const gchar * from, guint32 rr, guint sdes, guint32 bye)
{
  GstBuffer *b = gst_rtcp_buffer_new (1400);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  guint i;

  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  if (rr) {
    fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &p));
    gst_rtcp_packet_rr_set_ssrc (&p, rr);
  }
  for (i = 0; i < sdes; i++) {         /* an SDES packet holds 31 chunks at most */
    if (i % 31 == 0)
      fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SDES, &p));
    fail_unless (gst_rtcp_packet_sdes_add_item (&p, rr + i));
  }
  if (bye) {
    fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_BYE, &p));
    fail_unless (gst_rtcp_packet_bye_add_ssrc (&p, bye));
  }
  gst_rtcp_buffer_unmap (&rtcp);
  if (from) {
    GInetAddress *ia = g_inet_address_new_from_string (from);
    GSocketAddress *sa = g_inet_socket_address_new (ia, 5005);
    gst_buffer_add_net_address_meta (b, sa);
    g_object_unref (sa);
    g_object_unref (ia);
  }
  return b;
}

static GstAmGuardVerdict
check_from (GstAmSourceGuard * g, gint64 now, const gchar * from, guint32 rr, guint sdes,
    guint32 bye)
{
  GstBuffer *b = rtcp_from (from, rr, sdes, bye);
  GstAmGuardVerdict v = gst_am_source_guard_check (g, b, now);

  gst_buffer_unref (b);
  return v;
}

/* Source-address binding of SSRCs (docs/security.md): reports and BYEs in another host's name
 * are dropped, all or nothing per compound packet; the owner's BYE or silence releases the
 * SSRC; the table is capped. */
GST_START_TEST (test_source_guard)
{
  GstAmSourceGuard *g = gst_am_source_guard_new (30 * GST_SECOND, GST_AM_GUARD_MAX_PER_HOST, 0, 0);
  gint64 t = 100 * GST_SECOND;
  guint i;

  fail_unless_equals_int (check_from (g, t, "10.0.0.1", 0xA, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.0.1", 0xA, 0, 0), GST_AM_GUARD_PASS);
  /* another host: as the same SSRC, or saying BYE for it after an RR of its own */
  fail_unless_equals_int (check_from (g, t, "10.0.0.9", 0xA, 0, 0), GST_AM_GUARD_SPOOFED);
  fail_unless_equals_int (check_from (g, t, "10.0.0.9", 0xB, 0, 0xA), GST_AM_GUARD_SPOOFED);
  fail_unless_equals_int (gst_am_source_guard_size (g), 1);   /* 0xB was not bound either */
  fail_unless_equals_int (check_from (g, t, "::ffff:10.0.0.1", 0xA, 0, 0), GST_AM_GUARD_SPOOFED);
  /* no address to check (not from a socket): passes */
  fail_unless_equals_int (check_from (g, t, NULL, 0xA, 0, 0xA), GST_AM_GUARD_PASS);
  /* the owner's BYE releases it; then another host may take the SSRC */
  fail_unless_equals_int (check_from (g, t, "10.0.0.1", 0, 0, 0xA), GST_AM_GUARD_PASS);
  fail_unless_equals_int (gst_am_source_guard_size (g), 0);
  fail_unless_equals_int (check_from (g, t, "10.0.0.9", 0xA, 0, 0), GST_AM_GUARD_PASS);
  /* silence for longer than the forget time releases it too */
  fail_unless_equals_int (check_from (g, t + 29 * GST_SECOND, "10.0.0.1", 0xA, 0, 0),
      GST_AM_GUARD_SPOOFED);
  fail_unless_equals_int (check_from (g, t + 31 * GST_SECOND, "10.0.0.1", 0xA, 0, 0),
      GST_AM_GUARD_PASS);
  /* one packet speaking for more SSRCs than any member would */
  fail_unless_equals_int (check_from (g, t, "10.0.0.5", 0x100, 31, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.0.5", 0x200, 64, 0), GST_AM_GUARD_SPOOFED);
  gst_am_source_guard_free (g);

  /* the cap: new SSRCs beyond it are dropped until silent ones are forgotten (from 64 hosts:
   * one host may not bind more than GST_AM_GUARD_MAX_PER_HOST) */
  g = gst_am_source_guard_new (30 * GST_SECOND, GST_AM_GUARD_MAX_PER_HOST, 0, 0);
  for (i = 0; i < GST_AM_GUARD_MAX_SSRCS; i++) {
    gchar *host = g_strdup_printf ("10.0.1.%u", i % 64 + 1);
    fail_unless_equals_int (check_from (g, t, host, 0x1000 + i, 0, 0), GST_AM_GUARD_PASS);
    g_free (host);
  }
  fail_unless_equals_int (check_from (g, t, "10.0.0.3", 0x9999, 0, 0), GST_AM_GUARD_FULL);
  fail_unless_equals_int (check_from (g, t, "10.0.1.1", 0x1000, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t + 31 * GST_SECOND, "10.0.0.3", 0x9999, 0, 0),
      GST_AM_GUARD_PASS);
  fail_unless_equals_int (gst_am_source_guard_size (g), 1);
  gst_am_source_guard_free (g);

  /* one host cannot grow the member count: past GST_AM_GUARD_MAX_PER_HOST live SSRCs its new
   * ones are dropped (a whole packet: 0x700 + 31 more would exceed it), other hosts still join,
   * its BYE or silence makes room again */
  g = gst_am_source_guard_new (30 * GST_SECOND, GST_AM_GUARD_MAX_PER_HOST, 0, 0);
  for (i = 0; i < GST_AM_GUARD_MAX_PER_HOST - 1; i++)
    fail_unless_equals_int (check_from (g, t, "10.0.0.7", 0x2000 + i, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.0.7", 0x700, 31, 0), GST_AM_GUARD_CROWDED);
  fail_unless_equals_int (check_from (g, t, "10.0.0.7", 0x3000, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.0.7", 0x3001, 0, 0), GST_AM_GUARD_CROWDED);
  fail_unless_equals_int (check_from (g, t, "10.0.0.7", 0x2000, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.0.8", 0x3001, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.0.7", 0x2000, 0, 0x2000), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.0.7", 0x3002, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t + 31 * GST_SECOND, "10.0.0.7", 0x3003, 0, 0),
      GST_AM_GUARD_PASS);
  gst_am_source_guard_free (g);
}

GST_END_TEST;

/* An RR of rr from `from` with one report block about `about` (LSR lsr, DLSR dlsr), or an SR of
 * rr (NTP middle bits lsr, no block) when about is 0. */
static GstAmGuardVerdict
check_block (GstAmSourceGuard * g, gint64 now, const gchar * from, guint32 rr, guint32 about,
    guint32 lsr, guint32 dlsr)
{
  GstBuffer *b = rtcp_from (from, 0, 0, 0);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  GstAmGuardVerdict v;

  gst_rtcp_buffer_map (b, GST_MAP_READWRITE, &rtcp);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, about ? GST_RTCP_TYPE_RR : GST_RTCP_TYPE_SR,
          &p));
  if (about) {
    gst_rtcp_packet_rr_set_ssrc (&p, rr);
    fail_unless (gst_rtcp_packet_add_rb (&p, about, 0, 0, 0, 0, lsr, dlsr));
  } else {
    gst_rtcp_packet_sr_set_sender_info (&p, rr, (guint64) lsr << 16, 0, 0, 0);
  }
  gst_rtcp_buffer_unmap (&rtcp);
  v = gst_am_source_guard_check (g, b, now);
  gst_buffer_unref (b);
  return v;
}

#define STREAM 0x5000u
#define LSR 0x12345678u
#define MS_DLSR(ms) ((guint32) ((ms) * 65536 / 1000))

/* The unproven-member budget (docs/security.md): past max_unproven live SSRCs that have not
 * proven reception, new unproven SSRCs are dropped, from any address; a report block echoing a
 * recent SR of the stream proves (and lets a new SSRC in while the budget is full), proven
 * SSRCs and the stream itself do not count, silence frees the budget, 0 = no limit. */
GST_START_TEST (test_unproven_budget)
{
  GstAmSourceGuard *g = gst_am_source_guard_new (30 * GST_SECOND, GST_AM_GUARD_MAX_PER_HOST, 4, 0);
  gint64 t = 100 * GST_SECOND;
  guint i;

  gst_am_source_guard_set_stream (g, STREAM, FALSE);
  gst_am_source_guard_note_sr (g, t - GST_SECOND, LSR);      /* our SR, sent 1 s ago */
  /* four hosts, one unproven SSRC each (an RR + SDES of one SSRC counts once) */
  fail_unless_equals_int (check_from (g, t, "10.0.2.1", 0xA1, 1, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.2.2", 0xA2, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.2.3", 0xA3, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.2.4", 0xA4, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (gst_am_source_guard_unproven (g, t), 4);
  /* the budget is full: a fifth, from a new host or an old one, is dropped */
  fail_unless_equals_int (check_from (g, t, "10.0.2.5", 0xA5, 0, 0), GST_AM_GUARD_UNPROVEN);
  fail_unless_equals_int (check_from (g, t, "10.0.2.1", 0xA6, 0, 0), GST_AM_GUARD_UNPROVEN);
  /* blocks that prove nothing: an LSR we never sent, a DLSR longer than since the SR (1 s), a
   * block about another SSRC */
  fail_unless_equals_int (check_block (g, t, "10.0.2.5", 0xA5, STREAM, LSR + 1, 0),
      GST_AM_GUARD_UNPROVEN);
  fail_unless_equals_int (check_block (g, t, "10.0.2.5", 0xA5, STREAM, LSR, MS_DLSR (1100)),
      GST_AM_GUARD_UNPROVEN);
  fail_unless_equals_int (check_block (g, t, "10.0.2.5", 0xA5, 0x6000, LSR, 0),
      GST_AM_GUARD_UNPROVEN);
  /* members already bound go on; the stream's own SSRC is not counted, and an SR in our name
   * from the group (a forgery) does not make its NTP time one of ours */
  fail_unless_equals_int (check_from (g, t, "10.0.2.2", 0xA2, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_block (g, t, "10.0.2.9", STREAM, 0, LSR + 2, 0),
      GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_block (g, t, "10.0.2.9", 0xA9, STREAM, LSR + 2, 0),
      GST_AM_GUARD_UNPROVEN);
  /* a new SSRC whose block echoes our SR (held 0.9 s of the 1 s since) comes in: proven */
  fail_unless_equals_int (check_block (g, t, "10.0.2.5", 0xA5, STREAM, LSR, MS_DLSR (900)),
      GST_AM_GUARD_PASS);
  fail_unless_equals_int (gst_am_source_guard_unproven (g, t), 4);
  /* an unproven member that proves leaves the budget: one more may join */
  fail_unless_equals_int (check_block (g, t, "10.0.2.3", 0xA3, STREAM, LSR, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (gst_am_source_guard_unproven (g, t), 3);
  fail_unless_equals_int (check_from (g, t, "10.0.2.6", 0xA7, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.2.6", 0xA8, 0, 0), GST_AM_GUARD_UNPROVEN);
  /* silence: past the forget time the unproven are gone (0xA2 spoke last at t as well) */
  t += 31 * GST_SECOND;
  fail_unless_equals_int (gst_am_source_guard_unproven (g, t), 0);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (check_from (g, t, "10.0.2.7", 0xB0 + i, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.2.7", 0xB4, 0, 0), GST_AM_GUARD_UNPROVEN);
  /* ... and so is a proof: 0xA3, silent as long, counts again when it comes back unproven */
  fail_unless_equals_int (check_from (g, t, "10.0.2.3", 0xA3, 0, 0), GST_AM_GUARD_UNPROVEN);
  gst_am_source_guard_free (g);

  /* a receiver: the sender's SR passes through the guard and is remembered as it arrived; a
   * peer nearer the sender held it up to GST_AM_GUARD_PEER_SLACK longer than we have */
  g = gst_am_source_guard_new (30 * GST_SECOND, GST_AM_GUARD_MAX_PER_HOST, 1,
      GST_AM_GUARD_PEER_SLACK);
  gst_am_source_guard_set_stream (g, STREAM, TRUE);
  fail_unless_equals_int (check_block (g, t, "10.0.3.1", STREAM, 0, LSR, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_from (g, t, "10.0.3.2", 0xC1, 0, 0), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_block (g, t + 100 * GST_MSECOND, "10.0.3.3", 0xC2, STREAM, LSR,
          MS_DLSR (550)), GST_AM_GUARD_PASS);
  fail_unless_equals_int (check_block (g, t + 100 * GST_MSECOND, "10.0.3.3", 0xC3, STREAM, LSR,
          MS_DLSR (650)), GST_AM_GUARD_UNPROVEN);
  /* another sender: the old one's SRs prove nothing */
  gst_am_source_guard_set_stream (g, STREAM + 1, TRUE);
  fail_unless_equals_int (check_block (g, t, "10.0.3.3", 0xC4, STREAM + 1, LSR, 0),
      GST_AM_GUARD_UNPROVEN);
  gst_am_source_guard_free (g);

  /* 0 = no limit */
  g = gst_am_source_guard_new (30 * GST_SECOND, GST_AM_GUARD_MAX_PER_HOST, 0, 0);
  for (i = 0; i < 200; i++) {
    gchar *host = g_strdup_printf ("10.0.4.%u", i + 1);
    fail_unless_equals_int (check_from (g, t, host, 0xD000 + i, 0, 0), GST_AM_GUARD_PASS);
    g_free (host);
  }
  fail_unless_equals_int (gst_am_source_guard_unproven (g, t), 200);
  gst_am_source_guard_free (g);
}

GST_END_TEST;

/* the gst_am_now() time that traces print as Unix time ns */
#define ON_WALL(ns) (G_GINT64_CONSTANT (ns) - gst_am_wall (0))

GST_START_TEST (test_trace_lines)
{
  gchar *dir = g_dir_make_tmp ("amtrace-XXXXXX", NULL);
  gchar *sub = g_build_filename (dir, "a", "b", NULL);
  gchar *path, *text = NULL;
  GstAmTrace *t;
  GError *err = NULL;

  t = gst_am_trace_open (sub, "sd.txt", NULL, &err);
  fail_unless (t != NULL);
  gst_am_trace_sd (t, ON_WALL (1000001999), gst_am_wide_id (1, 5), 100, 3, 'I');
  gst_am_trace_rd (t, ON_WALL (2000000000), gst_am_wide_id (0xffffffff, 0xffffffff), 7);
  gst_am_trace_close (t);
  path = g_build_filename (sub, "sd.txt", NULL);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless_equals_string (text, "1.000001 id 4294967301 udp 100 3 I\n"
      "2.000000 id 18446744073709551615 udp 7\n");
  g_free (text);
  /* a directory that cannot be created (a file is in the way): a clear error */
  text = g_build_filename (sub, "sd.txt", "x", NULL);
  fail_unless (gst_am_trace_open (text, "sd.txt", NULL, &err) == NULL);
  fail_unless (err != NULL && strstr (err->message, "cannot create") != NULL);
  g_clear_error (&err);
  g_free (text);
  g_unlink (path);
  g_free (path);
  g_rmdir (sub);
  path = g_build_filename (dir, "a", NULL);
  g_rmdir (path);
  g_free (path);
  g_rmdir (dir);
  g_free (sub);
  g_free (dir);
}
GST_END_TEST;

/* a stream re-joined inside asspsrc appends to its traces: the first stay's lines survive and
 * the CSV header is written once; a plain open still truncates */
GST_START_TEST (test_trace_append)
{
  gchar *dir = g_dir_make_tmp ("amtrace-XXXXXX", NULL);
  gchar *rd = g_build_filename (dir, "rd.txt", NULL), *st = g_build_filename (dir, "stats.csv", NULL);
  gchar *text = NULL;
  GstAmTrace *a, *b;
  GError *err = NULL;
  gint stay;

  for (stay = 0; stay < 2; stay++) {
    fail_unless (gst_am_trace_open_pair_full (dir, "rd.txt", &a, "stats.csv", "time_s,x", &b,
            stay > 0, &err));
    gst_am_trace_rd (a, stay ? ON_WALL (2000000000) : ON_WALL (1000000000),
        gst_am_wide_id (1, stay), 10);
    gst_am_trace_printf (b, "%d,%d\n", stay, stay);
    gst_am_trace_close (a);
    gst_am_trace_close (b);
  }
  fail_unless (g_file_get_contents (rd, &text, NULL, NULL));
  fail_unless_equals_string (text, "1.000000 id 4294967296 udp 10\n2.000000 id 4294967297 udp 10\n");
  g_free (text);
  fail_unless (g_file_get_contents (st, &text, NULL, NULL));
  fail_unless_equals_string (text, "time_s,x\n0,0\n1,1\n");
  g_free (text);
  fail_unless (gst_am_trace_open_pair (dir, "rd.txt", &a, "stats.csv", "time_s,x", &b, &err));
  gst_am_trace_close (a);
  gst_am_trace_close (b);
  fail_unless (g_file_get_contents (st, &text, NULL, NULL));
  fail_unless_equals_string (text, "time_s,x\n");
  g_free (text);
  g_unlink (rd);
  g_unlink (st);
  g_rmdir (dir);
  g_free (rd);
  g_free (st);
  g_free (dir);
}
GST_END_TEST;

static GstBuffer *
h264_packet (guint16 seq, guint32 ts, guint8 nal)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (50, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, 2);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  memset (gst_rtp_buffer_get_payload (&rtp), 0x80, 50);
  ((guint8 *) gst_rtp_buffer_get_payload (&rtp))[0] = nal;
  ((guint8 *) gst_rtp_buffer_get_payload (&rtp))[1] = 0xc0;     /* first_mb 0, slice_type 0 */
  gst_rtp_buffer_unmap (&rtp);
  return b;
}

/* The sender's per-packet path: stamps, extended seq across the 16-bit wrap, frame numbers
 * that survive new caps, and the sd.txt line (SIZE as sent, with the extensions). */
GST_START_TEST (test_send_trace)
{
  gchar *dir = g_dir_make_tmp ("amsend-XXXXXX", NULL), *path, *text = NULL;
  GstAmTrace *sd = gst_am_trace_open (dir, "sd.txt", NULL, NULL);
  GstAmSendTrace st;
  GstAmRtpInfo info;
  GstBuffer *b;
  gchar **lines;

  gst_am_send_trace_reset (&st, GST_AM_CODEC_H264);
  b = h264_packet (65535, 1000, 0x65);
  fail_unless_equals_int (gst_am_send_trace_packet (&st, sd, b, ON_WALL (5000000000)),
      12 + 16 + 4 + 50);
  fail_unless (gst_am_rtp_read (b, &info) && info.has_extseq && info.has_send_time);
  fail_unless_equals_int (info.extseq, 65535);
  gst_buffer_unref (b);
  gst_am_send_trace_set_codec (&st, GST_AM_CODEC_H264);   /* new caps: counting goes on */
  b = h264_packet (0, 4000, 0x41);
  gst_am_send_trace_packet (&st, sd, b, ON_WALL (5001000000));
  fail_unless (gst_am_rtp_read (b, &info));
  fail_unless_equals_int (info.extseq, 65536);
  gst_buffer_unref (b);
  gst_am_trace_close (sd);
  path = g_build_filename (dir, "sd.txt", NULL);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  /* id = (2 << 32) | extseq; 0x65: IDR -> I; 0x41 0xc0: slice_type 0 -> P */
  fail_unless_equals_string (lines[0], "5.000000 id 8590000127 udp 82 0 I");
  fail_unless_equals_string (lines[1], "5.001000 id 8590000128 udp 82 1 P");
  g_strfreev (lines);
  g_free (text);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}
GST_END_TEST;

/* rtpsession's Td (RFC 3550 6.3.1) from a session's load, by hand: RTCP gets rtcp-fraction of
 * the RTP rate (or that many bit/s when >= 1), receivers 3/4 of it shared by the non-senders
 * while senders are at most a quarter of the members, never below rtcp-min-interval. */
GST_START_TEST (test_rtcp_interval_arithmetic)
{
  GstAmSessionLoad l = { 4, 1, 1e6, 0.05, 500 * GST_MSECOND };

  /* 4 members: 3 x 100 B / (0.75 x 6250 B/s) = 0.064 s, below the 0.5 s minimum */
  fail_unless_equals_int64 (gst_am_rtcp_interval (&l, FALSE, 100), 500 * GST_MSECOND);
  /* 1000 members: 999 x 120 B / 4687.5 B/s = 25.5744 s */
  l.members = 1000;
  fail_unless_equals_int64 (gst_am_rtcp_interval (&l, FALSE, 120), 25574400000);
  /* the sender: a quarter of the RTCP rate for 1 sender: 120 / 1562.5 = 0.0768 s -> minimum */
  fail_unless_equals_int64 (gst_am_rtcp_interval (&l, TRUE, 120), 500 * GST_MSECOND);
  /* rtcp-fraction >= 1 is bit/s: 8000 bit/s, 10 members: 9 x 100 / (0.75 x 1000) = 1.2 s */
  l.members = 10;
  l.rtcp_fraction = 8000;
  fail_unless_equals_int64 (gst_am_rtcp_interval (&l, FALSE, 100), 1200 * GST_MSECOND);
  /* no RTCP bandwidth: rtpsession sends no RTCP, lib/cc is told nothing */
  l.rtcp_fraction = 0;
  fail_unless_equals_int64 (gst_am_rtcp_interval (&l, FALSE, 100), 0);
  /* the mean packet: 1/16 of each new one with its 28 B of UDP/IP */
  fail_unless (gst_am_rtcp_avg_update (100, 72) == 100);
  fail_unless (gst_am_rtcp_avg_update (100, 172) == 106.25);
}
GST_END_TEST;

/* A receiver's BYE: RR (empty) + SDES CNAME + BYE, valid compound RTCP; without a CNAME, RR +
 * BYE. */
GST_START_TEST (test_bye_packet)
{
  GstBuffer *b = gst_am_rtcp_new_bye (0x12345678, "me@host");
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;

  fail_unless (b && gst_rtcp_buffer_validate (b));
  gst_rtcp_buffer_map (b, GST_MAP_READ, &rtcp);
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &p));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&p), GST_RTCP_TYPE_RR);
  fail_unless_equals_int (gst_rtcp_packet_rr_get_ssrc (&p), 0x12345678);
  fail_unless_equals_int (gst_rtcp_packet_get_rb_count (&p), 0);
  fail_unless (gst_rtcp_packet_move_to_next (&p));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&p), GST_RTCP_TYPE_SDES);
  fail_unless (gst_rtcp_packet_move_to_next (&p));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&p), GST_RTCP_TYPE_BYE);
  fail_unless_equals_int (gst_rtcp_packet_bye_get_nth_ssrc (&p, 0), 0x12345678);
  fail_if (gst_rtcp_packet_move_to_next (&p));
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (b);
  b = gst_am_rtcp_new_bye (7, NULL);
  fail_unless (b && gst_rtcp_buffer_validate (b));
  fail_unless_equals_int (gst_buffer_get_size (b), 8 + 8);
  gst_buffer_unref (b);
}
GST_END_TEST;

/* The BYE to an rtcp-address given as a name goes to the name's address of the socket's family:
 * GLib resolves "localhost" to ::1 before 127.0.0.1, and an IPv4 socket cannot send to ::1. */
GST_START_TEST (test_bye_to_a_name)
{
  GSocket *rx = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *at = g_inet_socket_address_new (lo, 0), *bound;
  GstElement *src = gst_element_factory_make ("udpsrc", NULL);
  GstElement *sink = gst_element_factory_make ("udpsink", NULL);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  guint8 data[256];
  gssize n;
  guint port;

  fail_unless (rx && src && sink);
  fail_unless (g_socket_bind (rx, at, FALSE, NULL));
  bound = g_socket_get_local_address (rx, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_set (src, "address", "127.0.0.1", "port", 0, NULL);
  g_object_set (sink, "host", "localhost", "port", (gint) port, NULL);
  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  GstBuffer *bye = gst_am_rtcp_new_bye (0x0badcafe, NULL);
  fail_unless (gst_am_rtcp_send_raw (src, sink, bye));
  g_socket_set_timeout (rx, 5);
  n = g_socket_receive (rx, (gchar *) data, sizeof data, NULL, NULL);
  fail_unless_equals_int (n, 16);               /* RR + BYE, no CNAME */
  GstBuffer *b = gst_buffer_new_memdup (data, (gsize) n);
  fail_unless (gst_rtcp_buffer_validate (b));
  gst_rtcp_buffer_map (b, GST_MAP_READ, &rtcp);
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &p));
  fail_unless (gst_rtcp_packet_move_to_next (&p));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&p), GST_RTCP_TYPE_BYE);
  fail_unless_equals_int (gst_rtcp_packet_bye_get_nth_ssrc (&p, 0), 0x0badcafe);
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (b);
  /* an IPv6 literal cannot be reached from the IPv4 socket: no BYE, FALSE */
  g_object_set (sink, "host", "::1", NULL);
  fail_if (gst_am_rtcp_send_raw (src, sink, bye));
  gst_buffer_unref (bye);
  gst_element_set_state (src, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  g_object_unref (bound);
  g_object_unref (at);
  g_object_unref (lo);
  g_object_unref (rx);
}
GST_END_TEST;

static void
on_gone (gpointer data, GObject * was)
{
  (void) was;
  *(gboolean *) data = TRUE;
}

/* The elements' ghost pads come from static templates; the pad template must go with the
 * element. gst_static_pad_template_get's floating ref was never dropped: one GstPadTemplate
 * (with its caps) leaked per element, found by LSan in `./amcast soak` with --release. */
GST_START_TEST (test_ghost_pad_template_freed)
{
  static const gchar *const el[][2] = { {"asmpsink", "sink"}, {"asmpsrc", "src"},
  {"asspsrc", "src"}, {"avmrcsrc", "src"}
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (el); i++) {
    GstElement *e = gst_element_factory_make (el[i][0], NULL);
    GstPad *pad;
    GstPadTemplate *templ;
    gboolean gone = FALSE;

    fail_unless (e != NULL, "%s not found", el[i][0]);
    pad = gst_element_get_static_pad (e, el[i][1]);
    fail_unless (pad != NULL);
    templ = gst_pad_get_pad_template (pad);
    fail_unless (templ != NULL);
    g_object_weak_ref (G_OBJECT (templ), on_gone, &gone);
    gst_object_unref (templ);
    gst_object_unref (pad);
    gst_object_unref (e);
    fail_unless (gone, "%s: its %s pad template outlived it", el[i][0], el[i][1]);
  }
}
GST_END_TEST;

static Suite *
helpers_suite (void)
{
  Suite *s = suite_create ("gst-common");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_h264_types);
  tcase_add_test (tc, test_vp8_types_and_framer);
  tcase_add_test (tc, test_seq_extend_and_ntp);
  tcase_add_test (tc, test_rtp_stamp_roundtrip);
  tcase_add_test (tc, test_app_append_respects_mtu);
  tcase_add_test (tc, test_rtcp_walk_fuzz);
  tcase_add_test (tc, test_sdp_text);
  tcase_add_test (tc, test_trace_lines);
  tcase_add_test (tc, test_trace_append);
  tcase_add_test (tc, test_send_trace);
  tcase_add_test (tc, test_source_guard);
  tcase_add_test (tc, test_unproven_budget);
  tcase_add_test (tc, test_enum_blurb);
  tcase_add_test (tc, test_rtcp_interval_arithmetic);
  tcase_add_test (tc, test_bye_packet);
  tcase_add_test (tc, test_bye_to_a_name);
  tcase_add_test (tc, test_ghost_pad_template_freed);
  return s;
}

GST_CHECK_MAIN (helpers);

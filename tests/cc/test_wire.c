/* test_wire.c - RTCP APP framing and ASMP APP payloads (docs/wire-formats.md): round trips,
 * every truncation, each bad field, and a random-bytes fuzz loop that must never crash. */
#include <stdlib.h>
#include <string.h>
#include "amtest.h"
#include "amcc/rtcp_app.h"
#include "amcc/asmp.h"

static amcc_asmp_report
sample_report (void)
{
  amcc_asmp_report r;
  memset (&r, 0, sizeof r);
  r.rate_bps = 872000;       /* 109000 bytes/s */
  r.loss = 0.0125;
  r.rtt_s = 0.1234;
  r.jitter_s = 0.002;
  r.cj_short_s = -0.0015;
  r.ci = AMCC_CI_CONGESTED;
  r.have_echo = 1;
  r.report_seq = 77;
  return r;
}

static void
test_cursors (void)
{
  uint8_t b[8];
  amcc_wr w;
  amcc_wr_init (&w, b, 7);
  amcc_wr_u16 (&w, 0x0102);
  amcc_wr_u32 (&w, 0x03040506);
  AMT_CHECK (w.err == AMCC_OK && w.pos == 6);
  amcc_wr_u16 (&w, 0x0708);                /* 1 byte left: refused, nothing written */
  AMT_CHECK (w.err == AMCC_ERR_NOSPACE && w.pos == 6);
  amcc_rd r;
  amcc_rd_init (&r, b, 6);
  AMT_CHECK (amcc_rd_u16 (&r) == 0x0102 && amcc_rd_u32 (&r) == 0x03040506);
  AMT_CHECK (amcc_rd_u8 (&r) == 0 && r.err == AMCC_ERR_TRUNCATED);
  amcc_wr_init (&w, b, 8);
  amcc_wr_u64 (&w, UINT64_C(0x1122334455667788));
  amcc_rd_init (&r, b, 8);
  AMT_CHECK (amcc_rd_u64 (&r) == UINT64_C(0x1122334455667788) && amcc_rd_left (&r) == 0);
  AMT_CHECK (b[0] == 0x11 && b[7] == 0x88);           /* big-endian */
}

static void
test_app_framing (void)
{
  uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, pkt[64];
  size_t n = 0;
  AMT_CHECK (amcc_rtcp_app_write (pkt, sizeof pkt, 3, 0xdeadbeef, "ASMP", data, 8, &n) == AMCC_OK);
  AMT_CHECK (n == 20);
  /* byte by byte: V=2,P=0,subtype=3 -> 0x83; PT 204; length = 20/4 - 1 = 4 */
  AMT_CHECK (pkt[0] == 0x83 && pkt[1] == 204 && pkt[2] == 0 && pkt[3] == 4);
  AMT_CHECK (pkt[4] == 0xde && pkt[7] == 0xef && memcmp (pkt + 8, "ASMP", 4) == 0);
  amcc_rtcp_app a;
  AMT_CHECK (amcc_rtcp_app_parse (pkt, n, &a) == AMCC_OK);
  AMT_CHECK (a.subtype == 3 && a.ssrc == 0xdeadbeef && a.data_len == 8 && a.packet_len == 20);
  AMT_CHECK (memcmp (a.data, data, 8) == 0 && a.data == pkt + 12);
  /* every truncation */
  int all = 1;
  for (size_t len = 0; len < n; len++) {
    int st = amcc_rtcp_app_parse (pkt, len, &a);
    if (st != AMCC_ERR_TRUNCATED)
      all = 0;
  }
  AMT_CHECK (all);
  /* bad fields */
  uint8_t bad[64];
  memcpy (bad, pkt, n);
  bad[0] = 0x43;                               /* V = 1 */
  AMT_CHECK (amcc_rtcp_app_parse (bad, n, &a) == AMCC_ERR_VERSION);
  memcpy (bad, pkt, n);
  bad[1] = 201;                                /* an RR */
  AMT_CHECK (amcc_rtcp_app_parse (bad, n, &a) == AMCC_ERR_TYPE);
  memcpy (bad, pkt, n);
  bad[3] = 1;                                  /* length 8 bytes < APP header */
  AMT_CHECK (amcc_rtcp_app_parse (bad, n, &a) == AMCC_ERR_FIELD);
  memcpy (bad, pkt, n);
  bad[3] = 5;                                  /* claims 24 bytes, 20 available */
  AMT_CHECK (amcc_rtcp_app_parse (bad, n, &a) == AMCC_ERR_TRUNCATED);
  memcpy (bad, pkt, n);
  bad[0] |= 0x20;                              /* P set, pad count 8 = the whole data: ok */
  AMT_CHECK (amcc_rtcp_app_parse (bad, n, &a) == AMCC_OK && a.data_len == 0);
  bad[19] = 9;                                 /* pad count larger than the data */
  AMT_CHECK (amcc_rtcp_app_parse (bad, n, &a) == AMCC_ERR_FIELD);
  bad[19] = 0;                                 /* pad count 0 with P set */
  AMT_CHECK (amcc_rtcp_app_parse (bad, n, &a) == AMCC_ERR_FIELD);
  /* writer refusals */
  AMT_CHECK (amcc_rtcp_app_write (pkt, 19, 3, 1, "ASMP", data, 8, &n) == AMCC_ERR_NOSPACE);
  AMT_CHECK (amcc_rtcp_app_write (pkt, 64, 3, 1, "ASMP", data, 7, &n) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_rtcp_app_write (pkt, 64, 32, 1, "ASMP", data, 8, &n) == AMCC_ERR_PARAM);
}

static void
test_app_find (void)
{
  /* compound: RR (8 bytes, no blocks) + APP "TFMC"/1 + APP "ASMP"/2 + APP "ASMP"/1 */
  uint8_t c[128], d4[4] = { 9, 9, 9, 9 };
  size_t off = 0, n;
  c[0] = 0x80; c[1] = 201; c[2] = 0; c[3] = 1; memset (c + 4, 0xab, 4);
  off = 8;
  amcc_rtcp_app_write (c + off, sizeof c - off, 1, 5, "TFMC", d4, 4, &n); off += n;
  amcc_rtcp_app_write (c + off, sizeof c - off, 2, 6, "ASMP", d4, 4, &n); off += n;
  amcc_rtcp_app_write (c + off, sizeof c - off, 1, 7, "ASMP", NULL, 0, &n); off += n;
  amcc_rtcp_app a;
  AMT_CHECK (amcc_rtcp_app_find (c, off, "ASMP", 1, &a) == AMCC_OK && a.ssrc == 7 && a.data_len == 0);
  AMT_CHECK (amcc_rtcp_app_find (c, off, "ASMP", -1, &a) == AMCC_OK && a.ssrc == 6);
  AMT_CHECK (amcc_rtcp_app_find (c, off, "NONE", -1, &a) == AMCC_ERR_TYPE);
  /* every truncation of the compound is refused (or finds an earlier, complete packet) */
  int ok = 1;
  for (size_t len = 0; len < off; len++) {
    int st = amcc_rtcp_app_find (c, len, "ASMP", 1, &a);
    if (st == AMCC_OK)
      ok = 0;
  }
  AMT_CHECK (ok);
  c[8] = 0x01;                                   /* second header: version 0 */
  AMT_CHECK (amcc_rtcp_app_find (c, off, "ASMP", 1, &a) == AMCC_ERR_VERSION);
}

/* RFC 3550 A.7: 1001 members, 1 sender, session 500 kb/s -> RTCP 5 % = 3125 B/s; a receiver gets
 * 75 % = 2343.75 B/s shared by 1000 receivers; 100-byte reports -> 100 * 1000 / 2343.75 = 42.67 s.
 * The sender: 25 % = 781.25 B/s for 1 sender -> 0.128 s, raised to the 5 s minimum. */
static void
test_rtcp_interval (void)
{
  AMT_NEAR (amcc_rtcp_interval_det (1001, 1, 3125, 0, 100, 5, 0), 42.6666667, 1e-6);
  AMT_NEAR (amcc_rtcp_interval_det (1001, 1, 3125, 1, 100, 5, 0), 5.0, 0);
  AMT_NEAR (amcc_rtcp_interval_det (2, 1, 3125, 0, 100, 5, 1), 2.5, 0);     /* initial: halved */
  /* more than a quarter senders: everyone shares the whole bandwidth: 100 * 10 / 100 = 10 s */
  AMT_NEAR (amcc_rtcp_interval_det (10, 5, 100, 0, 100, 5, 0), 10.0, 1e-12);
  AMT_NEAR (amcc_rtcp_interval_det (10, 1, NAN, 0, 100, 5, 0), 5.0, 0);
  /* randomised: u = 0.5 -> t * 1 / (e - 1.5) = 42.67 / 1.2182818 = 35.02 s */
  AMT_NEAR (amcc_rtcp_interval (1001, 1, 3125, 0, 100, 5, 0, 0.5), 42.6666667 / (exp (1) - 1.5), 1e-6);
  AMT_NEAR (amcc_rtcp_interval (1001, 1, 3125, 0, 100, 5, 0, 0.0), 0.5 * 42.6666667 / (exp (1) - 1.5), 1e-6);
}

/* Payload byte layout (docs/wire-formats.md "ASMP receiver report"). */
static void
test_report_roundtrip (void)
{
  amcc_asmp_report r = sample_report (), d;
  uint8_t b[AMCC_ASMP_REPORT_LEN];
  size_t n = 0;
  AMT_CHECK (amcc_asmp_report_encode (&r, b, sizeof b, &n) == AMCC_OK && n == 28);
  /* version 1, flags CONGESTED|HAVE_ECHO = 3, reserved 0, rate 109000 = 0x0001A9C8 bytes/s,
   * loss 0.0125 -> 12500000 = 0x00BEBC20, rtt 123400 us = 0x0001E208, jitter 2000 us,
   * A_short -1500 us = 0xFFFFFA24, seq 77 */
  static const uint8_t expect[28] = { 1, 3, 0, 0, 0x00, 0x01, 0xA9, 0xC8, 0x00, 0xBE, 0xBC, 0x20,
    0x00, 0x01, 0xE2, 0x08, 0x00, 0x00, 0x07, 0xD0, 0xFF, 0xFF, 0xFA, 0x24, 0, 0, 0, 77 };
  AMT_CHECK (memcmp (b, expect, 28) == 0);
  AMT_CHECK (amcc_asmp_report_decode (b, n, &d) == AMCC_OK);
  AMT_NEAR (d.rate_bps, r.rate_bps, 0);
  AMT_NEAR (d.loss, r.loss, 1e-9);
  AMT_NEAR (d.rtt_s, r.rtt_s, 1e-6);
  AMT_NEAR (d.jitter_s, r.jitter_s, 1e-6);
  AMT_NEAR (d.cj_short_s, r.cj_short_s, 1e-6);
  AMT_CHECK (d.ci == AMCC_CI_CONGESTED && d.have_echo == 1 && d.report_seq == 77);
  /* every truncation: version byte missing -> TRUNCATED, then TRUNCATED for 1..27 */
  int all = 1;
  for (size_t len = 0; len < n; len++)
    if (amcc_asmp_report_decode (b, len, &d) != AMCC_ERR_TRUNCATED)
      all = 0;
  AMT_CHECK (all);
  /* longer than the version's length */
  uint8_t longer[32];
  memcpy (longer, b, 28);
  memset (longer + 28, 0, 4);
  AMT_CHECK (amcc_asmp_report_decode (longer, 32, &d) == AMCC_ERR_FIELD);
  AMT_CHECK (amcc_asmp_report_encode (&r, b, 27, &n) == AMCC_ERR_NOSPACE);
}

static void
test_report_bad_fields (void)
{
  uint8_t good[28], b[28];
  amcc_asmp_report r = sample_report (), d;
  size_t n;
  amcc_asmp_report_encode (&r, good, sizeof good, &n);
#define BAD(off, val, code) do { memcpy (b, good, 28); b[off] = (val); \
    AMT_CHECK (amcc_asmp_report_decode (b, 28, &d) == (code)); } while (0)
  BAD (0, 2, AMCC_ERR_VERSION);
  BAD (0, 0, AMCC_ERR_VERSION);
  BAD (1, 0x04, AMCC_ERR_FIELD);           /* unknown flag */
  BAD (2, 1, AMCC_ERR_FIELD);              /* reserved */
  BAD (3, 1, AMCC_ERR_FIELD);
  memcpy (b, good, 28); memset (b + 4, 0, 4);          /* rate 0 */
  AMT_CHECK (amcc_asmp_report_decode (b, 28, &d) == AMCC_ERR_FIELD);
  memcpy (b, good, 28); b[8] = 0x3B; b[9] = 0x9A; b[10] = 0xCA; b[11] = 0x01;  /* loss 1e9 + 1 */
  AMT_CHECK (amcc_asmp_report_decode (b, 28, &d) == AMCC_ERR_FIELD);
  memcpy (b, good, 28); b[8] = 0x3B; b[9] = 0x9A; b[10] = 0xCA; b[11] = 0x00;  /* loss = 1: ok */
  AMT_CHECK (amcc_asmp_report_decode (b, 28, &d) == AMCC_OK && d.loss == 1.0);
  BAD (12, 0x04, AMCC_ERR_FIELD);          /* rtt 67 s */
  BAD (16, 0x04, AMCC_ERR_FIELD);          /* jitter 67 s */
#undef BAD
  /* encoder refuses NaN, negative and absurd values */
  amcc_asmp_report e;
  e = r; e.rate_bps = NAN;  AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.rate_bps = -1;   AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.rate_bps = 4e11; AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.loss = 1.5;      AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.loss = NAN;      AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.rtt_s = -0.1;    AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.rtt_s = 3600;    AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.jitter_s = NAN;  AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.cj_short_s = 1e9; AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  e = r; e.ci = (amcc_ci_state) 7; AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
  /* cj_short accepts the whole signed 32-bit us range both ways (found by fuzz_wire: the decoder
   * took -2147.483648 s, the encoder refused anything beyond 2147 s) */
  uint8_t c[28];
  memcpy (b, good, 28); b[20] = 0x80; b[21] = b[22] = b[23] = 0;
  AMT_CHECK (amcc_asmp_report_decode (b, 28, &d) == AMCC_OK);
  AMT_CHECK (amcc_asmp_report_encode (&d, c, 28, &n) == AMCC_OK && memcmp (b, c, 28) == 0);
  memcpy (b, good, 28); b[20] = 0x7f; b[21] = b[22] = b[23] = 0xff;
  AMT_CHECK (amcc_asmp_report_decode (b, 28, &d) == AMCC_OK);
  AMT_CHECK (amcc_asmp_report_encode (&d, c, 28, &n) == AMCC_OK && memcmp (b, c, 28) == 0);
  e = r; e.cj_short_s = 2147.4836475;    /* rounds to 2^31 us: out of range */
  AMT_CHECK (amcc_asmp_report_encode (&e, b, 28, &n) == AMCC_ERR_FIELD);
}

static void
test_echo (void)
{
  amcc_asmp_echo_entry in[3] = { { 0x11111111, 100 * AMCC_NS_PER_MS }, { 0x22222222, 1234567 },
    { 0x33333333, 60 * AMCC_NS_PER_S } }, out[3];
  uint8_t b[64];
  size_t n = 0;
  AMT_CHECK (amcc_asmp_echo_encode (in, 3, b, sizeof b, &n) == AMCC_OK && n == 4 + 3 * 8);
  /* header: version 1, reserved 0, count 3; entry 0: SSRC, rtt 100000 us = 0x000186A0 */
  AMT_CHECK (b[0] == 1 && b[1] == 0 && b[2] == 0 && b[3] == 3);
  AMT_CHECK (b[4] == 0x11 && b[8] == 0x00 && b[9] == 0x01 && b[10] == 0x86 && b[11] == 0xA0);
  size_t cnt = 3;
  AMT_CHECK (amcc_asmp_echo_decode (b, n, out, &cnt) == AMCC_OK && cnt == 3);
  AMT_CHECK (out[0].ssrc == in[0].ssrc && out[0].rtt == in[0].rtt);
  AMT_CHECK (out[1].rtt == 1235 * AMCC_NS_PER_US);       /* rounded to microseconds */
  AMT_CHECK (out[2].rtt == 60 * AMCC_NS_PER_S);
  amcc_time rtt = 0;
  AMT_CHECK (amcc_asmp_echo_lookup (b, n, 0x22222222, &rtt) == AMCC_OK && rtt == 1235 * AMCC_NS_PER_US);
  AMT_CHECK (amcc_asmp_echo_lookup (b, n, 0x44444444, &rtt) == AMCC_ERR_TYPE);
  /* every truncation */
  int all = 1;
  for (size_t len = 0; len < n; len++) {
    cnt = 3;
    if (amcc_asmp_echo_decode (b, len, out, &cnt) != AMCC_ERR_TRUNCATED)
      all = 0;
    if (amcc_asmp_echo_lookup (b, len, 0x33333333, &rtt) != AMCC_ERR_TRUNCATED)
      all = 0;
  }
  AMT_CHECK (all);
  /* count vs length, capacity, bad fields */
  uint8_t c[64];
  memcpy (c, b, n); c[3] = 2;               /* says 2 entries, 3 present */
  cnt = 3; AMT_CHECK (amcc_asmp_echo_decode (c, n, out, &cnt) == AMCC_ERR_FIELD);
  memcpy (c, b, n); c[2] = 0xff;            /* says 65283 entries */
  cnt = 3; AMT_CHECK (amcc_asmp_echo_decode (c, n, out, &cnt) == AMCC_ERR_TRUNCATED);
  cnt = 2; AMT_CHECK (amcc_asmp_echo_decode (b, n, out, &cnt) == AMCC_ERR_NOSPACE);
  memcpy (c, b, n); c[0] = 9;
  cnt = 3; AMT_CHECK (amcc_asmp_echo_decode (c, n, out, &cnt) == AMCC_ERR_VERSION);
  memcpy (c, b, n); c[1] = 1;
  cnt = 3; AMT_CHECK (amcc_asmp_echo_decode (c, n, out, &cnt) == AMCC_ERR_FIELD);
  memcpy (c, b, n); memset (c + 8, 0, 4);   /* rtt 0 */
  cnt = 3; AMT_CHECK (amcc_asmp_echo_decode (c, n, out, &cnt) == AMCC_ERR_FIELD);
  memcpy (c, b, n); c[8] = 0x10;            /* rtt 268 s */
  cnt = 3; AMT_CHECK (amcc_asmp_echo_decode (c, n, out, &cnt) == AMCC_ERR_FIELD);
  AMT_CHECK (amcc_asmp_echo_lookup (c, n, 0x11111111, &rtt) == AMCC_ERR_FIELD);
  /* encoder */
  AMT_CHECK (amcc_asmp_echo_encode (in, 3, b, 27, &n) == AMCC_ERR_NOSPACE);
  in[1].rtt = 0;
  AMT_CHECK (amcc_asmp_echo_encode (in, 3, b, 64, &n) == AMCC_ERR_FIELD);
  in[1].rtt = 61 * AMCC_NS_PER_S;
  AMT_CHECK (amcc_asmp_echo_encode (in, 3, b, 64, &n) == AMCC_ERR_FIELD);
  AMT_CHECK (amcc_asmp_echo_encode (NULL, 0, b, 64, &n) == AMCC_OK && n == 4);
  cnt = 0; AMT_CHECK (amcc_asmp_echo_decode (b, 4, NULL, &cnt) == AMCC_OK && cnt == 0);
  /* how many fit: a 1200-byte budget minus 12 bytes of APP header */
  AMT_CHECK (AMCC_ASMP_ECHO_FIT (1200 - 12) == 148);
}

/* Random bytes through every decoder: must never crash or read out of bounds (run under ASan
 * in the sanitizer build). The buffer is heap-allocated at the exact length so a read past it
 * is caught. */
static void
test_fuzz (void)
{
  uint32_t x = 0x12345678;
  int accepted = 0, wrong = 0;
  for (int iter = 0; iter < 20000; iter++) {
    x = x * 1664525u + 1013904223u;
    size_t len = (x >> 8) % 80;
    uint8_t *buf = malloc (len ? len : 1);
    for (size_t i = 0; i < len; i++) {
      x = x * 1664525u + 1013904223u;
      buf[i] = (uint8_t) (x >> 24);
    }
    /* bias some inputs toward valid headers so deeper paths run */
    if (len > 4 && (iter & 3) == 0) {
      buf[0] = (uint8_t) ((buf[0] & 0x3f) | 0x80);
      buf[1] = 204;
      buf[2] = 0;
      buf[3] = (uint8_t) (buf[3] % 20);
    }
    if (len > 0 && (iter & 3) == 1)
      buf[0] = 1;
    amcc_rtcp_app a;
    amcc_asmp_report r;
    amcc_asmp_echo_entry e[16];
    size_t n = 16;
    amcc_time rtt;
    if (amcc_rtcp_app_parse (buf, len, &a) == AMCC_OK) {
      accepted++;
      wrong += !(a.data + a.data_len <= buf + len);
    }
    amcc_rtcp_app_find (buf, len, "ASMP", -1, &a);
    if (amcc_asmp_report_decode (buf, len, &r) == AMCC_OK)
      wrong += !(r.rate_bps > 0 && r.loss <= 1);
    amcc_asmp_echo_decode (buf, len, e, &n);
    amcc_asmp_echo_lookup (buf, len, 0, &rtt);
    free (buf);
  }
  AMT_CHECK (accepted > 0);          /* the biased inputs reached the accept path */
  AMT_CHECK (wrong == 0);
}

int
main (void)
{
  AMT_RUN (test_cursors);
  AMT_RUN (test_app_framing);
  AMT_RUN (test_app_find);
  AMT_RUN (test_rtcp_interval);
  AMT_RUN (test_report_roundtrip);
  AMT_RUN (test_report_bad_fields);
  AMT_RUN (test_echo);
  AMT_RUN (test_fuzz);
  return amt_summary ();
}

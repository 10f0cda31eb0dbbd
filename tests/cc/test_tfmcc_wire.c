/* test_tfmcc_wire.c - TFMCC APP payloads: round trips, every truncation, each bad field, APP
 * framing, and a random/mutation fuzz loop that must never crash or accept garbage that does not
 * re-encode to the same bytes. Layout: docs/wire-formats-tfmcc.md. */
#include <amcc/tfmcc.h>
#include <amcc/rtcp_app.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "amtest.h"

static void put32 (uint8_t *b, uint32_t v)
{
  b[0] = (uint8_t) (v >> 24); b[1] = (uint8_t) (v >> 16); b[2] = (uint8_t) (v >> 8); b[3] = (uint8_t) v;
}
static uint32_t fbits (float f) { uint32_t u; memcpy (&u, &f, 4); return u; }

static struct amcc_tfmcc_sender_info sample_info (void)
{
  struct amcc_tfmcc_sender_info s;
  memset (&s, 0, sizeof s);
  s.fb_nr = 0xBEEF;
  s.slowstart = true;
  s.has_supp = true;
  s.has_echo = true;
  s.echo_is_clr = true;
  s.ts_us = 0xFFFFFFF0u;
  s.r_max_us = 500000;
  s.rate_bps = 1.5e6;
  s.x_supp_bps = 0.9 * 1.2e6;
  s.echo_ssrc = 0x12345678;
  s.echo_ts_us = 77;
  s.echo_hold_us = 12345;
  return s;
}

static struct amcc_tfmcc_report sample_report (void)
{
  struct amcc_tfmcc_report r;
  memset (&r, 0, sizeof r);
  r.fb_nr = 7;
  r.have_rtt = true;
  r.have_loss = true;
  r.has_echo = true;
  r.ts_us = 0x80000001u;
  r.echo_ts_us = 0xFFFFFFFFu;
  r.echo_hold_us = 250;
  r.rate_bps = 812345.0;
  r.loss_event_rate = 0.0125;
  r.recv_rate_bps = 700000.0;
  return r;
}

static void test_sender_info_round_trip (void)
{
  struct amcc_tfmcc_sender_info in = sample_info (), out;
  uint8_t b[64];
  AMT_CHECK (amcc_tfmcc_sender_info_encode (&in, b, sizeof b) == AMCC_TFMCC_SENDER_INFO_LEN);
  /* fixed layout, docs/wire-formats-tfmcc.md */
  AMT_CHECK (b[0] == 1 && b[1] == 0xF0 && b[2] == 0xBE && b[3] == 0xEF);
  AMT_CHECK (b[20] == 0x12 && b[23] == 0x78);
  AMT_CHECK (amcc_tfmcc_sender_info_decode (&out, b, AMCC_TFMCC_SENDER_INFO_LEN)
             == AMCC_TFMCC_SENDER_INFO_LEN);
  AMT_CHECK (out.fb_nr == in.fb_nr && out.slowstart && out.has_supp && out.has_echo && out.echo_is_clr);
  AMT_CHECK (out.ts_us == in.ts_us && out.r_max_us == in.r_max_us);
  AMT_NEAR (out.rate_bps, in.rate_bps, in.rate_bps * 6e-8);       /* float32: 24-bit mantissa */
  AMT_NEAR (out.x_supp_bps, in.x_supp_bps, in.x_supp_bps * 6e-8);
  AMT_CHECK (out.echo_ssrc == in.echo_ssrc && out.echo_ts_us == 77 && out.echo_hold_us == 12345);
  /* no echo, no X_supp */
  in.has_echo = in.echo_is_clr = in.has_supp = false;
  in.echo_ssrc = in.echo_ts_us = in.echo_hold_us = 0;
  in.x_supp_bps = 0;
  AMT_CHECK (amcc_tfmcc_sender_info_encode (&in, b, sizeof b) == 32);
  AMT_CHECK (amcc_tfmcc_sender_info_decode (&out, b, 32) == 32);
  AMT_CHECK (!out.has_echo && !out.has_supp && out.x_supp_bps == 0);
  /* encoder refuses invalid input and short buffers */
  AMT_CHECK (amcc_tfmcc_sender_info_encode (&in, b, 31) == AMCC_ERR_NOSPACE);
  in.rate_bps = NAN;
  AMT_CHECK (amcc_tfmcc_sender_info_encode (&in, b, sizeof b) == AMCC_ERR_PARAM);
}

static void test_report_round_trip (void)
{
  struct amcc_tfmcc_report in = sample_report (), out;
  uint8_t b[64];
  AMT_CHECK (amcc_tfmcc_report_encode (&in, b, sizeof b) == AMCC_TFMCC_REPORT_LEN);
  AMT_CHECK (b[0] == 1 && b[1] == 0xD0 && b[2] == 0 && b[3] == 7);
  AMT_CHECK (amcc_tfmcc_report_decode (&out, b, 28) == 28);
  AMT_CHECK (out.fb_nr == 7 && out.have_rtt && out.have_loss && !out.leaving && out.has_echo);
  AMT_CHECK (out.ts_us == in.ts_us && out.echo_ts_us == in.echo_ts_us && out.echo_hold_us == 250);
  AMT_NEAR (out.rate_bps, in.rate_bps, in.rate_bps * 6e-8);
  AMT_NEAR (out.loss_event_rate, in.loss_event_rate, in.loss_event_rate * 6e-8);
  AMT_NEAR (out.recv_rate_bps, in.recv_rate_bps, in.recv_rate_bps * 6e-8);
  in.leaving = true;
  in.have_loss = false;
  in.loss_event_rate = 0;
  AMT_CHECK (amcc_tfmcc_report_encode (&in, b, sizeof b) == 28);
  AMT_CHECK (amcc_tfmcc_report_decode (&out, b, 28) == 28 && out.leaving && !out.have_loss);
  AMT_CHECK (amcc_tfmcc_report_encode (&in, b, 27) == AMCC_ERR_NOSPACE);
  in.loss_event_rate = 0.5;   /* p without have_loss */
  AMT_CHECK (amcc_tfmcc_report_encode (&in, b, sizeof b) == AMCC_ERR_PARAM);
}

static void test_truncations (void)
{
  struct amcc_tfmcc_sender_info si = sample_info (), so;
  struct amcc_tfmcc_report ri = sample_report (), ro;
  uint8_t b[64];
  amcc_tfmcc_sender_info_encode (&si, b, sizeof b);
  for (size_t n = 0; n < AMCC_TFMCC_SENDER_INFO_LEN; n++)
    AMT_CHECK (amcc_tfmcc_sender_info_decode (&so, b, n) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_tfmcc_sender_info_decode (&so, b, 33) == AMCC_ERR_FIELD);  /* length mismatch */
  amcc_tfmcc_report_encode (&ri, b, sizeof b);
  for (size_t n = 0; n < AMCC_TFMCC_REPORT_LEN; n++)
    AMT_CHECK (amcc_tfmcc_report_decode (&ro, b, n) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_tfmcc_report_decode (&ro, b, 29) == AMCC_ERR_FIELD);
}

/* Decode a sender info after poking one field. */
static int si_poke (size_t off, int width, uint32_t v)
{
  struct amcc_tfmcc_sender_info s = sample_info (), out;
  uint8_t b[32];
  amcc_tfmcc_sender_info_encode (&s, b, sizeof b);
  if (width == 1)
    b[off] = (uint8_t) v;
  else
    put32 (b + off, v);
  return amcc_tfmcc_sender_info_decode (&out, b, sizeof b);
}

static void test_sender_info_bad_fields (void)
{
  AMT_CHECK (si_poke (0, 1, 0) == AMCC_ERR_VERSION);
  AMT_CHECK (si_poke (0, 1, 2) == AMCC_ERR_VERSION);
  for (int bit = 0; bit < 4; bit++)                         /* reserved flag bits */
    AMT_CHECK (si_poke (1, 1, 0xF0u | (1u << bit)) == AMCC_ERR_FIELD);
  { /* echo_is_clr without has_echo (echo fields zero, so only the flag is wrong) */
    struct amcc_tfmcc_sender_info s = sample_info (), out;
    s.has_echo = s.echo_is_clr = false; s.echo_ssrc = s.echo_ts_us = s.echo_hold_us = 0;
    uint8_t b[32];
    amcc_tfmcc_sender_info_encode (&s, b, 32);
    AMT_CHECK (amcc_tfmcc_sender_info_decode (&out, b, 32) == 32);
    b[1] |= 0x40;
    AMT_CHECK (amcc_tfmcc_sender_info_decode (&out, b, 32) == AMCC_ERR_FIELD);
  }
  AMT_CHECK (si_poke (8, 4, 0) == AMCC_ERR_FIELD);         /* R_max = 0 */
  AMT_CHECK (si_poke (8, 4, 60000001) == AMCC_ERR_FIELD);  /* R_max > 60 s */
  AMT_CHECK (si_poke (8, 4, 60000000) == 32);              /* 60 s is the limit */
  const uint32_t bad_rates[] = { fbits (NAN), fbits (INFINITY), fbits (-INFINITY), fbits (-1.0f),
                                 fbits (0.0f), fbits (2e12f) };
  for (size_t i = 0; i < sizeof bad_rates / sizeof *bad_rates; i++) {
    AMT_CHECK (si_poke (12, 4, bad_rates[i]) == AMCC_ERR_FIELD);   /* X */
    AMT_CHECK (si_poke (16, 4, bad_rates[i]) == AMCC_ERR_FIELD);   /* X_supp with has_supp */
  }
  { /* X_supp present without the flag */
    struct amcc_tfmcc_sender_info s = sample_info (), out;
    s.has_supp = false; s.x_supp_bps = 0;
    uint8_t b[32];
    amcc_tfmcc_sender_info_encode (&s, b, 32);
    AMT_CHECK (amcc_tfmcc_sender_info_decode (&out, b, 32) == 32);
    put32 (b + 16, fbits (1000.0f));
    AMT_CHECK (amcc_tfmcc_sender_info_decode (&out, b, 32) == AMCC_ERR_FIELD);
  }
  { /* echo fields without has_echo */
    struct amcc_tfmcc_sender_info s = sample_info (), out;
    s.has_echo = s.echo_is_clr = false; s.echo_ssrc = s.echo_ts_us = s.echo_hold_us = 0;
    uint8_t b[32];
    amcc_tfmcc_sender_info_encode (&s, b, 32);
    for (size_t off = 20; off < 32; off += 4) {
      uint8_t c[32];
      memcpy (c, b, 32);
      put32 (c + off, 1);
      AMT_CHECK (amcc_tfmcc_sender_info_decode (&out, c, 32) == AMCC_ERR_FIELD);
    }
  }
  AMT_CHECK (si_poke (28, 4, 600000001) == AMCC_ERR_FIELD); /* hold > 600 s */
  AMT_CHECK (si_poke (28, 4, 600000000) == 32);
}

static int rp_poke (size_t off, int width, uint32_t v, bool have_loss)
{
  struct amcc_tfmcc_report r = sample_report (), out;
  if (!have_loss) { r.have_loss = false; r.loss_event_rate = 0; }
  uint8_t b[28];
  amcc_tfmcc_report_encode (&r, b, sizeof b);
  if (width == 1)
    b[off] = (uint8_t) v;
  else
    put32 (b + off, v);
  return amcc_tfmcc_report_decode (&out, b, sizeof b);
}

static void test_report_bad_fields (void)
{
  AMT_CHECK (rp_poke (0, 1, 0, true) == AMCC_ERR_VERSION);
  AMT_CHECK (rp_poke (0, 1, 0xFF, true) == AMCC_ERR_VERSION);
  for (int bit = 0; bit < 4; bit++)
    AMT_CHECK (rp_poke (1, 1, 0xD0u | (1u << bit), true) == AMCC_ERR_FIELD);
  const uint32_t bad[] = { fbits (NAN), fbits (INFINITY), fbits (-1.0f), fbits (2e12f) };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    AMT_CHECK (rp_poke (16, 4, bad[i], true) == AMCC_ERR_FIELD);   /* X_r */
    AMT_CHECK (rp_poke (20, 4, bad[i], true) == AMCC_ERR_FIELD);   /* p */
    AMT_CHECK (rp_poke (24, 4, bad[i], true) == AMCC_ERR_FIELD);   /* receive rate */
  }
  AMT_CHECK (rp_poke (20, 4, fbits (0.0f), true) == AMCC_ERR_FIELD);   /* have_loss but p = 0 */
  AMT_CHECK (rp_poke (20, 4, fbits (1.5f), true) == AMCC_ERR_FIELD);   /* p > 1 */
  AMT_CHECK (rp_poke (20, 4, fbits (1.0f), true) == 28);
  AMT_CHECK (rp_poke (20, 4, fbits (0.1f), false) == AMCC_ERR_FIELD);  /* p without have_loss */
  AMT_CHECK (rp_poke (12, 4, 600000001, true) == AMCC_ERR_FIELD);      /* hold > 600 s */
  AMT_CHECK (rp_poke (1, 1, 0xC0, true) == AMCC_ERR_FIELD);  /* echo fields set without has_echo */
}

static void test_app_framing (void)
{
  struct amcc_tfmcc_sender_info si = sample_info (), so;
  struct amcc_tfmcc_report ri = sample_report (), ro;
  uint8_t b[128];
  uint32_t ssrc = 0;
  int n = amcc_tfmcc_sender_info_write_app (&si, 0xCAFEBABE, b, sizeof b);
  AMT_CHECK (n == 12 + AMCC_TFMCC_SENDER_INFO_LEN);
  AMT_CHECK (b[0] == 0x80 && b[1] == 204 && memcmp (b + 8, "TFMS", 4) == 0);
  AMT_CHECK (amcc_tfmcc_sender_info_read_app (&so, &ssrc, b, (size_t) n) == n);
  AMT_CHECK (ssrc == 0xCAFEBABE && so.fb_nr == si.fb_nr);
  for (int k = 0; k < n; k++)
    AMT_CHECK (amcc_tfmcc_sender_info_read_app (&so, &ssrc, b, (size_t) k) < 0);
  AMT_CHECK (amcc_tfmcc_report_read_app (&ro, &ssrc, b, (size_t) n) == AMCC_ERR_TYPE);
  n = amcc_tfmcc_report_write_app (&ri, 0x01020304, b, sizeof b);
  AMT_CHECK (n == 12 + AMCC_TFMCC_REPORT_LEN && memcmp (b + 8, "TFMR", 4) == 0);
  AMT_CHECK (amcc_tfmcc_report_read_app (&ro, &ssrc, b, (size_t) n) == n && ssrc == 0x01020304);
  for (int k = 0; k < n; k++)
    AMT_CHECK (amcc_tfmcc_report_read_app (&ro, &ssrc, b, (size_t) k) < 0);
  AMT_CHECK (amcc_tfmcc_sender_info_read_app (&so, &ssrc, b, (size_t) n) == AMCC_ERR_TYPE);
  AMT_CHECK (amcc_tfmcc_report_write_app (&ri, 1, b, 39) == AMCC_ERR_NOSPACE);
  /* in a compound packet: an empty RR (8 bytes), then the TFMR APP */
  uint8_t c[128] = { 0x80, 201, 0, 1, 0, 0, 0, 9 };
  n = amcc_tfmcc_report_write_app (&ri, 0x0A0B0C0D, c + 8, sizeof c - 8);
  AMT_CHECK (amcc_tfmcc_report_find_app (&ro, &ssrc, c, 8 + (size_t) n) == 28 && ssrc == 0x0A0B0C0D);
  AMT_CHECK (ro.fb_nr == ri.fb_nr);
  AMT_CHECK (amcc_tfmcc_sender_info_find_app (&so, &ssrc, c, 8 + (size_t) n) == AMCC_ERR_TYPE);
  AMT_CHECK (amcc_tfmcc_report_find_app (&ro, &ssrc, c, 8 + (size_t) n - 1) < 0);
  n = amcc_tfmcc_sender_info_write_app (&si, 0x5E, c + 8, sizeof c - 8);
  AMT_CHECK (amcc_tfmcc_sender_info_find_app (&so, &ssrc, c, 8 + (size_t) n) == 32 && ssrc == 0x5E);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_u32 (void)
{
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (uint32_t) (rng >> 11);
}

/* Every buffer a decoder accepts must re-encode to exactly the same bytes; nothing may crash. */
static void test_fuzz (void)
{
  uint8_t b[80], again[80];
  int accepted = 0, bad = 0;
  struct amcc_tfmcc_sender_info si = sample_info ();
  struct amcc_tfmcc_report ri = sample_report ();
  uint8_t valid_si[32], valid_rp[28];
  /* every accepted payload also drives a sender and a receiver: they must stay sane */
  struct amcc_tfmcc_params prm;
  amcc_tfmcc_params_init (&prm);
  struct amcc_tfmcc_sender *tx = amcc_tfmcc_sender_new (&prm, 0);
  static struct amcc_tfmcc_receiver rx;
  amcc_tfmcc_receiver_init (&rx, &prm, 0x12345678, 0);
  int insane = 0;
  amcc_tfmcc_sender_info_encode (&si, valid_si, 32);
  amcc_tfmcc_report_encode (&ri, valid_rp, 28);
  for (int it = 0; it < 300000; it++) {
    size_t len = next_u32 () % 72;
    int mode = it % 3;
    if (mode == 0) {
      for (size_t i = 0; i < len; i++) b[i] = (uint8_t) next_u32 ();
    } else {    /* mutate a valid payload: a few random bytes or bits, maybe truncated */
      const uint8_t *v = mode == 1 ? valid_si : valid_rp;
      size_t vl = mode == 1 ? 32 : 28;
      memcpy (b, v, vl);
      len = (next_u32 () % 4) ? vl : next_u32 () % (vl + 4);
      int flips = 1 + (int) (next_u32 () % 3);
      for (int f = 0; f < flips; f++) {
        size_t at = next_u32 () % vl;
        if (next_u32 () & 1) b[at] ^= (uint8_t) (1u << (next_u32 () % 8));
        else b[at] = (uint8_t) next_u32 ();
      }
    }
    struct amcc_tfmcc_sender_info so;
    struct amcc_tfmcc_report ro;
    uint32_t ssrc;
    amcc_time now = (amcc_time) it * 1000000;            /* 1 ms per input */
    amcc_tfmcc_receiver_on_rtp (&rx, now, (uint16_t) next_u32 (), 1 + next_u32 () % 1500, next_u32 () & 1,
                                next_u32 ());
    if (amcc_tfmcc_sender_info_decode (&so, b, len) > 0) {
      accepted++;
      amcc_tfmcc_receiver_on_sender_info (&rx, now, &so, (next_u32 () + 1.0) / 4294967296.0);
      if (amcc_tfmcc_sender_info_encode (&so, again, sizeof again) != (int) len ||
          memcmp (again, b, len) != 0)
        bad++;
    }
    if (amcc_tfmcc_report_decode (&ro, b, len) > 0) {
      accepted++;
      amcc_tfmcc_sender_on_report (tx, now, next_u32 () % 8, &ro);
      if (amcc_tfmcc_report_encode (&ro, again, sizeof again) != (int) len ||
          memcmp (again, b, len) != 0)
        bad++;
    }
    (void) amcc_tfmcc_sender_info_read_app (&so, &ssrc, b, len);
    (void) amcc_tfmcc_report_read_app (&ro, &ssrc, b, len);
    double x = amcc_tfmcc_sender_rate (tx, now);
    struct amcc_tfmcc_sender_info fill;
    amcc_tfmcc_sender_fill_info (tx, now, &fill);
    uint8_t app[64];
    if (!(x >= 1200 && x <= prm.max_rate_bps) ||
        amcc_tfmcc_sender_info_write_app (&fill, 1, app, sizeof app) != 44)
      insane++;
    if (amcc_tfmcc_receiver_next_report_time (&rx) != AMCC_TIME_NONE && (it & 7) == 0) {
      struct amcc_tfmcc_report mine;
      amcc_tfmcc_receiver_make_report (&rx, now, &mine);
      if (amcc_tfmcc_report_write_app (&mine, 2, app, sizeof app) != 40)
        insane++;
    }
    double xr = amcc_tfmcc_receiver_rate (&rx);
    if (!(xr >= 0) || isinf (xr) || !(amcc_tfmcc_receiver_rtt (&rx) > 0))
      insane++;
  }
  AMT_CHECK (insane == 0);
  amcc_tfmcc_sender_free (tx);
  AMT_CHECK (bad == 0);
  AMT_CHECK (accepted > 0);     /* the mutation half must produce some valid packets */
  printf ("# fuzz: 300000 inputs, %d accepted, %d not canonical, %d insane states\n", accepted, bad,
          insane);
}

int main (void)
{
  AMT_RUN (test_sender_info_round_trip);
  AMT_RUN (test_report_round_trip);
  AMT_RUN (test_truncations);
  AMT_RUN (test_sender_info_bad_fields);
  AMT_RUN (test_report_bad_fields);
  AMT_RUN (test_app_framing);
  AMT_RUN (test_fuzz);
  return amt_summary ();
}

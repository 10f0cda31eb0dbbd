/* test_h264fill.c - lib/cc/h264fill.c: a synthetic frame_num-0 skip slice exactly when the
 * frames missing before a picture include frame_num 0 (x264's SPS and PPS for 320x180
 * baseline, log2_max_frame_num 5, pic_order_cnt_type 2; hand-made slice headers), and its
 * syntax read back; nothing for an ordinary gap, the same frame_num, after an IDR, for a lost
 * IDR frame, or for a stream it cannot write a slice for (CABAC). Whether libavcodec then outputs every frame is
 * tests/gst/test-intra.c's test_lost_frame_num_wrap. */
#include "amtest.h"
#include <stdint.h>
#include <string.h>
#include <amcc/h264fill.h>

/* from an x264 stream (tune=zerolatency speed-preset=ultrafast intra-refresh=true, 320x180) */
static const uint8_t sps_pps[] = {
  0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x15, 0xa6, 0x81, 0x41, 0x9f, 0x9f, 0x01, 0x6a, 0x0c, 0x0c,
  0x0d, 0x4a, 0x00, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x03, 0x00, 0x65, 0x1e, 0x2c, 0x5d,
  0x40, 0, 0, 0, 1, 0x68, 0xce, 0x3c, 0x80
};

typedef struct { uint8_t b[32]; size_t bits; } bw;

static void
bw_u (bw * w, uint32_t v, int n)
{
  while (n-- > 0) {
    if ((w->bits & 7) == 0)
      w->b[w->bits >> 3] = 0;
    w->b[w->bits >> 3] |= (uint8_t) (((v >> n) & 1u) << (7 - (w->bits & 7)));
    w->bits++;
  }
}

static void
bw_ue (bw * w, uint32_t v)
{
  uint64_t x = (uint64_t) v + 1;
  int n = 0;
  while ((x >> (n + 1)) != 0)
    n++;
  bw_u (w, 0, n);
  bw_u (w, (uint32_t) x, n + 1);
}

/* An access unit with one slice: type 1 (P) or 5 (IDR), frame_num FN, nal_ref_idc 3; the
 * slice data is junk, the filler reads the header up to frame_num only. */
static size_t
slice_au (uint8_t * out, int idr, uint32_t fn)
{
  bw w = { { 0 }, 0 };
  bw_ue (&w, 0);
  bw_ue (&w, idr ? 7 : 5);
  bw_ue (&w, 0);
  bw_u (&w, fn, 5);
  bw_u (&w, 0x2a5, 10);
  bw_u (&w, 1, 1);
  size_t n = (w.bits + 7) >> 3;
  out[0] = out[1] = out[2] = 0;
  out[3] = 1;
  out[4] = (uint8_t) (0x60 | (idr ? 5 : 1));
  memcpy (out + 5, w.b, n);
  return n + 5;
}

typedef struct { const uint8_t *p; size_t len, bit; } br;

static uint32_t
br_u (br * r, int n)
{
  uint32_t v = 0;
  while (n-- > 0) {
    size_t i = r->bit >> 3;
    v = (v << 1) | (i < r->len ? (r->p[i] >> (7 - (r->bit & 7))) & 1u : 0);
    r->bit++;
  }
  return v;
}

static uint32_t
br_ue (br * r)
{
  int z = 0;
  while (br_u (r, 1) == 0 && z < 32)
    z++;
  return (1u << z) - 1 + br_u (r, z);
}

/* feeds one access unit (SPS and PPS first if with_ps), MISSING frames lost before it */
static long
feed (amcc_h264fill * f, int with_ps, int idr, uint32_t fn, long missing, uint8_t * out)
{
  uint8_t au[128];
  size_t n = 0;
  if (with_ps) {
    memcpy (au, sps_pps, sizeof sps_pps);
    n = sizeof sps_pps;
  }
  n += slice_au (au + n, idr, fn);
  return amcc_h264fill_au (f, au, n, missing, out, AMCC_H264FILL_MAX_BYTES);
}

static amcc_h264fill f;

/* frame_nums from..to (P frames, nothing missing), each needing no synthetic unit */
static void
run (uint32_t from, uint32_t to, uint8_t * out)
{
  for (uint32_t k = from; k <= to; k++)
    AMT_CHECK (feed (&f, 0, 0, k, 0, out) == 0);
}

static void
test_fills_only_across_the_wrap (void)
{
  uint8_t out[AMCC_H264FILL_MAX_BYTES];
  amcc_h264fill_init (&f);
  AMT_CHECK (feed (&f, 1, 1, 0, -1, out) == 0);
  run (1, 31, out);
  /* frame_num 0 lost: the next is 1 */
  long n = feed (&f, 0, 0, 1, 1, out);
  AMT_CHECK (n > 5 && n <= AMCC_H264FILL_MAX_BYTES);
  AMT_CHECK (f.filled == 1);
  /* an ordinary gap (3 lost), frame_num 31 lost (the next is 0 itself), the same frame_num
   * again: nothing */
  run (2, 2, out);
  AMT_CHECK (feed (&f, 0, 0, 4, 1, out) == 0);
  run (5, 30, out);
  AMT_CHECK (feed (&f, 0, 0, 0, 1, out) == 0);
  AMT_CHECK (feed (&f, 0, 0, 0, 0, out) == 0);
  /* 30, 31, 0, 1 lost after 29: one frame_num-0 slice, the rest is an ordinary gap */
  run (1, 29, out);
  AMT_CHECK (feed (&f, 1, 0, 2, 4, out) > 0);
  AMT_CHECK (f.filled == 2);
  /* not counted: the stream has wrapped on a P frame, so a drop of frame_num is a wrap */
  run (3, 31, out);
  AMT_CHECK (feed (&f, 0, 0, 5, -1, out) > 0);
  AMT_CHECK (f.filled == 3);
  /* an IDR starts afresh: frame_num 0 after 5 is no loss; then a loss of 0 again is */
  AMT_CHECK (feed (&f, 0, 1, 0, 0, out) == 0);
  run (1, 31, out);
  AMT_CHECK (feed (&f, 0, 0, 3, 3, out) > 0);
  AMT_CHECK (f.filled == 4);
  /* after a reset (flush) nothing is compared with the picture before */
  amcc_h264fill_reset (&f);
  AMT_CHECK (feed (&f, 0, 0, 1, 1, out) == 0);
}

/* An IDR stream (an IDR every 25 frames) that loses an IDR frame: frame_num goes from 24 down
 * to 1, but by 9 (mod 32) where 1 frame is missing: not a wrap, nothing written (the decoder
 * keeps dropping the P frames that lost their reference). Not counted: the stream never
 * wrapped on a P frame, nothing either. */
static void
test_lost_idr_is_no_wrap (void)
{
  uint8_t out[AMCC_H264FILL_MAX_BYTES];
  amcc_h264fill_init (&f);
  AMT_CHECK (feed (&f, 1, 1, 0, -1, out) == 0);
  run (1, 24, out);
  AMT_CHECK (feed (&f, 0, 0, 1, 1, out) == 0);
  run (2, 24, out);
  AMT_CHECK (feed (&f, 0, 0, 1, -1, out) == 0);
  /* the IDR after the next 24 arrives: still nothing */
  run (2, 24, out);
  AMT_CHECK (feed (&f, 1, 1, 0, 0, out) == 0);
  run (1, 24, out);
  AMT_CHECK (feed (&f, 0, 0, 2, 2, out) == 0);
  AMT_CHECK (f.filled == 0);
}

/* The synthetic unit read back: a non-IDR reference slice, P, PPS 0, frame_num 0, no list or
 * marking changes, QP delta 0, deblocking off (x264's PPS has the control flag), one skip run
 * over the 20 x 12 macroblocks, then the stop bit. */
static void
test_slice_syntax (void)
{
  uint8_t out[AMCC_H264FILL_MAX_BYTES];
  amcc_h264fill_init (&f);
  AMT_CHECK (feed (&f, 1, 1, 0, -1, out) == 0);
  AMT_CHECK (feed (&f, 0, 0, 30, 29, out) == 0);
  long n = feed (&f, 0, 0, 2, 3, out);
  AMT_CHECK (n > 5);
  AMT_CHECK (out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 1);
  AMT_CHECK ((out[4] & 0x80) == 0 && (out[4] & 0x1f) == 1 && (out[4] >> 5) == 3);
  for (long i = 5; i + 2 < n; i++)      /* no start code or unescaped 00 00 0x inside */
    AMT_CHECK (!(out[i] == 0 && out[i + 1] == 0 && out[i + 2] <= 2));
  br r = { out + 5, (size_t) n - 5, 0 };
  AMT_CHECK (br_ue (&r) == 0);  /* first_mb_in_slice */
  AMT_CHECK (br_ue (&r) == 5);  /* P */
  AMT_CHECK (br_ue (&r) == 0);  /* pps */
  AMT_CHECK (br_u (&r, 5) == 0);        /* frame_num */
  AMT_CHECK (br_u (&r, 1) == 0);        /* num_ref_idx_active_override_flag */
  AMT_CHECK (br_u (&r, 1) == 0);        /* ref_pic_list_modification_flag_l0 */
  AMT_CHECK (br_u (&r, 1) == 0);        /* adaptive_ref_pic_marking_mode_flag */
  AMT_CHECK (br_ue (&r) == 0);  /* slice_qp_delta */
  AMT_CHECK (br_ue (&r) == 1);  /* disable_deblocking_filter_idc */
  AMT_CHECK (br_ue (&r) == 20 * 12);    /* mb_skip_run */
  AMT_CHECK (br_u (&r, 1) == 1);        /* rbsp_stop_one_bit */
  AMT_CHECK (((r.bit + 7) >> 3) == (size_t) n - 5);
}

/* A CABAC PPS (entropy_coding_mode_flag set): no slice it could write, nothing changes. Too
 * small a buffer: AMCC_ERR_NOSPACE and the unit is not taken, so the call can be repeated. */
static void
test_unusable_and_nospace (void)
{
  uint8_t out[AMCC_H264FILL_MAX_BYTES], au[128];
  amcc_h264fill_init (&f);
  memcpy (au, sps_pps, sizeof sps_pps);
  au[sizeof sps_pps - 3] = 0xee;
  size_t n = sizeof sps_pps + slice_au (au + sizeof sps_pps, 1, 0);
  AMT_CHECK (amcc_h264fill_au (&f, au, n, -1, out, sizeof out) == 0);
  AMT_CHECK (feed (&f, 0, 0, 31, 30, out) == 0);
  AMT_CHECK (feed (&f, 0, 0, 1, 1, out) == 0);
  AMT_CHECK (f.filled == 0);

  amcc_h264fill_init (&f);
  AMT_CHECK (feed (&f, 1, 1, 0, -1, out) == 0);
  AMT_CHECK (feed (&f, 0, 0, 31, 30, out) == 0);
  n = slice_au (au, 0, 1);
  AMT_CHECK (amcc_h264fill_au (&f, au, n, 1, out, 8) == AMCC_ERR_NOSPACE);
  AMT_CHECK (amcc_h264fill_au (&f, au, n, 1, out, sizeof out) > 0);
  AMT_CHECK (amcc_h264fill_au (&f, NULL, 3, 0, out, sizeof out) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_h264fill_au (&f, NULL, 0, 0, out, sizeof out) == 0);
}

/* A High-profile SPS whose first scaling list's delta_scale is DELTA (a valid one ends the
 * list at once: 8 + DELTA = 0 mod 256), 320x192, frame_num 4 bits, POC type 2, emulation
 * prevention bytes added; returns the access unit's length. */
static size_t
scaling_sps_au (uint8_t * out, int32_t delta)
{
  bw w = { { 0 }, 0 };
  bw_u (&w, 100, 8);            /* profile_idc: High */
  bw_u (&w, 0x1e, 16);
  bw_ue (&w, 0);                /* seq_parameter_set_id */
  bw_ue (&w, 1);                /* chroma_format_idc */
  bw_ue (&w, 0);
  bw_ue (&w, 0);
  bw_u (&w, 0, 1);
  bw_u (&w, 1, 1);              /* seq_scaling_matrix_present_flag */
  bw_u (&w, 1, 1);              /* list 0 present */
  bw_ue (&w, delta > 0 ? 2 * (uint32_t) delta - 1 : 2 * (uint32_t) -delta);
  bw_u (&w, 0, 7);              /* lists 1-7 not */
  bw_ue (&w, 0);                /* log2_max_frame_num_minus4 */
  bw_ue (&w, 2);                /* pic_order_cnt_type */
  bw_ue (&w, 1);
  bw_u (&w, 0, 1);
  bw_ue (&w, 19);
  bw_ue (&w, 11);
  bw_u (&w, 1, 1);              /* frame_mbs_only_flag */
  bw_u (&w, 0x10, 5);           /* direct_8x8, no cropping, no VUI, stop bit */
  size_t n = 5, zeros = 0;
  out[0] = out[1] = out[2] = 0;
  out[3] = 1;
  out[4] = 0x67;
  for (size_t i = 0; i < (w.bits + 7) >> 3; i++) {
    if (zeros >= 2 && w.b[i] <= 3) {
      out[n++] = 3;
      zeros = 0;
    }
    out[n++] = w.b[i];
    zeros = w.b[i] == 0 ? zeros + 1 : 0;
  }
  return n;
}

/* delta_scale outside -128..127 (7.4.2.1.1.1) makes the SPS unusable, and a huge one must
 * not overflow (UBSan found 2147483529 + 256 in the fuzzer). */
static void
test_scaling_list_delta_range (void)
{
  uint8_t au[64], out[AMCC_H264FILL_MAX_BYTES];
  const int32_t ok[] = { -8 }, bad[] = { 248, INT32_MAX, -INT32_MAX };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    amcc_h264fill_init (&f);
    AMT_CHECK (amcc_h264fill_au (&f, au, scaling_sps_au (au, ok[i]), -1, out, sizeof out) == 0);
    AMT_CHECK (f.sps[0].valid && f.sps[0].log2_max_frame_num == 4 && f.sps[0].mbs == 240);
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    amcc_h264fill_init (&f);
    AMT_CHECK (amcc_h264fill_au (&f, au, scaling_sps_au (au, bad[i]), -1, out, sizeof out) == 0);
    AMT_CHECK (!f.sps[0].valid);
  }
}

int
main (void)
{
  AMT_RUN (test_fills_only_across_the_wrap);
  AMT_RUN (test_lost_idr_is_no_wrap);
  AMT_RUN (test_slice_syntax);
  AMT_RUN (test_unusable_and_nospace);
  AMT_RUN (test_scaling_list_delta_range);
  return amt_summary ();
}

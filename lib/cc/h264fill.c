/* h264fill.c - a synthetic frame_num-0 skip picture in front of a frame_num gap that crosses
 * the wrap (amcc/h264fill.h). Syntax: ITU-T H.264 7.3.2.1 (SPS), 7.3.2.2 (PPS), 7.3.3 (slice
 * header), 7.3.4 (slice data, CAVLC), 7.4.1 (emulation prevention). */
#include "amcc/h264fill.h"

#include <string.h>

/* ---- reading RBSP bits out of a NAL unit (emulation prevention bytes skipped) ------------ */

typedef struct {
  const uint8_t *p;
  size_t len, pos;          /* byte position in p */
  int bit;                  /* next bit in p[pos], 7 = MSB */
  int zeros;                /* consecutive zero bytes read so far */
  int err;
} rd;

static void
rd_init (rd * r, const uint8_t * p, size_t len)
{
  r->p = p;
  r->len = len;
  r->pos = 0;
  r->bit = 7;
  r->zeros = 0;
  r->err = 0;
}

static unsigned
rd_bit (rd * r)
{
  if (r->bit == 7) {
    /* entering a new byte: 0x03 after two zero bytes is an emulation prevention byte */
    if (r->pos < r->len && r->zeros >= 2 && r->p[r->pos] == 3) {
      r->pos++;
      r->zeros = 0;
    }
    if (r->pos >= r->len) {
      r->err = 1;
      return 0;
    }
  }
  unsigned b = (r->p[r->pos] >> r->bit) & 1u;
  if (r->bit-- == 0) {
    r->zeros = r->p[r->pos] == 0 ? r->zeros + 1 : 0;
    r->pos++;
    r->bit = 7;
  }
  return b;
}

static uint32_t
rd_u (rd * r, int n)
{
  uint32_t v = 0;
  while (n-- > 0)
    v = (v << 1) | rd_bit (r);
  return v;
}

static uint32_t
rd_ue (rd * r)
{
  int z = 0;
  while (!r->err && rd_bit (r) == 0)
    if (++z > 31) {
      r->err = 1;
      return 0;
    }
  if (r->err)
    return 0;
  return (uint32_t) (((uint64_t) 1 << z) - 1 + rd_u (r, z));
}

static int32_t
rd_se (rd * r)
{
  uint32_t v = rd_ue (r);
  return (v & 1) ? (int32_t) ((v + 1) / 2) : -(int32_t) (v / 2);
}

/* ---- writing an RBSP, then the NAL unit with emulation prevention ----------------------- */

typedef struct {
  uint8_t b[AMCC_H264FILL_MAX_BYTES];
  size_t bits;
} wr;

static void
wr_u (wr * w, uint32_t v, int n)
{
  while (n-- > 0) {
    size_t i = w->bits >> 3;
    if (i >= sizeof w->b)
      return;                   /* cannot happen within the bounds of amcc_h264fill_au */
    if ((w->bits & 7) == 0)
      w->b[i] = 0;
    w->b[i] |= (uint8_t) (((v >> n) & 1u) << (7 - (w->bits & 7)));
    w->bits++;
  }
}

static void
wr_ue (wr * w, uint32_t v)
{
  uint64_t x = (uint64_t) v + 1;
  int n = 0;
  while ((x >> (n + 1)) != 0)
    n++;
  wr_u (w, 0, n);
  wr_u (w, (uint32_t) x, n + 1);
}

/* ---- parameter sets --------------------------------------------------------------------- */

static void
skip_scaling_list (rd * r, int size)
{
  int last = 8, next = 8;
  for (int j = 0; j < size && !r->err; j++) {
    if (next != 0) {
      int32_t delta = rd_se (r);
      if (delta < -128 || delta > 127) {
        r->err = 1;             /* delta_scale's range (7.4.2.1.1.1); a larger one overflows */
        return;
      }
      next = (last + (int) delta + 256) % 256;
    }
    last = next == 0 ? last : next;
  }
}

static void
parse_sps (amcc_h264fill * f, rd * r)
{
  uint32_t profile = rd_u (r, 8);
  rd_u (r, 16);                 /* constraint flags, reserved, level_idc */
  uint32_t id = rd_ue (r);
  uint32_t chroma = 1;
  if (r->err || id >= 32)
    return;
  if (profile == 100 || profile == 110 || profile == 122 || profile == 244 || profile == 44
      || profile == 83 || profile == 86 || profile == 118 || profile == 128 || profile == 138
      || profile == 139 || profile == 134 || profile == 135) {
    chroma = rd_ue (r);
    if (chroma == 3)
      rd_u (r, 1);              /* separate_colour_plane_flag */
    rd_ue (r);                  /* bit_depth_luma_minus8 */
    rd_ue (r);                  /* bit_depth_chroma_minus8 */
    rd_u (r, 1);                /* qpprime_y_zero_transform_bypass_flag */
    if (rd_u (r, 1))            /* seq_scaling_matrix_present_flag */
      for (int i = 0; i < (chroma != 3 ? 8 : 12) && !r->err; i++)
        if (rd_u (r, 1))
          skip_scaling_list (r, i < 6 ? 16 : 64);
  }
  uint32_t log2_fn = rd_ue (r) + 4;
  uint32_t poc_type = rd_ue (r);
  if (poc_type == 0) {
    rd_ue (r);
  } else if (poc_type == 1) {
    rd_u (r, 1);
    rd_se (r);
    rd_se (r);
    uint32_t n = rd_ue (r);
    if (n > 255) {
      r->err = 1;
      return;
    }
    for (uint32_t i = 0; i < n && !r->err; i++)
      rd_se (r);
  }
  rd_ue (r);                    /* max_num_ref_frames */
  rd_u (r, 1);                  /* gaps_in_frame_num_value_allowed_flag */
  uint32_t w = rd_ue (r) + 1, h = rd_ue (r) + 1;
  uint32_t frame_mbs_only = rd_u (r, 1);
  amcc_h264fill_sps *s = &f->sps[id];
  memset (s, 0, sizeof *s);
  if (r->err || log2_fn > 16 || w > 1024 || h > 1024)
    return;
  s->valid = 1;
  s->log2_max_frame_num = (uint8_t) log2_fn;
  s->mbs = w * h;
  s->usable = poc_type == 2 && frame_mbs_only && s->mbs <= (1u << 20);
}

static void
parse_pps (amcc_h264fill * f, rd * r)
{
  uint32_t id = rd_ue (r), sps_id = rd_ue (r);
  if (r->err || id > 255 || sps_id >= 32)
    return;
  uint32_t cabac = rd_u (r, 1);
  rd_u (r, 1);                  /* bottom_field_pic_order_in_frame_present_flag */
  uint32_t groups = rd_ue (r) + 1;
  amcc_h264fill_pps *p = &f->pps[id];
  memset (p, 0, sizeof *p);
  if (r->err || groups != 1)
    return;                     /* slice groups: not usable (and not parsed further) */
  rd_ue (r);                    /* num_ref_idx_l0_default_active_minus1 */
  rd_ue (r);                    /* num_ref_idx_l1_default_active_minus1 */
  uint32_t weighted = rd_u (r, 1);
  rd_u (r, 2);                  /* weighted_bipred_idc */
  rd_se (r);                    /* pic_init_qp_minus26 */
  rd_se (r);                    /* pic_init_qs_minus26 */
  rd_se (r);                    /* chroma_qp_index_offset */
  uint32_t deblock = rd_u (r, 1);
  rd_u (r, 1);                  /* constrained_intra_pred_flag */
  uint32_t redundant = rd_u (r, 1);
  if (r->err)
    return;
  p->valid = 1;
  p->sps_id = (uint8_t) sps_id;
  p->deblocking_filter_control_present = (uint8_t) deblock;
  p->redundant_pic_cnt_present = (uint8_t) redundant;
  p->usable = !cabac && !weighted;
}

/* ---- the synthetic access unit ---------------------------------------------------------- */

/* One non-IDR reference P slice, frame_num 0, every macroblock skipped (P_Skip with no coded
 * neighbour: motion vector 0, reference index 0), no deblocking. */
static long
write_skip_au (const amcc_h264fill_sps * s, const amcc_h264fill_pps * p, uint32_t pps_id,
    uint32_t nal_ref_idc, uint8_t * out, size_t cap)
{
  wr w;
  memset (&w, 0, sizeof w);
  wr_ue (&w, 0);                /* first_mb_in_slice */
  wr_ue (&w, 5);                /* slice_type: P, every slice of the picture */
  wr_ue (&w, pps_id);
  wr_u (&w, 0, s->log2_max_frame_num);  /* frame_num */
  /* frame_mbs_only: no field_pic_flag; not IDR: no idr_pic_id; poc type 2: no POC fields */
  if (p->redundant_pic_cnt_present)
    wr_ue (&w, 0);
  wr_u (&w, 0, 1);              /* num_ref_idx_active_override_flag */
  wr_u (&w, 0, 1);              /* ref_pic_list_modification_flag_l0 */
  wr_u (&w, 0, 1);              /* adaptive_ref_pic_marking_mode_flag (nal_ref_idc != 0) */
  wr_ue (&w, 0);                /* slice_qp_delta: se(0) has the code of ue(0) */
  if (p->deblocking_filter_control_present)
    wr_ue (&w, 1);              /* disable_deblocking_filter_idc */
  wr_ue (&w, s->mbs);           /* mb_skip_run: the whole picture; no more data */
  wr_u (&w, 1, 1);              /* rbsp_stop_one_bit, then zeros to the byte */
  size_t rbsp = (w.bits + 7) >> 3;

  uint8_t nal[2 * AMCC_H264FILL_MAX_BYTES];
  size_t n = 0;
  int zeros = 0;
  nal[n++] = (uint8_t) ((nal_ref_idc << 5) | 1);   /* forbidden 0, nal_unit_type 1 */
  for (size_t i = 0; i < rbsp; i++) {
    if (zeros >= 2 && w.b[i] <= 3) {
      nal[n++] = 3;
      zeros = 0;
    }
    nal[n++] = w.b[i];
    zeros = w.b[i] == 0 ? zeros + 1 : 0;
  }
  if (n + 4 > cap)
    return AMCC_ERR_NOSPACE;
  out[0] = out[1] = out[2] = 0;
  out[3] = 1;
  memcpy (out + 4, nal, n);
  return (long) (n + 4);
}

/* ---- the stream ------------------------------------------------------------------------- */

void
amcc_h264fill_init (amcc_h264fill * f)
{
  memset (f, 0, sizeof *f);
}

void
amcc_h264fill_reset (amcc_h264fill * f)
{
  f->have_prev = 0;
  f->prev_frame_num = 0;
  f->wrapped = 0;
}

/* Next NAL unit at or after *pos: its payload [*start, *end) (start code excluded, trailing
 * zero bytes of the next start code excluded). Returns 0 at the end. */
static int
next_nal (const uint8_t * d, size_t len, size_t * pos, size_t * start, size_t * end)
{
  size_t i = *pos;
  while (i + 3 <= len && !(d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 1))
    i++;
  if (i + 3 > len)
    return 0;
  *start = i + 3;
  i = *start;
  while (i + 3 <= len && !(d[i] == 0 && d[i + 1] == 0 && (d[i + 2] == 1 || d[i + 2] == 0)))
    i++;
  if (i + 3 > len)
    i = len;
  *end = i;
  *pos = i;
  return *end > *start;
}

long
amcc_h264fill_au (amcc_h264fill * f, const uint8_t * au, size_t len, long missing,
    uint8_t * out, size_t cap)
{
  size_t pos = 0, a, b;

  if (!f || (!au && len))
    return AMCC_ERR_PARAM;
  while (next_nal (au, len, &pos, &a, &b)) {
    uint32_t type = au[a] & 0x1f, ref_idc = (au[a] >> 5) & 3;
    rd r;
    rd_init (&r, au + a + 1, b - a - 1);
    if (type == 7) {
      parse_sps (f, &r);
      continue;
    }
    if (type == 8) {
      parse_pps (f, &r);
      continue;
    }
    if (type != 1 && type != 5)
      continue;
    /* the first slice of the picture says all we need */
    rd_ue (&r);                 /* first_mb_in_slice */
    rd_ue (&r);                 /* slice_type */
    uint32_t pps_id = rd_ue (&r);
    if (r.err || pps_id > 255 || !f->pps[pps_id].valid
        || !f->sps[f->pps[pps_id].sps_id].valid) {
      f->have_prev = 0;         /* cannot read its frame_num: nothing to compare the next to */
      return 0;
    }
    const amcc_h264fill_pps *p = &f->pps[pps_id];
    const amcc_h264fill_sps *s = &f->sps[p->sps_id];
    uint32_t fn = rd_u (&r, s->log2_max_frame_num);
    if (r.err) {
      f->have_prev = 0;
      return 0;
    }
    long made = 0;
    uint32_t max = 1u << s->log2_max_frame_num;
    /* The frames missing before this one include frame_num 0 when frame_num went down
     * without being 0 itself (the same frame_num again is a reference picture after a
     * non-reference one, no gap); an IDR starts afresh. A wrap, not a lost IDR: frame_num
     * advanced by the frames missing, or (not counted) the stream wraps on P frames. */
    int wrap = missing >= 0
        ? (fn + max - f->prev_frame_num - 1) % max == (uint32_t) (missing % (long) max)
        : f->wrapped;
    if (type == 1 && f->have_prev && fn != 0 && fn < f->prev_frame_num && wrap && s->usable
        && p->usable) {
      made = write_skip_au (s, p, pps_id, ref_idc ? ref_idc : 1, out, cap);
      if (made < 0)
        return made;
      f->filled++;
    }
    if (type == 5)
      f->wrapped = 0;
    else if (fn == 0 || made > 0)
      f->wrapped = 1;
    f->have_prev = 1;
    f->prev_frame_num = fn;
    return made;
  }
  return 0;                     /* no slice: parameter sets or SEI only */
}

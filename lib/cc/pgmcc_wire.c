/* pgmcc_wire.c - PGMCC's three RTCP APP payloads (name "PGMC"): the sender's acker, the
 * receivers' report, the acker's ACK. Layout byte by byte: docs/wire-formats.md ("PGMCC").
 * Decoders accept exactly the version-1 length and reject reserved bits and contradictions. */
#include "amcc/pgmcc.h"
#include "amcc/rtcp_app.h"
#include <math.h>

#define SI_HAS_ACKER 0x80
#define FB_HAS_ECHO  0x80
#define RESERVED     0x7f
#define LOSS_ONE     65535.0         /* p = 1 on the wire */

static bool
feedback_ok (const struct amcc_pgmcc_feedback *f)
{
  if (!(f->loss >= 0 && f->loss <= 1))
    return false;
  if (!f->has_echo && (f->echo_ts_us || f->hold_us))
    return false;
  return f->hold_us <= AMCC_MAX_HOLD_US;
}

static int
check_len (const uint8_t *buf, size_t len, size_t want)
{
  if (len >= 1 && buf[0] != AMCC_PGMCC_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  if (len < want)
    return AMCC_ERR_TRUNCATED;
  return len > want ? AMCC_ERR_FIELD : AMCC_OK;      /* version 1 has no trailing data */
}

int
amcc_pgmcc_sender_info_encode (const struct amcc_pgmcc_sender_info *in, uint8_t *buf,
    size_t cap)
{
  amcc_wr w;

  if (!in || !buf || (!in->has_acker && in->acker_ssrc))
    return AMCC_ERR_PARAM;
  amcc_wr_init (&w, buf, cap);
  amcc_wr_u8 (&w, AMCC_PGMCC_WIRE_VERSION);
  amcc_wr_u8 (&w, in->has_acker ? SI_HAS_ACKER : 0);
  amcc_wr_u16 (&w, 0);
  amcc_wr_u32 (&w, in->acker_ssrc);
  return w.err ? w.err : (int) w.pos;
}

int
amcc_pgmcc_sender_info_decode (struct amcc_pgmcc_sender_info *out, const uint8_t *buf,
    size_t len)
{
  amcc_rd r;
  int e;

  if (!out || (!buf && len))
    return AMCC_ERR_PARAM;
  if ((e = check_len (buf, len, AMCC_PGMCC_SENDER_LEN)) < 0)
    return e;
  amcc_rd_init (&r, buf, len);
  (void) amcc_rd_u8 (&r);
  uint8_t flags = amcc_rd_u8 (&r);
  uint16_t reserved = amcc_rd_u16 (&r);
  uint32_t acker = amcc_rd_u32 (&r);
  if (r.err)
    return r.err;
  if ((flags & RESERVED) || reserved || (!(flags & SI_HAS_ACKER) && acker))
    return AMCC_ERR_FIELD;
  out->has_acker = flags & SI_HAS_ACKER;
  out->acker_ssrc = acker;
  return AMCC_OK;
}

static void
put_feedback (amcc_wr *w, const struct amcc_pgmcc_feedback *f)
{
  amcc_wr_u8 (w, AMCC_PGMCC_WIRE_VERSION);
  amcc_wr_u8 (w, f->has_echo ? FB_HAS_ECHO : 0);
  amcc_wr_u16 (w, (uint16_t) lround (f->loss * LOSS_ONE));
  amcc_wr_u32 (w, f->rx_max);
  amcc_wr_u32 (w, f->echo_ts_us);
  amcc_wr_u32 (w, f->hold_us);
}

static int
get_feedback (amcc_rd *r, struct amcc_pgmcc_feedback *f)
{
  (void) amcc_rd_u8 (r);
  uint8_t flags = amcc_rd_u8 (r);
  f->loss = amcc_rd_u16 (r) / LOSS_ONE;
  f->rx_max = amcc_rd_u32 (r);
  f->echo_ts_us = amcc_rd_u32 (r);
  f->hold_us = amcc_rd_u32 (r);
  f->has_echo = flags & FB_HAS_ECHO;
  if (r->err)
    return r->err;
  return (flags & RESERVED) || !feedback_ok (f) ? AMCC_ERR_FIELD : AMCC_OK;
}

int
amcc_pgmcc_report_encode (const struct amcc_pgmcc_feedback *in, uint8_t *buf, size_t cap)
{
  amcc_wr w;

  if (!in || !buf || !feedback_ok (in))
    return AMCC_ERR_PARAM;
  amcc_wr_init (&w, buf, cap);
  put_feedback (&w, in);
  return w.err ? w.err : (int) w.pos;
}

int
amcc_pgmcc_report_decode (struct amcc_pgmcc_feedback *out, const uint8_t *buf, size_t len)
{
  struct amcc_pgmcc_feedback f;
  amcc_rd r;
  int e;

  if (!out || (!buf && len))
    return AMCC_ERR_PARAM;
  if ((e = check_len (buf, len, AMCC_PGMCC_REPORT_LEN)) < 0)
    return e;
  amcc_rd_init (&r, buf, len);
  if ((e = get_feedback (&r, &f)) < 0)
    return e;
  *out = f;
  return AMCC_OK;
}

int
amcc_pgmcc_ack_encode (const struct amcc_pgmcc_ack *in, uint8_t *buf, size_t cap)
{
  amcc_wr w;

  if (!in || !buf || !feedback_ok (&in->fb))
    return AMCC_ERR_PARAM;
  amcc_wr_init (&w, buf, cap);
  put_feedback (&w, &in->fb);
  amcc_wr_u32 (&w, in->bitmap);
  amcc_wr_u32 (&w, in->received);
  return w.err ? w.err : (int) w.pos;
}

int
amcc_pgmcc_ack_decode (struct amcc_pgmcc_ack *out, const uint8_t *buf, size_t len)
{
  struct amcc_pgmcc_ack a;
  amcc_rd r;
  int e;

  if (!out || (!buf && len))
    return AMCC_ERR_PARAM;
  if ((e = check_len (buf, len, AMCC_PGMCC_ACK_LEN)) < 0)
    return e;
  amcc_rd_init (&r, buf, len);
  if ((e = get_feedback (&r, &a.fb)) < 0)
    return e;
  a.bitmap = amcc_rd_u32 (&r);
  a.received = amcc_rd_u32 (&r);
  if (r.err)
    return r.err;
  *out = a;
  return AMCC_OK;
}

/* avmrc_wire.c - AVMRC's per-packet stamp, an RTP header-extension payload (16 bytes, RFC 8285
 * one-byte form): send time, slot number and add flag, layer. Layout: docs/wire-formats.md
 * ("AVMRC"). The decoder accepts exactly the version-1 length and rejects reserved bits. */
#include "amcc/avmrc.h"
#include "amcc/rtcp_app.h"

#define FLAG_ADD 0x80
#define RESERVED 0x7f

int
amcc_avmrc_stamp_encode (const amcc_avmrc_stamp *in, uint8_t *buf, size_t cap)
{
  amcc_wr w;

  if (!in || !buf || in->send_time < 0 || in->layer >= AMCC_AVMRC_MAX_LAYERS)
    return AMCC_ERR_PARAM;
  amcc_wr_init (&w, buf, cap);
  amcc_wr_u8 (&w, AMCC_AVMRC_WIRE_VERSION);
  amcc_wr_u8 (&w, in->flagged ? FLAG_ADD : 0);
  amcc_wr_u8 (&w, (uint8_t) in->layer);
  amcc_wr_u8 (&w, 0);
  amcc_wr_u32 (&w, in->slot);
  amcc_wr_u64 (&w, (uint64_t) in->send_time);
  return w.err ? w.err : (int) w.pos;
}

int
amcc_avmrc_stamp_decode (amcc_avmrc_stamp *out, const uint8_t *buf, size_t len)
{
  amcc_rd r;

  if (!out || (!buf && len))
    return AMCC_ERR_PARAM;
  if (len >= 1 && buf[0] != AMCC_AVMRC_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  if (len < AMCC_AVMRC_STAMP_LEN)
    return AMCC_ERR_TRUNCATED;
  if (len > AMCC_AVMRC_STAMP_LEN)
    return AMCC_ERR_FIELD;                  /* version 1 has no trailing data */
  amcc_rd_init (&r, buf, len);
  (void) amcc_rd_u8 (&r);
  uint8_t flags = amcc_rd_u8 (&r);
  uint8_t layer = amcc_rd_u8 (&r);
  uint8_t reserved = amcc_rd_u8 (&r);
  uint32_t slot = amcc_rd_u32 (&r);
  uint64_t t = amcc_rd_u64 (&r);
  if (r.err)
    return r.err;
  if ((flags & RESERVED) || reserved || layer >= AMCC_AVMRC_MAX_LAYERS || t > (uint64_t) INT64_MAX)
    return AMCC_ERR_FIELD;
  out->flagged = (flags & FLAG_ADD) != 0;
  out->layer = layer;
  out->slot = slot;
  out->send_time = (amcc_time) t;
  return AMCC_OK;
}

/* rmanp_wire.c - RMANP's packets (version 1): DATA with its 16-byte header, CI, NACK and ACK of
 * 16 bytes each. Layout byte by byte: docs/wire-formats.md ("RMANP"). Decoders accept exactly the
 * length the header announces and reject reserved bits and out-of-range values. */
#include "amcc/rmanp.h"
#include "amcc/rtcp_app.h"

#define DATA_FLAGS (AMCC_RMANP_F_MARK | AMCC_RMANP_F_RETX | AMCC_RMANP_F_FIN)

static int
valid (const struct amcc_rmanp_pkt *p)
{
  switch (p->type) {
  case AMCC_RMANP_DATA:
    return (p->flags & ~DATA_FLAGS) == 0 && p->value > 0 && p->node == 0
        && (p->len == 0 || p->payload);
  case AMCC_RMANP_CI:
    return p->flags == 0 && p->value > 0;
  case AMCC_RMANP_NACK:
    return p->flags == 0 && p->value >= 1 && p->value <= AMCC_RMANP_NACK_MAX;
  case AMCC_RMANP_ACK:
    return p->flags == 0 && p->value == 0;
  default:
    return 0;
  }
}

int
amcc_rmanp_encode (const struct amcc_rmanp_pkt *p, uint8_t *buf, size_t cap)
{
  amcc_wr w;

  if (!p || !buf || !valid (p))
    return AMCC_ERR_PARAM;
  amcc_wr_init (&w, buf, cap);
  amcc_wr_u8 (&w, AMCC_RMANP_WIRE_VERSION);
  amcc_wr_u8 (&w, p->type);
  amcc_wr_u8 (&w, p->flags);
  amcc_wr_u8 (&w, 0);
  if (p->type == AMCC_RMANP_DATA) {
    amcc_wr_u32 (&w, p->seq);
    amcc_wr_u32 (&w, p->value);
    amcc_wr_u16 (&w, p->len);
    amcc_wr_u16 (&w, 0);
    for (uint16_t i = 0; i < p->len && !w.err; i++)
      amcc_wr_u8 (&w, p->payload[i]);
  } else {
    amcc_wr_u32 (&w, p->node);
    amcc_wr_u32 (&w, p->seq);
    amcc_wr_u32 (&w, p->value);
  }
  return w.err ? w.err : (int) w.pos;
}

int
amcc_rmanp_decode (struct amcc_rmanp_pkt *out, const uint8_t *buf, size_t len)
{
  struct amcc_rmanp_pkt p = { 0 };
  amcc_rd r;

  if (!out || (!buf && len))
    return AMCC_ERR_PARAM;
  if (len >= 1 && buf[0] != AMCC_RMANP_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  amcc_rd_init (&r, buf, len);
  (void) amcc_rd_u8 (&r);
  p.type = amcc_rd_u8 (&r);
  p.flags = amcc_rd_u8 (&r);
  uint8_t reserved = amcc_rd_u8 (&r);
  if (r.err)
    return r.err;
  if (p.type < AMCC_RMANP_DATA || p.type > AMCC_RMANP_ACK)
    return AMCC_ERR_TYPE;
  uint16_t reserved16 = 0;
  if (p.type == AMCC_RMANP_DATA) {
    p.seq = amcc_rd_u32 (&r);
    p.value = amcc_rd_u32 (&r);
    p.len = amcc_rd_u16 (&r);
    reserved16 = amcc_rd_u16 (&r);
    if (r.err)
      return r.err;
    if (amcc_rd_left (&r) < p.len)
      return AMCC_ERR_TRUNCATED;
    p.payload = buf + r.pos;
    r.pos += p.len;
  } else {
    p.node = amcc_rd_u32 (&r);
    p.seq = amcc_rd_u32 (&r);
    p.value = amcc_rd_u32 (&r);
    if (r.err)
      return r.err;
  }
  if (reserved || reserved16 || amcc_rd_left (&r) || !valid (&p))
    return AMCC_ERR_FIELD;
  *out = p;
  return AMCC_OK;
}

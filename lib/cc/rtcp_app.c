/* rtcp_app.c - RTCP APP framing (RFC 3550 6.7) and bounds-checked big-endian cursors. */
#include <math.h>
#include <string.h>
#include "amcc/rtcp_app.h"

void
amcc_rd_init (amcc_rd *r, const uint8_t *p, size_t len)
{
  r->p = p;
  r->len = p ? len : 0;
  r->pos = 0;
  r->err = AMCC_OK;
}

static int
rd_need (amcc_rd *r, size_t n)
{
  if (r->err || r->len - r->pos < n) {
    r->err = AMCC_ERR_TRUNCATED;
    return 0;
  }
  return 1;
}

uint8_t
amcc_rd_u8 (amcc_rd *r)
{
  if (!rd_need (r, 1))
    return 0;
  return r->p[r->pos++];
}

uint16_t
amcc_rd_u16 (amcc_rd *r)
{
  if (!rd_need (r, 2))
    return 0;
  uint16_t v = (uint16_t) ((r->p[r->pos] << 8) | r->p[r->pos + 1]);
  r->pos += 2;
  return v;
}

uint32_t
amcc_rd_u32 (amcc_rd *r)
{
  if (!rd_need (r, 4))
    return 0;
  const uint8_t *b = r->p + r->pos;
  r->pos += 4;
  return ((uint32_t) b[0] << 24) | ((uint32_t) b[1] << 16) | ((uint32_t) b[2] << 8) | b[3];
}

uint64_t
amcc_rd_u64 (amcc_rd *r)
{
  if (!rd_need (r, 8))
    return 0;
  uint64_t hi = amcc_rd_u32 (r);
  return (hi << 32) | amcc_rd_u32 (r);
}

size_t
amcc_rd_left (const amcc_rd *r)
{
  return r->len - r->pos;
}

void
amcc_wr_init (amcc_wr *w, uint8_t *p, size_t cap)
{
  w->p = p;
  w->cap = p ? cap : 0;
  w->pos = 0;
  w->err = AMCC_OK;
}

static int
wr_need (amcc_wr *w, size_t n)
{
  if (w->err || w->cap - w->pos < n) {
    w->err = AMCC_ERR_NOSPACE;
    return 0;
  }
  return 1;
}

void
amcc_wr_u8 (amcc_wr *w, uint8_t v)
{
  if (wr_need (w, 1))
    w->p[w->pos++] = v;
}

void
amcc_wr_u16 (amcc_wr *w, uint16_t v)
{
  if (!wr_need (w, 2))
    return;
  w->p[w->pos++] = (uint8_t) (v >> 8);
  w->p[w->pos++] = (uint8_t) v;
}

void
amcc_wr_u32 (amcc_wr *w, uint32_t v)
{
  if (!wr_need (w, 4))
    return;
  for (int i = 3; i >= 0; i--)
    w->p[w->pos++] = (uint8_t) (v >> (8 * i));
}

void
amcc_wr_u64 (amcc_wr *w, uint64_t v)
{
  if (!wr_need (w, 8))
    return;
  amcc_wr_u32 (w, (uint32_t) (v >> 32));
  amcc_wr_u32 (w, (uint32_t) v);
}

int
amcc_rtcp_app_parse (const uint8_t *buf, size_t len, amcc_rtcp_app *out)
{
  if (!buf || !out)
    return AMCC_ERR_PARAM;
  if (len < 4)
    return AMCC_ERR_TRUNCATED;
  if ((buf[0] >> 6) != 2)
    return AMCC_ERR_VERSION;
  if (buf[1] != AMCC_RTCP_PT_APP)
    return AMCC_ERR_TYPE;
  size_t plen = ((size_t) ((buf[2] << 8) | buf[3]) + 1) * 4;
  if (plen > len)
    return AMCC_ERR_TRUNCATED;
  if (plen < AMCC_RTCP_APP_HEADER_LEN)
    return AMCC_ERR_FIELD;        /* length field too small for SSRC + name */
  size_t data_len = plen - AMCC_RTCP_APP_HEADER_LEN;
  if (buf[0] & 0x20) {            /* P: last octet counts padding octets, itself included */
    size_t pad = buf[plen - 1];
    if (pad == 0 || pad > data_len)
      return AMCC_ERR_FIELD;
    data_len -= pad;
  }
  out->subtype = buf[0] & 0x1f;
  out->ssrc = ((uint32_t) buf[4] << 24) | ((uint32_t) buf[5] << 16) | ((uint32_t) buf[6] << 8) | buf[7];
  memcpy (out->name, buf + 8, 4);
  out->data = buf + AMCC_RTCP_APP_HEADER_LEN;
  out->data_len = data_len;
  out->packet_len = plen;
  return AMCC_OK;
}

int
amcc_rtcp_app_find (const uint8_t *buf, size_t len, const char name[4], int subtype,
    amcc_rtcp_app *out)
{
  if (!buf || !name || !out)
    return AMCC_ERR_PARAM;
  size_t off = 0;
  while (off < len) {
    if (len - off < 4)
      return AMCC_ERR_TRUNCATED;
    const uint8_t *p = buf + off;
    if ((p[0] >> 6) != 2)
      return AMCC_ERR_VERSION;
    size_t plen = ((size_t) ((p[2] << 8) | p[3]) + 1) * 4;
    if (plen > len - off)
      return AMCC_ERR_TRUNCATED;
    if (p[1] == AMCC_RTCP_PT_APP) {
      amcc_rtcp_app app;
      int st = amcc_rtcp_app_parse (p, plen, &app);
      if (st != AMCC_OK)
        return st;
      if (memcmp (app.name, name, 4) == 0 && (subtype < 0 || app.subtype == subtype)) {
        *out = app;
        return AMCC_OK;
      }
    }
    off += plen;
  }
  return AMCC_ERR_TYPE;
}

int
amcc_rtcp_app_write (uint8_t *buf, size_t cap, uint8_t subtype, uint32_t ssrc,
    const char name[4], const uint8_t *data, size_t data_len, size_t *written)
{
  if (!buf || !name || (data_len && !data) || subtype > 31 || data_len % 4
      || data_len > AMCC_RTCP_MAX_PACKET - AMCC_RTCP_APP_HEADER_LEN)
    return AMCC_ERR_PARAM;
  size_t plen = AMCC_RTCP_APP_HEADER_LEN + data_len;
  if (cap < plen)
    return AMCC_ERR_NOSPACE;
  amcc_wr w;
  amcc_wr_init (&w, buf, cap);
  amcc_wr_u8 (&w, (uint8_t) (0x80 | subtype));
  amcc_wr_u8 (&w, AMCC_RTCP_PT_APP);
  amcc_wr_u16 (&w, (uint16_t) (plen / 4 - 1));
  amcc_wr_u32 (&w, ssrc);
  memcpy (buf + w.pos, name, 4);
  if (data_len)
    memcpy (buf + w.pos + 4, data, data_len);
  if (written)
    *written = plen;
  return AMCC_OK;
}

/* RFC 3550 A.7 rtcp_interval(), without the randomisation */
double
amcc_rtcp_interval_det (uint32_t members, uint32_t senders, double rtcp_bw_Bps, int we_sent,
    double avg_rtcp_size, double min_time_s, int initial)
{
  double t_min = (min_time_s > 0 && isfinite (min_time_s)) ? min_time_s : 5.0;
  if (initial)
    t_min /= 2;
  if (!(rtcp_bw_Bps > 0) || !isfinite (rtcp_bw_Bps) || !(avg_rtcp_size > 0) || !isfinite (avg_rtcp_size))
    return t_min;
  double n = members ? members : 1;
  if (senders <= 0.25 * n) {          /* senders get a quarter of the RTCP bandwidth */
    if (we_sent) {
      rtcp_bw_Bps *= 0.25;
      n = senders ? senders : 1;
    } else {
      rtcp_bw_Bps *= 0.75;
      n -= senders;
      if (n < 1)
        n = 1;
    }
  }
  double t = avg_rtcp_size * n / rtcp_bw_Bps;
  return t < t_min ? t_min : t;
}

double
amcc_rtcp_interval (uint32_t members, uint32_t senders, double rtcp_bw_Bps, int we_sent,
    double avg_rtcp_size, double min_time_s, int initial, double u)
{
  double t = amcc_rtcp_interval_det (members, senders, rtcp_bw_Bps, we_sent, avg_rtcp_size,
      min_time_s, initial);
  if (!(u >= 0) || u >= 1)
    u = 0.5;
  return t * (u + 0.5) / (exp (1.0) - 1.5);      /* A.7: "COMPENSATION" = e - 3/2 */
}

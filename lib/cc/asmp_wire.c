/* asmp_wire.c - ASMP APP payloads (docs/wire-formats.md, "ASMP"). */
#include <math.h>
#include "amcc/asmp.h"
#include "amcc/rtcp_app.h"

#define FLAG_CONGESTED 0x01
#define FLAG_HAVE_ECHO 0x02
#define FLAGS_KNOWN (FLAG_CONGESTED | FLAG_HAVE_ECHO)
#define LOSS_UNIT 1e9             /* loss in units of 1e-9 */

static int
us_field (double s, uint32_t *out)
{
  if (isnan (s) || s < 0 || s > AMCC_MAX_RTT_S)
    return AMCC_ERR_FIELD;
  *out = (uint32_t) llround (s * 1e6);
  return AMCC_OK;
}

int
amcc_asmp_report_encode (const amcc_asmp_report *r, uint8_t *buf, size_t cap, size_t *written)
{
  if (!r || !buf)
    return AMCC_ERR_PARAM;
  /* rate: bytes/s in 32 bits, > 0 */
  double bytes = r->rate_bps / 8.0;
  if (isnan (bytes) || !(bytes >= 0.5) || bytes > 4294967295.0)
    return AMCC_ERR_FIELD;
  if (isnan (r->loss) || r->loss < 0 || r->loss > 1)
    return AMCC_ERR_FIELD;
  uint32_t rtt_us, jit_us;
  if (us_field (r->rtt_s, &rtt_us) || us_field (r->jitter_s, &jit_us))
    return AMCC_ERR_FIELD;
  /* cj_short: signed 32-bit microseconds, the whole range the decoder accepts */
  if (!(fabs (r->cj_short_s) <= 2148.0))
    return AMCC_ERR_FIELD;
  long long cj_us = llround (r->cj_short_s * 1e6);
  if (cj_us < INT32_MIN || cj_us > INT32_MAX)
    return AMCC_ERR_FIELD;
  if (r->ci != AMCC_CI_UNLOADED && r->ci != AMCC_CI_CONGESTED)
    return AMCC_ERR_FIELD;
  amcc_wr w;
  amcc_wr_init (&w, buf, cap);
  amcc_wr_u8 (&w, AMCC_ASMP_WIRE_VERSION);
  amcc_wr_u8 (&w, (uint8_t) ((r->ci == AMCC_CI_CONGESTED ? FLAG_CONGESTED : 0)
          | (r->have_echo ? FLAG_HAVE_ECHO : 0)));
  amcc_wr_u16 (&w, 0);
  amcc_wr_u32 (&w, (uint32_t) llround (bytes));
  amcc_wr_u32 (&w, (uint32_t) llround (r->loss * LOSS_UNIT));
  amcc_wr_u32 (&w, rtt_us);
  amcc_wr_u32 (&w, jit_us);
  amcc_wr_u32 (&w, (uint32_t) (int32_t) cj_us);
  amcc_wr_u32 (&w, r->report_seq);
  if (w.err)
    return w.err;
  if (written)
    *written = w.pos;
  return AMCC_OK;
}

int
amcc_asmp_report_decode (const uint8_t *buf, size_t len, amcc_asmp_report *r)
{
  if (!r || (!buf && len))
    return AMCC_ERR_PARAM;
  amcc_rd d;
  amcc_rd_init (&d, buf, len);
  uint8_t version = amcc_rd_u8 (&d);
  if (d.err)
    return d.err;
  if (version != AMCC_ASMP_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  if (len < AMCC_ASMP_REPORT_LEN)
    return AMCC_ERR_TRUNCATED;
  if (len != AMCC_ASMP_REPORT_LEN)
    return AMCC_ERR_FIELD;
  uint8_t flags = amcc_rd_u8 (&d);
  uint16_t reserved = amcc_rd_u16 (&d);
  uint32_t rate = amcc_rd_u32 (&d), loss = amcc_rd_u32 (&d), rtt = amcc_rd_u32 (&d);
  uint32_t jit = amcc_rd_u32 (&d), cj = amcc_rd_u32 (&d), seq = amcc_rd_u32 (&d);
  if (d.err)
    return d.err;
  if ((flags & ~FLAGS_KNOWN) || reserved != 0)
    return AMCC_ERR_FIELD;
  if (rate == 0 || loss > (uint32_t) LOSS_UNIT || rtt > AMCC_MAX_RTT_S * 1e6 || jit > AMCC_MAX_RTT_S * 1e6)
    return AMCC_ERR_FIELD;
  r->rate_bps = 8.0 * rate;
  r->loss = loss / LOSS_UNIT;
  r->rtt_s = rtt / 1e6;
  r->jitter_s = jit / 1e6;
  r->cj_short_s = (int32_t) cj / 1e6;
  r->ci = (flags & FLAG_CONGESTED) ? AMCC_CI_CONGESTED : AMCC_CI_UNLOADED;
  r->have_echo = (flags & FLAG_HAVE_ECHO) != 0;
  r->report_seq = seq;
  return AMCC_OK;
}

static int
rtt_valid (amcc_time rtt)
{
  return rtt > 0 && rtt <= AMCC_ASMP_MAX_WIRE_RTT;
}

int
amcc_asmp_echo_encode (const amcc_asmp_echo_entry *e, size_t n, uint8_t *buf, size_t cap,
    size_t *written)
{
  if ((!e && n) || !buf || n > 0xffff)
    return AMCC_ERR_PARAM;
  for (size_t i = 0; i < n; i++) {
    if (!rtt_valid (e[i].rtt))
      return AMCC_ERR_FIELD;
  }
  if (cap < AMCC_ASMP_ECHO_HEADER_LEN || (cap - AMCC_ASMP_ECHO_HEADER_LEN) / AMCC_ASMP_ECHO_ENTRY_LEN < n)
    return AMCC_ERR_NOSPACE;
  amcc_wr w;
  amcc_wr_init (&w, buf, cap);
  amcc_wr_u8 (&w, AMCC_ASMP_WIRE_VERSION);
  amcc_wr_u8 (&w, 0);
  amcc_wr_u16 (&w, (uint16_t) n);
  for (size_t i = 0; i < n; i++) {
    amcc_wr_u32 (&w, e[i].ssrc);
    /* microseconds, rounded; at least 1 so the value stays valid */
    uint64_t us = (uint64_t) ((e[i].rtt + AMCC_NS_PER_US / 2) / AMCC_NS_PER_US);
    amcc_wr_u32 (&w, (uint32_t) (us ? us : 1));
  }
  if (w.err)
    return w.err;
  if (written)
    *written = w.pos;
  return AMCC_OK;
}

/* Header checks shared by decode and lookup: returns the entry count or an error. */
static int
echo_header (const uint8_t *buf, size_t len, amcc_rd *d)
{
  amcc_rd_init (d, buf, len);
  uint8_t version = amcc_rd_u8 (d);
  if (d->err)
    return d->err;
  if (version != AMCC_ASMP_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  uint8_t reserved = amcc_rd_u8 (d);
  uint16_t count = amcc_rd_u16 (d);
  if (d->err)
    return d->err;
  if (reserved != 0)
    return AMCC_ERR_FIELD;
  size_t need = AMCC_ASMP_ECHO_HEADER_LEN + (size_t) count * AMCC_ASMP_ECHO_ENTRY_LEN;
  if (len < need)
    return AMCC_ERR_TRUNCATED;
  if (len != need)
    return AMCC_ERR_FIELD;      /* count and length disagree */
  return count;
}

int
amcc_asmp_echo_decode (const uint8_t *buf, size_t len, amcc_asmp_echo_entry *e, size_t *n)
{
  if (!n || (!buf && len) || (!e && *n))
    return AMCC_ERR_PARAM;
  amcc_rd d;
  int count = echo_header (buf, len, &d);
  if (count < 0)
    return count;
  if ((size_t) count > *n)
    return AMCC_ERR_NOSPACE;
  for (int i = 0; i < count; i++) {
    uint32_t ssrc = amcc_rd_u32 (&d), us = amcc_rd_u32 (&d);
    amcc_time rtt = (amcc_time) us * AMCC_NS_PER_US;
    if (!rtt_valid (rtt))
      return AMCC_ERR_FIELD;
    e[i].ssrc = ssrc;
    e[i].rtt = rtt;
  }
  *n = (size_t) count;
  return d.err;
}

int
amcc_asmp_echo_lookup (const uint8_t *buf, size_t len, uint32_t ssrc, amcc_time *rtt)
{
  if (!rtt || (!buf && len))
    return AMCC_ERR_PARAM;
  amcc_rd d;
  int count = echo_header (buf, len, &d);
  if (count < 0)
    return count;
  for (int i = 0; i < count; i++) {
    uint32_t s = amcc_rd_u32 (&d), us = amcc_rd_u32 (&d);
    if (s == ssrc) {
      amcc_time v = (amcc_time) us * AMCC_NS_PER_US;
      if (!rtt_valid (v))
        return AMCC_ERR_FIELD;
      *rtt = v;
      return AMCC_OK;
    }
  }
  return AMCC_ERR_TYPE;
}

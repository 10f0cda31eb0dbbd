/* tfmcc_wire.c - TFMCC sender fields and receiver report as RTCP APP payloads.
 * Layout byte by byte: docs/wire-formats-tfmcc.md. Decoders accept exactly the version-1 length,
 * reject reserved flag bits, flag/field contradictions and NaN/inf/negative/absurd values. */
#include "amcc/tfmcc.h"
#include "amcc/rtcp_app.h"
#include <math.h>
#include <string.h>

#define MAX_RATE_BPS 1e12            /* 1 Tbit/s: anything above is garbage */

#define SI_HAS_ECHO  0x80
#define SI_ECHO_CLR  0x40
#define SI_HAS_SUPP  0x20
#define SI_SLOWSTART 0x10
#define RP_HAVE_RTT  0x80
#define RP_HAVE_LOSS 0x40
#define RP_LEAVING   0x20
#define RP_HAS_ECHO  0x10
#define RESERVED     0x0f

static uint32_t f32_bits (double v)
{
  float f = (float) v;
  uint32_t u;
  memcpy (&u, &f, sizeof u);
  return u;
}

static double f32_value (uint32_t u)
{
  float f;
  memcpy (&f, &u, sizeof f);
  return f;
}

static bool rate_ok (double v, bool allow_zero)
{
  return isfinite (v) && (allow_zero ? v >= 0 : v > 0) && v <= MAX_RATE_BPS;
}

static bool sender_info_ok (const struct amcc_tfmcc_sender_info *s)
{
  if (s->r_max_us == 0 || s->r_max_us > AMCC_MAX_RTT_US || !rate_ok (s->rate_bps, false))
    return false;
  if (s->has_supp ? !rate_ok (s->x_supp_bps, false) : s->x_supp_bps != 0)
    return false;
  if (!s->has_echo && (s->echo_is_clr || s->echo_ssrc || s->echo_ts_us || s->echo_hold_us))
    return false;
  return s->echo_hold_us <= AMCC_MAX_HOLD_US;
}

static bool report_ok (const struct amcc_tfmcc_report *r)
{
  if (!rate_ok (r->rate_bps, true) || !rate_ok (r->recv_rate_bps, true))
    return false;
  if (r->have_loss ? !(r->loss_event_rate > 0 && r->loss_event_rate <= 1)
                   : r->loss_event_rate != 0)
    return false;
  if (!r->has_echo && (r->echo_ts_us || r->echo_hold_us))
    return false;
  return r->echo_hold_us <= AMCC_MAX_HOLD_US;
}

int amcc_tfmcc_sender_info_encode (const struct amcc_tfmcc_sender_info *in, uint8_t *buf,
                                   size_t len)
{
  if (!in || !buf || !sender_info_ok (in))
    return AMCC_ERR_PARAM;
  amcc_wr w;
  amcc_wr_init (&w, buf, len);
  amcc_wr_u8 (&w, AMCC_TFMCC_WIRE_VERSION);
  amcc_wr_u8 (&w, (uint8_t) ((in->has_echo ? SI_HAS_ECHO : 0) | (in->echo_is_clr ? SI_ECHO_CLR : 0)
                             | (in->has_supp ? SI_HAS_SUPP : 0)
                             | (in->slowstart ? SI_SLOWSTART : 0)));
  amcc_wr_u16 (&w, in->fb_nr);
  amcc_wr_u32 (&w, in->ts_us);
  amcc_wr_u32 (&w, in->r_max_us);
  amcc_wr_u32 (&w, f32_bits (in->rate_bps));
  amcc_wr_u32 (&w, in->has_supp ? f32_bits (in->x_supp_bps) : 0);
  amcc_wr_u32 (&w, in->echo_ssrc);
  amcc_wr_u32 (&w, in->echo_ts_us);
  amcc_wr_u32 (&w, in->echo_hold_us);
  return w.err ? w.err : (int) w.pos;
}

int amcc_tfmcc_sender_info_decode (struct amcc_tfmcc_sender_info *out, const uint8_t *buf,
                                   size_t len)
{
  if (!out || (!buf && len))
    return AMCC_ERR_PARAM;
  if (len >= 1 && buf[0] != AMCC_TFMCC_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  if (len < AMCC_TFMCC_SENDER_INFO_LEN)
    return AMCC_ERR_TRUNCATED;
  if (len > AMCC_TFMCC_SENDER_INFO_LEN)
    return AMCC_ERR_FIELD;           /* version 1 has no trailing data */
  amcc_rd r;
  amcc_rd_init (&r, buf, len);
  struct amcc_tfmcc_sender_info s;
  memset (&s, 0, sizeof s);
  (void) amcc_rd_u8 (&r);
  uint8_t flags = amcc_rd_u8 (&r);
  if (flags & RESERVED)
    return AMCC_ERR_FIELD;
  s.has_echo = flags & SI_HAS_ECHO;
  s.echo_is_clr = flags & SI_ECHO_CLR;
  s.has_supp = flags & SI_HAS_SUPP;
  s.slowstart = flags & SI_SLOWSTART;
  s.fb_nr = amcc_rd_u16 (&r);
  s.ts_us = amcc_rd_u32 (&r);
  s.r_max_us = amcc_rd_u32 (&r);
  s.rate_bps = f32_value (amcc_rd_u32 (&r));
  uint32_t supp = amcc_rd_u32 (&r);
  s.x_supp_bps = s.has_supp ? f32_value (supp) : (supp ? NAN : 0);
  s.echo_ssrc = amcc_rd_u32 (&r);
  s.echo_ts_us = amcc_rd_u32 (&r);
  s.echo_hold_us = amcc_rd_u32 (&r);
  if (r.err)
    return r.err;
  if (!sender_info_ok (&s))
    return AMCC_ERR_FIELD;
  *out = s;
  return (int) r.pos;
}

int amcc_tfmcc_report_encode (const struct amcc_tfmcc_report *in, uint8_t *buf, size_t len)
{
  if (!in || !buf || !report_ok (in))
    return AMCC_ERR_PARAM;
  amcc_wr w;
  amcc_wr_init (&w, buf, len);
  amcc_wr_u8 (&w, AMCC_TFMCC_WIRE_VERSION);
  amcc_wr_u8 (&w, (uint8_t) ((in->have_rtt ? RP_HAVE_RTT : 0) | (in->have_loss ? RP_HAVE_LOSS : 0)
                             | (in->leaving ? RP_LEAVING : 0) | (in->has_echo ? RP_HAS_ECHO : 0)));
  amcc_wr_u16 (&w, in->fb_nr);
  amcc_wr_u32 (&w, in->ts_us);
  amcc_wr_u32 (&w, in->echo_ts_us);
  amcc_wr_u32 (&w, in->echo_hold_us);
  amcc_wr_u32 (&w, f32_bits (in->rate_bps));
  amcc_wr_u32 (&w, f32_bits (in->loss_event_rate));
  amcc_wr_u32 (&w, f32_bits (in->recv_rate_bps));
  return w.err ? w.err : (int) w.pos;
}

int amcc_tfmcc_report_decode (struct amcc_tfmcc_report *out, const uint8_t *buf, size_t len)
{
  if (!out || (!buf && len))
    return AMCC_ERR_PARAM;
  if (len >= 1 && buf[0] != AMCC_TFMCC_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  if (len < AMCC_TFMCC_REPORT_LEN)
    return AMCC_ERR_TRUNCATED;
  if (len > AMCC_TFMCC_REPORT_LEN)
    return AMCC_ERR_FIELD;
  amcc_rd r;
  amcc_rd_init (&r, buf, len);
  struct amcc_tfmcc_report s;
  memset (&s, 0, sizeof s);
  (void) amcc_rd_u8 (&r);
  uint8_t flags = amcc_rd_u8 (&r);
  if (flags & RESERVED)
    return AMCC_ERR_FIELD;
  s.have_rtt = flags & RP_HAVE_RTT;
  s.have_loss = flags & RP_HAVE_LOSS;
  s.leaving = flags & RP_LEAVING;
  s.has_echo = flags & RP_HAS_ECHO;
  s.fb_nr = amcc_rd_u16 (&r);
  s.ts_us = amcc_rd_u32 (&r);
  s.echo_ts_us = amcc_rd_u32 (&r);
  s.echo_hold_us = amcc_rd_u32 (&r);
  s.rate_bps = f32_value (amcc_rd_u32 (&r));
  s.loss_event_rate = f32_value (amcc_rd_u32 (&r));
  s.recv_rate_bps = f32_value (amcc_rd_u32 (&r));
  if (r.err)
    return r.err;
  if (!report_ok (&s))
    return AMCC_ERR_FIELD;
  *out = s;
  return (int) r.pos;
}

int amcc_tfmcc_sender_info_write_app (const struct amcc_tfmcc_sender_info *in, uint32_t ssrc,
                                      uint8_t *buf, size_t len)
{
  uint8_t payload[AMCC_TFMCC_SENDER_INFO_LEN];
  int n = amcc_tfmcc_sender_info_encode (in, payload, sizeof payload);
  if (n < 0)
    return n;
  size_t written = 0;
  int rc = amcc_rtcp_app_write (buf, len, 0, ssrc, AMCC_TFMCC_APP_SENDER, payload, (size_t) n,
                                &written);
  return rc < 0 ? rc : (int) written;
}

int amcc_tfmcc_report_write_app (const struct amcc_tfmcc_report *in, uint32_t ssrc,
                                 uint8_t *buf, size_t len)
{
  uint8_t payload[AMCC_TFMCC_REPORT_LEN];
  int n = amcc_tfmcc_report_encode (in, payload, sizeof payload);
  if (n < 0)
    return n;
  size_t written = 0;
  int rc = amcc_rtcp_app_write (buf, len, 0, ssrc, AMCC_TFMCC_APP_REPORT, payload, (size_t) n,
                                &written);
  return rc < 0 ? rc : (int) written;
}

/* Parse one APP packet at buf (not a compound walk: use amcc_rtcp_app_find for that). */
static int read_app (const uint8_t *buf, size_t len, const char *name, amcc_rtcp_app *app)
{
  if (!buf)
    return AMCC_ERR_PARAM;
  int rc = amcc_rtcp_app_parse (buf, len, app);
  if (rc < 0)
    return rc;
  if (memcmp (app->name, name, 4) != 0 || app->subtype != 0)
    return AMCC_ERR_TYPE;
  return AMCC_OK;
}

int amcc_tfmcc_sender_info_read_app (struct amcc_tfmcc_sender_info *out, uint32_t *ssrc,
                                     const uint8_t *buf, size_t len)
{
  amcc_rtcp_app app;
  int rc = read_app (buf, len, AMCC_TFMCC_APP_SENDER, &app);
  if (rc < 0)
    return rc;
  rc = amcc_tfmcc_sender_info_decode (out, app.data, app.data_len);
  if (rc < 0)
    return rc;
  if (ssrc)
    *ssrc = app.ssrc;
  return (int) app.packet_len;
}

int amcc_tfmcc_report_read_app (struct amcc_tfmcc_report *out, uint32_t *ssrc,
                                const uint8_t *buf, size_t len)
{
  amcc_rtcp_app app;
  int rc = read_app (buf, len, AMCC_TFMCC_APP_REPORT, &app);
  if (rc < 0)
    return rc;
  rc = amcc_tfmcc_report_decode (out, app.data, app.data_len);
  if (rc < 0)
    return rc;
  if (ssrc)
    *ssrc = app.ssrc;
  return (int) app.packet_len;
}

int amcc_tfmcc_sender_info_find_app (struct amcc_tfmcc_sender_info *out, uint32_t *ssrc,
                                     const uint8_t *compound, size_t len)
{
  amcc_rtcp_app app;
  if (!out || !compound)
    return AMCC_ERR_PARAM;
  int rc = amcc_rtcp_app_find (compound, len, AMCC_TFMCC_APP_SENDER, 0, &app);
  if (rc < 0)
    return rc;
  rc = amcc_tfmcc_sender_info_decode (out, app.data, app.data_len);
  if (rc >= 0 && ssrc)
    *ssrc = app.ssrc;
  return rc;
}

int amcc_tfmcc_report_find_app (struct amcc_tfmcc_report *out, uint32_t *ssrc,
                                const uint8_t *compound, size_t len)
{
  amcc_rtcp_app app;
  if (!out || !compound)
    return AMCC_ERR_PARAM;
  int rc = amcc_rtcp_app_find (compound, len, AMCC_TFMCC_APP_REPORT, 0, &app);
  if (rc < 0)
    return rc;
  rc = amcc_tfmcc_report_decode (out, app.data, app.data_len);
  if (rc >= 0 && ssrc)
    *ssrc = app.ssrc;
  return rc;
}

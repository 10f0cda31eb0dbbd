/* contain.c - containment of a receiver that lies in its own name (issue 14): the rules the
 * sender applies to a rate report before the protocol sees it, each a field of amcc_ctl_config
 * (0 = off, the papers' behaviour):
 *   plausible_margin  a rate far below what the report's own loss and RTT allow is refused;
 *   report_limit      reports beyond a per-receiver budget per RTCP interval are refused;
 *   damp_drop         one report takes the target down by at most this fraction until a later
 *                     report of the same receiver, or another receiver, confirms the drop.
 * No paper has these; the protocols' adapters only decode a report into an amcc_claim (and write
 * a damped rate back). Proofs of reception and exclusion come first (controller.c). */
#include <math.h>
#include <string.h>
#include "controller_impl.h"

#define CONFIRM_GAP_DIV 2      /* a drop is confirmed by a report >= interval / 2 after the first */
#define DEFAULT_PKT_BYTES 1200 /* s of the equations before we sent anything (RFC 4654's) */
#define MIN_PERIOD (10 * AMCC_NS_PER_MS)  /* a protocol's report period is taken as no shorter:
                                             a forged RTT must not buy a flood its tokens */

void
amcc_contain_init (amcc_sender *s)
{
  s->win_start = AMCC_TIME_NONE;
  s->win_bytes = s->sent_prev[0] = s->sent_prev[1] = 0;
  s->wins = 0;
  s->pkt_bytes = DEFAULT_PKT_BYTES;
  s->implausible = s->damped = s->limited = 0;
}

/* Closes the send windows (one RTCP interval each) that ended before now. */
static void
roll_windows (amcc_sender *s, amcc_time now)
{
  amcc_time iv = s->cfg.rtcp_interval;

  if (s->win_start == AMCC_TIME_NONE || now - s->win_start < iv)
    return;
  amcc_time k = (now - s->win_start) / iv;
  s->sent_prev[1] = k == 1 ? s->sent_prev[0] : k == 2 ? s->win_bytes : 0;
  s->sent_prev[0] = k == 1 ? s->win_bytes : 0;
  s->win_bytes = 0;
  s->win_start += k * iv;
  s->wins = k >= 2 || s->wins >= 1 ? 2 : 1;
}

void
amcc_contain_on_sent (amcc_sender *s, amcc_time now, size_t bytes)
{
  if (bytes == 0 || bytes > 65535)
    return;
  if (s->win_start == AMCC_TIME_NONE)
    s->win_start = now;
  roll_windows (s, now);
  s->win_bytes += (double) bytes;
  s->pkt_bytes = 0.9 * s->pkt_bytes + 0.1 * (double) bytes;
}

/* The lower of the last two complete intervals: a report describes an interval that ended a
 * one-way delay ago, and a falling rate must not make an honest report look low. */
double
amcc_contain_sent_bps (amcc_sender *s, amcc_time now)
{
  roll_windows (s, now);
  if (s->wins < 2)
    return 0;
  return 8.0 * fmin (s->sent_prev[0], s->sent_prev[1]) / amcc_time_to_s (s->cfg.rtcp_interval);
}

/* The least an honest receiver reports: its protocol's TCP equation at the loss and RTT it
 * reports, or what reached it (the receive rate it reports, else what we sent less the loss
 * fraction it reports), whichever is lower. The equation alone is no bound: ASMP's delay regime
 * and the caps from the rate received report less, but stay near what arrives. INFINITY: no
 * bound (what arrived is unknown). */
static double
honest_floor_bps (const amcc_claim *c, double sent_bps)
{
  double arrived;

  if (c->recv_bps > 0)
    arrived = c->recv_bps;
  else if (c->loss >= 0 && sent_bps > 0)
    arrived = (1 - (c->loss < 1 ? c->loss : 1)) * sent_bps;
  else
    return INFINITY;
  return fmin (c->model_bps > 0 ? c->model_bps : INFINITY, arrived);
}

/* Below plausible_margin x the honest floor (none known: plausible). */
static int
implausible (const amcc_sender *s, const amcc_claim *c, double sent_bps)
{
  double f = honest_floor_bps (c, sent_bps);
  return isfinite (f) && c->rate_bps < s->cfg.plausible_margin * f;
}

/* report_limit tokens per RTCP interval (or per the protocol's shorter report period), at
 * most report_limit in the bucket. */
static int
take_token (const amcc_sender *s, amcc_peer *p, amcc_time now, amcc_time period)
{
  double limit = s->cfg.report_limit;
  amcc_time per = period > 0 && period < s->cfg.rtcp_interval ? period : s->cfg.rtcp_interval;

  per = per > MIN_PERIOD ? per : MIN_PERIOD;
  if (p->tokens_at == AMCC_TIME_NONE || now < p->tokens_at)
    p->tokens = limit;
  else
    p->tokens = fmin (limit, p->tokens + limit * (double) (now - p->tokens_at)
        / (double) per);
  p->tokens_at = now;
  if (p->tokens < 1)
    return 0;
  p->tokens -= 1;
  return 1;
}

/* Another live receiver already reports below `below` (its own damped rate does not count). */
static int
other_is_low (const amcc_sender *s, amcc_time now, uint32_t ssrc, double below)
{
  for (size_t i = 0; i < s->peers.cap; i++) {
    const amcc_peer *q = &s->peers.slot[i].p;
    if (s->peers.slot[i].used && q->ssrc != ssrc && !q->excluded
        && q->reported != AMCC_TIME_NONE && now - q->reported <= s->cfg.receiver_timeout
        && q->rate_bps < below)
      return 1;
  }
  return 0;
}

/* The rate the report counts with: its own, or (target when the drop began) x (1 - damp_drop)
 * for a larger drop not yet confirmed; several reports within one interval do not compound. */
static double
damped_rate (amcc_sender *s, amcc_time now, amcc_peer *p, double claim)
{
  int pending = p->low_since != AMCC_TIME_NONE && now - p->low_since <= s->cfg.receiver_timeout;
  double floor = (pending ? p->low_ref : amcc_sender_last_rate (s)) * (1 - s->cfg.damp_drop);

  if (claim >= floor) {
    p->low_since = AMCC_TIME_NONE;
    return claim;
  }
  if (pending && now - p->low_since >= s->cfg.rtcp_interval / CONFIRM_GAP_DIV)
    return claim;                       /* its own later report confirms */
  if (other_is_low (s, now, p->ssrc, floor))
    return claim;
  if (!pending) {
    p->low_since = now;
    p->low_ref = amcc_sender_last_rate (s);
  }
  return floor;
}

amcc_app_result
amcc_contain_check (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len, uint8_t *buf, size_t cap,
    const uint8_t **use)
{
  const amcc_sender_ops *ops = s->proto->sender;
  amcc_claim c;
  amcc_peer *p;

  *use = data;
  memset (&c, 0, sizeof c);
  if (!ops->claim || ssrc == s->cfg.ssrc
      || ops->claim (s, now, ssrc, name, subtype, data, len, &c) != 1 || !(c.rate_bps > 0))
    return AMCC_APP_TAKEN;              /* no rate report: the protocol decides */
  if (s->cfg.plausible_margin > 0 && implausible (s, &c, amcc_contain_sent_bps (s, now))) {
    s->implausible++;
    return AMCC_APP_IMPLAUSIBLE;
  }
  if (!(p = amcc_peers_get (&s->peers, ssrc)))
    return AMCC_APP_TAKEN;              /* table full: the protocol's own bounds apply */
  if (s->cfg.report_limit && !take_token (s, p, now, c.period)) {
    s->limited++;
    return AMCC_APP_LIMITED;
  }
  if (!(s->cfg.damp_drop > 0) || !ops->set_claim_rate || len > cap)
    return AMCC_APP_TAKEN;
  double r = damped_rate (s, now, p, c.rate_bps);
  if (r == c.rate_bps)
    return AMCC_APP_TAKEN;
  memcpy (buf, data, len);
  if (ops->set_claim_rate (s, buf, len, r) != AMCC_OK)
    return AMCC_APP_TAKEN;
  s->damped++;
  *use = buf;
  return AMCC_APP_TAKEN;
}

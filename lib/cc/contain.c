/* contain.c - containment of a receiver that lies in its own name (issue 14): the rules the
 * sender applies to a report before the protocol sees it, each a field of amcc_ctl_config
 * (0 = off, the papers' behaviour):
 *   plausible_margin  a rate far below what the report's own loss and RTT allow is refused;
 *   report_limit      reports beyond a per-receiver budget per RTCP interval are refused;
 *   elect_confirm     a report that would take the elected receiver's place (PGMCC's acker)
 *                     elects only when a second report of the same receiver confirms it;
 *   damp_drop         one report takes the target down by at most this fraction until a later
 *                     report of the same receiver, or another receiver, confirms the drop;
 * and one rule on what the elected receiver states afterwards:
 *   acker_loss_factor the losses an acker's ACKs claim, far above what its own reports and
 *                     every other receiver's state for acker_loss_time, demote it;
 *   acker_vouch_rtt   another receiver's loss counts for the acker's at the acker's RTT.
 * No paper has these; the protocols' adapters only decode a report into an amcc_claim (and write
 * a damped rate back, or leave an election held). Proofs of reception and exclusion come first
 * (controller.c). */
#include <math.h>
#include <string.h>
#include "controller_impl.h"

#define CONFIRM_GAP_DIV 2      /* a drop is confirmed by a report >= interval / 2 after the first */
#define DEFAULT_PKT_BYTES 1200 /* s of the equations before we sent anything (RFC 4654's) */
#define MIN_PERIOD (10 * AMCC_NS_PER_MS)  /* a protocol's report period is taken as no shorter:
                                             a forged RTT must not buy a flood its tokens */
#define ACKER_MARGIN 0.01      /* loss fraction an acker may claim above acker_loss_factor x what
                                  the reports state: one packet in a hundred (see acker_over) */
#define SUSPECT_DRAIN 4        /* suspicion drains at 1/4 of the pace it accumulates */
#define SUSPECT_STEP_MAX AMCC_NS_PER_S  /* one ACK accounts for at most 1 s of suspicion */

void
amcc_contain_init (amcc_sender *s)
{
  s->win_start = AMCC_TIME_NONE;
  s->win_bytes = s->sent_prev[0] = s->sent_prev[1] = 0;
  s->wins = 0;
  s->pkt_bytes = DEFAULT_PKT_BYTES;
  s->implausible = s->damped = s->limited = s->held = s->demoted = 0;
  s->elect_held = 0;
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

static int
demoted (const amcc_peer *p, amcc_time now)
{
  return p->demoted_until != AMCC_TIME_NONE && now < p->demoted_until;
}

/* May the report elect its sender? Not while it is demoted (acker_hold). A switch from another
 * receiver (AMCC_ELECT_SWITCH) needs a second winning report of the same receiver at least
 * elect_confirm x the RTCP interval after the first, within the receiver timeout, as damping
 * confirms a drop: one forged report no longer elects, and an honest receiver whose path turned
 * worse waits one more report. With nobody elected (AMCC_ELECT_FIRST) the first to speak is
 * taken at once: the window has no clock until someone acks. */
static int
may_elect (const amcc_sender *s, amcc_time now, amcc_peer *p, int kind)
{
  if (kind == AMCC_ELECT_NONE) {
    p->elect_since = AMCC_TIME_NONE;  /* a report that no longer wins withdraws the claim */
    return 1;
  }
  if (demoted (p, now))
    return 0;
  if (kind != AMCC_ELECT_SWITCH || !(s->cfg.elect_confirm > 0)) {
    p->elect_since = AMCC_TIME_NONE;
    return 1;
  }
  amcc_time gap = (amcc_time) (s->cfg.elect_confirm * (double) s->cfg.rtcp_interval);
  int pending = p->elect_since != AMCC_TIME_NONE && now >= p->elect_since
      && now - p->elect_since <= s->cfg.receiver_timeout;
  if (pending && now - p->elect_since >= gap) {
    p->elect_since = AMCC_TIME_NONE;
    return 1;                           /* its own later report confirms */
  }
  if (!pending)
    p->elect_since = now;
  return 0;
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
  s->elect_held = 0;
  memset (&c, 0, sizeof c);
  if (!ops->claim || ssrc == s->cfg.ssrc
      || ops->claim (s, now, ssrc, name, subtype, data, len, &c) != 1)
    return AMCC_APP_TAKEN;              /* no report we judge: the protocol decides */
  int rated = c.rate_bps > 0;
  if (rated && s->cfg.plausible_margin > 0
      && implausible (s, &c, amcc_contain_sent_bps (s, now))) {
    s->implausible++;
    return AMCC_APP_IMPLAUSIBLE;
  }
  if (!(p = amcc_peers_get (&s->peers, ssrc)))
    return AMCC_APP_TAKEN;              /* table full: the protocol's own bounds apply */
  if (s->cfg.report_limit && !take_token (s, p, now, c.period)) {
    s->limited++;
    return AMCC_APP_LIMITED;
  }
  if (!may_elect (s, now, p, c.elect)) {
    s->elect_held = 1;
    s->held++;
  }
  if (!rated || !(s->cfg.damp_drop > 0) || !ops->set_claim_rate || len > cap)
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

/* ---------------------------------------------------------------- the acker's losses */

/* The loss another receiver vouches for (acker_vouch_rtt): its p scaled to the acker's RTT by
 * the TCP equation (p RTT^2 is constant at one rate), never above its p; with no RTT of its own,
 * nothing. A member that states a high p while its short (or missing) RTT keeps it from taking
 * the acker does not lift the line. */
static double
vouched_loss (const amcc_sender *s, const amcc_peer *q, double acker_rtt_s)
{
  if (!s->cfg.acker_vouch_rtt || !(acker_rtt_s > 0))
    return q->loss;
  if (!(q->rtt_s > 0))
    return 0;
  double k = q->rtt_s / acker_rtt_s;
  return k >= 1 ? q->loss : q->loss * k * k;
}

/* The largest loss fraction a live receiver other than `ssrc` vouches for (PGMCC's reports
 * state one; the demoted and the excluded do not count). */
static double
max_other_loss (const amcc_sender *s, amcc_time now, uint32_t ssrc, double acker_rtt_s)
{
  double m = 0;

  for (size_t i = 0; i < s->peers.cap; i++) {
    const amcc_peer *q = &s->peers.slot[i].p;
    if (s->peers.slot[i].used && q->ssrc != ssrc && !q->excluded && !demoted (q, now)
        && q->reported != AMCC_TIME_NONE && now - q->reported <= s->cfg.receiver_timeout)
      m = fmax (m, vouched_loss (s, q, acker_rtt_s));
  }
  return m;
}

/* Is the loss the acker's bitmaps claim far above what anyone states? The rule, and why it is
 * this one: the acker's own reports carry p, its loss filter over every packet; the sender runs
 * the same filter over the sequence numbers the ACK bitmaps judged (pgmcc.c, claim_p). For an
 * honest acker the two follow the same packets, whatever its loss (5 % or 25 % alike), up to
 * the judgement's lag of dupthresh (3) packets, holes a late packet fills (p keeps them: the
 * claim is then lower), and, when an ACK covers fewer packets than arrived since the last
 * (above 33 per ACK: 660 packets/s at the elements' 50 ms), the bitmaps' sampling: the claim
 * then steps once per covered packet and so decays more slowly than p after a burst. The
 * factor 2 covers that (tests: 0.3 s of suspicion at most, at start-up behind 5-20 Mbit/s).
 * A liar that only forges holes in its bitmaps (to halve the window) claims far more than its
 * p states; one that forges p as well is an honest-looking slow receiver (the outlier report's
 * case, not ours). A loss that every receiver behind a shared bottleneck sees is in their p
 * too: the largest p of the others is a second reference, so a lag in the acker's own p never
 * demotes it while the group sees the same (at an RTT like the acker's: vouched_loss). The
 * margin (one packet in a hundred) keeps noise at near-zero p from counting; below it a liar
 * whose p says nothing may still claim 1 % (what it can hold the group to is PGMCC's rate for
 * a 1 % path). */
static int
acker_over (const amcc_sender *s, amcc_time now, const amcc_peer *p, double claimed, double own)
{
  double k = s->cfg.acker_loss_factor;

  if (!(claimed > k * own + ACKER_MARGIN))
    return 0;                           /* O(n) below: only when over */
  return claimed > k * max_other_loss (s, now, p->ssrc, p->rtt_s) + ACKER_MARGIN;
}

/* Suspicion is a leaky bucket of time, per receiver: the time since the acker's previous ACK
 * counts when this ACK is over, and it drains at 1/SUSPECT_DRAIN of that pace when not; while
 * the receiver is not the acker it stays (no evidence either way), forgotten after acker_hold.
 * An acker that lies in bursts (to stay under any fixed "for so long in a row") is demoted as
 * one that lies all the time once it is over more than a fifth of the time, and so is one whose
 * tenures are cut short: a liar whose true p in its ACKs loses the acker to a lossy honest
 * receiver after a second and wins it back with a forged report, or one that wins with a forged
 * p again and again and then acks with its true one (its claim starts at the p it was elected
 * with, which its own p then contradicts for a few dozen packets each time). An honest acker
 * whose claim briefly crossed the line drains it. */
static void
suspect_update (const amcc_sender *s, amcc_peer *p, amcc_time now, int over, int same_tenure)
{
  amcc_time dt = p->suspect_at == AMCC_TIME_NONE || now < p->suspect_at ? 0 : now - p->suspect_at;

  if (!same_tenure) {           /* a new tenure: nothing counted for the time between */
    if (dt > s->cfg.acker_hold)
      p->suspicion = 0, p->suspect_from = AMCC_TIME_NONE;
    dt = 0;
  } else
    dt = dt < SUSPECT_STEP_MAX ? dt : SUSPECT_STEP_MAX;
  p->suspect_at = now;
  if (over) {
    if (p->suspicion <= 0)
      p->suspicion = 0, p->suspect_from = now - dt;
    p->suspicion += dt;
  } else {
    p->suspicion -= dt / SUSPECT_DRAIN;
    if (p->suspicion <= 0)
      p->suspicion = 0, p->suspect_from = AMCC_TIME_NONE;
  }
}

int
amcc_contain_acker_loss (amcc_sender *s, amcc_time now, uint32_t ssrc, int first,
    double claimed, double own, amcc_time *undo_from)
{
  amcc_peer *p;

  if (!(s->cfg.acker_loss_factor > 0) || !(p = amcc_peers_get (&s->peers, ssrc)))
    return 0;
  suspect_update (s, p, now, acker_over (s, now, p, claimed, own), !first);
  if (p->suspect_from == AMCC_TIME_NONE || p->suspicion < s->cfg.acker_loss_time)
    return 0;
  /* the reactions to its losses since a little before it was first over: the filter needs a
   * few dozen packets of false holes to cross the line, and the first halving comes with the
   * first of them */
  *undo_from = p->suspect_from - s->cfg.acker_loss_time;
  p->demoted_until = now + s->cfg.acker_hold;
  p->suspicion = 0;
  p->suspect_at = p->suspect_from = AMCC_TIME_NONE;
  s->demoted++;
  return 1;
}

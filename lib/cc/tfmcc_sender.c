/* tfmcc_sender.c - TFMCC sender (RFC 4654 section 3): CLR selection, rate increase limit, CLR and
 * no-feedback timeouts, feedback rounds and X_supp, slowstart, R_max, RTT echo, pacing. */
#include "amcc/tfmcc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TFMCC_TABLE 64               /* recently heard receivers (reports are suppressed to a few
                                        per round, so a small table holds every candidate CLR) */
#define TFMCC_RMAX_DECAY 0.9         /* R_max = max(0.9 R_max, largest RTT of the round) (3.2) */

struct tfmcc_rcv {
  bool used;
  uint32_t ssrc;
  double rate_bps;                   /* last X_r */
  double rtt_s;                      /* last RTT measured from its echo, 0 = unknown */
  amcc_time last_report;
  uint64_t report_round;             /* tx->rounds when its last report arrived */
  uint32_t ts_us;                    /* its timestamp, to echo */
  amcc_time ts_arrival;
  bool has_ts, echoed, reported_have_rtt;
};

struct amcc_tfmcc_sender {
  struct amcc_tfmcc_params p;
  double x;                          /* sending rate X, bit/s */
  double r_max_s, round_peak_rtt_s;
  double mean_size;
  bool slowstart;
  /* current limiting receiver */
  bool has_clr;
  uint32_t clr;
  double clr_rate, clr_rtt_s;
  double clr_gap_s;                  /* mean time between the CLR's reports (0 = none yet) */
  amcc_time clr_selected, clr_last_report, clr_halve_ref;
  amcc_time last_increase;
  /* feedback rounds (3.4) */
  uint16_t fb_nr;
  amcc_time round_start;
  double round_len_s;
  double x_supp;                     /* INFINITY = not set this round */
  bool nonclr_fb;
  bool hold;                         /* no increase until round hold_until has ended */
  uint16_t hold_until;
  /* no feedback at all */
  amcc_time nofb_ref;
  uint64_t reports, rounds;
  struct tfmcc_rcv tab[TFMCC_TABLE];
};

void amcc_tfmcc_params_init (struct amcc_tfmcc_params *p)
{
  memset (p, 0, sizeof *p);
  p->packet_size = 1200;
  p->r_max_initial = 500 * AMCC_NS_PER_MS;
  p->round_rmax_factor = 6.0;
  p->n_receivers_bound = 10000.0;
  p->supp_factor = 0.9;
  p->q_rtt = 0.5;
  p->q_rtt_clr = 0.9;
  p->clr_halve_rtts = 4.0;
  p->clr_grace_rtts = 10.0;
  p->clr_gone_rtts = 10.0;
  p->nofb_halve_rtts = 10.0;
  p->min_rate_bps = 0.0;             /* 0: one packet per 8 s, i.e. 8 s / 8 bit/s */
  p->max_rate_bps = 1e9;
  p->history_discounting = true;
  p->leave_after = 120 * AMCC_NS_PER_S;
  p->recv_window_min = 500 * AMCC_NS_PER_MS;
  p->recv_window_packets = 16;
}

static double secs (amcc_time t) { return (double) t / 1e9; }
static amcc_time ns_from_s (double s) { return (amcc_time) llround (s * 1e9); }
static uint32_t us32 (amcc_time t) { return (uint32_t) (uint64_t) (t / AMCC_NS_PER_US); }

static double floor_rate (const struct amcc_tfmcc_sender *tx)
{
  /* one packet per 8 s (3.3): 8 s bits / 8 s */
  return tx->p.min_rate_bps > 0 ? tx->p.min_rate_bps : tx->mean_size;
}

static void clamp_rate (struct amcc_tfmcc_sender *tx)
{
  if (!(tx->x >= floor_rate (tx)))   /* also catches NaN */
    tx->x = floor_rate (tx);
  if (tx->x > tx->p.max_rate_bps)
    tx->x = tx->p.max_rate_bps;
}

struct amcc_tfmcc_sender *amcc_tfmcc_sender_new (const struct amcc_tfmcc_params *p, amcc_time now)
{
  struct amcc_tfmcc_sender *tx = calloc (1, sizeof *tx);
  if (!tx)
    return NULL;
  if (p)
    tx->p = *p;
  else
    amcc_tfmcc_params_init (&tx->p);
  if (tx->p.packet_size == 0)
    tx->p.packet_size = 1200;
  if (tx->p.r_max_initial <= 0)
    tx->p.r_max_initial = 500 * AMCC_NS_PER_MS;
  tx->mean_size = tx->p.packet_size;
  tx->r_max_s = secs (tx->p.r_max_initial);
  tx->x = 8.0 * tx->mean_size / tx->r_max_s;   /* one packet per R_max (3.1) */
  if (tx->p.initial_rate_bps > 0)              /* the encoder already runs at its initial rate */
    tx->x = tx->p.initial_rate_bps;
  clamp_rate (tx);
  tx->slowstart = true;
  tx->round_start = now;
  tx->round_len_s = tx->p.round_rmax_factor * tx->r_max_s;
  tx->x_supp = INFINITY;
  tx->nofb_ref = now;
  tx->last_increase = now;
  return tx;
}

void amcc_tfmcc_sender_free (struct amcc_tfmcc_sender *tx) { free (tx); }

static struct tfmcc_rcv *find (struct amcc_tfmcc_sender *tx, uint32_t ssrc)
{
  for (int i = 0; i < TFMCC_TABLE; i++)
    if (tx->tab[i].used && tx->tab[i].ssrc == ssrc)
      return &tx->tab[i];
  return NULL;
}

/* Find or insert; when full, evict the receiver heard least recently (never the CLR). */
static struct tfmcc_rcv *lookup (struct amcc_tfmcc_sender *tx, uint32_t ssrc)
{
  struct tfmcc_rcv *e = find (tx, ssrc), *victim = NULL;
  if (e)
    return e;
  for (int i = 0; i < TFMCC_TABLE; i++) {
    struct tfmcc_rcv *c = &tx->tab[i];
    if (!c->used) { victim = c; break; }
    if (tx->has_clr && c->ssrc == tx->clr)
      continue;
    if (!victim || c->last_report < victim->last_report)
      victim = c;
  }
  memset (victim, 0, sizeof *victim);
  victim->used = true;
  victim->ssrc = ssrc;
  return victim;
}

static double clr_rtt (const struct amcc_tfmcc_sender *tx)
{
  return tx->clr_rtt_s > 0 ? tx->clr_rtt_s : tx->r_max_s;
}

/* Unit of the CLR timeouts (3.3: "4 RTTs", "10 RTTs"): the CLR reports once per RTT (4.5), so
 * a CLR silent for 4 RTTs missed 4 reports. Over RTCP the CLR gets a report out only when an
 * early packet is allowed (about twice per RTCP interval, RFC 4585), so count missed reports in
 * the CLR's actual report interval when that is longer than its RTT. */
static double clr_unit (const struct amcc_tfmcc_sender *tx)
{
  /* until a CLR has reported twice the interval is unknown: R_max, the RFC's value for an
   * unknown RTT (a new CLR learns its role from an echo, then needs an early RTCP slot) */
  return fmax (clr_rtt (tx), tx->clr_gap_s > 0 ? tx->clr_gap_s : tx->r_max_s);
}

static void select_clr (struct amcc_tfmcc_sender *tx, amcc_time now, const struct tfmcc_rcv *e)
{
  tx->has_clr = true;
  tx->clr = e->ssrc;
  tx->clr_rate = e->rate_bps;
  tx->clr_rtt_s = e->rtt_s;
  tx->clr_selected = now;
  tx->clr_last_report = e->last_report;
  tx->clr_halve_ref = e->last_report;
}

/* End of a feedback round (3.4): new fb_nr, X_supp reset, R_max decays to the round's peak. */
static void end_round (struct amcc_tfmcc_sender *tx, amcc_time now)
{
  if (tx->hold && tx->fb_nr == tx->hold_until)
    tx->hold = false;
  tx->rounds++;
  tx->fb_nr++;
  tx->round_start = now;
  tx->x_supp = INFINITY;
  tx->nonclr_fb = false;
  if (tx->round_peak_rtt_s > 0) {
    double r = fmax (TFMCC_RMAX_DECAY * tx->r_max_s, tx->round_peak_rtt_s);
    if (tx->has_clr && tx->clr_rtt_s > r)
      r = tx->clr_rtt_s;
    tx->r_max_s = r;
  }
  tx->round_peak_rtt_s = 0;
  tx->round_len_s = tx->p.round_rmax_factor * tx->r_max_s;
}

/* Timers: round end after T (with non-CLR feedback) or 2T; CLR silent for 4 RTTs -> halve, unless
 * chosen less than 10 RTTs ago; silent for 10 RTTs -> gone; no feedback -> halve every 10 R_max. */
static void run_timers (struct amcc_tfmcc_sender *tx, amcc_time now)
{
  amcc_time T = ns_from_s (tx->round_len_s);
  for (int k = 0; (now - tx->round_start >= T && tx->nonclr_fb) || now - tx->round_start >= 2 * T;
       k++) {
    amcc_time end = tx->round_start + (tx->nonclr_fb ? T : 2 * T);
    end_round (tx, k < 16 ? end : now);   /* after a long silence: one round, starting now */
    T = ns_from_s (tx->round_len_s);
  }
  if (tx->has_clr) {
    amcc_time rtt = ns_from_s (clr_unit (tx));
    amcc_time silent_from = tx->clr_last_report > tx->clr_selected ? tx->clr_last_report
                                                                    : tx->clr_selected;
    amcc_time gone_at = silent_from + (amcc_time) (tx->p.clr_gone_rtts * rtt);
    amcc_time step = (amcc_time) (tx->p.clr_halve_rtts * rtt);
    if (step > 0) {
      for (amcc_time th = tx->clr_halve_ref + step; th <= now && th < gone_at; th += step) {
        if (th - tx->clr_selected >= (amcc_time) (tx->p.clr_grace_rtts * rtt)) {
          tx->x /= 2;
          clamp_rate (tx);
        }
        tx->clr_halve_ref = th;
      }
    }
    if (now >= gone_at) {
      tx->has_clr = false;
      tx->nofb_ref = gone_at > tx->nofb_ref ? gone_at : tx->nofb_ref;
    }
  }
  if (!tx->has_clr) {
    amcc_time step = ns_from_s (tx->p.nofb_halve_rtts * tx->r_max_s);
    if (step > 0 && now - tx->nofb_ref >= 64 * step) {   /* 64 halvings reach the floor */
      tx->x = 0;
      clamp_rate (tx);
      tx->nofb_ref = now - (now - tx->nofb_ref) % step;
    }
    while (step > 0 && tx->nofb_ref + step <= now) {
      tx->x /= 2;
      clamp_rate (tx);
      tx->nofb_ref += step;
    }
  }
}

/* Slowstart (3.6): the smallest rate reported in the current feedback round (each receiver's
 * latest report), or NULL. */
static struct tfmcc_rcv *round_min (struct amcc_tfmcc_sender *tx)
{
  struct tfmcc_rcv *m = NULL;
  for (int i = 0; i < TFMCC_TABLE; i++) {
    struct tfmcc_rcv *c = &tx->tab[i];
    if (c->used && c->rate_bps > 0 && c->report_round == tx->rounds && (!m || c->rate_bps < m->rate_bps))
      m = c;
  }
  return m;
}

/* s of the increase limit 8s/R_max: the mean packet size, never below the nominal packet size.
 * A video encoder's packets shrink with its rate (250 B at 50 kbit/s), so the mean alone makes
 * the increase shrink with the rate and recovery from a low rate crawl (live late-join: 6 kbit/s
 * per second after the slow CLR left); RFC 4828 4.1 (TFRC-SP) likewise uses a nominal segment
 * size for senders of small packets. */
static double increase_size (const struct amcc_tfmcc_sender *tx)
{
  return fmax (tx->mean_size, (double) tx->p.packet_size);
}

/* Rate from a CLR report (3.3 case 4, and case 1): decreases at once; increases to X_r at most
 * 8s/R_max per R_max. In slowstart X_r (2x the receive rate) is taken at once, but never above
 * another receiver's report in this round: the sender takes the minimum, whose owner becomes
 * CLR (3.6). recv_only: X_r is 2x a receive rate without loss, a bound on increases, never a
 * reason to decrease (3.6 "increased to at most"; RFC 5348 4.3: a data-limited sender's receive
 * rate says nothing about the path; a queue that is still filling ends in the loss that ends
 * slowstart). */
static void rate_from_clr (struct amcc_tfmcc_sender *tx, amcc_time now, double x_r, bool recv_only)
{
  if (x_r <= tx->x) {
    if (!recv_only)
      tx->x = x_r;
  } else if (!tx->hold) {
    if (tx->slowstart) {
      struct tfmcc_rcv *m = round_min (tx);
      if (m && m->rate_bps < x_r) {
        select_clr (tx, now, m);
        x_r = m->rate_bps;
      }
      tx->x = fmax (tx->x, x_r);
    } else {
      double dt = fmin (secs (now - tx->last_increase), tx->r_max_s);
      double inc = 8.0 * increase_size (tx) / tx->r_max_s * (dt > 0 ? dt : 0) / tx->r_max_s;
      tx->x = fmin (x_r, tx->x + inc);
    }
  }
  tx->last_increase = now;
  clamp_rate (tx);
}

static void on_leave (struct amcc_tfmcc_sender *tx, amcc_time now, uint32_t ssrc)
{
  struct tfmcc_rcv *e = find (tx, ssrc);
  if (e)
    e->used = false;
  if (!tx->has_clr || tx->clr != ssrc)
    return;
  /* 3.3 case 3: switch to the lowest rate heard in the last two rounds; hold increases until
   * the next full round has ended, so a lower receiver can still report. */
  struct tfmcc_rcv *best = NULL;
  amcc_time recent = ns_from_s (2 * tx->round_len_s);
  for (int i = 0; i < TFMCC_TABLE; i++) {
    struct tfmcc_rcv *c = &tx->tab[i];
    if (c->used && now - c->last_report <= recent && (!best || c->rate_bps < best->rate_bps))
      best = c;
  }
  tx->has_clr = false;
  if (best) {
    select_clr (tx, now, best);
    if (best->rate_bps < tx->x)
      tx->x = best->rate_bps;
    clamp_rate (tx);
  }
  tx->hold = true;
  tx->hold_until = (uint16_t) (tx->fb_nr + 1);
}

void amcc_tfmcc_sender_on_report (struct amcc_tfmcc_sender *tx, amcc_time now, uint32_t ssrc,
                                  const struct amcc_tfmcc_report *r)
{
  if (!tx || !r || !(r->rate_bps >= 0) || isinf (r->rate_bps))
    return;
  run_timers (tx, now);
  tx->reports++;
  tx->nofb_ref = now;
  bool was_clr = tx->has_clr && tx->clr == ssrc;
  if (r->leaving) {
    on_leave (tx, now, ssrc);
    return;
  }
  struct tfmcc_rcv *e = lookup (tx, ssrc);
  if (r->has_echo) {   /* RTT = now - echoed sender timestamp - receiver hold time (3.2) */
    int64_t rtt_us = (int64_t) (uint32_t) (us32 (now) - r->echo_ts_us) - (int64_t) r->echo_hold_us;
    double rtt = rtt_us / 1e6;
    if (rtt > 0 && rtt <= AMCC_MAX_RTT_S) {
      e->rtt_s = rtt;
      if (rtt > tx->r_max_s)
        tx->r_max_s = rtt;
      if (rtt > tx->round_peak_rtt_s)
        tx->round_peak_rtt_s = rtt;
      if (was_clr)
        tx->clr_rtt_s = rtt;
    }
  }
  e->rate_bps = r->rate_bps;
  e->last_report = now;
  e->report_round = tx->rounds;
  e->ts_us = r->ts_us;
  e->ts_arrival = now;
  e->has_ts = true;
  e->echoed = false;
  e->reported_have_rtt = r->have_rtt;
  if (r->have_loss)
    tx->slowstart = false;                      /* 3.6: slowstart ends at the first loss */
  if (was_clr) {                                /* the CLR is alive (3.3 timeouts) */
    double gap = secs (now - tx->clr_last_report);
    if (gap > 0)
      tx->clr_gap_s = tx->clr_gap_s > 0 ? 0.75 * tx->clr_gap_s + 0.25 * gap : gap;
    tx->clr_last_report = now;
    tx->clr_halve_ref = now;
  }
  if (!(r->rate_bps > 0))
    return;                                     /* no rate measured yet: RTT/echo only */
  if (!was_clr && r->fb_nr == tx->fb_nr) {     /* 3.4: non-CLR feedback sets X_supp */
    tx->x_supp = fmin (tx->x_supp, tx->p.supp_factor * r->rate_bps);
    tx->nonclr_fb = true;
  }
  bool recv_only = !r->have_loss;               /* 2x the receive rate, no equation rate */
  if (!tx->has_clr) {                           /* case 1: no CLR */
    select_clr (tx, now, e);
    rate_from_clr (tx, now, r->rate_bps, recv_only);
  } else if (was_clr) {                         /* case 4: report from the CLR */
    tx->clr_rate = r->rate_bps;
    rate_from_clr (tx, now, r->rate_bps, recv_only);
  } else if (r->rate_bps < tx->x && (!recv_only || tx->slowstart)) {
    /* case 2: lower rate from a non-CLR; after slowstart only an equation rate can take the
     * CLR, and a receive rate without loss never lowers X (see rate_from_clr) */
    select_clr (tx, now, e);
    if (!recv_only)
      tx->x = r->rate_bps;
    tx->last_increase = now;
    clamp_rate (tx);
  }
  /* 3.4: after T, the round ends with the first non-CLR feedback */
  if (!was_clr && now - tx->round_start >= ns_from_s (tx->round_len_s))
    end_round (tx, now);
}

void amcc_tfmcc_sender_on_bye (struct amcc_tfmcc_sender *tx, amcc_time now, uint32_t ssrc)
{
  if (!tx)
    return;
  run_timers (tx, now);
  on_leave (tx, now, ssrc);
}

void amcc_tfmcc_sender_on_packet_sent (struct amcc_tfmcc_sender *tx, amcc_time now, size_t bytes)
{
  if (!tx || bytes == 0 || bytes > 65535)
    return;
  tx->mean_size = 0.9 * tx->mean_size + 0.1 * (double) bytes;
}

void amcc_tfmcc_sender_set_limits (struct amcc_tfmcc_sender *tx, double min_rate_bps,
                                   double max_rate_bps)
{
  if (!tx || !(min_rate_bps >= 0) || !(max_rate_bps > 0))
    return;
  tx->p.min_rate_bps = min_rate_bps;
  tx->p.max_rate_bps = max_rate_bps;
  clamp_rate (tx);
}

double amcc_tfmcc_sender_rate (struct amcc_tfmcc_sender *tx, amcc_time now)
{
  if (!tx)
    return 0;
  run_timers (tx, now);
  return tx->x;
}

/* Echo priority (3.5): a receiver without an RTT, then the CLR if its report is unanswered, then
 * any unanswered report, else the CLR again (a re-echo with the longer hold is still exact). */
static struct tfmcc_rcv *pick_echo (struct amcc_tfmcc_sender *tx, amcc_time now)
{
  struct tfmcc_rcv *no_rtt = NULL, *other = NULL, *clr = NULL;
  for (int i = 0; i < TFMCC_TABLE; i++) {
    struct tfmcc_rcv *c = &tx->tab[i];
    if (!c->used || !c->has_ts || now - c->ts_arrival < 0 ||
        (uint64_t) ((now - c->ts_arrival) / AMCC_NS_PER_US) > AMCC_MAX_HOLD_US)
      continue;
    if (tx->has_clr && c->ssrc == tx->clr) { clr = c; continue; }
    if (c->echoed)
      continue;
    if (!c->reported_have_rtt && (!no_rtt || c->ts_arrival < no_rtt->ts_arrival))
      no_rtt = c;
    else if (!other || c->ts_arrival < other->ts_arrival)
      other = c;
  }
  if (no_rtt)
    return no_rtt;
  if (clr && !clr->echoed)
    return clr;
  return other ? other : clr;
}

void amcc_tfmcc_sender_fill_info (struct amcc_tfmcc_sender *tx, amcc_time now,
                                  struct amcc_tfmcc_sender_info *out)
{
  memset (out, 0, sizeof *out);
  if (!tx)
    return;
  run_timers (tx, now);
  out->fb_nr = tx->fb_nr;
  out->slowstart = tx->slowstart;
  out->has_supp = isfinite (tx->x_supp);
  out->x_supp_bps = out->has_supp ? tx->x_supp : 0;
  out->ts_us = us32 (now);
  double rmax_us = round (tx->r_max_s * 1e6);
  out->r_max_us = rmax_us < 1 ? 1 : rmax_us > 60e6 ? 60000000u : (uint32_t) rmax_us;
  out->rate_bps = tx->x;
  struct tfmcc_rcv *e = pick_echo (tx, now);
  if (e) {
    out->has_echo = true;
    out->echo_is_clr = tx->has_clr && e->ssrc == tx->clr;
    out->echo_ssrc = e->ssrc;
    out->echo_ts_us = e->ts_us;
    out->echo_hold_us = (uint32_t) ((now - e->ts_arrival) / AMCC_NS_PER_US);
    e->echoed = true;
  }
}

amcc_time amcc_tfmcc_sender_pacing_interval (struct amcc_tfmcc_sender *tx, amcc_time now,
                                             size_t bytes)
{
  double x = amcc_tfmcc_sender_rate (tx, now);
  if (!(x > 0))
    return 0;
  return ns_from_s (8.0 * (double) bytes / x);   /* 3.7: 8 s / X */
}

void amcc_tfmcc_sender_get_state (const struct amcc_tfmcc_sender *tx,
                                  struct amcc_tfmcc_sender_state *st)
{
  memset (st, 0, sizeof *st);
  if (!tx)
    return;
  st->rate_bps = tx->x;
  st->x_supp_bps = isfinite (tx->x_supp) ? tx->x_supp : 0;
  st->r_max_s = tx->r_max_s;
  st->slowstart = tx->slowstart;
  st->has_clr = tx->has_clr;
  st->increase_held = tx->hold;
  st->clr_ssrc = tx->clr;
  st->clr_rate_bps = tx->clr_rate;
  st->clr_rtt_s = clr_rtt (tx);
  st->clr_unit_s = clr_unit (tx);
  st->fb_nr = tx->fb_nr;
  st->reports = tx->reports;
  st->rounds = tx->rounds;
}

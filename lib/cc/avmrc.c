/* avmrc.c - the AVMRC receiver (papers/003 sections 3.1-3.4, table 1), RMRC (4.1) and VMRC as
 * its parameters, the sender's slot clock and the layer-rate table. The Vegas and PFTK models are
 * tcpmodel.c's, the Average Loss Interval and per-layer loss detection loss.c's.
 *
 * Map: a packet updates its layer's sequence/loss tracker, the TSD averages and the slot's byte
 * count; the first packet of a new slot (the sender's slot number, so clients behind one
 * bottleneck act on the same add slots) closes the previous slot and runs slot_step: long-term
 * TSD, loss rates, beta (3.1), Lambda_st / Lambda_lt, then slow start (3.4) or the add/drop
 * rules (3.3). */
#include <math.h>
#include <string.h>
#include "amcc/avmrc.h"
#include "amcc/tcpmodel.h"

void
amcc_avmrc_params_init (amcc_avmrc_params *p)
{
  memset (p, 0, sizeof *p);
  p->model = AMCC_AVMRC_VEGAS_ADAPTIVE;
  p->tau = 100 * AMCC_NS_PER_MS;
  p->n_add = 20;
  p->n_drop = 20;
  p->n_startup = 50;
  p->gamma1 = 0.5;
  p->gamma2 = 0.5;
  p->r_s = 0.1;
  p->to_rtts = 4.0;
  p->static_beta = 6.0;
  p->tsd_st_new = 0.25;
  p->tsd_lt_new = 0.05;
  p->slowstart_frac = 0.95;
  p->nominal_bytes = 1000.0;
  p->ss_expect_lag = 1;
  p->ss_grace_slots = 1;
  p->add_recp_check = 2;
  p->add_recp_frac = 0.8;
}

void
amcc_rmrc_params_init (amcc_avmrc_params *p)
{
  amcc_avmrc_params_init (p);
  p->model = AMCC_AVMRC_RENO;
}

void
amcc_vmrc_params_init (amcc_avmrc_params *p, double beta)
{
  amcc_avmrc_params_init (p);
  p->model = AMCC_AVMRC_VEGAS_STATIC;
  p->static_beta = beta;
}

/* 4.2: B_1 = b1, B_i = factor B_(i-1) */
int
amcc_avmrc_layer_rates (double *cum_bps, uint32_t n, double b1_bps, double factor)
{
  if (!cum_bps || n == 0 || n > AMCC_AVMRC_MAX_LAYERS || !(b1_bps > 0) || !(factor > 1)
      || !isfinite (b1_bps) || !isfinite (factor))
    return AMCC_ERR_PARAM;
  cum_bps[0] = b1_bps;
  for (uint32_t i = 1; i < n; i++)
    cum_bps[i] = cum_bps[i - 1] * factor;
  return AMCC_OK;
}

/* ---------------------------------------------------------------- slot clock */

void
amcc_avmrc_clock_init (amcc_avmrc_clock *c, amcc_time start, const amcc_avmrc_params *p)
{
  c->start = start;
  c->tau = p->tau > 0 ? p->tau : 100 * AMCC_NS_PER_MS;
  c->n_add = p->n_add ? p->n_add : 1;
}

/* 3.3: slots numbered from the sender's start; every n_add-th one permits additions */
uint32_t
amcc_avmrc_clock_at (const amcc_avmrc_clock *c, amcc_time now, int *flagged)
{
  uint32_t slot = now > c->start ? (uint32_t) ((now - c->start) / c->tau) : 0;
  if (flagged)
    *flagged = slot % c->n_add == 0;
  return slot;
}

/* ---------------------------------------------------------------- equations */

/* 3.2: EWMA (eq. 4 with the weight on the new sample) */
double
amcc_avmrc_ewma (double old, double sample, double w_new)
{
  return w_new * sample + (1.0 - w_new) * old;
}

/* 3.2: RTT := delta + R */
double
amcc_avmrc_rtt (double delta_s, double r_s)
{
  return (delta_s > 0 ? delta_s : 0) + r_s;
}

/* 3.2: p_st = 1 / s_0, 1 when s_0 = 0 */
double
amcc_avmrc_p_st (double s0)
{
  return s0 >= 1 ? 1.0 / s0 : 1.0;
}

/* eq. 1 (RMRC) or eq. 2-3 (AVMRC, VMRC: alpha = beta), delta floored (tcpmodel.h), bit/s */
double
amcc_avmrc_model_bps (amcc_avmrc_model m, double p, double delta_s, double beta, double r_s,
    double to_rtts, double pkt_bytes)
{
  double rtt = amcc_avmrc_rtt (fmax (delta_s, AMCC_VEGAS_MIN_DELTA), r_s), pps;

  if (m == AMCC_AVMRC_RENO) {
    if (!(p > 0))
      return AMCC_RATE_UNBOUNDED;
    double bps = 8.0 * amcc_pftk_rate_full (pkt_bytes, rtt, p, 1.0, to_rtts * rtt);
    return bps < AMCC_RATE_UNBOUNDED ? bps : AMCC_RATE_UNBOUNDED;
  }
  if (!(p > 0))
    pps = amcc_vegas_noloss_rate (beta, delta_s);                               /* eq. 2 */
  else
    pps = amcc_vegas_loss_rate (p, rtt, delta_s, beta, beta, to_rtts * rtt);    /* eq. 3 */
  double bps = 8.0 * pkt_bytes * pps;
  return bps < AMCC_RATE_UNBOUNDED ? bps : AMCC_RATE_UNBOUNDED;
}

/* 3.3: add when min(L_st, L_lt) >= B_(i+1) + gamma1 (B_(i+1) - B_i) */
int
amcc_avmrc_should_add (double l_st, double l_lt, double b_i, double b_next, double gamma1)
{
  return fmin (l_st, l_lt) >= b_next + gamma1 * (b_next - b_i);
}

/* 3.3: drop when min (after a recent addition) or max of (L_st, L_lt) < B_i - gamma2 (B_i -
 * B_(i-1)) */
int
amcc_avmrc_should_drop (double l_st, double l_lt, double b_prev, double b_i, double gamma2,
    int recent_add)
{
  double l = recent_add ? fmin (l_st, l_lt) : fmax (l_st, l_lt);
  return l < b_i - gamma2 * (b_i - b_prev);
}

/* 3.4: B_recp >= 0.95 B_curr */
int
amcc_avmrc_slowstart_ok (double b_recp, double b_curr, double frac)
{
  return b_recp >= frac * b_curr;
}

/* ---------------------------------------------------------------- receiver */

static void
layer_reset (amcc_avmrc_layer *l)
{
  amcc_seq_init (&l->seq);
  amcc_loss_events_init (&l->ev);
  l->lost_seen = 0;
}

int
amcc_avmrc_rx_init (amcc_avmrc_rx *r, const amcc_avmrc_params *p, const double *cum_bps,
    uint32_t n)
{
  double paper[AMCC_AVMRC_PAPER_LAYERS];

  if (!r || !p || !(p->tau > 0) || p->n_add == 0 || !(p->nominal_bytes > 0))
    return AMCC_ERR_PARAM;
  if (!cum_bps) {
    amcc_avmrc_layer_rates (paper, AMCC_AVMRC_PAPER_LAYERS, AMCC_AVMRC_PAPER_B1_BPS,
        AMCC_AVMRC_PAPER_FACTOR);
    cum_bps = paper;
    n = AMCC_AVMRC_PAPER_LAYERS;
  }
  if (n == 0 || n > AMCC_AVMRC_MAX_LAYERS)
    return AMCC_ERR_PARAM;
  for (uint32_t i = 0; i < n; i++)
    if (!(cum_bps[i] > (i ? cum_bps[i - 1] : 0)) || !isfinite (cum_bps[i]))
      return AMCC_ERR_PARAM;
  memset (r, 0, sizeof *r);
  r->p = *p;
  r->layers = n;
  for (uint32_t i = 0; i < n; i++)
    r->rate[i + 1] = cum_bps[i];
  r->level = 1;
  for (uint32_t i = 0; i < AMCC_AVMRC_MAX_LAYERS; i++)
    layer_reset (&r->lay[i]);
  for (int i = 0; i < 4; i++)
    r->lvl_hist[i] = 1;
  amcc_loss_history_init (&r->hist);
  r->event_start = AMCC_TIME_NONE;
  r->slot_start = AMCC_TIME_NONE;
  r->phase = AMCC_AVMRC_SLOW_START;
  r->pkt_bytes = p->nominal_bytes;
  r->beta = p->model == AMCC_AVMRC_VEGAS_STATIC ? p->static_beta
      : r->rate[1] * amcc_time_to_s (p->tau) / (8.0 * p->nominal_bytes);       /* beta_min */
  return AMCC_OK;
}

uint32_t amcc_avmrc_rx_level (const amcc_avmrc_rx *r) { return r->level; }

static void
set_level (amcc_avmrc_rx *r, uint32_t level, uint32_t slot)
{
  if (level > r->level) {
    r->adds++;
    r->last_add_slot = slot;
    r->add_since_drop = 1;
    r->add_seen = 0;
  } else {
    r->drops++;
    r->add_since_drop = 0;
  }
  /* a layer joined later starts a fresh sequence space: its gap is not loss */
  for (uint32_t i = level; i < AMCC_AVMRC_MAX_LAYERS; i++)
    layer_reset (&r->lay[i]);
  r->level = level;
}

/* 3.2: one loss event holds every loss within tau of its first; an interval runs from the last
 * loss of one event to the first loss of the next. The first event closes the interval since
 * joining (the paper says nothing of the first; TFRC's seeding would be a model's guess). */
static void
on_loss (amcc_avmrc_rx *r, amcc_time now, uint64_t n)
{
  r->lost += n;
  r->loss_in_slot = 1;
  if (r->event_start == AMCC_TIME_NONE || now - r->event_start > r->p.tau) {
    amcc_loss_history_push (&r->hist, r->since_loss);
    r->event_start = now;
    r->events++;
    r->have_loss = 1;
  }
  r->since_loss = 0;
  amcc_loss_history_set_open (&r->hist, 0);
}

/* RMRC 4.1: slow start ended before any loss: seed the history with the p for which eq. 1 gives
 * the rate kept (one interval of 1/p packets, n = 1) */
static void
seed_reno (amcc_avmrc_rx *r)
{
  double rtt = amcc_avmrc_rtt (fmax (r->delta_lt, AMCC_VEGAS_MIN_DELTA), r->p.r_s);
  double p = amcc_pftk_loss_for_rate (r->rate[r->level] / 8.0, r->pkt_bytes, rtt);

  if (p > 0) {
    amcc_loss_history_push (&r->hist, 1.0 / p);
    r->have_loss = r->seeded = 1;
  }
}

static void
end_slow_start (amcc_avmrc_rx *r, uint32_t since_join)
{
  r->phase = since_join < r->p.n_startup ? AMCC_AVMRC_STARTUP : AMCC_AVMRC_STEADY;
  if (r->p.model == AMCC_AVMRC_RENO && !r->have_loss)
    seed_reno (r);
}

/* The averages and the model at the end of a slot (3.1, 3.2). */
static void
update_model (amcc_avmrc_rx *r)
{
  double tau_s = amcc_time_to_s (r->p.tau);

  if (r->have_tsd) {
    r->tsd_lt = amcc_avmrc_ewma (r->tsd_lt, r->tsd_st, r->p.tsd_lt_new);
    r->delta_st = fmax (0.0, r->tsd_st - r->tsd_min);
    r->delta_lt = fmax (0.0, r->tsd_lt - r->tsd_min);
  }
  r->p_lt = amcc_loss_history_p (&r->hist, NULL);
  r->p_st = r->have_loss ? amcc_avmrc_p_st (r->since_loss) : 0.0;
  if (r->p.model == AMCC_AVMRC_VEGAS_ADAPTIVE) {
    /* 3.1: beta_min / beta_max = packets sent in tau at the lowest / highest subscription */
    double bmin = r->rate[1] * tau_s / (8.0 * r->pkt_bytes);
    double bmax = r->rate[r->layers] * tau_s / (8.0 * r->pkt_bytes);
    double rtt = amcc_avmrc_rtt (r->delta_lt, r->p.r_s);
    r->beta = amcc_vegas_beta_update (r->beta,
        amcc_vegas_beta_target (r->p_lt, rtt, r->delta_lt, bmax), bmin, bmax);
  } else if (r->p.model == AMCC_AVMRC_VEGAS_STATIC) {
    r->beta = r->p.static_beta;
  }
  r->lambda_st = amcc_avmrc_model_bps (r->p.model, r->p_st, r->delta_st, r->beta, r->p.r_s,
      r->p.to_rtts, r->pkt_bytes);
  r->lambda_lt = amcc_avmrc_model_bps (r->p.model, r->p_lt, r->delta_lt, r->beta, r->p.r_s,
      r->p.to_rtts, r->pkt_bytes);
}

/* The slot just closed is one of the first add_recp_check to carry the last addition and the
 * layers held before it came at less than add_recp_frac of their rate (3.4's test on them: the
 * add_recp_check deviation). Counted from the added layer's first packet, not from the add:
 * a join reaches the router a slot or more later (IGMP, the element's thread). */
static int
addition_unsustained (const amcc_avmrc_rx *r)
{
  return r->add_since_drop && r->add_seen && r->level > 1
      && r->slot - r->add_seen_slot < r->p.add_recp_check
      && !amcc_avmrc_slowstart_ok (r->b_held, r->rate[r->level - 1], r->p.add_recp_frac);
}

/* The receiver's action at the start of slot `slot` (3.3, 3.4). */
static void
slot_step (amcc_avmrc_rx *r, uint32_t slot, int flagged)
{
  uint32_t since_join = slot - r->join_slot, lvl = r->level;

  update_model (r);
  if (r->phase == AMCC_AVMRC_SLOW_START) {
    uint32_t lag = r->p.ss_expect_lag < 3 ? r->p.ss_expect_lag : 3;
    double expect = r->rate[r->lvl_hist[lag]];
    int ok = since_join <= r->p.ss_grace_slots
        || amcc_avmrc_slowstart_ok (r->b_recp, expect, r->p.slowstart_frac);
    if (r->loss_in_slot || !ok) {
      if (lvl > 1)
        set_level (r, lvl - 1, slot);
      end_slow_start (r, since_join);
    } else if (lvl >= r->layers) {
      end_slow_start (r, since_join);
    } else {
      set_level (r, lvl + 1, slot);
    }
  } else {
    if (r->phase == AMCC_AVMRC_STARTUP && since_join >= r->p.n_startup)
      r->phase = AMCC_AVMRC_STEADY;
    int may_add = flagged || r->phase == AMCC_AVMRC_STARTUP;
    int recent = r->add_since_drop && slot - r->last_add_slot <= r->p.n_drop;
    if (r->p.add_recp_check && addition_unsustained (r))
      set_level (r, lvl - 1, slot);
    else if (may_add && lvl < r->layers
        && amcc_avmrc_should_add (r->lambda_st, r->lambda_lt, r->rate[lvl], r->rate[lvl + 1],
            r->p.gamma1))
      set_level (r, lvl + 1, slot);
    else if (lvl > 1 && amcc_avmrc_should_drop (r->lambda_st, r->lambda_lt, r->rate[lvl - 1],
            r->rate[lvl], r->p.gamma2, recent))
      set_level (r, lvl - 1, slot);
  }
  memmove (&r->lvl_hist[1], &r->lvl_hist[0], 3 * sizeof r->lvl_hist[0]);
  r->lvl_hist[0] = r->level;
  r->loss_in_slot = 0;
}

/* A packet of a layer taken: loss detection on its own sequence space, s_0, bytes. */
static void
count_packet (amcc_avmrc_rx *r, amcc_time now, uint32_t layer, uint16_t seq, uint32_t bytes)
{
  amcc_avmrc_layer *l = &r->lay[layer];
  uint64_t ext;
  amcc_seq_result res = amcc_seq_update (&l->seq, seq, &ext);

  if (res == AMCC_SEQ_DUPLICATE || res == AMCC_SEQ_TOO_OLD || res == AMCC_SEQ_BAD)
    return;
  r->slot_bytes += bytes;
  if (layer + 1 < r->level)
    r->slot_bytes_held += bytes;
  else if (r->add_since_drop && !r->add_seen) {
    r->add_seen = 1;            /* the top layer, i.e. the one added last, is here */
    r->add_seen_slot = r->slot;
  }
  r->pkt_bytes += (bytes - r->pkt_bytes) / 16.0;
  r->since_loss += 1;
  r->since_join += 1;
  amcc_loss_history_set_open (&r->hist, r->since_loss);
  if (res < AMCC_SEQ_NEW)
    return;                     /* in probation: no extended number yet */
  if (res == AMCC_SEQ_RESYNC)
    layer_reset (l);            /* a restarted sequence: not a loss */
  (void) amcc_loss_events_on_packet (&l->ev, now, ext, r->p.tau);
  if (l->ev.lost > l->lost_seen) {
    uint64_t n = l->ev.lost - l->lost_seen;
    l->lost_seen = l->ev.lost;
    on_loss (r, now, n);
    r->since_loss = 1;          /* this packet, received after the loss */
    amcc_loss_history_set_open (&r->hist, 1);
  }
}

int
amcc_avmrc_rx_on_packet (amcc_avmrc_rx *r, amcc_time now, uint32_t layer, uint16_t seq,
    uint32_t bytes, const amcc_avmrc_stamp *stamp)
{
  int stepped = 0;

  r->packets++;
  if (!stamp) {
    r->unstamped++;
  } else {
    if (!r->have_slot) {
      r->have_slot = 1;
      r->slot = r->join_slot = r->last_add_slot = stamp->slot;
      r->slot_start = now;
    } else if ((int32_t) (stamp->slot - r->slot) > 0) {
      /* the first packet of a new slot closes the last one (late ones of it count here) */
      double el = fmax (amcc_time_to_s (now - r->slot_start), amcc_time_to_s (r->p.tau) / 2);
      r->b_recp = r->slot_bytes * 8.0 / el;
      r->b_held = r->slot_bytes_held * 8.0 / el;
      slot_step (r, stamp->slot, stamp->flagged);
      r->slot = stamp->slot;
      r->slot_start = now;
      r->slot_bytes = r->slot_bytes_held = 0;
      stepped = 1;
    }
    if (stamp->send_time != AMCC_TIME_NONE && now != AMCC_TIME_NONE) {
      /* in doubles: the two clocks may be far apart (the offset cancels in delta) */
      double tsd = amcc_time_to_s (now) - amcc_time_to_s (stamp->send_time);
      if (!r->have_tsd) {
        r->have_tsd = 1;
        r->tsd_st = r->tsd_lt = r->tsd_min = tsd;
      } else {
        r->tsd_st = amcc_avmrc_ewma (r->tsd_st, tsd, r->p.tsd_st_new);
        r->tsd_min = fmin (r->tsd_min, tsd);
      }
    }
  }
  /* layers above the subscription (still arriving while the leave propagates) are not counted */
  if (layer < r->level)
    count_packet (r, now, layer, seq, bytes);
  return stepped;
}

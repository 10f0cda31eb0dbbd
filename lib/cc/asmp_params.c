/* asmp_params.c - ASMP parameters: the defaults (each departure from the paper is a parameter
 * whose literal value gives the paper; lib/cc/README.md "Decisions"), the paper's one regime, and
 * validation. Shared by the receiver and the sender. */
#include <math.h>
#include <string.h>
#include "amcc/asmp.h"

void
amcc_asmp_params_init (amcc_asmp_params *p)
{
  memset (p, 0, sizeof *p);
  p->initial_rate_bps = 500e3;
  p->min_rate_bps = 16e3;
  p->max_rate_bps = 100e6;
  p->default_rtt_s = 0.1;
  p->rho = 0.5;
  p->gamma_unloaded = 0.9;
  p->gamma_congested = 0.2;
  p->ci_margin_s = 0.0;
  p->similarity = 0.02;
  p->suppress_if_lower = 0;
  p->receiver_timeout = 15 * AMCC_NS_PER_S;
  p->t_suspend = 5 * AMCC_NS_PER_S;
  p->t_rand = 0;
  p->lambda = 0;
  p->max_receivers = 65536;
  p->recv_rate_cap = 2.0;
  p->ci_ge = 0;
  p->rtt_clamp = 8.0;
  p->cj_use_send_time = 1;
  p->step_limit = 1;
  p->recv_rate_step = 1;
  p->rtt_floor = 1;
  p->standing_queue_cap = 1;
  p->nominal_pkt_bytes = 1448;
  p->pkt_rate_ratio = 4.0;
  p->loss_events = 1;
  p->loss_per_segment = 1;
  p->adaptive_mode = 1;
  p->queue_target_s = 0.02;
  p->queue_hold_s = 0.005;
  p->drain_s = 0.5;
  p->compete_after_s = 2.0;
  p->compete_hold_s = 10.0;
  p->delay_backoff = 0.1;
  p->burst_cut_max = 0.2;
  p->random_loss_q_s = 0.005;
  p->random_loss_max = 0.03;
  p->knee_step = 0.02;
  p->knee_hold_s = 20.0;
  p->knee_hold_frac = 0.95;
  p->delay_rise = 0.05;
  p->knee_loss_frac = 0.9;
  p->foreign_margin = 0.1;
  p->queue_cap_hold_s = 10.0;
  p->startup_gain = 1.25;
  p->step_frac = 0.25;
  p->window_s = 1.0;
  p->drop_suppressed = 1;
  p->recv_least_delay = 1;
  p->send_gap_s = 0.3;
  p->resume_s = 10.0;
}

void
amcc_asmp_params_single_regime (amcc_asmp_params *p)
{
  p->nominal_pkt_bytes = 0;
  p->pkt_rate_ratio = 0;
  p->loss_events = 0;
  p->loss_per_segment = 0;
  p->adaptive_mode = 0;
  p->startup_gain = 0;
  p->step_frac = 0;
}

static int
in01 (double v)
{
  return v > 0 && v <= 1;
}

int
amcc_asmp_params_validate (const amcc_asmp_params *p)
{
  if (!p)
    return AMCC_ERR_PARAM;
  if (!(p->min_rate_bps > 0) || !(p->max_rate_bps >= p->min_rate_bps) || !isfinite (p->max_rate_bps)
      || !(p->initial_rate_bps > 0) || !isfinite (p->initial_rate_bps))
    return AMCC_ERR_PARAM;
  if (!(p->default_rtt_s > 0) || !(p->default_rtt_s <= AMCC_MAX_RTT_S) || !in01 (p->rho)
      || !in01 (p->gamma_unloaded) || !in01 (p->gamma_congested))
    return AMCC_ERR_PARAM;
  if (!(p->similarity >= 0 && p->similarity < 1) || !(p->ci_margin_s >= 0) || isnan (p->lambda))
    return AMCC_ERR_PARAM;
  if (!(p->recv_rate_cap >= 0) || !isfinite (p->recv_rate_cap))
    return AMCC_ERR_PARAM;
  if (!(p->rtt_clamp == 0 || (p->rtt_clamp >= 1 && isfinite (p->rtt_clamp))))
    return AMCC_ERR_PARAM;
  if (p->receiver_timeout <= 0 || p->t_suspend <= 0 || p->t_rand < 0 || p->max_receivers == 0)
    return AMCC_ERR_PARAM;
  if (!(p->nominal_pkt_bytes >= 0 && p->nominal_pkt_bytes <= 65535) || !(p->pkt_rate_ratio >= 0)
      || !isfinite (p->pkt_rate_ratio))
    return AMCC_ERR_PARAM;
  if (!(p->queue_target_s > 0 && p->queue_target_s <= AMCC_MAX_RTT_S) || !(p->drain_s > 0 && p->drain_s <= AMCC_MAX_HOLD_S)
      || !(p->queue_hold_s >= 0 && p->queue_hold_s <= 10)
      || !(p->delay_rise >= 0 && p->delay_rise <= 10)
      || !(p->knee_loss_frac >= 0 && p->knee_loss_frac < 1)
      || !(p->foreign_margin >= 0 && p->foreign_margin < 1)
      || !(p->queue_cap_hold_s >= 0 && p->queue_cap_hold_s <= AMCC_MAX_HOLD_S)
      || !(p->compete_after_s >= 0 && p->compete_after_s <= AMCC_MAX_HOLD_S)
      || !(p->compete_hold_s > 0 && p->compete_hold_s <= AMCC_MAX_HOLD_S)
      || !(p->delay_backoff >= 0 && p->delay_backoff < 1)
      || !(p->burst_cut_max >= 0 && p->burst_cut_max < 1)
      || !(p->random_loss_q_s >= 0 && p->random_loss_q_s <= 1) || !in01 (p->random_loss_max)
      || !(p->knee_hold_s >= 0 && p->knee_hold_s <= AMCC_MAX_HOLD_S) || !in01 (p->knee_hold_frac)
      || !(p->knee_step > 0 && p->knee_step <= 1))
    return AMCC_ERR_PARAM;
  if (!(p->startup_gain == 0 || (p->startup_gain > 1 && p->startup_gain <= 4))
      || !(p->step_frac >= 0 && p->step_frac <= 1))
    return AMCC_ERR_PARAM;
  if (!(p->window_s == 0 || (p->window_s >= 0.1 && p->window_s <= AMCC_MAX_HOLD_S)))
    return AMCC_ERR_PARAM;
  if (!(p->send_gap_s >= 0 && p->send_gap_s <= AMCC_MAX_HOLD_S)
      || !(p->resume_s >= 0 && p->resume_s <= AMCC_MAX_HOLD_S))
    return AMCC_ERR_PARAM;
  return AMCC_OK;
}

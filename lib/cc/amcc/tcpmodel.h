/* tcpmodel.h - TCP throughput models.
 * Guards, for every model: NaN in any argument, s <= 0 or RTT <= 0 -> 0 ("no estimate");
 * p <= 0 -> AMCC_RATE_UNBOUNDED (the loss-based model gives no limit; callers use their no-loss
 * rule); p >= 1 -> evaluated at p = 1; results are finite and clamped to [0, AMCC_RATE_UNBOUNDED]. */
#ifndef AMCC_TCPMODEL_H
#define AMCC_TCPMODEL_H
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_RATE_UNBOUNDED 1e15   /* in the unit of the function (bytes/s, bit/s, packets/s) */

/* ASMP eq. 12, PFTK (Padhye et al. 1998) with D = 1 and t_out = 4 t_RTT, in BYTES/s:
 *   r = P / ( t_RTT sqrt(2 D l / 3) + t_out min(1, 3 sqrt(3 D l / 8)) l (1 + 32 l^2) ). */
double amcc_pftk_rate (double packet_bytes, double rtt_s, double loss);
/* The same with explicit D (packets per ACK) and t_out (seconds). */
double amcc_pftk_rate_full (double packet_bytes, double rtt_s, double loss, double d_acked,
    double t_out_s);

/* RFC 4654 2.1, BIT/s: X = 8 s / (R (sqrt(2p/3) + 12 sqrt(3p/8) p (1 + 32 p^2))). Note: no min(1,.)
 * term, exactly as the RFC writes it. */
double amcc_tfmcc_rate (double packet_bytes, double rtt_s, double p);
/* Inverse of amcc_tfmcc_rate: the p in (0,1] for which the equation gives rate_bps (bisection on
 * log p, relative error < 1e-9). Used to seed a loss history at the first loss (RFC 4654 5,
 * RFC 5348 6.3.1). Returns 1 if rate_bps is below the p = 1 rate, 0 on invalid input. */
double amcc_tfmcc_loss_for_rate (double rate_bps, double packet_bytes, double rtt_s);
/* Inverse of amcc_pftk_rate (bytes/s), same conventions (RMRC seeding, spec avmrc.md). */
double amcc_pftk_loss_for_rate (double rate_Bps, double packet_bytes, double rtt_s);

/* TCP Vegas (Samios & Vernon 2003 as quoted by AVMRC, papers/003 eq. 2-3), PACKETS/s.
 * No loss (eq. 2): Lambda = beta / Delta. delta_s <= 0 is floored at AMCC_VEGAS_MIN_DELTA. */
#define AMCC_VEGAS_MIN_DELTA 0.001
double amcc_vegas_noloss_rate (double beta, double delta_s);
/* Vegas window W = RTT (alpha + beta) / (2 Delta) (packets). */
double amcc_vegas_window (double rtt_s, double delta_s, double alpha, double beta);
/* With loss (eq. 3): Lambda = (n + 1) ((1 - p)/p + W) / (N RTT + TO) with
 *   p_to = min(1, (p + p (1-p) (1 - (1-p)^(W-1))) / (1 - (1-p)^W)), n = (1 - p_to) / p_to,
 *   N = 2 log2 W + (n+1)(1-p)/(p W) + (1 + n/4) W/8 + 9n/8 - 11/4 + (4 - 2 log2 W)/W.
 * log is base 2: Vegas slow start doubles the window every other round, so reaching W takes
 * 2 log2 W rounds. W < 1 is raised to 1; p <= 0 gives the no-loss model. */
double amcc_vegas_loss_rate (double p, double rtt_s, double delta_s, double alpha, double beta,
    double to_s);
/* Stable-backlog window (AVMRC 3.1): the positive root of p = 32 / (7 W^2 - 36 W + 32),
 * W = (36 + sqrt(400 + 896 / p)) / 14 (always > 4, where the denominator is positive).
 * p <= 0 -> AMCC_RATE_UNBOUNDED; p > 1 treated as 1. */
double amcc_vegas_stable_window (double p);
/* beta_c = W * Delta / RTT for that window (packets); p <= 0 -> beta_max. */
double amcc_vegas_beta_target (double p, double rtt_s, double delta_s, double beta_max);
/* beta = 0.95 beta + 0.05 beta_c, clamped to [beta_min, beta_max]. */
double amcc_vegas_beta_update (double beta, double beta_c, double beta_min, double beta_max);

#ifdef __cplusplus
}
#endif
#endif

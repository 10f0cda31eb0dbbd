/* tcpmodel.c - PFTK (ASMP eq. 12), the TFMCC equation (RFC 4654 2.1) and TCP Vegas models
 * (AVMRC, papers/003 eq. 2-3 and 3.1). */
#include <math.h>
#include "amcc/tcpmodel.h"

static double
clamp_rate (double r)
{
  if (isnan (r) || r < 0)
    return 0.0;
  return r > AMCC_RATE_UNBOUNDED ? AMCC_RATE_UNBOUNDED : r;
}

/* PFTK: r = s / (R sqrt(2bp/3) + t_out min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)) */
double
amcc_pftk_rate_full (double s, double rtt, double p, double b, double t_out)
{
  if (isnan (s) || isnan (rtt) || isnan (p) || isnan (b) || isnan (t_out))
    return 0.0;
  if (s <= 0 || rtt <= 0 || b <= 0 || t_out < 0)
    return 0.0;
  if (p <= 0)
    return AMCC_RATE_UNBOUNDED;
  if (p > 1)
    p = 1;
  double denom = rtt * sqrt (2.0 * b * p / 3.0)
      + t_out * fmin (1.0, 3.0 * sqrt (3.0 * b * p / 8.0)) * p * (1.0 + 32.0 * p * p);
  if (!(denom > 0))
    return AMCC_RATE_UNBOUNDED;
  return clamp_rate (s / denom);
}

/* ASMP eq. 12 with D = 1, t_out = 4 t_RTT; bytes/s */
double
amcc_pftk_rate (double packet_bytes, double rtt_s, double loss)
{
  return amcc_pftk_rate_full (packet_bytes, rtt_s, loss, 1.0, 4.0 * rtt_s);
}

/* RFC 4654 2.1: X = 8s / (R (sqrt(2p/3) + 12 sqrt(3p/8) p (1 + 32 p^2))); bit/s */
double
amcc_tfmcc_rate (double s, double rtt, double p)
{
  if (isnan (s) || isnan (rtt) || isnan (p) || s <= 0 || rtt <= 0)
    return 0.0;
  if (p <= 0)
    return AMCC_RATE_UNBOUNDED;
  if (p > 1)
    p = 1;
  double denom = rtt * (sqrt (2.0 * p / 3.0) + 12.0 * sqrt (3.0 * p / 8.0) * p * (1.0 + 32.0 * p * p));
  if (!(denom > 0))
    return AMCC_RATE_UNBOUNDED;
  return clamp_rate (8.0 * s / denom);
}

/* Bisection on log p for a model decreasing in p. */
static double
invert (double target, double s, double rtt, double (*model) (double, double, double))
{
  if (isnan (target) || isnan (s) || isnan (rtt) || target <= 0 || s <= 0 || rtt <= 0)
    return 0.0;
  double lo = log (1e-12), hi = 0.0;          /* log p */
  if (target <= model (s, rtt, 1.0))
    return 1.0;
  if (target >= model (s, rtt, 1e-12))
    return 1e-12;
  for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
    double mid = 0.5 * (lo + hi);
    if (model (s, rtt, exp (mid)) > target)
      lo = mid;     /* rate too high: more loss needed */
    else
      hi = mid;
  }
  return exp (0.5 * (lo + hi));
}

double
amcc_tfmcc_loss_for_rate (double rate_bps, double packet_bytes, double rtt_s)
{
  return invert (rate_bps, packet_bytes, rtt_s, amcc_tfmcc_rate);
}

double
amcc_pftk_loss_for_rate (double rate_Bps, double packet_bytes, double rtt_s)
{
  return invert (rate_Bps, packet_bytes, rtt_s, amcc_pftk_rate);
}

static double
floor_delta (double delta_s)
{
  return (delta_s > AMCC_VEGAS_MIN_DELTA) ? delta_s : AMCC_VEGAS_MIN_DELTA;
}

/* AVMRC eq. 2: Lambda = beta / Delta (packets/s) */
double
amcc_vegas_noloss_rate (double beta, double delta_s)
{
  if (isnan (beta) || isnan (delta_s) || beta <= 0)
    return 0.0;
  return clamp_rate (beta / floor_delta (delta_s));
}

/* W = RTT (alpha + beta) / (2 Delta) */
double
amcc_vegas_window (double rtt_s, double delta_s, double alpha, double beta)
{
  if (isnan (rtt_s) || isnan (delta_s) || isnan (alpha) || isnan (beta) || rtt_s <= 0)
    return 0.0;
  double w = rtt_s * (alpha + beta) / (2.0 * floor_delta (delta_s));
  return w > 0 ? clamp_rate (w) : 0.0;
}

/* AVMRC eq. 3 (Samios & Vernon): packets/s */
double
amcc_vegas_loss_rate (double p, double rtt_s, double delta_s, double alpha, double beta,
    double to_s)
{
  if (isnan (p) || isnan (rtt_s) || isnan (delta_s) || isnan (alpha) || isnan (beta) || isnan (to_s))
    return 0.0;
  if (rtt_s <= 0 || to_s < 0 || alpha + beta <= 0)
    return 0.0;
  if (p <= 0)
    return amcc_vegas_noloss_rate (beta, delta_s);
  if (p > 1)
    p = 1;
  double w = amcc_vegas_window (rtt_s, delta_s, alpha, beta);
  if (w < 1)
    w = 1;                               /* guard W <= 1: log2 W >= 0, (1-p)^(W-1) <= 1 */
  double q = 1.0 - p;
  /* (1-p)^x through exp(x log1p(-p)): exact for tiny p, underflows to 0 instead of overflowing */
  double lq = p < 1 ? log1p (-p) : -INFINITY;
  double qw1 = p < 1 ? exp ((w - 1.0) * lq) : (w > 1 ? 0.0 : 1.0);
  double one_minus_qw = p < 1 ? -expm1 (w * lq) : 1.0;
  if (!(one_minus_qw > 0))
    return amcc_vegas_noloss_rate (beta, delta_s);
  double p_to = (p + p * q * (1.0 - qw1)) / one_minus_qw;
  if (!(p_to <= 1.0))
    p_to = 1.0;
  if (!(p_to > 0))
    p_to = 1e-300;
  double n = (1.0 - p_to) / p_to;
  double lw = log2 (w);     /* base 2: Vegas slow start doubles every other RTT */
  double big_n = 2.0 * lw + (n + 1.0) * q / (p * w) + (1.0 + n / 4.0) * w / 8.0 + 9.0 * n / 8.0
      - 11.0 / 4.0 + (4.0 - 2.0 * lw) / w;
  double num = (n + 1.0) * (q / p + w), denom = big_n * rtt_s + to_s;
  if (!isfinite (num) || !isfinite (denom))
    return clamp_rate (w / rtt_s);      /* p too small for doubles: the p -> 0 limit of eq. 3 */
  if (!(denom > 0))
    return 0.0;
  return clamp_rate (num / denom);
}

/* AVMRC 3.1: positive root of p = 32 / (7 W^2 - 36 W + 32) */
double
amcc_vegas_stable_window (double p)
{
  if (isnan (p) || p <= 0)
    return AMCC_RATE_UNBOUNDED;
  if (p > 1)
    p = 1;
  return clamp_rate ((36.0 + sqrt (400.0 + 896.0 / p)) / 14.0);
}

double
amcc_vegas_beta_target (double p, double rtt_s, double delta_s, double beta_max)
{
  if (isnan (p) || p <= 0 || isnan (rtt_s) || rtt_s <= 0 || isnan (delta_s))
    return beta_max;
  return clamp_rate (amcc_vegas_stable_window (p) * floor_delta (delta_s) / rtt_s);
}

double
amcc_vegas_beta_update (double beta, double beta_c, double beta_min, double beta_max)
{
  if (isnan (beta))
    beta = beta_min;
  if (!isnan (beta_c))
    beta = 0.95 * beta + 0.05 * beta_c;
  if (beta > beta_max)
    beta = beta_max;
  if (beta < beta_min)
    beta = beta_min;
  return beta;
}

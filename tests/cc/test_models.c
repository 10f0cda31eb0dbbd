/* test_models.c - TCP throughput models against hand computations.
 * PFTK: ASMP eq. 12 (papers/000 3.6); TFMCC: RFC 4654 2.1; Vegas: spec/avmrc.md (papers/003). */
#include <math.h>
#include "amtest.h"
#include "amcc/tcpmodel.h"

/* ASMP eq. 12, P = 1000 B, t_RTT = 0.1 s, l = 0.01, D = 1, t_out = 0.4 s:
 *   t_RTT sqrt(2l/3)       = 0.1 * sqrt(0.0066667)      = 0.0081649658
 *   min(1, 3 sqrt(3l/8))   = 3 * sqrt(0.00375)          = 0.1837117307
 *   t_out * that * l(1+32l^2) = 0.4 * 0.18371173 * 0.010032 = 0.0007371984
 *   r = 1000 / (0.0081649658 + 0.0007371984) = 1000 / 0.0089021642 = 112332.23 bytes/s */
static void
test_pftk_hand (void)
{
  AMT_NEAR (amcc_pftk_rate (1000, 0.1, 0.01), 112332.234, 0.01);
  /* l = 0.3: 3 sqrt(3*0.3/8) = 1.0062 -> min() = 1:
   *   0.1 sqrt(0.2) = 0.0447213595; 0.4 * 1 * 0.3 * (1 + 32*0.09) = 0.4656
   *   r = 1000 / 0.5103213595 = 1959.5496 bytes/s */
  AMT_NEAR (amcc_pftk_rate (1000, 0.1, 0.3), 1959.5496, 0.001);
  /* l = 1: 0.1 sqrt(2/3) + 0.4 * 1 * 1 * 33 = 0.0816497 + 13.2 -> 1000 / 13.2816497 = 75.29185 */
  AMT_NEAR (amcc_pftk_rate (1000, 0.1, 1.0), 75.29185, 0.0001);
  /* the explicit form with D = 1, t_out = 4 RTT is the same function */
  AMT_NEAR (amcc_pftk_rate_full (1000, 0.1, 0.01, 1, 0.4), amcc_pftk_rate (1000, 0.1, 0.01), 1e-9);
  /* rate is inversely proportional to P^-1 RTT: doubling RTT (and t_out) halves it */
  AMT_NEAR (amcc_pftk_rate (1000, 0.2, 0.01), 112332.234 / 2, 0.01);
}

static void
test_pftk_guards (void)
{
  AMT_CHECK (amcc_pftk_rate (1000, 0.1, 0.0) == AMCC_RATE_UNBOUNDED);
  AMT_CHECK (amcc_pftk_rate (1000, 0.1, -0.5) == AMCC_RATE_UNBOUNDED);
  AMT_NEAR (amcc_pftk_rate (1000, 0.1, 7.0), amcc_pftk_rate (1000, 0.1, 1.0), 1e-12);
  AMT_CHECK (amcc_pftk_rate (1000, 0.0, 0.01) == 0.0);
  AMT_CHECK (amcc_pftk_rate (1000, -1.0, 0.01) == 0.0);
  AMT_CHECK (amcc_pftk_rate (0, 0.1, 0.01) == 0.0);
  AMT_CHECK (amcc_pftk_rate (NAN, 0.1, 0.01) == 0.0);
  AMT_CHECK (amcc_pftk_rate (1000, NAN, 0.01) == 0.0);
  AMT_CHECK (amcc_pftk_rate (1000, 0.1, NAN) == 0.0);
  /* overflow: a tiny p and RTT would exceed the cap */
  double r = amcc_pftk_rate (1e300, 1e-300, 1e-300);
  AMT_CHECK (isfinite (r) && r == AMCC_RATE_UNBOUNDED);
  AMT_CHECK (isfinite (amcc_pftk_rate (1000, INFINITY, 0.01)));
}

/* RFC 4654 2.1, s = 1000 B, R = 0.1 s, p = 0.01:
 *   sqrt(2p/3) = 0.0816496581; 12 sqrt(3p/8) p (1 + 32p^2) = 12 * 0.0612372 * 0.010032 = 0.0073719843
 *   X = 8000 / (0.1 * 0.0890216424) = 898657.87 bit/s
 * With t_out = 4R and 3 sqrt(3p/8) < 1 the RFC's equation is 8 x PFTK (bytes -> bits). */
static void
test_tfmcc_hand (void)
{
  AMT_NEAR (amcc_tfmcc_rate (1000, 0.1, 0.01), 898657.875, 0.01);
  AMT_NEAR (amcc_tfmcc_rate (1000, 0.1, 0.01), 8 * amcc_pftk_rate (1000, 0.1, 0.01), 1e-6);
  /* p = 0.3: no min(1, .) in RFC 4654: sqrt(0.2) + 12 sqrt(0.1125) 0.3 (3.88) = 0.4472136 + 4.6850096
   *   = 5.1322232 -> 8000 / 0.51322232 = 15587.79 bit/s, differs from 8 x PFTK (15676.4) */
  AMT_NEAR (amcc_tfmcc_rate (1000, 0.1, 0.3), 15587.7865, 0.001);
  AMT_CHECK (fabs (amcc_tfmcc_rate (1000, 0.1, 0.3) - 8 * amcc_pftk_rate (1000, 0.1, 0.3)) > 50);
  AMT_CHECK (amcc_tfmcc_rate (1000, 0.1, 0) == AMCC_RATE_UNBOUNDED);
  AMT_CHECK (amcc_tfmcc_rate (1000, 0, 0.01) == 0.0);
  AMT_CHECK (amcc_tfmcc_rate (1000, 0.1, NAN) == 0.0);
  AMT_NEAR (amcc_tfmcc_rate (1000, 0.1, 2.0), amcc_tfmcc_rate (1000, 0.1, 1.0), 1e-12);
  AMT_CHECK (amcc_tfmcc_rate (1e300, 1e-300, 1e-300) == AMCC_RATE_UNBOUNDED);   /* overflow */
  AMT_CHECK (amcc_tfmcc_rate (1000, INFINITY, 0.01) == 0.0);
}

static void
test_inverse (void)
{
  /* the inverse of the hand value above is p = 0.01 */
  AMT_NEAR (amcc_tfmcc_loss_for_rate (898657.875, 1000, 0.1), 0.01, 1e-8);
  AMT_NEAR (amcc_pftk_loss_for_rate (112332.234, 1000, 0.1), 0.01, 1e-8);
  AMT_NEAR (amcc_pftk_loss_for_rate (1959.5496, 1000, 0.1), 0.3, 1e-6);
  /* below the p = 1 rate -> 1; invalid -> 0 */
  AMT_CHECK (amcc_tfmcc_loss_for_rate (1.0, 1000, 0.1) == 1.0);
  AMT_CHECK (amcc_tfmcc_loss_for_rate (NAN, 1000, 0.1) == 0.0);
  AMT_CHECK (amcc_tfmcc_loss_for_rate (1e6, 1000, -1) == 0.0);
}

/* Vegas with loss (papers/003 eq. 3), p = 0.01, RTT = 0.1 s, Delta = 0.025 s, alpha = beta = 4,
 * TO = 4 RTT = 0.4 s:
 *   W = 0.1 * 8 / (2 * 0.025) = 16 (so log2 W = 4 exactly)
 *   (1-p)^15 = 0.8600584, (1-p)^16 = 0.8514578
 *   p_to = (0.01 + 0.01*0.99*(1 - 0.8600584)) / (1 - 0.8514578) = 0.0113854 / 0.1485422 = 0.0766477
 *   n = (1 - 0.0766477) / 0.0766477 = 12.046704
 *   N = 2*4 + 13.046704*0.99/(0.01*16) + (1 + 12.046704/4)*16/8 + 9*12.046704/8 - 11/4 + (4-8)/16
 *     = 8 + 80.726729 + 8.023352 + 13.552541 - 2.75 - 0.25 = 107.302371
 *   Lambda = 13.046704 * (99 + 16) / (107.302371*0.1 + 0.4) = 1500.371 / 11.130237 = 134.8013 pkt/s
 * With the natural log instead, N = 2*2.7726 + ... gives 137.6475: the base is tested. */
static void
test_vegas_hand (void)
{
  AMT_NEAR (amcc_vegas_window (0.1, 0.025, 4, 4), 16.0, 1e-12);
  AMT_NEAR (amcc_vegas_loss_rate (0.01, 0.1, 0.025, 4, 4, 0.4), 134.80134, 0.0001);
  AMT_CHECK (fabs (amcc_vegas_loss_rate (0.01, 0.1, 0.025, 4, 4, 0.4) - 137.64748) > 1.0);
  /* p = 1: (1-p)^x = 0, p_to = 1, n = 0, N = 8 + 0 + 2 - 2.75 - 0.25 = 7,
   * Lambda = 1 * (0 + 16) / (0.7 + 0.4) = 14.545454 */
  AMT_NEAR (amcc_vegas_loss_rate (1.0, 0.1, 0.025, 4, 4, 0.4), 14.5454545, 1e-6);
  AMT_NEAR (amcc_vegas_loss_rate (3.0, 0.1, 0.025, 4, 4, 0.4), 14.5454545, 1e-6);
  /* eq. 2 no loss: beta / Delta = 4 / 0.025 = 160 pkt/s; p = 0 falls back to it */
  AMT_NEAR (amcc_vegas_noloss_rate (4, 0.025), 160.0, 1e-9);
  AMT_NEAR (amcc_vegas_loss_rate (0.0, 0.1, 0.025, 4, 4, 0.4), 160.0, 1e-9);
  /* Delta -> 0 floored at 1 ms: 4 / 0.001 */
  AMT_NEAR (amcc_vegas_noloss_rate (4, 0.0), 4000.0, 1e-9);
  /* p -> 0 stays finite and tends to the loss-free regime from below */
  double tiny = amcc_vegas_loss_rate (1e-12, 0.1, 0.025, 4, 4, 0.4);
  AMT_CHECK (isfinite (tiny) && tiny > 134.8);
  /* ... all the way down: a subnormal p overflows (1-p)/p; eq. 3 then tends to W / RTT =
   * 16 / 0.1 = 160 pkt/s (N ~ (n+1)/(p W)), not to 0 */
  AMT_NEAR (amcc_vegas_loss_rate (1e-310, 0.1, 0.025, 4, 4, 0.4), 160.0, 1e-6);
  AMT_NEAR (amcc_vegas_loss_rate (4.9e-324, 0.1, 0.025, 4, 4, 0.4), 160.0, 1e-6);
  /* W <= 1 guard: W = 0.1*0.2/(2*0.1) = 0.1 is raised to 1: p_to = 1, n = 0,
   * N = 0 + 0.99/0.01 + 1/8 - 11/4 + 4 = 100.375; Lambda = (99 + 1)/(10.0375 + 0.4) = 9.580838 */
  AMT_NEAR (amcc_vegas_loss_rate (0.01, 0.1, 0.1, 0.1, 0.1, 0.4), 9.5808383, 1e-6);
  AMT_CHECK (amcc_vegas_loss_rate (0.01, 0.0, 0.025, 4, 4, 0.4) == 0.0);
  AMT_CHECK (amcc_vegas_loss_rate (NAN, 0.1, 0.025, 4, 4, 0.4) == 0.0);
  AMT_CHECK (isfinite (amcc_vegas_loss_rate (0.5, 0.1, 0.025, 1e9, 1e9, 0.4)));
}

/* AVMRC 3.1: p = 0.01 -> W = (36 + sqrt(400 + 89600)) / 14 = (36 + 300) / 14 = 24, and indeed
 * 32 / (7*576 - 36*24 + 32) = 32 / 3200 = 0.01. beta_c = 24 * 0.02 / 0.1 = 4.8. */
static void
test_vegas_beta (void)
{
  AMT_NEAR (amcc_vegas_stable_window (0.01), 24.0, 1e-12);
  double w = amcc_vegas_stable_window (0.2);
  AMT_NEAR (32.0 / (7 * w * w - 36 * w + 32), 0.2, 1e-12);
  AMT_CHECK (amcc_vegas_stable_window (1.0) > 4.0);     /* the root never enters [8/7, 4] */
  AMT_NEAR (amcc_vegas_beta_target (0.01, 0.1, 0.02, 30), 4.8, 1e-12);
  AMT_CHECK (amcc_vegas_beta_target (0.0, 0.1, 0.02, 30) == 30);
  /* beta = 0.95 * 6 + 0.05 * 4.8 = 5.94 */
  AMT_NEAR (amcc_vegas_beta_update (6, 4.8, 1, 30), 5.94, 1e-12);
  AMT_NEAR (amcc_vegas_beta_update (29.9, 1000, 1, 30), 30, 1e-12);
  AMT_NEAR (amcc_vegas_beta_update (1.0, 0.0, 1, 30), 1, 1e-12);
  AMT_NEAR (amcc_vegas_beta_update (6, NAN, 1, 30), 6, 1e-12);
}

int
main (void)
{
  AMT_RUN (test_pftk_hand);
  AMT_RUN (test_pftk_guards);
  AMT_RUN (test_tfmcc_hand);
  AMT_RUN (test_inverse);
  AMT_RUN (test_vegas_hand);
  AMT_RUN (test_vegas_beta);
  return amt_summary ();
}

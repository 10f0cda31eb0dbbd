/* jitter.c - cumulative jitter and the congestion indicator (ASMP 3.7, eq. 15-19). */
#include <math.h>
#include <string.h>
#include "amcc/jitter.h"

/* eq. 17: A_(n+1) = A_n + (CJ_(n+1) - A_n) / (n + 1) */
double
amcc_running_mean_update (double mean, double x, uint64_t n)
{
  return mean + (x - mean) / (double) (n + 1);
}

void
amcc_cumjitter_init (amcc_cumjitter *c, double margin_s)
{
  memset (c, 0, sizeof *c);
  c->margin = (margin_s > 0 && isfinite (margin_s)) ? margin_s : 0.0;
  c->state = AMCC_CI_UNLOADED;
}

void
amcc_cumjitter_add (amcc_cumjitter *c, double d_s)
{
  if (!isfinite (d_s))
    return;
  c->cj += d_s;                                              /* eq. 15 */
  c->a_long = amcc_running_mean_update (c->a_long, c->cj, c->n_long++);   /* eq. 16-17 */
  c->a_short = amcc_running_mean_update (c->a_short, c->cj, c->n_short++);
}

/* eq. 18: short average above the long one -> the queue is growing -> CONGESTED. */
amcc_ci_state
amcc_cumjitter_assess (amcc_cumjitter *c)
{
  if (c->n_short > 0) {
    /* strict by default: constant delay (A_short == A_long) is UNLOADED, as the paper says */
    int up = c->ge ? c->a_short >= c->a_long + c->margin : c->a_short > c->a_long + c->margin;
    c->state = up ? AMCC_CI_CONGESTED : AMCC_CI_UNLOADED;
    c->last_short = c->a_short;
  }
  c->a_short = 0;
  c->n_short = 0;
  return c->state;
}

/* eq. 19 */
double
amcc_ci_gamma (amcc_ci_state s, double gamma_unloaded, double gamma_congested)
{
  return s == AMCC_CI_CONGESTED ? gamma_congested : gamma_unloaded;
}

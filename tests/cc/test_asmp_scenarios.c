/* test_asmp_scenarios.c - an ASMP sender and receivers through the simulator in asmp_sim.h:
 * steady state, a loss burst, a growing queue (CONGESTED before any loss). */
#include "asmp_sim.h"

/* Steady state without a bottleneck: every report is loss-free and UNLOADED, so eq. 13-14 give an
 * increase of exactly gamma_UNLOADED * P / t_RTT per report, with the report's own t_RTT, and
 * t_RTT converges to the echoed 50 ms (eq. 10-11). The sender follows the minimum (eq. 1). */
static void
test_steady (void)
{
  static node n[3];
  memset (n, 0, sizeof n);
  for (int i = 0; i < 3; i++)
    n[i].base = 25 * MS;
  amcc_asmp_params p;
  base_params (&p);
  p.recv_rate_step = 0;      /* exact eq. 13 steps; the sim sender quantizes its spacing */
  static sim s;
  sim_init (&s, n, 3, &p);
  sim_run (&s, 30 * SEC);
  int exact = 1, unloaded = 1, lossless = 1;
  for (int i = 0; i < 3; i++) {
    AMT_CHECK (n[i].nrep >= 28);
    for (int k = 1; k < n[i].nrep; k++) {
      double inc = n[i].rep[k].rate_bps - n[i].rep[k - 1].rate_bps;
      if (fabs (inc - 8 * 0.9 * P / n[i].rep[k].rtt_s) > 1e-6)
        exact = 0;
      unloaded &= n[i].rep[k].ci == AMCC_CI_UNLOADED;
      lossless &= n[i].rep[k].loss == 0;
    }
    AMT_NEAR (n[i].rep[n[i].nrep - 1].rtt_s, 0.050, 1e-6);
  }
  AMT_CHECK (exact);
  AMT_CHECK (unloaded);
  AMT_CHECK (lossless);
  amcc_asmp_sender_stats st;
  amcc_asmp_sender_get_stats (s.tx, &st);
  double m = fmin (fmin (n[0].rep[n[0].nrep - 1].rate_bps, n[1].rep[n[1].nrep - 1].rate_bps),
      n[2].rep[n[2].nrep - 1].rate_bps);
  AMT_CHECK (st.rated == 3);
  AMT_NEAR (amcc_asmp_sender_rate (s.tx, s.now), m, 0);
  amcc_asmp_sender_free (s.tx);
}

/* A loss burst (every 10th packet lost during [20 s, 25 s)): each report in the burst follows
 * eq. 12 + 14 exactly from its own fields; the rate falls below the pre-burst rate; afterwards it
 * grows again by gamma * P / t_RTT per report (eq. 13) and the smoothed loss returns to 0 once
 * eight loss-free intervals filled the filter (eq. 2-3). */
static void
test_loss_burst (void)
{
  static node n[1];
  memset (n, 0, sizeof n);
  n[0].base = 25 * MS;
  n[0].drop_from = 20 * SEC;
  n[0].drop_to = 25 * SEC;
  amcc_asmp_params p;
  base_params (&p);
  static sim s;
  sim_init (&s, n, 1, &p);
  sim_run (&s, 45 * SEC);
  node *x = &n[0];
  double pre = 0;
  int eq_ok = 1, after_ok = 1, saw_loss = 0, fell = 0, grew = 0;
  for (int k = 1; k < x->nrep; k++) {
    amcc_asmp_report *r = &x->rep[k], *q = &x->rep[k - 1];
    amcc_time t = x->rep_t[k];
    double gamma = r->ci == AMCC_CI_CONGESTED ? 0.2 : 0.9;
    if (t <= 20 * SEC) {
      pre = r->rate_bps;
      continue;
    }
    if (t <= 25 * SEC + 100 * MS) {                 /* intervals that held burst packets */
      saw_loss |= r->loss > 0;
      double expect = gamma * 8 * amcc_pftk_rate (P, r->rtt_s, r->loss) + (1 - gamma) * q->rate_bps;
      expect = fmin (expect, 2.0 * 8 * 1e9);        /* no cap can bind here: checked below */
      if (fabs (r->rate_bps - expect) > 1e-6 * expect)
        eq_ok = 0;
      fell |= r->rate_bps < pre;
    } else if (t > 26 * SEC + 100 * MS) {
      double inc = r->rate_bps - q->rate_bps;
      if (!(inc > 0 && inc <= 8.0 * P / r->rtt_s + 1e-6))
        after_ok = 0;
      grew++;
    }
  }
  AMT_CHECK (saw_loss);
  AMT_CHECK (eq_ok);
  AMT_CHECK (fell);
  AMT_CHECK (after_ok && grew > 10);
  /* 8 loss-free reports after 25 s clear the filter: the last report (44 s) shows loss 0 */
  AMT_CHECK (x->rep[x->nrep - 1].loss == 0.0);
  AMT_CHECK (x->rep[x->nrep - 1].rate_bps > pre);
  amcc_asmp_sender_free (s.tx);
}

/* Growing queue: 1 Mb/s link, 200-packet buffer. The sender sends 0.5 Mb/s for 10 s (no queue),
 * then 8000 bits every 7.3 ms = 1.0959 Mb/s: the queue grows 0.7 ms per packet and the buffer
 * (200 x 8 ms = 1.6 s) overflows after 1.6 / 0.0007 = 2286 packets x 7.3 ms = 16.69 s, i.e. at
 * 26.69 s. The congestion indicator (eq. 15-18) must switch to CONGESTED at the first report after
 * the growth starts (11 s), long before that first loss, and stay there while the queue grows. */
static void
test_growing_queue (void)
{
  static node n[1];
  memset (n, 0, sizeof n);
  n[0].base = 20 * MS;
  n[0].cap_bps = 1e6;
  n[0].buffer_pkts = 200;
  amcc_asmp_params p;
  base_params (&p);
  static sim s;
  sim_init (&s, n, 1, &p);
  s.fixed_rate = 0.5e6;
  s.fixed_rate2 = 1.1e6;
  s.fixed_switch = 10 * SEC;
  sim_run (&s, 30 * SEC);
  node *x = &n[0];
  AMT_NEAR ((double) x->first_loss / 1e9, 26.69, 0.05);
  amcc_time first_congested = -1;
  int early_unloaded = 1, stays = 1;
  for (int k = 0; k < x->nrep; k++) {
    amcc_time t = x->rep_t[k];
    if (t <= 10 * SEC)
      early_unloaded &= x->rep[k].ci == AMCC_CI_UNLOADED;
    if (x->rep[k].ci == AMCC_CI_CONGESTED && first_congested < 0)
      first_congested = t;
    if (first_congested >= 0 && t < x->first_loss)
      stays &= x->rep[k].ci == AMCC_CI_CONGESTED && x->rep[k].loss == 0;
  }
  AMT_CHECK (early_unloaded);
  AMT_CHECK (first_congested > 10 * SEC && first_congested <= 11 * SEC + 10 * MS);
  AMT_CHECK (first_congested < x->first_loss);
  AMT_CHECK (stays);
  amcc_asmp_sender_free (s.tx);
}

int
main (void)
{
  AMT_RUN (test_steady);
  AMT_RUN (test_loss_burst);
  AMT_RUN (test_growing_queue);
  return amt_summary ();
}

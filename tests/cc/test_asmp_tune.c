/* test_asmp_tune.c - the ASMP receiver departures that make the live session converge below a
 * bottleneck (lib/cc/README.md, "Decisions and deviations"). Each test runs the defaults and then
 * the one parameter off, which must fail the same check. */
#include <stdlib.h>
#include <string.h>
#include "amtest.h"
#include "amcc/asmp.h"
#include "amcc/tcpmodel.h"

#define MS AMCC_NS_PER_MS
#define SEC AMCC_NS_PER_S

/* A sender stream of 1000-byte packets seen by one receiver. */
typedef struct { uint16_t seq; amcc_time t; } stream;

/* n packets spaced dt apart, each arriving owd after it was sent; every drop_every-th is lost
 * (0: none), the first one lost is at offset drop_first. */
static void
feed (amcc_asmp_receiver *rx, stream *s, int n, amcc_time dt, amcc_time owd, int drop_every,
    int drop_first)
{
  for (int k = 0; k < n; k++, s->seq++, s->t += dt) {
    if (drop_every > 0 && k >= drop_first && (k - drop_first) % drop_every == 0)
      continue;
    amcc_asmp_receiver_on_rtp (rx, s->t + owd, s->seq, (uint32_t) (s->t / (SEC / 90000)), s->t, 1000);
  }
}

static amcc_asmp_report
report (amcc_asmp_receiver *rx, stream *s, amcc_time owd)
{
  amcc_asmp_report r;
  amcc_asmp_receiver_make_report (rx, s->t + owd, &r);
  return r;
}

/* step_limit. The sender goes on at 200 packets/s (200 kB/s) after a 5 % loss interval made the
 * receiver report less (it lags the reports). Six loss-free intervals later the loss interval
 * sits in the last filter slot (weight 0.2): one lost packet of 200 gives l = (0.005 + 0.2 *
 * 0.05) / 6 = 0.0025 and PFTK(1000 B, 0.1 s, 0.0025) = 240 kB/s, far above r_prev (about 130
 * kB/s). The literal eq. 12 + 14 (gamma 0.9) jumps by several P / t_RTT on that lossy interval;
 * step_limit allows one. Returns the rate change of that interval, bytes/s. */
static double
run_loss_jump (int step_limit, double *r_prev, double *loss)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.step_limit = step_limit;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  stream s = { 0, 0 };
  const amcc_time dt = 5 * MS, owd = 50 * MS;
  feed (&rx, &s, 100, dt, owd, 0, 0);
  amcc_asmp_receiver_on_rtt_echo (&rx, s.t, 100 * MS);      /* eq. 10: a = 1, t_RTT = 0.1 s */
  feed (&rx, &s, 100, dt, owd, 0, 0);
  report (&rx, &s, owd);
  feed (&rx, &s, 200, dt, owd, 20, 10);                     /* 5 % */
  report (&rx, &s, owd);
  amcc_asmp_report r;
  for (int i = 0; i < 6; i++) {
    feed (&rx, &s, 200, dt, owd, 0, 0);
    r = report (&rx, &s, owd);
  }
  *r_prev = r.rate_bps / 8;
  feed (&rx, &s, 200, dt, owd, 200, 100);                   /* one packet lost */
  r = report (&rx, &s, owd);
  *loss = r.loss;
  return r.rate_bps / 8 - *r_prev;
}

static void
test_step_limit (void)
{
  double r_prev, l;
  double up = run_loss_jump (1, &r_prev, &l);
  AMT_NEAR (l, (0.005 + 0.2 * 0.05) / 6, 1e-9);
  AMT_CHECK (amcc_pftk_rate (1000, 0.1, l) > 1.5 * r_prev);   /* the model says "much faster" */
  AMT_NEAR (up, 1000 / 0.1, 1e-6);                             /* one P / t_RTT */
  double lit = run_loss_jump (0, &r_prev, &l);
  printf ("# lossy interval after the filter aged: %+.0f B/s (literal %+.0f B/s, P/t_RTT 10000)\n",
      up, lit);
  AMT_CHECK (lit > 1000 / 0.1);
}

/* recv_rate_step. A sender that does not follow the reports (a constant 100 kB/s; the live
 * encoder takes a new rate only at its next key frame) and no loss: eq. 13 adds 0.9 P / t_RTT per
 * report to r_prev regardless, up to recv_rate_cap x 100 kB/s. With recv_rate_step no report
 * exceeds what arrived in its interval plus P / t_RTT (+1 packet at the interval boundaries). */
static double
run_lagging_sender (int recv_rate_step, int *within)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.recv_rate_step = recv_rate_step;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  stream s = { 0, 0 };
  const amcc_time dt = 10 * MS, owd = 50 * MS;
  feed (&rx, &s, 50, dt, owd, 0, 0);
  amcc_asmp_receiver_on_rtt_echo (&rx, s.t, 100 * MS);
  amcc_asmp_report r = { 0 };
  *within = 1;
  for (int i = 0; i < 30; i++) {
    feed (&rx, &s, 100, dt, owd, 0, 0);
    r = report (&rx, &s, owd);
    *within &= r.rate_bps / 8 <= 100000 + 1000 / r.rtt_s + 1000;
  }
  return r.rate_bps / 8;
}

static void
test_recv_rate_step (void)
{
  int within, lit_within;
  double r = run_lagging_sender (1, &within);
  double lit = run_lagging_sender (0, &lit_within);
  printf ("# 30 reports of a sender held at 100000 B/s: %.0f B/s (without the step %.0f)\n", r, lit);
  AMT_CHECK (within);
  AMT_CHECK (r >= 100000);               /* it still asks for one packet per RTT more */
  AMT_CHECK (!lit_within);
  AMT_NEAR (lit, 2.0 * 100000, 2000);   /* only recv_rate_cap (2 x received) stops it */
}

/* rtt_floor. One-way delay 20 ms with an echoed RTT of 40 ms (a = 1, the propagation RTT), then
 * a full queue: one-way 120 ms, echo 140 ms (a = 1/6), then the queue drains (one-way 20 ms):
 * eq. 8 gives (1 + 1/6) 0.02 = 23.3 ms, below the 40 ms that the path has never gone under
 * (and above echo / rtt_clamp = 17.5 ms, so the clamp does not catch it). */
static double
run_rtt_floor (int floor, double *min_rtt)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.rtt_floor = floor;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  stream s = { 0, 0 };
  const amcc_time dt = 10 * MS;
  amcc_asmp_report r;
  feed (&rx, &s, 50, dt, 20 * MS, 0, 0);
  amcc_asmp_receiver_on_rtt_echo (&rx, s.t, 40 * MS);
  feed (&rx, &s, 50, dt, 20 * MS, 0, 0);
  report (&rx, &s, 20 * MS);
  feed (&rx, &s, 50, dt, 120 * MS, 0, 0);
  amcc_asmp_receiver_on_rtt_echo (&rx, s.t, 140 * MS);
  feed (&rx, &s, 50, dt, 120 * MS, 0, 0);
  report (&rx, &s, 120 * MS);
  s.t += 100 * MS;                                      /* a pause drains the queue */
  *min_rtt = 1e9;
  for (int i = 0; i < 10; i++) {
    feed (&rx, &s, 100, dt, 20 * MS, 0, 0);
    r = report (&rx, &s, 20 * MS);
    *min_rtt = fmin (*min_rtt, r.rtt_s);
  }
  return r.rtt_s;
}

static void
test_rtt_floor (void)
{
  double lo, lit_lo;
  double rtt = run_rtt_floor (1, &lo);
  double lit = run_rtt_floor (0, &lit_lo);
  printf ("# RTT after the queue drained: %.4f s (without the floor %.4f s)\n", rtt, lit);
  AMT_CHECK (lo >= 0.040 - 1e-12);
  AMT_NEAR (rtt, 0.040, 1e-4);
  AMT_NEAR (lit, 0.02 * 7 / 6, 1e-4);
  AMT_CHECK (lit_lo < 0.040);
}

/* The live session in a loop (tests/net/test_asmp_elements.py): 700-byte packets, a 600 kbit/s
 * drop-tail bottleneck holding 100 ms, 20 ms each way, a report every 500 ms, an RTT echo (eq. 9:
 * the true RTT, queue included) every 500 ms, and a sender whose encoder takes the target only
 * at each key frame (1 s GOP). Over the last 30 s of 60 the sender's target must average below
 * the bottleneck and its 90th percentile stay within one packet per propagation RTT (eq. 13's
 * step) above it, as the net test asserts. */
#define LP 700
#define LCAP 600e3
#define LBASE (20 * MS)
#define LBUF (100 * MS)
#define LGOP SEC
#define LREP (500 * MS)
#define LQ 4096

typedef struct { amcc_time arr, send; uint16_t seq; } lpkt;

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
run_gop_lag (const amcc_asmp_params *p, double *mean, double *p90, double *loss)
{
  static lpkt q[LQ];
  static double samp[30000];
  static amcc_asmp_receiver rx;
  int head = 0, tail = 0, ns = 0;
  long sent = 0, lost = 0;
  amcc_asmp_sender *tx = amcc_asmp_sender_new (p, 0);
  amcc_asmp_receiver_init (&rx, p, 90000);
  double enc = p->initial_rate_bps, next_send = 0;
  const amcc_time service = (amcc_time) (8.0 * LP / LCAP * 1e9);
  amcc_time free_at = 0, next_rep = SEC, next_sr = LREP / 2;
  uint16_t seq = 0;
  for (amcc_time t = 0; t < 60 * SEC; t += MS) {
    if (t % LGOP == 0)
      enc = amcc_asmp_sender_rate (tx, t);             /* the key frame takes the target */
    for (; next_send <= (double) t; next_send += 8.0 * LP / enc * 1e9, seq++) {
      amcc_time ts = (amcc_time) next_send;
      int drop = free_at - ts > LBUF;                  /* drop-tail */
      if (t >= 30 * SEC) {
        sent++;
        lost += drop;
      }
      if (!drop) {
        free_at = (free_at > ts ? free_at : ts) + service;
        q[tail++ % LQ] = (lpkt) { free_at + LBASE, ts, seq };
      }
    }
    while (head != tail && q[head % LQ].arr <= t) {
      lpkt *k = &q[head++ % LQ];
      amcc_asmp_receiver_on_rtp (&rx, k->arr, k->seq, (uint32_t) (k->send / (SEC / 90000)), k->send, LP);
    }
    if (t >= next_rep) {
      amcc_asmp_report r;
      amcc_asmp_receiver_make_report (&rx, t, &r);
      amcc_asmp_sender_on_report (tx, t, 1, &r);
      amcc_asmp_sender_on_report_block (tx, t, 1, 2 * LBASE + (free_at > t ? free_at - t : 0));
      next_rep += LREP;
    }
    if (t >= next_sr) {
      amcc_asmp_echo_entry e[1];
      if (amcc_asmp_sender_fill_echo (tx, t, e, 1) == 1)
        amcc_asmp_receiver_on_rtt_echo (&rx, t, e[0].rtt);
      next_sr += LREP;
    }
    if (t >= 30 * SEC && ns < 30000)
      samp[ns++] = amcc_asmp_sender_rate (tx, t);
  }
  double sum = 0;
  for (int i = 0; i < ns; i++)
    sum += samp[i];
  qsort (samp, (size_t) ns, sizeof samp[0], cmp_double);
  *mean = sum / ns;
  *p90 = samp[(int) (0.9 * ns)];
  *loss = sent ? (double) lost / (double) sent : 0;
  amcc_asmp_sender_free (tx);
}

static void
test_gop_lag (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.initial_rate_bps = 300e3;       /* the net test's sender settings */
  p.min_rate_bps = 100e3;
  p.max_rate_bps = 2e6;
  const double step = 8.0 * LP / (2.0 * LBASE / 1e9);
  double mean, p90, loss, lmean, lp90, lloss;
  run_gop_lag (&p, &mean, &p90, &loss);
  p.recv_rate_step = 0;
  run_gop_lag (&p, &lmean, &lp90, &lloss);
  printf ("# GOP-lagged sender, 600 kbit/s bottleneck: mean %.0f, p90 %.0f bit/s, loss %.1f %% "
      "(without recv_rate_step: %.0f, %.0f, %.1f %%)\n", mean, p90, 100 * loss, lmean, lp90, 100 * lloss);
  AMT_CHECK (mean < LCAP);
  AMT_CHECK (p90 <= LCAP + step);
  AMT_CHECK (lmean >= LCAP || lp90 > LCAP + step);
}

/* standing_queue_cap. 200 packets/s of 1000 B arrive unqueued for 4 reports (UNLOADED, the rate
 * settles at what arrives + P / t_RTT, 210 kB/s); then a bottleneck of 100 packets/s with a deep
 * drop-tail queue: the same sending spacing arrives 10 ms apart, the one-way delay grows 5 ms a
 * packet and nothing is lost. Eq. 18 says CONGESTED in both intervals; without loss eq. 13-14
 * never lower the rate, so the literal receiver stays at 2 x the bottleneck (recv_rate_cap) until
 * the queue overflows. With the cap, the second CONGESTED report is at most what arrived over
 * its two intervals: 100 kB/s. Returns that report's rate, bytes/s. */
static double
run_standing_queue (int cap, int *congested)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.standing_queue_cap = cap;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  stream s = { 0, 0 };
  const amcc_time dt = 5 * MS, owd = 50 * MS;
  feed (&rx, &s, 200, dt, owd, 0, 0);
  amcc_asmp_receiver_on_rtt_echo (&rx, s.t, 100 * MS);
  amcc_asmp_report r;
  for (int i = 0; i < 4; i++) {
    feed (&rx, &s, 200, dt, owd, 0, 0);
    r = report (&rx, &s, owd);
  }
  AMT_CHECK (r.ci == AMCC_CI_UNLOADED);
  AMT_CHECK (r.rate_bps / 8 > 200e3);
  amcc_time q = 0, last = 0;
  *congested = 0;
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 100; k++, s.seq++, s.t += dt, q += 5 * MS) {
      last = s.t + owd + q;
      amcc_asmp_receiver_on_rtp (&rx, last, s.seq, (uint32_t) (s.t / (SEC / 90000)), s.t, 1000);
    }
    amcc_asmp_receiver_make_report (&rx, last, &r);
    *congested += r.ci == AMCC_CI_CONGESTED;
  }
  return r.rate_bps / 8;
}

static void
test_standing_queue_cap (void)
{
  int cong;
  double capped = run_standing_queue (1, &cong);
  AMT_CHECK (cong == 2);
  AMT_CHECK (capped <= 100e3 * 1.02);          /* 100 packets of 1000 B per second arrived */
  double lit = run_standing_queue (0, &cong);
  printf ("# standing queue at half the rate: %.0f B/s with the cap, %.0f B/s literal\n", capped, lit);
  AMT_CHECK (cong == 2);
  AMT_CHECK (lit > 150e3);                     /* literal: still above the bottleneck */
}

int
main (void)
{
  AMT_RUN (test_step_limit);
  AMT_RUN (test_recv_rate_step);
  AMT_RUN (test_rtt_floor);
  AMT_RUN (test_gop_lag);
  AMT_RUN (test_standing_queue_cap);
  return amt_summary ();
}

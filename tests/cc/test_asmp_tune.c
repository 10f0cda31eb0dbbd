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

/* rtt_floor. One-way delay 20 ms with an echoed RTT of 40 ms (a = 1, the propagation RTT), then
 * a full queue: one-way 120 ms, echo 140 ms (a = 1/6), then the queue drains (one-way 20 ms):
 * eq. 8 gives (1 + 1/6) 0.02 = 23.3 ms, below the 40 ms that the path has never gone under
 * (and above echo / rtt_clamp = 17.5 ms, so the clamp does not catch it). */
static double
run_rtt_floor (int floor, double *min_rtt)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
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

int
main (void)
{
  AMT_RUN (test_step_limit);
  AMT_RUN (test_rtt_floor);
  return amt_summary ();
}

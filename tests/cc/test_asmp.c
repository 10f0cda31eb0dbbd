/* test_asmp.c - ASMP receiver and sender units (spec/asmp.md, papers/000 3.1-3.8). */
#include <stdlib.h>
#include <string.h>
#include "amtest.h"
#include "amcc/asmp.h"
#include "amcc/tcpmodel.h"

#define MS AMCC_NS_PER_MS

/* Packet k is sent at k*10 ms (RTP ts 900k at 90 kHz), 1000 bytes, arrives 50 ms later. */
static void
feed (amcc_asmp_receiver *rx, int from, int to, int drop_a, int drop_b, double extra_ms_per_pkt)
{
  for (int k = from; k <= to; k++) {
    if (k == drop_a || k == drop_b)
      continue;
    amcc_time send = (amcc_time) k * 10 * MS;
    amcc_time q = (amcc_time) ((k - from) * extra_ms_per_pkt * MS);
    amcc_asmp_receiver_on_rtp (rx, send + 50 * MS + q, (uint16_t) k, (uint32_t) (900 * k), send, 1000);
  }
}

/* Hand computation (P = 1000 B, one-way 50 ms, echoed RTT 100 ms):
 *  eq. 10: a = 0.1 / 0.05 - 1 = 1; eq. 8: t_RTT = 2 * 0.05 = 0.1 s.
 *  report 1 at 1.06 s: packet 0 is RFC 3550 probation; packets 1..101 (101000 B) arrived from
 *   0.06 s to 1.06 s -> r_prev = 101000 B/s. No loss -> eq. 13: r_inst = 101000 + 1000/0.1 =
 *   111000; constant delay -> UNLOADED, gamma 0.9 -> eq. 14: 0.9*111000 + 0.1*101000 = 110000 B/s.
 *  report 2 at 2.06 s: packets 102..201, 2 lost: l_0 = 0.02, eq. 2: (0.02 + 0)/2 = 0.01;
 *   eq. 12: PFTK(1000, 0.1, 0.01) = 112332.234 (test_models.c); eq. 14: 0.9*112332.234 +
 *   0.1*110000 = 112099.011 B/s.
 *  report 3 at 3.06 s: no loss: r_inst = 112099.011 + 10000, r = +0.9*10000 = 121099.011 B/s. */
static void
test_receiver_hand (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.recv_rate_step = 0;      /* hand computation: the sender ignores the reports */
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  amcc_asmp_report r;
  feed (&rx, 0, 44, -1, -1, 0);
  AMT_CHECK (amcc_asmp_receiver_on_rtt_echo (&rx, 500 * MS, 100 * MS) == AMCC_OK);
  feed (&rx, 45, 101, -1, -1, 0);
  amcc_asmp_receiver_make_report (&rx, 1060 * MS, &r);
  AMT_NEAR (r.rtt_s, 0.1, 1e-12);
  AMT_CHECK (r.ci == AMCC_CI_UNLOADED && r.have_echo && r.report_seq == 0);
  AMT_NEAR (r.loss, 0, 0);
  AMT_NEAR (r.rate_bps, 8 * 110000.0, 1e-6);
  AMT_NEAR (r.jitter_s, 0, 0);
  feed (&rx, 102, 201, 150, 151, 0);
  amcc_asmp_receiver_make_report (&rx, 2060 * MS, &r);
  AMT_NEAR (r.loss, 0.01, 1e-15);
  AMT_NEAR (r.rate_bps, 8 * (0.9 * 112332.234363 + 0.1 * 110000), 1e-3);
  feed (&rx, 202, 301, -1, -1, 0);
  amcc_asmp_receiver_make_report (&rx, 3060 * MS, &r);
  AMT_NEAR (r.rate_bps, 8 * (0.9 * 112332.234363 + 0.1 * 110000 + 9000), 1e-3);
  AMT_CHECK (r.report_seq == 2);
  /* a growing queue (each packet 0.2 ms later): CONGESTED, gamma 0.2 -> the increase is
   * 0.2 * P / t_RTT with the report's own RTT (eq. 13-14), no loss involved */
  double before = r.rate_bps;
  feed (&rx, 302, 401, -1, -1, 0.2);
  amcc_asmp_receiver_make_report (&rx, 4060 * MS + 20 * MS, &r);
  AMT_CHECK (r.ci == AMCC_CI_CONGESTED);
  AMT_CHECK (r.rtt_s > 0.1);
  AMT_NEAR (r.rate_bps - before, 8 * 0.2 * 1000 / r.rtt_s, 1e-3);
  AMT_CHECK (r.cj_short_s > 0);
  /* an interval without packets: no information, the rate holds */
  double held = r.rate_bps;
  amcc_asmp_receiver_make_report (&rx, 5100 * MS, &r);
  AMT_NEAR (r.rate_bps, held, 0);
  /* echoes out of range are refused */
  AMT_CHECK (amcc_asmp_receiver_on_rtt_echo (&rx, 0, 0) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_asmp_receiver_on_rtt_echo (&rx, 0, 61 * AMCC_NS_PER_S) == AMCC_ERR_PARAM);
}

/* Video: 25 frames/s, 10 packets per frame sharing the frame's RTP timestamp, paced 1 ms apart,
 * constant 30 ms network delay. Against RTP timestamps the transit grows 1 ms per packet inside a
 * frame (a 0..9 ms sawtooth, eq. 4); against send times it is flat. With cj_use_send_time the
 * cumulative jitter is exactly 0 and every report UNLOADED; with RTP timestamps the sawtooth shows
 * in A_short (mean of the 10 offsets, several ms). */
static void
run_video (int use_send_time, double *cj_abs_max, int *congested)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.cj_use_send_time = use_send_time;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  amcc_asmp_report r;
  *cj_abs_max = 0;
  *congested = 0;
  uint16_t seq = 0;
  for (int f = 0; f < 250; f++) {
    for (int j = 0; j < 10; j++) {
      amcc_time send = (amcc_time) f * 40 * MS + j * MS;
      amcc_asmp_receiver_on_rtp (&rx, send + 30 * MS, seq++, (uint32_t) (3600 * f), send, 1200);
    }
    if (f % 25 == 24) {
      amcc_asmp_receiver_make_report (&rx, (amcc_time) (f + 1) * 40 * MS + 30 * MS, &r);
      *cj_abs_max = fmax (*cj_abs_max, fabs (r.cj_short_s));
      *congested += r.ci == AMCC_CI_CONGESTED;
    }
  }
}

static void
test_receiver_video_cj (void)
{
  double cj;
  int congested;
  run_video (1, &cj, &congested);
  AMT_CHECK (cj == 0.0 && congested == 0);
  run_video (0, &cj, &congested);
  AMT_CHECK (cj > 0.001);
}

/* The rate never leaves [min, max]; without packets at all the first report uses the initial rate. */
static void
test_receiver_clamp (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.initial_rate_bps = 1e9;
  p.max_rate_bps = 2e6;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  amcc_asmp_report r;
  amcc_asmp_receiver_make_report (&rx, AMCC_NS_PER_S, &r);
  AMT_NEAR (r.rate_bps, 2e6, 0);
  /* 50 % loss over a long run: PFTK falls far below min -> clamped to min */
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.min_rate_bps = 64e3;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  for (int rep = 0; rep < 20; rep++) {
    for (int k = rep * 100; k < rep * 100 + 100; k++)
      if (k % 2 == 0 || k < 2)
        amcc_asmp_receiver_on_rtp (&rx, (amcc_time) k * 10 * MS, (uint16_t) k, (uint32_t) (900 * k),
            AMCC_TIME_NONE, 1000);
    amcc_asmp_receiver_make_report (&rx, (amcc_time) (rep + 1) * AMCC_NS_PER_S, &r);
  }
  AMT_NEAR (r.rate_bps, 64e3, 0);
  AMT_NEAR (r.rtt_s, 0.1, 0);     /* no send time, no echo: the default RTT */
  /* invalid params fall back to the defaults */
  p.gamma_congested = 2;
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
  amcc_asmp_receiver_init (&rx, &p, 0);
  AMT_NEAR (rx.p.gamma_congested, 0.2, 0);
  /* the departures are parameters with the documented defaults, passed to the estimators */
  AMT_CHECK (rx.p.ci_ge == 0 && rx.cj.ge == 0 && rx.p.rtt_clamp == 8.0 && rx.rtt.clamp == 8.0);
  AMT_CHECK (rx.p.recv_rate_cap == 2.0 && rx.p.cj_use_send_time == 1);
  amcc_asmp_params q;
  amcc_asmp_params_init (&q);
  amcc_asmp_params_single_regime (&q);
  q.ci_ge = 1;
  q.rtt_clamp = 0;
  amcc_asmp_receiver_init (&rx, &q, 90000);
  AMT_CHECK (rx.cj.ge == 1 && rx.rtt.clamp == 0);
  q.rtt_clamp = 0.5;                    /* a clamp below 1 would reject the echo itself */
  AMT_CHECK (amcc_asmp_params_validate (&q) == AMCC_ERR_PARAM);
  AMT_CHECK (rx.clock_rate == 90000);
}

/* eq. 20: z = (T / lambda) ln(1 + u (e^lambda - 1)); T = 5 s, lambda = 3, u = 0.5:
 * ln(1 + 0.5 * 19.0855369) = ln(10.5427685) = 2.3554402 -> z = 5/3 * 2.3554402 = 3.925734 s */
/* A send time from the network that is absurdly far from the receiver's clock (more than
 * 2^62 ns, 146 years, away) is ignored instead of overflowing now - send_time (UB) and feeding
 * a wrapped one-way delay to eq. 6 and the cumulative jitter. */
static void
test_receiver_bad_send_time (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  amcc_time now = 1000 * AMCC_NS_PER_S;
  const amcc_time bad[] = { INT64_MIN + 1, INT64_MAX, -(INT64_MAX / 2) - 2 };
  amcc_asmp_receiver_on_rtp (&rx, now, 0, 0, AMCC_TIME_NONE, 1000);      /* probation */
  for (int k = 1; k <= 3; k++)
    amcc_asmp_receiver_on_rtp (&rx, now + k * 10 * MS, (uint16_t) k, (uint32_t) (900 * k),
        bad[k - 1], 1000);
  AMT_CHECK (!rx.rtt.have_oneway && !rx.have_prev_owd);
  AMT_CHECK (rx.cj.cj == 0);
  /* a plausible one (even with a large clock offset) is used */
  amcc_asmp_receiver_on_rtp (&rx, now + 30 * MS, 4, 3600, now - 3600 * AMCC_NS_PER_S, 1000);
  AMT_CHECK (rx.rtt.have_oneway);
  AMT_NEAR (rx.rtt.oneway_last, 3600.03, 1e-9);
}

static void
test_feedback_timer (void)
{
  amcc_time T = 5 * AMCC_NS_PER_S;
  AMT_NEAR ((double) amcc_asmp_feedback_delay (T, 3.0, 0.5) / 1e9, 3.925734, 1e-6);
  AMT_CHECK (amcc_asmp_feedback_delay (T, 3.0, 0.0) == 0);
  AMT_CHECK (amcc_asmp_feedback_delay (T, 3.0, 1.0) <= T);
  AMT_NEAR ((double) amcc_asmp_feedback_delay (T, 0.0, 0.5), 2.5e9, 1);   /* uniform */
  /* lambda = 60 (overflow-safe branch) agrees with the direct formula at lambda = 50 + ... */
  double z60 = (double) amcc_asmp_feedback_delay (T, 60.0, 0.25) / 1e9;
  AMT_NEAR (z60, 5.0 / 60 * (60 + log (exp (-60) + 0.25 * (1 - exp (-60)))), 1e-6);
  AMT_CHECK (amcc_asmp_feedback_delay (T, 1e6, 0.5) <= T);
  AMT_CHECK (amcc_asmp_feedback_delay (T, 3.0, NAN) == 0);
  /* the empirical CDF matches F(z) = (e^(lambda z/T) - 1)/(e^lambda - 1) at z = T/2:
   * (e^1.5 - 1)/(e^3 - 1) = 3.4816891/19.0855369 = 0.18242 */
  int below = 0, n = 100000;
  for (int i = 0; i < n; i++)
    if (amcc_asmp_feedback_delay (T, 3.0, (i + 0.5) / n) <= T / 2)
      below++;
  AMT_NEAR ((double) below / n, 0.18242, 0.001);
  /* schedule: below T_suspend the plain interval, above it a draw in [0, T_rand] */
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  AMT_CHECK (amcc_asmp_receiver_schedule (&rx, 1000, 2 * AMCC_NS_PER_S, 10, 0.5) == 1000 + 2 * AMCC_NS_PER_S);
  /* N = 1000: lambda = ln(1000) + 1 */
  amcc_time t = amcc_asmp_receiver_schedule (&rx, 1000, 40 * AMCC_NS_PER_S, 1000, 0.5);
  AMT_CHECK (t == 1000 + amcc_asmp_feedback_delay (p.t_suspend, log (1000.0) + 1, 0.5));
}

/* 2 % rule: suppress only after a peer rate not above ours and within 2 %; never when ours is the
 * lowest heard. */
static void
test_suppression_rule (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  AMT_CHECK (amcc_asmp_receiver_on_peer_report (&rx, 0, 1e5) == 0);    /* no own rate yet */
  rx.have_rate = 1;
  rx.last.rate_bps = 1e6;
  amcc_asmp_receiver_schedule (&rx, 0, 10 * AMCC_NS_PER_S, 100, 0.5);
  AMT_CHECK (amcc_asmp_receiver_on_peer_report (&rx, 0, 1.015e6) == 0); /* higher: we are lower */
  AMT_CHECK (amcc_asmp_receiver_on_peer_report (&rx, 0, 0.97e6) == 0);  /* 3 % lower: not similar */
  AMT_CHECK (amcc_asmp_receiver_on_peer_report (&rx, 0, NAN) == 0);
  AMT_CHECK (amcc_asmp_receiver_on_peer_report (&rx, 0, 0.981e6) == 1); /* 1.9 % lower: similar */
  AMT_CHECK (amcc_asmp_receiver_suppressed (&rx));
  amcc_asmp_receiver_schedule (&rx, 0, 10 * AMCC_NS_PER_S, 100, 0.5);  /* new round */
  AMT_CHECK (!amcc_asmp_receiver_suppressed (&rx));
  AMT_CHECK (amcc_asmp_receiver_on_peer_report (&rx, 0, 1e6) == 1);    /* equal rate */
  rx.p.suppress_if_lower = 1;
  amcc_asmp_receiver_schedule (&rx, 0, 10 * AMCC_NS_PER_S, 100, 0.5);
  AMT_CHECK (amcc_asmp_receiver_on_peer_report (&rx, 0, 0.5e6) == 1);  /* any lower rate */
}

static double
brute_min (const double *rate, const int *live, int n, uint32_t *who)
{
  double m = 0;
  for (int i = 0; i < n; i++)
    if (live[i] && (m == 0 || rate[i] < m)) {
      m = rate[i];
      *who = (uint32_t) i;
    }
  return m;
}

static void
test_sender_basic (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.min_rate_bps = 50e3;
  p.max_rate_bps = 5e6;
  p.receiver_timeout = 3 * AMCC_NS_PER_S;
  amcc_asmp_sender *tx = amcc_asmp_sender_new (&p, 0);
  AMT_CHECK (tx != NULL);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 0), 500e3, 0);       /* initial rate */
  amcc_asmp_report r;
  memset (&r, 0, sizeof r);
  r.rate_bps = 800e3; AMT_CHECK (amcc_asmp_sender_on_report (tx, 1 * AMCC_NS_PER_S, 1, &r) == AMCC_OK);
  r.rate_bps = 600e3; amcc_asmp_sender_on_report (tx, 1 * AMCC_NS_PER_S, 2, &r);
  r.rate_bps = 700e3; amcc_asmp_sender_on_report (tx, 1 * AMCC_NS_PER_S, 3, &r);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 1 * AMCC_NS_PER_S), 600e3, 0);     /* eq. 1 */
  r.rate_bps = 900e3; amcc_asmp_sender_on_report (tx, 2 * AMCC_NS_PER_S, 2, &r);  /* slowest rises */
  r.rate_bps = 800e3; amcc_asmp_sender_on_report (tx, 2 * AMCC_NS_PER_S, 1, &r);  /* 1 still alive */
  AMT_NEAR (amcc_asmp_sender_rate (tx, 2 * AMCC_NS_PER_S), 700e3, 0);
  r.rate_bps = 10e3; amcc_asmp_sender_on_report (tx, 2 * AMCC_NS_PER_S, 4, &r);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 2 * AMCC_NS_PER_S), 50e3, 0);      /* clamped to min */
  amcc_asmp_sender_on_bye (tx, 2 * AMCC_NS_PER_S, 4);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 2 * AMCC_NS_PER_S), 700e3, 0);
  /* receiver 3 (700k, last heard at 1 s) expires after 3 s of silence: at 4.000001 s */
  AMT_NEAR (amcc_asmp_sender_rate (tx, 4 * AMCC_NS_PER_S), 700e3, 0);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 4 * AMCC_NS_PER_S + 1), 800e3, 0);
  amcc_asmp_sender_stats st;
  amcc_asmp_sender_get_stats (tx, &st);
  AMT_CHECK (st.receivers == 2 && st.rated == 2 && st.expired == 1 && st.byes == 1);
  AMT_CHECK (st.slowest_ssrc == 1 && st.slowest_rate_bps == 800e3);
  /* everyone gone: the last rate is held */
  AMT_NEAR (amcc_asmp_sender_rate (tx, 60 * AMCC_NS_PER_S), 800e3, 0);
  amcc_asmp_sender_get_stats (tx, &st);
  AMT_CHECK (st.receivers == 0);
  /* bad reports are rejected and counted */
  r.rate_bps = NAN;
  AMT_CHECK (amcc_asmp_sender_on_report (tx, 61 * AMCC_NS_PER_S, 9, &r) == AMCC_ERR_FIELD);
  r.rate_bps = -5;
  AMT_CHECK (amcc_asmp_sender_on_report (tx, 61 * AMCC_NS_PER_S, 9, &r) == AMCC_ERR_FIELD);
  AMT_CHECK (amcc_asmp_sender_on_report_block (tx, 61 * AMCC_NS_PER_S, 9, 0) == AMCC_ERR_FIELD);
  amcc_asmp_sender_get_stats (tx, &st);
  AMT_CHECK (st.rejected == 2 && st.receivers == 0);
  amcc_asmp_sender_free (tx);
  /* table bound */
  p.max_receivers = 4;
  tx = amcc_asmp_sender_new (&p, 0);
  r.rate_bps = 1e6;
  for (uint32_t s = 0; s < 4; s++)
    AMT_CHECK (amcc_asmp_sender_on_report (tx, 0, s, &r) == AMCC_OK);
  AMT_CHECK (amcc_asmp_sender_on_report (tx, 0, 99, &r) == AMCC_ERR_FULL);
  AMT_CHECK (amcc_asmp_sender_on_report (tx, 0, 3, &r) == AMCC_OK);   /* known ones still fine */
  amcc_asmp_sender_free (tx);
  p.max_rate_bps = 1;        /* below min: invalid */
  AMT_CHECK (amcc_asmp_sender_new (&p, 0) == NULL);
}

/* RTT echo: every fresh RTT once, oldest first, round robin when they do not fit. */
static void
test_sender_echo (void)
{
  amcc_asmp_sender *tx = amcc_asmp_sender_new (NULL, 0);
  for (uint32_t s = 100; s < 130; s++)
    AMT_CHECK (amcc_asmp_sender_on_report_block (tx, 0, s, (amcc_time) s * MS) == AMCC_OK);
  amcc_asmp_echo_entry e[10];
  int seen[30] = { 0 }, ok = 1;
  for (int sr = 0; sr < 3; sr++) {
    size_t n = amcc_asmp_sender_fill_echo (tx, 0, e, 10);
    AMT_CHECK (n == 10);
    for (size_t i = 0; i < n; i++) {
      if (e[i].rtt != (amcc_time) e[i].ssrc * MS || e[i].ssrc != (uint32_t) (100 + sr * 10 + i))
        ok = 0;
      seen[e[i].ssrc - 100]++;
    }
  }
  AMT_CHECK (ok);
  int all_once = 1;
  for (int i = 0; i < 30; i++)
    all_once &= seen[i] == 1;
  AMT_CHECK (all_once);
  AMT_CHECK (amcc_asmp_sender_fill_echo (tx, 0, e, 10) == 0);
  /* a new RTT for 105 queues it again, with the newest value; BYE dequeues */
  amcc_asmp_sender_on_report_block (tx, 0, 105, 7 * MS);
  amcc_asmp_sender_on_report_block (tx, 0, 105, 8 * MS);
  amcc_asmp_sender_on_report_block (tx, 0, 106, 9 * MS);
  amcc_asmp_sender_on_bye (tx, 0, 106);
  AMT_CHECK (amcc_asmp_sender_fill_echo (tx, 0, e, 10) == 1 && e[0].ssrc == 105 && e[0].rtt == 8 * MS);
  amcc_asmp_sender_free (tx);
}

/* 10 000 receivers, random reports / byes / silence: the heap minimum always equals a brute-force
 * scan, and expiry removes exactly the silent ones. */
static void
test_sender_scale (void)
{
  enum { N = 10000 };
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_params_single_regime (&p);
  p.min_rate_bps = 1;
  p.max_rate_bps = 1e12;
  p.receiver_timeout = 10 * AMCC_NS_PER_S;
  amcc_asmp_sender *tx = amcc_asmp_sender_new (&p, 0);
  static double rate[N];
  static amcc_time heard[N];
  static int live[N];
  uint32_t x = 42;
  int mismatches = 0, count_bad = 0;
  amcc_asmp_report r;
  memset (&r, 0, sizeof r);
  for (int step = 0; step < 200000; step++) {
    amcc_time now = (amcc_time) step * 100 * AMCC_NS_PER_US;     /* 20 s in total */
    x = x * 1664525u + 1013904223u;
    int i = (int) ((x >> 8) % N);
    x = x * 1664525u + 1013904223u;
    if ((x >> 24) < 3) {
      amcc_asmp_sender_on_bye (tx, now, (uint32_t) i * 2654435761u);
      live[i] = 0;
    } else if (i < N * 9 / 10 || step < 50000) {    /* the top tenth falls silent after 5 s */
      r.rate_bps = 1000 + (x >> 8) % 1000000;
      if (amcc_asmp_sender_on_report (tx, now, (uint32_t) i * 2654435761u, &r) != AMCC_OK)
        count_bad++;
      rate[i] = r.rate_bps;
      heard[i] = now;
      live[i] = 1;
    }
    if (step % 997 == 0) {
      for (int k = 0; k < N; k++)
        if (live[k] && now - heard[k] > p.receiver_timeout)
          live[k] = 0;
      uint32_t who = 0;
      double m = brute_min (rate, live, N, &who);
      double got = amcc_asmp_sender_rate (tx, now);
      amcc_asmp_sender_stats st;
      amcc_asmp_sender_get_stats (tx, &st);
      int n_live = 0;
      for (int k = 0; k < N; k++)
        n_live += live[k];
      if (m > 0 && (got != m || st.slowest_ssrc != who * 2654435761u))
        mismatches++;
      if ((int) st.receivers != n_live)
        count_bad++;
    }
  }
  AMT_CHECK (mismatches == 0);
  AMT_CHECK (count_bad == 0);
  amcc_asmp_sender_stats st;
  amcc_asmp_sender_get_stats (tx, &st);
  AMT_CHECK (st.expired > 0 && st.byes > 0);
  amcc_asmp_sender_free (tx);
}

int
main (void)
{
  AMT_RUN (test_receiver_hand);
  AMT_RUN (test_receiver_video_cj);
  AMT_RUN (test_receiver_clamp);
  AMT_RUN (test_receiver_bad_send_time);
  AMT_RUN (test_feedback_timer);
  AMT_RUN (test_suppression_rule);
  AMT_RUN (test_sender_basic);
  AMT_RUN (test_sender_echo);
  AMT_RUN (test_sender_scale);
  return amt_summary ();
}

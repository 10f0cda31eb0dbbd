/* test_asmp_window.c - ASMP at group scale (issues 8, 10): measurement windows while the RTCP
 * interval is long (window_s), a suppressed receiver's old rate leaving eq. 1
 * (drop_suppressed), and eq. 20 started by the computed RTCP interval the caller passes in. */
#include <math.h>
#include <string.h>
#include "amtest.h"
#include "amcc/asmp.h"
#include "amcc/controller.h"

#define MS AMCC_NS_PER_MS

/* 100 packets/s for 5 s (packet k sent at k x 10 ms, arrives 50 ms later); in the last second
 * every 5th packet is lost (k = 400, 405, ..., 495: 20 packets). One report at 5.0 s after a
 * feedback round opened with the given RTCP interval. Returns the report's loss (eq. 2-3). */
static double
loss_after_5s (double window_s, amcc_time rtcp_interval)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.window_s = window_s;
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  amcc_asmp_receiver_schedule (&rx, 0, rtcp_interval, 1, 0.5);
  for (int k = 0; k < 500; k++) {
    if (k >= 400 && k % 5 == 0)
      continue;
    amcc_time send = (amcc_time) k * 10 * MS;
    amcc_asmp_receiver_on_rtp (&rx, send + 50 * MS, (uint16_t) k, (uint32_t) (900 * k), send,
        1000);
  }
  amcc_asmp_report r;
  amcc_asmp_receiver_make_report (&rx, 5050 * MS, &r);
  AMT_CHECK (r.report_seq == 0);
  return r.loss;
}

/* One interval (the paper, or a short RTCP interval): 20 lost of the ~500 expected, eq. 2 with
 * one sample = 0.04 (0.0401 if the probation packet is not counted). Windows of 1 s under a 5 s
 * RTCP interval: four loss-free windows then [4.01, 5.05) s with 20 lost of 100 (packet 400,
 * lost, would have opened it; 401 closes the window before): eq. 2 over (0.2, 0, 0, 0, 0) with
 * weights (1, 1, 1, 1, 0.8) = 0.2 / 4.8. */
static void
test_window_splits_long_intervals (void)
{
  AMT_NEAR (loss_after_5s (0, 5 * AMCC_NS_PER_S), 0.04, 2e-4);
  AMT_NEAR (loss_after_5s (1.0, 5 * AMCC_NS_PER_S), 0.2 / 4.8, 1e-9);
  /* the interval is not above window_s: one interval, as the paper */
  AMT_NEAR (loss_after_5s (1.0, 1 * AMCC_NS_PER_S), 0.04, 2e-4);
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  AMT_CHECK (p.window_s == 1.0 && amcc_asmp_params_validate (&p) == AMCC_OK);
  p.window_s = 0.05;
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
  p.window_s = -1;
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
}

/* Two receivers; B (800 kb/s) then sends an RR without a rate (suppressed) and later another
 * RR: at that one the sender knows the first came without a report and eq. 1 runs without B
 * (1 Mb/s) until B reports again (700 kb/s). drop_suppressed = 0: B's 800 kb/s stays. */
static void
sender_run (int drop, double *after_drop, double *after_report, uint64_t *stale)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.drop_suppressed = drop;
  amcc_asmp_sender *tx = amcc_asmp_sender_new (&p, 0);
  amcc_asmp_report ra, rb;
  memset (&ra, 0, sizeof ra);
  memset (&rb, 0, sizeof rb);
  ra.rate_bps = 1e6;
  rb.rate_bps = 8e5;
  const uint32_t A = 10, B = 20;
  const amcc_time rtt = 100 * MS, s = AMCC_NS_PER_S;
  AMT_CHECK (amcc_asmp_sender_on_report_block (tx, 0, A, rtt) == AMCC_OK);
  AMT_CHECK (amcc_asmp_sender_on_report (tx, 0, A, &ra) == AMCC_OK);
  AMT_CHECK (amcc_asmp_sender_on_report_block (tx, 0, B, rtt) == AMCC_OK);
  AMT_CHECK (amcc_asmp_sender_on_report (tx, 0, B, &rb) == AMCC_OK);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 0), 8e5, 0);
  amcc_asmp_sender_on_report_block (tx, 1 * s, B, rtt);          /* suppressed: no report */
  amcc_asmp_sender_on_report_block (tx, 1 * s, A, rtt);
  amcc_asmp_sender_on_report (tx, 1 * s, A, &ra);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 1 * s), 8e5, 0);          /* not known yet */
  amcc_asmp_sender_on_report_block (tx, 2 * s, B, rtt);
  *after_drop = amcc_asmp_sender_rate (tx, 2 * s);
  rb.rate_bps = 7e5;
  amcc_asmp_sender_on_report (tx, 2 * s, B, &rb);
  *after_report = amcc_asmp_sender_rate (tx, 2 * s);
  amcc_asmp_sender_stats st;
  amcc_asmp_sender_get_stats (tx, &st);
  *stale = st.stale;
  AMT_CHECK (st.receivers == 2);           /* B is still a live receiver (echoes, stats) */
  amcc_asmp_sender_free (tx);
}

static void
test_drop_suppressed (void)
{
  double d, r;
  uint64_t stale;
  sender_run (1, &d, &r, &stale);
  AMT_NEAR (d, 1e6, 0);
  AMT_NEAR (r, 7e5, 0);
  AMT_CHECK (stale == 1);
  sender_run (0, &d, &r, &stale);
  AMT_NEAR (d, 8e5, 0);
  AMT_NEAR (r, 7e5, 0);
  AMT_CHECK (stale == 0);
}

/* eq. 20 through the controller interface. The configured 1 s (the minimum) never exceeds
 * T_suspend (5 s): no early report. With the computed interval the caller passes (20 s), each
 * SR draws the report time from eq. 20 on [0, 5 s], lambda = ln(1000) + 1 for 1000 members:
 * mean T (1 / (1 - e^-lambda) - 1 / lambda) = 4.3696 s (sd ~0.6 s: 2000 rounds give the mean
 * within 0.02 s; the generator is seeded, so the run is the same every time). */
static void
test_eq20_uses_computed_interval (void)
{
  const amcc_protocol *asmp = amcc_protocol_find ("asmp");
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.ssrc = 1;
  c.seed = 7;
  amcc_receiver *r = amcc_receiver_new (asmp, &c, 0);
  AMT_CHECK (r != NULL);
  if (!r)
    return;
  const amcc_time s = AMCC_NS_PER_S;
  AMT_CHECK (amcc_receiver_rtcp_interval (r) == 1 * s);
  amcc_receiver_on_sender_report (r, 0, 2, 1000);
  AMT_CHECK (amcc_receiver_early_due (r, 0) == AMCC_TIME_NONE);
  amcc_receiver_set_rtcp_interval (r, 0, 20 * s);
  amcc_receiver_set_rtcp_interval (r, 0, 0);         /* ignored */
  AMT_CHECK (amcc_receiver_rtcp_interval (r) == 20 * s);
  double sum = 0, lo = 1e9, hi = -1;
  const double lambda = log (1000.0) + 1.0;
  for (int i = 1; i <= 2000; i++) {
    amcc_time now = (amcc_time) i * 30 * s;
    amcc_receiver_on_sender_report (r, now, 2, 1000);
    amcc_time due = amcc_receiver_early_due (r, now);
    AMT_CHECK (due != AMCC_TIME_NONE);
    double z = due == AMCC_TIME_NONE ? -1 : (double) (due - now) / s;
    sum += z;
    lo = fmin (lo, z);
    hi = fmax (hi, z);
  }
  AMT_CHECK (lo >= 0 && hi <= 5.0);
  AMT_NEAR (sum / 2000, 5.0 * (1.0 / (1.0 - exp (-lambda)) - 1.0 / lambda), 0.02);
  /* the group shrank: back below T_suspend, the regular interval reports */
  amcc_receiver_set_rtcp_interval (r, 0, 2 * s);
  amcc_receiver_on_sender_report (r, 70000 * s, 2, 10);
  AMT_CHECK (amcc_receiver_early_due (r, 70000 * s) == AMCC_TIME_NONE);
  amcc_receiver_free (r);
}

/* The sender's receiver timeout follows the RTCP interval the caller computes: with
 * receiver_timeout 0, 3 x max(cfg.rtcp_interval, the interval). A receiver heard at 0 s is gone
 * at 4 s with the configured 1 s (timeout 3 s), live with a computed 10 s (timeout 30 s), gone
 * at 31 s. A fixed cfg.receiver_timeout is kept. */
static int
live_after (amcc_time timeout_cfg, amcc_time interval, amcc_time at)
{
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.receiver_timeout = timeout_cfg;
  amcc_sender *s = amcc_sender_new (amcc_protocol_find ("asmp"), &c, 0);
  AMT_CHECK (s != NULL);
  if (!s)
    return -1;
  amcc_asmp_report r;
  memset (&r, 0, sizeof r);
  r.rate_bps = 300e3;
  uint8_t buf[AMCC_ASMP_REPORT_LEN];
  size_t w = 0;
  AMT_CHECK (amcc_asmp_report_encode (&r, buf, sizeof buf, &w) == AMCC_OK);
  if (interval)
    amcc_sender_set_rtcp_interval (s, 0, interval);
  AMT_CHECK (amcc_sender_on_app (s, 0, 77, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_REPORT, buf, w)
      == AMCC_APP_TAKEN);
  amcc_sender_stats st;
  amcc_sender_rate (s, at);
  amcc_sender_get_stats (s, at, &st);
  amcc_sender_free (s);
  return (int) st.receivers;
}

static void
test_sender_timeout_follows_interval (void)
{
  const amcc_time s = AMCC_NS_PER_S;
  AMT_CHECK (live_after (0, 0, 2 * s) == 1);
  AMT_CHECK (live_after (0, 0, 4 * s) == 0);
  AMT_CHECK (live_after (0, 10 * s, 4 * s) == 1);
  AMT_CHECK (live_after (0, 10 * s, 29 * s) == 1);
  AMT_CHECK (live_after (0, 10 * s, 31 * s) == 0);
  AMT_CHECK (live_after (0, s / 2, 4 * s) == 0);          /* below the minimum: 3 x 1 s */
  AMT_CHECK (live_after (5 * s, 10 * s, 6 * s) == 0);     /* configured: kept */
}

int
main (void)
{
  AMT_RUN (test_window_splits_long_intervals);
  AMT_RUN (test_drop_suppressed);
  AMT_RUN (test_eq20_uses_computed_interval);
  AMT_RUN (test_sender_timeout_follows_interval);
  return amt_summary ();
}

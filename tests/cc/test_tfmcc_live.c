/* test_tfmcc_live.c - TFMCC with what a live video session feeds it (tftune): frames in bursts
 * every 40 ms with a key frame per second, an encoder that produces less than the target, an
 * encoder that starts at its initial bitrate. Each test fails without the change it covers
 * (lib/cc/README.md, TFMCC section). Deterministic, simulated clock. */
#include <amcc/tfmcc.h>
#include <math.h>
#include <string.h>
#include "amtest.h"

#define MS AMCC_NS_PER_MS
#define S AMCC_NS_PER_S

/* 25 fps, one key frame per 25 frames; a P frame is 2 packets and an I frame 12 packets of
 * 1000 B (I = 6 P, as x264 gave in the demo runs), the packets of a frame 1 ms apart.
 * Mean: (12 + 24 x 2) x 8000 bit per second = 480 kbit/s. */
#define FPS 25
#define GOP 25
#define PKT 1000
#define P_PKTS 2
#define I_PKTS 12
#define VIDEO_BPS ((I_PKTS + (GOP - 1) * P_PKTS) * PKT * 8.0)

static struct amcc_tfmcc_sender_info info (uint16_t fb, uint32_t rmax_us)
{
  struct amcc_tfmcc_sender_info i;
  memset (&i, 0, sizeof i);
  i.fb_nr = fb;
  i.slowstart = true;
  i.r_max_us = rmax_us;
  i.rate_bps = VIDEO_BPS;
  return i;
}

/* Receive rate of bursty video: over 2-4 RTTs of 40 ms a window holds 2-4 frames and reads
 * 0.7-2.9x the mean (2.9 right after a key frame), so 2x that makes slowstart jump 6x. A window
 * of >= recv_window_min (0.5 s: 12.5 frames) holds at most one I frame and 13 P frames:
 * (12 + 13 x 2) / 0.5 s = 1.27 x the mean, and at least 11 P frames: 0.73 x the mean. The
 * bounds checked: 2 x X_recv never below the stream's rate (ratio > 0.5: no cut of a rate the
 * path carries) and never above 3x it (ratio < 1.5). Before the window is full: no rate (0),
 * not the first packets over a millisecond. */
static void test_recv_rate_of_bursty_video (void)
{
  struct amcc_tfmcc_params p;
  struct amcc_tfmcc_receiver rx;
  amcc_tfmcc_params_init (&p);
  amcc_tfmcc_receiver_init (&rx, &p, 7, 0);
  struct amcc_tfmcc_sender_info i = info (0, 40000);   /* R_max 40 ms: the RTT until an echo */
  amcc_tfmcc_receiver_on_sender_info (&rx, 0, &i, 0.5);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.04, 1e-9);
  uint16_t seq = 1;
  double lo = INFINITY, hi = 0, early_max = 0;
  for (int f = 0; f < 10 * FPS; f++) {
    int n = f % GOP == 0 ? I_PKTS : P_PKTS;
    for (int k = 0; k < n; k++) {
      amcc_time t = (amcc_time) f * (S / FPS) + k * MS;
      amcc_tfmcc_receiver_on_rtp (&rx, t, seq++, PKT, false, 0);
      double r = amcc_tfmcc_receiver_recv_rate (&rx) / VIDEO_BPS;
      if (t < 500 * MS)
        early_max = fmax (early_max, r);
      else if (t >= 2 * S) {
        lo = fmin (lo, r);
        hi = fmax (hi, r);
      }
    }
  }
  printf ("  receive rate / stream rate after 2 s: %.2f .. %.2f\n", lo, hi);
  AMT_CHECK (lo > 0.5);
  AMT_CHECK (hi < 1.5);
  AMT_CHECK (early_max == 0);        /* nothing reported from the first half second */
}

static struct amcc_tfmcc_report rep (double rate, bool loss)
{
  struct amcc_tfmcc_report r;
  memset (&r, 0, sizeof r);
  r.rate_bps = rate;
  r.have_loss = loss;
  r.loss_event_rate = loss ? 0.01 : 0;
  return r;
}

static struct amcc_tfmcc_sender_state sstate (struct amcc_tfmcc_sender *tx)
{
  struct amcc_tfmcc_sender_state st;
  amcc_tfmcc_sender_get_state (tx, &st);
  return st;
}

/* An app-limited encoder (x264 on easy content) sends 40 % of the target X; loss-free receivers
 * report 2x what they get = 0.8 X. Taken as a decrease, each report cuts X by 20 %: 40 reports
 * reach the floor (0.8^40 < 1e-3). The receive rate of a data-limited sender is no measure of
 * the path (RFC 5348 4.3), so X must stay; after slowstart such a receiver must not take the
 * CLR from the one with loss, whose equation rate keeps X rising. */
static void test_app_limited_no_collapse (void)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  struct amcc_tfmcc_sender *tx = amcc_tfmcc_sender_new (&p, 0);
  struct amcc_tfmcc_report r = rep (500e3, false);
  amcc_tfmcc_sender_on_report (tx, 100 * MS, 1, &r);     /* slowstart: X = 500k */
  double x0 = sstate (tx).rate_bps;
  AMT_NEAR (x0, 500e3, 1e-6);
  amcc_time t = 100 * MS;
  for (int k = 0; k < 40; k++) {
    t += 100 * MS;
    double x = amcc_tfmcc_sender_rate (tx, t);
    r = rep (2 * 0.4 * x, false);
    amcc_tfmcc_sender_on_report (tx, t, 1 + (uint32_t) (k % 2), &r);
  }
  AMT_CHECK (sstate (tx).slowstart);
  AMT_NEAR (sstate (tx).rate_bps, x0, 1e-6);
  /* receiver 3 sees loss: slowstart ends and its lower equation rate makes it CLR (case 2);
   * the loss-free ones keep reporting 0.8 X, the CLR asks for 1.5 x0 */
  t += 100 * MS;
  r = rep (0.9 * x0, true);
  amcc_tfmcc_sender_on_report (tx, t, 3, &r);             /* case 2: CLR 3, X = 0.9 x0 */
  AMT_CHECK (!sstate (tx).slowstart && sstate (tx).clr_ssrc == 3);
  double x1 = sstate (tx).rate_bps;
  for (int k = 0; k < 40; k++) {
    t += 100 * MS;
    double x = amcc_tfmcc_sender_rate (tx, t);
    r = rep (2 * 0.4 * x, false);
    amcc_tfmcc_sender_on_report (tx, t, 1 + (uint32_t) (k % 2), &r);
    if (k % 5 == 4) {                                     /* the CLR, every 500 ms */
      r = rep (1.5 * x0, true);
      amcc_tfmcc_sender_on_report (tx, t, 3, &r);
    }
  }
  printf ("  X: %.0f at start, %.0f at slowstart's end, %.0f 4 s later (app-limited)\n", x0, x1,
          sstate (tx).rate_bps);
  AMT_CHECK (sstate (tx).clr_ssrc == 3);
  AMT_CHECK (sstate (tx).rate_bps > x1);                  /* increasing toward the CLR's rate */
  amcc_tfmcc_sender_free (tx);
}

/* The slow CLR leaves while the others are loss-free (late-join scenario): the loss-free
 * reporter takes the CLR (case 3), X is held one round, then rises by 8s/R_max per R_max with
 * s the nominal packet size (1200 B), never halved while its reports arrive. The encoder's
 * packets are 250 B at this rate; with the mean size as s the rise was 8 x 250 / 0.5 per 0.5 s
 * = 8 kbit/s per second (live: 90 kbit/s 20 s after the leave, on a 1.5 Mbit/s path). */
static void test_recovery_after_clr_leaves (void)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  p.initial_rate_bps = 1e6;
  struct amcc_tfmcc_sender *tx = amcc_tfmcc_sender_new (&p, 0);
  for (int k = 0; k < 200; k++)
    amcc_tfmcc_sender_on_packet_sent (tx, 0, 250);
  struct amcc_tfmcc_report r = rep (60e3, true);
  amcc_tfmcc_sender_on_report (tx, 100 * MS, 5, &r);     /* slow: loss, CLR, X = 60k */
  AMT_CHECK (sstate (tx).clr_ssrc == 5 && !sstate (tx).slowstart);
  AMT_NEAR (sstate (tx).rate_bps, 60e3, 1e-6);
  r = rep (120e3, false);
  amcc_tfmcc_sender_on_report (tx, 200 * MS, 1, &r);     /* fast ones: 2x their receive rate */
  amcc_tfmcc_sender_on_report (tx, 300 * MS, 2, &r);
  r = rep (60e3, true);
  r.leaving = true;
  amcc_tfmcc_sender_on_report (tx, 1 * S, 5, &r);
  AMT_CHECK (sstate (tx).has_clr && sstate (tx).clr_ssrc == 1 && sstate (tx).increase_held);
  bool monotonic = true, clr = true;
  double x = sstate (tx).rate_bps, x10 = 0;
  for (amcc_time t = 1250 * MS; t <= 20 * S; t += 250 * MS) {
    double now_x = amcc_tfmcc_sender_rate (tx, t);
    monotonic = monotonic && now_x >= x;
    r = rep (2 * now_x, false);                           /* the CLR, every 250 ms < R_max */
    amcc_tfmcc_sender_on_report (tx, t, 1, &r);
    if (t % (3 * S) == 0)
      amcc_tfmcc_sender_on_report (tx, t, 2, &r);         /* the other, suppressed to rare */
    clr = clr && sstate (tx).has_clr && sstate (tx).clr_ssrc == 1;
    x = sstate (tx).rate_bps;
    if (t == 10 * S)
      x10 = x;
  }
  printf ("  X after the CLR left: %.0f at 10 s, %.0f at 20 s\n", x10, x);
  AMT_CHECK (monotonic && clr);
  AMT_NEAR (sstate (tx).r_max_s, 0.5, 1e-12);             /* no echo: R_max stays initial */
  /* 40 reports 0.25 s apart: 10 s / 0.5 s x 8 x 1200 / 0.5 = 384 kbit/s */
  AMT_NEAR (x - x10, 10.0 / 0.5 * 8 * 1200 / 0.5, 1e-3);
  amcc_tfmcc_sender_free (tx);
}

/* The encoder starts at the element's initial-bitrate (500 kbit/s in the demo) before any
 * report; a TFMCC X of 1 packet per R_max (8 x 1200 / 0.5 = 19.2 kbit/s, below the element's
 * 64 kbit/s floor) would cut it to the floor at the first RTCP and slowstart would have to climb
 * back from there, 2x per report at best. Slowstart starts at initial_rate_bps instead; 0 keeps
 * RFC 4654 3.1. */
static void test_start_rate (void)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  struct amcc_tfmcc_sender *tx = amcc_tfmcc_sender_new (&p, 0);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, 0), 8 * 1200 / 0.5, 1e-9);
  amcc_tfmcc_sender_free (tx);
  p.initial_rate_bps = 500e3;
  tx = amcc_tfmcc_sender_new (&p, 0);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, 0), 500e3, 1e-9);
  AMT_CHECK (sstate (tx).slowstart);
  /* no feedback yet: halving every 10 R_max (3.3) still applies from there */
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, 5 * S), 250e3, 1e-9);
  struct amcc_tfmcc_report r = rep (1e6, false);            /* 2x a 500k receive rate */
  amcc_tfmcc_sender_on_report (tx, 5 * S, 1, &r);
  AMT_NEAR (sstate (tx).rate_bps, 1e6, 1e-9);
  amcc_tfmcc_sender_free (tx);
}

/* Over RTCP the CLR gets a report out about every 300 ms (an early packet at most once per
 * regular interval, RFC 4585), not every RTT (40 ms). Counting "4 RTTs without a CLR report"
 * (3.3) in RTTs halves X between any two reports: X falls to the floor however good the path.
 * Counted in the CLR's report interval, X is never halved while the CLR reports, and a silent
 * CLR still halves X after 4 missed reports and is gone after 10. */
static void test_clr_timeout_in_report_intervals (void)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  p.initial_rate_bps = 500e3;
  struct amcc_tfmcc_sender *tx = amcc_tfmcc_sender_new (&p, 0);
  amcc_time t = 0;
  double prev = 0;
  bool decreased = false;
  for (int k = 0; k < 40; k++) {                     /* 12 s of reports every 300 ms */
    struct amcc_tfmcc_sender_info i;
    amcc_tfmcc_sender_fill_info (tx, t, &i);
    t += 300 * MS;
    double x = amcc_tfmcc_sender_rate (tx, t);
    if (k > 1 && x < prev)
      decreased = true;
    struct amcc_tfmcc_report r = rep (2 * x, true);  /* equation rate above X: increase */
    r.has_echo = true;
    r.echo_ts_us = i.ts_us + 260000;                 /* echoed 260 ms after it was sent */
    r.echo_hold_us = 0;                              /* -> RTT 40 ms */
    amcc_tfmcc_sender_on_report (tx, t, 1, &r);
    prev = sstate (tx).rate_bps;
  }
  AMT_NEAR (sstate (tx).clr_rtt_s, 0.04, 1e-6);
  AMT_NEAR (sstate (tx).clr_unit_s, 0.3, 1e-6);
  AMT_CHECK (!decreased);
  AMT_CHECK (prev > 500e3);
  /* silence: halved 4 x 300 ms after the last report, gone after 10 x 300 ms */
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, t + 1190 * MS), prev, 1e-9);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, t + 1210 * MS), prev / 2, 1e-9);
  AMT_CHECK (sstate (tx).has_clr);
  amcc_tfmcc_sender_rate (tx, t + 2990 * MS);
  AMT_CHECK (sstate (tx).has_clr);
  amcc_tfmcc_sender_rate (tx, t + 3010 * MS);
  AMT_CHECK (!sstate (tx).has_clr);
  amcc_tfmcc_sender_free (tx);
}

/* The encoder's first key frame overflows the slow receiver's queue at once: the first loss
 * comes before the receive-rate window is full. RFC 5348 6.3.1 seeds the loss history so that
 * the equation gives the receive rate; seeding from 1 packet per RTT instead (no rate yet)
 * asked for 16 kbit/s here (8 x 1000 B / R_max 0.5 s) and cut the sender to its floor. The seed
 * is the rate received so far: the 600 kbit/s of the bottleneck the key frame queued at. */
static bool drop_40 (uint16_t s) { return s == 40; }

static void test_first_loss_seed_before_window (void)
{
  struct amcc_tfmcc_params p;
  struct amcc_tfmcc_receiver rx;
  amcc_tfmcc_params_init (&p);
  amcc_tfmcc_receiver_init (&rx, &p, 7, 0);
  /* 1000-B packets paced by a 600 kbit/s bottleneck: one per 13.33 ms; one lost */
  amcc_time gap = 8000 * AMCC_NS_PER_S / 600000;
  for (uint16_t seq = 1; seq <= 45; seq++)
    if (!drop_40 (seq))
      amcc_tfmcc_receiver_on_rtp (&rx, seq * gap, seq, 1000, false, 0);
  AMT_CHECK (amcc_tfmcc_receiver_recv_rate (&rx) == 0);     /* window not full (0.6 s) */
  AMT_CHECK (amcc_tfmcc_receiver_loss_event_rate (&rx) > 0);
  double x = amcc_tfmcc_receiver_rate (&rx);
  printf ("  X_r after a first loss at 0.55 s: %.0f bit/s\n", x);
  AMT_NEAR (x, 600e3, 600e3 * 0.05);   /* window edges: one packet in 40 */
}

/* One-way adjustment (4.2) after an echo that met a full queue: the CLR's smoothed RTT moves
 * 10 % toward the 140 ms sample (0.05 s), the delta is counted from that sample's 120 ms one-way
 * delay, and when the 100 ms queue drains the sum is 0.05 - 0.1 < 0: the equation's RTT fell to
 * 0.1 ms and X_r to Gbit/s (live). The adjusted RTT never drops below the smallest sample. */
static void test_rtt_floor_after_queue_drains (void)
{
  struct amcc_tfmcc_params p;
  struct amcc_tfmcc_receiver rx;
  amcc_tfmcc_params_init (&p);
  amcc_tfmcc_receiver_init (&rx, &p, 7, 0);
  uint16_t seq = 1;
  for (; seq < 5; seq++)                                  /* past RFC 3550 probation */
    amcc_tfmcc_receiver_on_rtp (&rx, seq * 10 * MS, seq, 1000, true, 0);
  struct amcc_tfmcc_sender_info i = info (0, 500000);
  i.has_echo = true;
  i.echo_is_clr = true;
  i.echo_ssrc = 7;
  amcc_time t = 1 * S;                                    /* sample 40 ms, one-way 20 ms */
  i.ts_us = (uint32_t) ((t - 20 * MS) / 1000);
  i.echo_ts_us = (uint32_t) ((t - 40 * MS) / 1000);
  amcc_tfmcc_receiver_on_sender_info (&rx, t, &i, 0.5);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.04, 1e-6);
  t = 2 * S;                                              /* sample 140 ms, one-way 120 ms */
  i.ts_us = (uint32_t) ((t - 120 * MS) / 1000);
  i.echo_ts_us = (uint32_t) ((t - 140 * MS) / 1000);
  amcc_tfmcc_receiver_on_sender_info (&rx, t, &i, 0.5);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.05, 1e-6);   /* q = 0.9 (CLR) */
  t = 2500 * MS;                                          /* queue drained: one-way 20 ms */
  amcc_tfmcc_receiver_on_rtp (&rx, t, seq, 1000, true, (uint32_t) ((t - 20 * MS) / 1000));
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.04, 1e-6);
}

/* The first CLR: the sender measures its RTT (40 ms) from the report that selects it, but the
 * receiver learns it is the CLR only from a later sender APP and then waits for an early RTCP
 * slot (0.5-1.5 s live). Counting in RTTs it was gone after 0.4 s, before its first report as
 * CLR, so slowstart sat without a CLR for 3.5 s (live, initial 100 kbit/s). Until a CLR has
 * reported twice, the report interval counts as R_max (500 ms at start): gone after 5 s. */
static void test_first_clr_waits_for_its_report (void)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  p.initial_rate_bps = 100e3;
  struct amcc_tfmcc_sender *tx = amcc_tfmcc_sender_new (&p, 0);
  struct amcc_tfmcc_sender_info i;
  amcc_tfmcc_sender_fill_info (tx, 3 * S, &i);
  struct amcc_tfmcc_report r = rep (220e3, false);
  r.has_echo = true;
  r.echo_ts_us = i.ts_us;
  r.echo_hold_us = 0;
  amcc_tfmcc_sender_on_report (tx, 3 * S + 40 * MS, 1, &r);   /* RTT 40 ms, CLR, X = 220k */
  AMT_CHECK (sstate (tx).has_clr && sstate (tx).clr_ssrc == 1);
  AMT_NEAR (sstate (tx).clr_rtt_s, 0.04, 1e-6);
  AMT_NEAR (sstate (tx).rate_bps, 220e3, 1e-6);
  amcc_tfmcc_sender_fill_info (tx, 4500 * MS, &i);             /* 1.5 s later */
  AMT_CHECK (sstate (tx).has_clr && i.has_echo && i.echo_ssrc == 1 && i.echo_is_clr);
  AMT_NEAR (sstate (tx).rate_bps, 220e3, 1e-6);                /* grace: 10 units = 5 s */
  r = rep (440e3, false);
  amcc_tfmcc_sender_on_report (tx, 4600 * MS, 1, &r);          /* its first report as CLR */
  AMT_NEAR (sstate (tx).rate_bps, 440e3, 1e-6);                /* slowstart goes on */
  amcc_tfmcc_sender_free (tx);
}

int main (void)
{
  AMT_RUN (test_recv_rate_of_bursty_video);
  AMT_RUN (test_app_limited_no_collapse);
  AMT_RUN (test_start_rate);
  AMT_RUN (test_recovery_after_clr_leaves);
  AMT_RUN (test_clr_timeout_in_report_intervals);
  AMT_RUN (test_first_loss_seed_before_window);
  AMT_RUN (test_rtt_floor_after_queue_drains);
  AMT_RUN (test_first_clr_waits_for_its_report);
  return amt_summary ();
}

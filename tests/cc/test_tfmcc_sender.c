/* test_tfmcc_sender.c - TFMCC sender rules (RFC 4654 section 3) one event at a time:
 * initial rate, the four CLR cases, the 8s/R_max increase limit, CLR timeouts, no-feedback
 * halving and its floor, feedback rounds and X_supp, slowstart, R_max and the RTT echo. */
#include <amcc/tfmcc.h>
#include <math.h>
#include <string.h>
#include "amtest.h"

#define MS AMCC_NS_PER_MS
#define S AMCC_NS_PER_S
#define SZ 1200.0               /* params.packet_size */
#define RMAX 0.5                /* initial R_max (3.1) */

static struct amcc_tfmcc_report rep (double rate, bool loss)
{
  struct amcc_tfmcc_report r;
  memset (&r, 0, sizeof r);
  r.rate_bps = rate;
  r.have_loss = loss;
  r.loss_event_rate = loss ? 0.01 : 0;
  return r;
}

static struct amcc_tfmcc_sender_state st (struct amcc_tfmcc_sender *tx)
{
  struct amcc_tfmcc_sender_state s;
  amcc_tfmcc_sender_get_state (tx, &s);
  return s;
}

static struct amcc_tfmcc_sender *mk (amcc_time now)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  return amcc_tfmcc_sender_new (&p, now);
}

static void test_initial (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  /* 3.1: one packet per R_max = 8 * 1200 / 0.5 = 19200 bit/s */
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, 0), 8 * SZ / RMAX, 1e-9);
  AMT_CHECK (st (tx).slowstart && !st (tx).has_clr && st (tx).fb_nr == 0);
  AMT_NEAR (st (tx).r_max_s, RMAX, 1e-12);
  /* 3.7: inter-packet interval 8 s / X = R_max for a full packet */
  AMT_CHECK (amcc_tfmcc_sender_pacing_interval (tx, 0, 1200) == 500 * MS);
  amcc_tfmcc_sender_free (tx);
}

static void test_clr_cases (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (100e3, false);
  /* case 1: no CLR -> the reporter becomes CLR; in slowstart X = X_r (3.6) */
  amcc_tfmcc_sender_on_report (tx, 100 * MS, 1, &r);
  AMT_CHECK (st (tx).has_clr && st (tx).clr_ssrc == 1);
  AMT_NEAR (st (tx).rate_bps, 100e3, 1e-6);
  /* case 2: lower X_r (an equation rate: loss) from a non-CLR -> it becomes CLR, X = X_r at
   * once; it sets X_supp; its loss ends slowstart */
  r = rep (60e3, true);
  amcc_tfmcc_sender_on_report (tx, 200 * MS, 2, &r);
  AMT_CHECK (st (tx).clr_ssrc == 2);
  AMT_NEAR (st (tx).rate_bps, 60e3, 1e-6);
  AMT_NEAR (st (tx).x_supp_bps, 0.9 * 60e3, 1e-6);
  /* a higher X_r from a non-CLR changes nothing (X_supp keeps the minimum) */
  r = rep (500e3, false);
  amcc_tfmcc_sender_on_report (tx, 250 * MS, 3, &r);
  AMT_CHECK (st (tx).clr_ssrc == 2);
  AMT_NEAR (st (tx).rate_bps, 60e3, 1e-6);
  AMT_NEAR (st (tx).x_supp_bps, 54e3, 1e-6);
  /* case 4: increase limited to 8s/R_max per R_max after slowstart:
   * 0.25 s after the last change: 8*1200/0.5 * 0.25/0.5 = 9600 bit/s */
  r = rep (200e3, true);
  amcc_tfmcc_sender_on_report (tx, 450 * MS, 2, &r);
  AMT_CHECK (!st (tx).slowstart);
  AMT_NEAR (st (tx).rate_bps, 60e3 + 9600, 1e-6);
  /* 1 s later the increase is capped at one R_max worth: 19200 bit/s */
  amcc_tfmcc_sender_on_report (tx, 1450 * MS, 2, &r);
  AMT_NEAR (st (tx).rate_bps, 60e3 + 9600 + 19200, 1e-6);
  /* case 4, lower X_r: immediate decrease */
  r = rep (30e3, true);
  amcc_tfmcc_sender_on_report (tx, 1500 * MS, 2, &r);
  AMT_NEAR (st (tx).rate_bps, 30e3, 1e-6);
  /* the increase never overshoots X_r */
  r = rep (31e3, true);
  amcc_tfmcc_sender_on_report (tx, 1900 * MS, 2, &r);
  AMT_NEAR (st (tx).rate_bps, 31e3, 1e-6);
  amcc_tfmcc_sender_free (tx);
}

static void test_slowstart_ends_on_any_loss (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (100e3, false);
  amcc_tfmcc_sender_on_report (tx, 100 * MS, 1, &r);
  r = rep (900e3, true);                /* a non-CLR that saw a loss */
  amcc_tfmcc_sender_on_report (tx, 150 * MS, 2, &r);
  AMT_CHECK (!st (tx).slowstart && st (tx).clr_ssrc == 1);
  /* no more jumps to X_r: the CLR's 400k is approached 8s/R_max per R_max */
  r = rep (400e3, false);
  amcc_tfmcc_sender_on_report (tx, 650 * MS, 1, &r);
  AMT_NEAR (st (tx).rate_bps, 100e3 + 19200, 1e-6);
  amcc_tfmcc_sender_free (tx);
}

/* 3.6: in slowstart the sender takes the minimum of the rates reported in the round, and the
 * receiver with the smallest rate is the CLR: a CLR report never lifts X above what another
 * receiver reported in the same round. */
static void test_slowstart_round_minimum (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (200e3, false);
  amcc_tfmcc_sender_on_report (tx, 100 * MS, 1, &r);      /* A: CLR, X = 200k */
  r = rep (150e3, false);
  amcc_tfmcc_sender_on_report (tx, 200 * MS, 2, &r);      /* B: lower, CLR; X stays (no loss) */
  AMT_CHECK (st (tx).clr_ssrc == 2);
  AMT_NEAR (st (tx).rate_bps, 200e3, 1e-6);
  r = rep (300e3, false);
  amcc_tfmcc_sender_on_report (tx, 300 * MS, 1, &r);      /* A again: higher than X, no change */
  AMT_NEAR (st (tx).rate_bps, 200e3, 1e-6);
  r = rep (400e3, false);
  amcc_tfmcc_sender_on_report (tx, 400 * MS, 2, &r);      /* the CLR asks for 400k */
  AMT_CHECK (st (tx).slowstart && st (tx).fb_nr == 0);    /* same round (T = 3 s) */
  AMT_NEAR (st (tx).rate_bps, 300e3, 1e-6);               /* min(400k, A's 300k) */
  AMT_CHECK (st (tx).clr_ssrc == 1);                      /* A is now the smallest */
  /* A (CLR) asks for 600k: B's latest in this round (400k) is the minimum */
  r = rep (600e3, false);
  amcc_tfmcc_sender_on_report (tx, 500 * MS, 1, &r);
  AMT_NEAR (st (tx).rate_bps, 400e3, 1e-6);
  AMT_CHECK (st (tx).clr_ssrc == 2);
  /* in the next round only that round's reports count: B (CLR) alone -> X = its 800k */
  amcc_tfmcc_sender_rate (tx, 6500 * MS);                 /* 2T without non-CLR feedback */
  AMT_CHECK (st (tx).fb_nr >= 1);
  r = rep (800e3, false);
  amcc_tfmcc_sender_on_report (tx, 6600 * MS, 2, &r);
  AMT_NEAR (st (tx).rate_bps, 800e3, 1e-6);
  amcc_tfmcc_sender_free (tx);
}

/* 3.3: CLR silent for 4 RTTs -> halve (not within 10 RTTs of its selection); 10 RTTs -> gone;
 * then no feedback at all -> halve every 10 R_max down to 1 packet per 8 s. */
static void test_clr_timeouts (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (200e3, true);
  const amcc_time rtt = 500 * MS;        /* no echo: the CLR's RTT is R_max = 0.5 s */
  amcc_tfmcc_sender_on_report (tx, 0, 7, &r);   /* selected at 0 */
  amcc_time last = 6 * S;                        /* 12 RTTs later: past the grace period */
  for (amcc_time t = 500 * MS; t <= last; t += 500 * MS)
    amcc_tfmcc_sender_on_report (tx, t, 7, &r);
  double x0 = st (tx).rate_bps;
  AMT_NEAR (x0, 200e3, 1e-6);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, last + 4 * rtt - 1), x0, 1e-6);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, last + 4 * rtt), x0 / 2, 1e-6);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, last + 8 * rtt), x0 / 4, 1e-6);
  AMT_CHECK (st (tx).has_clr);
  amcc_tfmcc_sender_rate (tx, last + 10 * rtt);
  AMT_CHECK (!st (tx).has_clr);                  /* CLR gone */
  /* no feedback since: halve every 10 R_max = 5 s, counted from the CLR's disappearance */
  amcc_time gone = last + 10 * rtt;
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, gone + 5 * S - 1), x0 / 4, 1e-6);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, gone + 5 * S), x0 / 8, 1e-6);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, gone + 10 * S), x0 / 16, 1e-6);
  /* floor: one packet per 8 s = 8*1200/8 = 1200 bit/s; pacing interval 8 s */
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, gone + 1000 * S), SZ, 1e-9);
  AMT_CHECK (amcc_tfmcc_sender_pacing_interval (tx, gone + 1000 * S, 1200) == 8 * S);
  amcc_tfmcc_sender_free (tx);
}

static void test_clr_grace (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (200e3, false);
  amcc_tfmcc_sender_on_report (tx, 1 * S, 7, &r);   /* new CLR (slowstart: X = X_r), silence */
  /* 4 RTTs after its report, but it is < 10 RTTs old: no halving */
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, 1 * S + 2 * S + 1), 200e3, 1e-6);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, 1 * S + 5 * S - 1), 200e3, 1e-6);
  AMT_CHECK (st (tx).has_clr);
  amcc_tfmcc_sender_rate (tx, 1 * S + 5 * S);        /* 10 RTTs: gone, rate kept */
  AMT_CHECK (!st (tx).has_clr);
  AMT_NEAR (st (tx).rate_bps, 200e3, 1e-6);
  amcc_tfmcc_sender_free (tx);
}

/* 3.4: T = 6 R_max = 3 s; a round ends after T if non-CLR feedback came, else with the first
 * non-CLR feedback after T, at most after 2T. */
static void test_feedback_rounds (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (100e3, true);
  amcc_tfmcc_sender_on_report (tx, 100 * MS, 1, &r);        /* CLR 1 */
  AMT_NEAR (st (tx).x_supp_bps, 0.9 * 100e3, 1e-6);          /* it was not CLR when sent */
  amcc_tfmcc_sender_rate (tx, 2900 * MS);
  AMT_CHECK (st (tx).fb_nr == 0);                            /* non-CLR feedback came at 100 ms */
  amcc_tfmcc_sender_rate (tx, 3000 * MS);
  AMT_CHECK (st (tx).fb_nr == 1 && st (tx).x_supp_bps == 0 && st (tx).rounds == 1);
  /* round 1: only CLR feedback -> still open after T, closed by a non-CLR report at 4.5 T */
  r.fb_nr = 1;
  amcc_tfmcc_sender_on_report (tx, 4000 * MS, 1, &r);
  amcc_tfmcc_sender_rate (tx, 7000 * MS);
  AMT_CHECK (st (tx).fb_nr == 1);
  struct amcc_tfmcc_report o = rep (800e3, false);
  o.fb_nr = 1;
  amcc_tfmcc_sender_on_report (tx, 7500 * MS, 2, &o);
  AMT_CHECK (st (tx).fb_nr == 2);
  /* round 2: no non-CLR feedback at all -> ends at 2T = 6 s */
  amcc_tfmcc_sender_rate (tx, 13500 * MS - 1);
  AMT_CHECK (st (tx).fb_nr == 2);
  amcc_tfmcc_sender_rate (tx, 13500 * MS);
  AMT_CHECK (st (tx).fb_nr == 3);
  /* X_supp only from feedback of the current round */
  o.fb_nr = 2;
  amcc_tfmcc_sender_on_report (tx, 13600 * MS, 3, &o);
  AMT_CHECK (st (tx).x_supp_bps == 0);
  o.fb_nr = 3;
  amcc_tfmcc_sender_on_report (tx, 13700 * MS, 4, &o);
  AMT_NEAR (st (tx).x_supp_bps, 0.9 * 800e3, 1e-3);
  amcc_tfmcc_sender_free (tx);
}

/* 3.3 case 3: the CLR leaves -> the lowest recent reporter becomes CLR and increases are held
 * until the next full round has ended. */
static void test_clr_leaves (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (100e3, false), o = rep (300e3, true), q = rep (500e3, true);
  amcc_tfmcc_sender_on_report (tx, 100 * MS, 1, &r);     /* slowstart: X = 100k at once */
  amcc_tfmcc_sender_on_report (tx, 200 * MS, 2, &o);
  amcc_tfmcc_sender_on_report (tx, 300 * MS, 3, &q);
  AMT_CHECK (st (tx).clr_ssrc == 1);
  struct amcc_tfmcc_report leave = rep (100e3, true);
  leave.leaving = true;
  amcc_tfmcc_sender_on_report (tx, 1 * S, 1, &leave);
  AMT_CHECK (st (tx).has_clr && st (tx).clr_ssrc == 2 && st (tx).increase_held);
  AMT_NEAR (st (tx).rate_bps, 100e3, 1e-6);
  /* round 0 ends at 3 s, round 1 at 6 s (feedback from 3 each round keeps them at T) */
  o.fb_nr = 0;
  amcc_tfmcc_sender_on_report (tx, 2 * S, 2, &o);
  AMT_NEAR (st (tx).rate_bps, 100e3, 1e-6);                  /* held */
  q.fb_nr = 1;
  amcc_tfmcc_sender_on_report (tx, 3500 * MS, 3, &q);
  amcc_tfmcc_sender_on_report (tx, 4 * S, 2, &o);
  AMT_CHECK (st (tx).fb_nr == 1 && st (tx).increase_held);
  AMT_NEAR (st (tx).rate_bps, 100e3, 1e-6);                  /* still held in round 1 */
  amcc_tfmcc_sender_on_report (tx, 5500 * MS, 2, &o);        /* CLR keeps reporting */
  AMT_NEAR (st (tx).rate_bps, 100e3, 1e-6);
  amcc_tfmcc_sender_rate (tx, 6 * S);
  AMT_CHECK (st (tx).fb_nr == 2 && !st (tx).increase_held);
  amcc_tfmcc_sender_on_report (tx, 6250 * MS, 2, &o);
  /* increases again: 0.75 s since the last CLR report, capped at R_max: + 8*1200/0.5 */
  AMT_NEAR (st (tx).rate_bps, 100e3 + 19200, 1e-6);
  /* a BYE of the CLR is a leave too: 3 (heard 3.5 s ago, within two rounds) takes over */
  amcc_tfmcc_sender_on_bye (tx, 7 * S, 2);
  AMT_CHECK (st (tx).has_clr && st (tx).clr_ssrc == 3 && st (tx).increase_held);
  /* a BYE of the CLR with nobody heard within two rounds: no CLR */
  amcc_tfmcc_sender_on_bye (tx, 7 * S + 1, 3);
  AMT_CHECK (!st (tx).has_clr);
  amcc_tfmcc_sender_free (tx);
}

static uint32_t us32 (amcc_time t) { return (uint32_t) (t / 1000); }

static void test_rtt_echo_and_rmax (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_sender_info info;
  amcc_tfmcc_sender_fill_info (tx, 0, &info);
  AMT_CHECK (!info.has_echo && info.r_max_us == 500000 && info.fb_nr == 0 && info.slowstart);
  /* report at 1.0 s echoing the sender timestamp of 0.7 s, held 100 ms at the receiver:
   * RTT = 1.0 - 0.7 - 0.1 = 0.2 s < R_max, R_max unchanged */
  struct amcc_tfmcc_report r = rep (100e3, true);
  r.has_echo = true;
  r.echo_ts_us = us32 (700 * MS);
  r.echo_hold_us = 100000;
  r.ts_us = 4242;
  r.have_rtt = true;
  amcc_tfmcc_sender_on_report (tx, 1 * S, 1, &r);
  AMT_NEAR (st (tx).clr_rtt_s, 0.2, 1e-6);
  AMT_NEAR (st (tx).r_max_s, 0.5, 1e-9);
  /* a larger RTT raises R_max at once: 2.0 - 1.1 - 0.1 = 0.8 s */
  struct amcc_tfmcc_report o = rep (900e3, true);
  o.has_echo = true;
  o.echo_ts_us = us32 (1100 * MS);
  o.echo_hold_us = 100000;
  o.ts_us = 999;
  o.have_rtt = false;              /* it has no RTT yet: echoed first */
  amcc_tfmcc_sender_on_report (tx, 2 * S, 2, &o);
  AMT_NEAR (st (tx).r_max_s, 0.8, 1e-6);
  amcc_tfmcc_sender_fill_info (tx, 2300 * MS, &info);
  AMT_CHECK (info.has_echo && info.echo_ssrc == 2 && !info.echo_is_clr);
  AMT_CHECK (info.echo_ts_us == 999 && info.echo_hold_us == 300000);
  AMT_CHECK (info.r_max_us == 800000);
  /* next: the CLR's unanswered report */
  amcc_tfmcc_sender_fill_info (tx, 2400 * MS, &info);
  AMT_CHECK (info.has_echo && info.echo_ssrc == 1 && info.echo_is_clr && info.echo_ts_us == 4242);
  AMT_CHECK (info.echo_hold_us == 1400000);
  /* R_max decays at the round end to max(0.9 R_max, largest RTT of the round) = 0.8 (round 0
   * saw the 0.8 s sample); the next round saw none: R_max stays */
  amcc_tfmcc_sender_rate (tx, 3 * S);
  AMT_NEAR (st (tx).r_max_s, 0.8, 1e-6);
  r.echo_ts_us = us32 (3700 * MS);
  r.echo_hold_us = 100000;
  r.fb_nr = 1;
  amcc_tfmcc_sender_on_report (tx, 4 * S, 1, &r);      /* CLR RTT 0.2 in round 1 */
  o.has_echo = false;
  o.fb_nr = 1;
  amcc_tfmcc_sender_on_report (tx, 4100 * MS, 2, &o); /* non-CLR feedback: round ends after T */
  amcc_tfmcc_sender_rate (tx, 3 * S + 4800 * MS);     /* T = 6 * 0.8 = 4.8 s */
  AMT_CHECK (st (tx).fb_nr == 2);
  AMT_NEAR (st (tx).r_max_s, 0.72, 1e-6);             /* max(0.9 * 0.8, 0.2) */
  /* bogus echoes (negative RTT) are ignored */
  r.echo_ts_us = us32 (9 * S);
  amcc_tfmcc_sender_on_report (tx, 8 * S, 1, &r);
  AMT_NEAR (st (tx).clr_rtt_s, 0.2, 1e-6);
  amcc_tfmcc_sender_free (tx);
}

static void test_bad_reports (void)
{
  struct amcc_tfmcc_sender *tx = mk (0);
  struct amcc_tfmcc_report r = rep (NAN, false);
  amcc_tfmcc_sender_on_report (tx, 1, 1, &r);
  AMT_CHECK (!st (tx).has_clr && st (tx).reports == 0);
  r = rep (-5, false);
  amcc_tfmcc_sender_on_report (tx, 2, 1, &r);
  AMT_CHECK (!st (tx).has_clr);
  amcc_tfmcc_sender_on_report (tx, 3, 1, NULL);
  amcc_tfmcc_sender_on_report (NULL, 3, 1, &r);
  AMT_NEAR (amcc_tfmcc_sender_rate (tx, 4), 8 * SZ / RMAX, 1e-9);
  amcc_tfmcc_sender_free (tx);
}

int main (void)
{
  AMT_RUN (test_initial);
  AMT_RUN (test_clr_cases);
  AMT_RUN (test_slowstart_ends_on_any_loss);
  AMT_RUN (test_slowstart_round_minimum);
  AMT_RUN (test_clr_timeouts);
  AMT_RUN (test_clr_grace);
  AMT_RUN (test_feedback_rounds);
  AMT_RUN (test_clr_leaves);
  AMT_RUN (test_rtt_echo_and_rmax);
  AMT_RUN (test_bad_reports);
  return amt_summary ();
}
